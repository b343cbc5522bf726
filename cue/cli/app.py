"""The `cue` command line: the Typer app and its command table (wiring only).

Every top-level command, and the module that holds it, is in COMMANDS below; each module
under cue/cli/ is one command (or one command group) and only wires options to the
packages that do the work (cue.select, cue.digest, cue.pii, cue.record, …).
"""
from __future__ import annotations

from typing import Annotated

import typer

from cue.cli import config, digest, digests, memory, pause, prune, record, scrub, select, status, suggest
from cue.core import settings
from cuectx.cli import EdgeGroup, set_traceback
from cuectx.cli import run as run_app

# command → where it lives (a function, or a Typer group of subcommands). The order is the
# order of `cue --help`.
COMMANDS: tuple[tuple[str, object], ...] = (
    ("select", select.select_command),
    ("pause", pause.pause_command),
    ("resume", pause.resume_command),
    ("status", status.status_command),
    ("scrub", scrub.scrub_command),
    ("digest", digest.digest_command),
    ("digests", digests.app),  # list, show
    ("config", config.app),  # show, get, set, unset
    ("memory", memory.app),  # (update), show, history
    ("suggest", suggest.suggest_command),
    ("record", record.record_command),
    ("prune", prune.prune_command),
)


class CueGroup(EdgeGroup):
    """Errors become one `Error: …` line on stderr and a documented exit code
    (cuectx.cli.EdgeGroup); CUE_DEBUG=1 or --traceback shows the traceback instead."""

    debug_env = settings.DEBUG

    def debugging(self) -> bool:
        return settings.debug()

    def translate_sqlite(self, exc):
        from cue.core import db, paths

        return db.translate(exc, paths.db_path())


app = typer.Typer(
    name="cue",
    cls=CueGroup,
    help="Turn recent screen activity into a short, scrubbed narrative digest.",
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

    Example: cue digest --since 15m --format json | ctx add --json -
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
