"""`ctx` command line: the Typer app, its root options and the command table.

Wiring only. `COMMANDS` below says which module holds each command; each module has a
`register(app)` and is imported only when one of its commands runs (or for `--help`).
Shared CLI state (root options, the store a command opens, the scope it reads) is
ctx/cli/state.py. The work itself is in ctx/core, ctx/query, ctx/semantic, ctx/claude.

Every command opens the database, does one job and exits. stdout is data; messages and
errors go to stderr; errors exit non-zero (cuectx.exits.ExitCode).
"""
from __future__ import annotations

from typing import Annotated, ClassVar

import typer

from ctx.cli.state import start, translate_sqlite
from cuectx.cli import EdgeGroup
from cuectx.cli import run as run_app

# Every command, the module that holds it and the task `ctx --help` lists it under, in the
# order `ctx --help` lists them. A module is imported only when one of its commands runs:
# converting Typer commands costs a few milliseconds on every `ctx` run, and most runs are
# `add`, `query` or a hook.
START, MEMORY, CONTEXT, UPKEEP = ("Start here", "Remember and find", "What Claude is given",
                                  "Projects, sharing and upkeep")
COMMANDS = {
    "install": ("ctx.cli.install", START),
    "ui": ("ctx.cli.ui", START),
    "status": ("ctx.cli.memory", START),
    "add": ("ctx.cli.nodes", MEMORY),
    "list": ("ctx.cli.nodes", MEMORY),
    "show": ("ctx.cli.nodes", MEMORY),
    "query": ("ctx.cli.nodes", MEMORY),
    "search": ("ctx.cli.semantic", MEMORY),
    "update": ("ctx.cli.nodes", MEMORY),
    "tag": ("ctx.cli.nodes", MEMORY),
    "untag": ("ctx.cli.nodes", MEMORY),
    "link": ("ctx.cli.nodes", MEMORY),
    "supersede": ("ctx.cli.nodes", MEMORY),
    "rm": ("ctx.cli.nodes", MEMORY),
    "compose": ("ctx.cli.memory", CONTEXT),
    "view": ("ctx.cli.views", CONTEXT),
    "requests": ("ctx.cli.semantic", CONTEXT),
    "session": ("ctx.cli.semantic", CONTEXT),
    "index": ("ctx.cli.semantic", CONTEXT),
    "project": ("ctx.cli.project", UPKEEP),
    "sync": ("ctx.cli.sync", UPKEEP),
    "doctor": ("ctx.cli.doctor", UPKEEP),
    "export": ("ctx.cli.memory", UPKEEP),
    "import": ("ctx.cli.memory", UPKEEP),
    "mcp": ("ctx.cli.mcp", UPKEEP),
}
# (`ctx hook …` never reaches Typer: ctx/__main__.py dispatches it to ctx/claude/hooks.)


class CtxGroup(EdgeGroup):
    """Loads COMMANDS on first use; errors become one `Error: …` line on stderr and a
    documented exit code (cuectx.cli.EdgeGroup)."""

    debug_env = "CTX_DEBUG"
    sections: ClassVar[dict[str, str]] = {name: section for name, (_, section) in COMMANDS.items()}

    def translate_sqlite(self, exc):
        return translate_sqlite(exc)

    def list_commands(self, ctx):
        return list(COMMANDS)

    def get_command(self, ctx, name):
        if name not in self.commands and name in COMMANDS:
            self._load(COMMANDS[name][0])
        return super().get_command(ctx, name)

    def _load(self, module_name: str) -> None:
        import importlib

        sub = typer.Typer(rich_markup_mode=None)
        importlib.import_module(module_name).register(sub)
        group = typer.main.get_command(sub)
        for name, command in getattr(group, "commands", {group.name: group}).items():
            self.add_command(command, name)


app = typer.Typer(
    name="ctx",
    cls=CtxGroup,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


@app.callback()
def _root(
    db_path: Annotated[str | None, typer.Option("--db", envvar="CTX_DB", metavar="PATH",
                                                   help="Database file (default ~/.ctx/store.db).")] = None,
    traceback: Annotated[bool, typer.Option("--traceback", help="Show the full traceback on errors.")] = False,
    project: Annotated[str | None, typer.Option(
        "--project", "-P", metavar="NAME",
        help="Work in this project (+ global memory) instead of the current folder's; "
             "`global` for global memory only.")] = None,
    all_projects: Annotated[bool, typer.Option(
        "--all-projects", help="Read every project's memory (list, query, search, compose, status).")] = False,
) -> None:
    """Persistent, inspectable memory for Claude Code.

    Memory is scoped: commands read the current folder's project (its git repository) plus
    global memory, and `add` stores into that project.

    Start here:

    \b
      ctx install --plugin   wire ctx into Claude Code (hooks, skill, MCP server)
      claude                 a session in a repository: Claude remembers as it works
      ctx ui                 see the memory and what each prompt was given
      ctx add -t fact --tag tier:reference "Staging DB listens on port 6543"

    Each command's --help has examples; the README is the manual.
    """
    start(db_path, project, all_projects, traceback)


def run() -> None:
    run_app(app)
