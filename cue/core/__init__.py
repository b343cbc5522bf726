"""cue.core: what every other cue package stands on; imports no other cue package.

    errors.py    CueError and its subclasses (exit codes: cuectx.exits)
    settings.py  every CUE_* environment variable is read here
    paths.py     where cue keeps its files (CUE_HOME)
    timespec.py  durations and times (15m, ISO-8601, unix seconds); sizes.py: 2GB, 500MiB
    config.py    config.toml + CUE_SECTION_KEY overrides, typed and validated (`cue config`)
    db.py        connect() and the migrations of cue.db
"""
