"""`ctx` command line: the Typer app, its root options and the command table.

Wiring only. `COMMANDS` below says which module holds each command; each module has a
`register(app)` and is imported only when one of its commands runs (or for `--help`).
Shared CLI state (root options, the store a command opens, the scope it reads) is
ctx/cli/state.py. The work itself is in ctx/core, ctx/query, ctx/semantic, ctx/claude.

Every command opens the database, does one job and exits. stdout is data; messages and
errors go to stderr; errors exit non-zero (cuectx.exits.ExitCode).
"""
from __future__ import annotations

import inspect
from typing import Annotated, ClassVar

import typer

from ctx.cli.state import start, translate_sqlite
from cuectx.cli import EdgeGroup
from cuectx.cli import run as run_app
from cuectx.value import Value

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
    "edit": ("ctx.cli.edit", MEMORY),
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
    "capture": ("ctx.cli.capture", CONTEXT),
    "project": ("ctx.cli.project", UPKEEP),
    "sync": ("ctx.cli.sync", UPKEEP),
    "doctor": ("ctx.cli.doctor", UPKEEP),
    "export": ("ctx.cli.memory", UPKEEP),
    "import": ("ctx.cli.memory", UPKEEP),
    "mcp": ("ctx.cli.mcp", UPKEEP),
    "model": ("ctx.cli.model", UPKEEP),
    "hook-server": ("ctx.cli.hook_server", UPKEEP),
}
# (`ctx hook …` never reaches Typer: ctx/__main__.py dispatches it to ctx/claude/hooks.)


class CtxGroup(EdgeGroup):
    """Loads COMMANDS on first use; errors become one `Error: …` line on stderr and a
    documented exit code (cuectx.cli.EdgeGroup).

    Converting a Typer command into a click command costs ~2 ms (Typer evaluates every
    parameter's annotation), so only the command that runs, or whose --help is asked, is
    converted. Listing them (`ctx --help`, a bare `ctx`) reads each one's help from what its
    module registered (`Listed`): the module is imported, nothing is converted."""

    debug_env = "CTX_DEBUG"
    sections: ClassVar[dict[str, str]] = {name: section for name, (_, section) in COMMANDS.items()}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._modules: dict[str, tuple[typer.Typer, dict[str, object]]] = {}
        self._listing = False

    def translate_sqlite(self, exc):
        return translate_sqlite(exc)

    def list_commands(self, ctx):
        return list(COMMANDS)

    def format_commands(self, ctx, formatter):
        """EdgeGroup's listing, from each command's `Listed` help (see the class)."""
        self._listing = True
        try:
            super().format_commands(ctx, formatter)
        finally:
            self._listing = False

    def get_command(self, ctx, name):
        if name not in self.commands and name in COMMANDS:
            if self._listing:
                return Listed.of(self._registered(COMMANDS[name][0])[1][name])
            self.add_command(self._convert(name), name)
        return super().get_command(ctx, name)

    def _registered(self, module_name: str) -> tuple[typer.Typer, dict[str, object]]:
        """The Typer app a command module registered its commands on (imported once), and
        its commands by name (each a Typer CommandInfo, or a TyperInfo for a group)."""
        if module_name not in self._modules:
            import importlib

            sub = typer.Typer(rich_markup_mode=None)
            importlib.import_module(module_name).register(sub)
            infos: dict[str, object] = {
                info.name or typer.main.get_command_name(info.callback.__name__): info
                for info in sub.registered_commands}
            for info in sub.registered_groups:
                infos[typer.main.solve_typer_info_defaults(info).name] = info
            self._modules[module_name] = sub, infos
        return self._modules[module_name]

    def _convert(self, name: str):
        """The click command `name`, converted from its module's registration as a whole
        module always was — a module of one command keeps the completion options Typer gives
        a one-command app — but without converting its other commands."""
        sub, infos = self._registered(COMMANDS[name][0])
        if len(infos) > 1:
            sub = typer.Typer(rich_markup_mode=None, add_completion=False)
            info = infos[name]
            if isinstance(info, typer.models.CommandInfo):
                sub.registered_commands.append(info)
            else:
                sub.registered_groups.append(info)
        command = typer.main.get_command(sub)
        return getattr(command, "commands", {name: command})[name]


class Listed(Value):
    """What the command listing reads of a command (cuectx.cli.one_line, `hidden`), taken as
    Typer's conversion takes it (typer.main.get_command_from_info, get_group_from_info)."""

    __slots__ = ("help", "hidden", "short_help")

    def __init__(self, help: str | None, short_help: str | None, hidden: bool) -> None:
        self.help = help
        self.short_help = short_help
        self.hidden = hidden

    @classmethod
    def of(cls, info) -> Listed:
        if isinstance(info, typer.models.CommandInfo):
            help_ = (inspect.getdoc(info.callback) if info.help is None
                     else inspect.cleandoc(info.help))
            return cls(help_, info.short_help, info.hidden)
        solved = typer.main.solve_typer_info_defaults(info)
        return cls(solved.help, solved.short_help, solved.hidden)


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
      ctx install --plugin   wire Claude Code to ctx (hooks, skill, MCP server)
      claude                 work in a repository; Claude remembers as it goes
      ctx ui                 the memory, and what each prompt was given
      ctx add -t fact --tag tier:reference "Staging DB is on port 6543"

    Each command's --help has examples; the README is the manual.
    """
    start(db_path, project, all_projects, traceback)


def run() -> None:
    run_app(app)
