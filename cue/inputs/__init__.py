"""cue.inputs: what cue reads, whoever captured it (the input contract, README).

    keyframes.py  screenshot files and their capture times (from the file name)
    events.py     the MCAP event log: window, input and pause events (reader and writer)
    pauses.py     privacy pauses (`cue pause`, /cue/pause events) as time intervals
"""
