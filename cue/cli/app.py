"""The `cue` command line: the Typer app and its command table (wiring only).

Every top-level command, and the module that holds it, is in COMMANDS below; each module
under cue/cli/ is one command (or one command group) and only wires options to the
packages that do the work (cue.select, cue.digest, cue.pii, cue.record, …).
"""
from __future__ import annotations

from typing import Annotated, ClassVar

import typer

from cue.cli import (
    config,
    digest,
    digests,
    doctor,
    memory,
    pause,
    prune,
    record,
    scrub,
    select,
    status,
    suggest,
)
from cue.core import settings
from cuectx.cli import EdgeGroup, set_traceback
from cuectx.cli import run as run_app

# command → where it lives (a function, or a Typer group of subcommands). The order is the
# order of `cue --help`.
COMMANDS: tuple[tuple[str, object], ...] = (
    ("record", record.record_command),
    ("doctor", doctor.doctor_command),
    ("digest", digest.digest_command),
    ("status", status.status_command),
    ("digests", digests.app),  # list, show
    ("memory", memory.app),  # (update), show, history
    ("suggest", suggest.suggest_command),
    ("pause", pause.pause_command),
    ("resume", pause.resume_command),
    ("prune", prune.prune_command),
    ("select", select.select_command),
    ("scrub", scrub.scrub_command),
    ("config", config.app),  # show, get, set, unset
)
# The task `cue --help` lists each command under (a command not named here: "Commands").
START, HISTORY, CAPTURE, PARTS = ("Start here", "What you did", "Capture", "The parts, one by one")
SECTIONS = {"record": START, "doctor": START, "digest": START, "status": START,
            "digests": HISTORY, "memory": HISTORY, "suggest": HISTORY,
            "pause": CAPTURE, "resume": CAPTURE, "prune": CAPTURE,
            "select": PARTS, "scrub": PARTS, "config": PARTS}


class CueGroup(EdgeGroup):
    """Errors become one `Error: …` line on stderr and a documented exit code
    (cuectx.cli.EdgeGroup); CUE_DEBUG=1 or --traceback shows the traceback instead."""

    debug_env = settings.DEBUG
    sections: ClassVar[dict[str, str]] = SECTIONS

    def debugging(self) -> bool:
        return settings.debug()

    def translate_sqlite(self, exc):
        from cue.core import db, paths

        return db.translate(exc, paths.db_path())


app = typer.Typer(
    name="cue",
    cls=CueGroup,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


@app.callback()
def _root(
    traceback: Annotated[bool, typer.Option(
        "--traceback", help="Show the full traceback on errors (same as CUE_DEBUG=1).")] = False,
) -> None:
    """Turn recent screen activity into a short, scrubbed narrative digest.

    Start here:

    \b
      cue record   capture keyframes and window activity (Linux X11)
      cue doctor   which model backend will run, and whether it can
      cue digest   the last 15 minutes in a few sentences
      cue digest --format json | ctx add --json -     into ctx's memory

    Each command's --help has examples; the README is the manual.
    """
    set_traceback(traceback, settings.DEBUG)


for name, target in COMMANDS:
    if isinstance(target, typer.Typer):
        app.add_typer(target, name=name)
    else:
        app.command(name)(target)


def run() -> None:
    """Run the app; errors become one `Error: …` line on stderr (cuectx.cli)."""
    run_app(app)
