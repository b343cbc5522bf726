"""`cue record`: capture what cue reads — keyframes and an MCAP event log — privately.

    backend.py     the CaptureBackend interface a platform fills
    platform.py    which backend this machine has (`detect()`), or why none
    x11.py         Linux X11: mss screens, python-xlib PropertyNotify windows, RECORD counts
    exclusions.py  exclusion rules (apps, title regexes), decided before any capture
    writer.py      atomic keyframe files, hourly MCAP files, the recorder's status file
    loop.py        the capture loop: change detection, heartbeat, pause, exclusions, prune
    prune.py       keep the capture folders within record.keep and record.max_disk
    status.py      the recorder's part of `cue status`
"""
