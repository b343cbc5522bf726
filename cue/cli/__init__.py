"""cue's command line: `app.py` holds the Typer app and the command table (every command →
its module); one module per top-level command beside it; `output.py` and `options.py` are
what the commands share. Nothing outside cue/cli/ imports it but `cue/__main__.py`."""
