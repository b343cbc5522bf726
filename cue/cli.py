"""`cue` command line: wiring only. Each command group lives in its own cli_* module."""
from __future__ import annotations

from typing import Annotated

import typer

from cue import cli_digest, cli_memory, cli_record, cli_scrub, cli_select
from cuectx.cli import EdgeGroup, set_traceback
from cuectx.cli import run as run_app


class CueGroup(EdgeGroup):
    """Errors become one `Error: …` line on stderr and a documented exit code
    (cuectx.cli.EdgeGroup); CUE_DEBUG=1 or --traceback shows the traceback instead."""

    debug_env = "CUE_DEBUG"

    def translate_sqlite(self, exc):
        from cue import db, paths

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
    set_traceback(traceback, "CUE_DEBUG")


for module in (cli_select, cli_scrub, cli_digest, cli_memory, cli_record):
    module.register(app)


def run() -> None:
    """Run the app; errors become one `Error: …` line on stderr (cuectx.cli)."""
    run_app(app)
