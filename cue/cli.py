"""`cue` command line: wiring only. Each command group lives in its own cli_* module."""
from __future__ import annotations

import os
import sys

import typer

from cue import cli_digest, cli_memory, cli_record, cli_scrub, cli_select
from cue.errors import CueError

app = typer.Typer(
    name="cue",
    help="Turn recent screen activity into a short, scrubbed narrative digest.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)



@app.callback()
def _root() -> None:
    """Turn recent screen activity into a short, scrubbed narrative digest.

    Example: cue digest --since 15m --format json | ctx add --json -
    """


for module in (cli_select, cli_scrub, cli_digest, cli_memory, cli_record):
    module.register(app)


def run() -> None:
    """Run the app; domain errors become one `Error: …` line on stderr."""
    try:
        app(standalone_mode=True)
    except CueError as exc:
        if os.environ.get("CUE_DEBUG"):
            raise
        print(f"Error: {exc}", file=sys.stderr)
        sys.exit(int(exc.exit_code))
    except BrokenPipeError:  # `cue digests | head`: the reader went away
        sys.stderr.close()
        sys.exit(0)
    except OSError as exc:  # a file to read or write: missing folder, permissions, disk full
        if os.environ.get("CUE_DEBUG"):
            raise
        where = f": {exc.filename}" if exc.filename else ""
        print(f"Error: {exc.strerror or exc}{where}", file=sys.stderr)
        sys.exit(1)
