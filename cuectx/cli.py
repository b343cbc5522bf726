"""The Typer side of the edge both programs share (imported only on their CLI paths, never
by hooks).

`EdgeGroup` runs every command inside cuectx.edge.error_edge: what a command raises becomes
one `Error: …` line on stderr, nothing more on stdout, and the documented exit code
(cuectx.exits.ExitCode) — a domain error its sentence, a sqlite3 error the program's sentence
for it (`translate_sqlite`), an OSError the reason and the file. `--traceback` (each
program's root option, `set_traceback`) or `CTX_DEBUG=1` / `CUE_DEBUG=1` re-raise instead, so
the full traceback is shown. `run()` treats a closed pipe (`… | head`) as success.
"""
from __future__ import annotations

import os
import sqlite3
import sys
from collections.abc import Callable
from enum import Enum
from typing import Annotated, ClassVar

import typer
from typer.core import TyperGroup

from cuectx.edge import (
    error_edge,
    set_traceback,  # noqa: F401 — re-exported for the programs' root options
)
from cuectx.errors import Error


class EdgeGroup(TyperGroup):
    """A TyperGroup with the shared error edge and help that teaches. Subclasses set
    `debug_env`, `translate_sqlite` and `sections` (command → the task it is listed under
    in `--help`)."""

    debug_env = "CUECTX_DEBUG"
    sections: ClassVar[dict[str, str]] = {}

    def get_command(self, ctx, name):
        command = super().get_command(ctx, name)
        if command is not None:
            teach(command)
        return command

    def format_commands(self, ctx, formatter):
        """Commands grouped by task (`sections`), each with its whole one-line description."""
        groups: dict[str, list[tuple[str, str]]] = {}
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                groups.setdefault(self.sections.get(name, "Commands"), []).append(
                    (name, one_line(command)))
        for heading, rows in groups.items():
            with formatter.section(heading):
                formatter.write_dl(rows)

    def translate_sqlite(self, exc: sqlite3.Error) -> Error:
        from cuectx.sqlite import translate

        return translate(exc, "the database")

    def invoke(self, ctx):
        with error_edge(self.translate_sqlite, self.debug_env):  # cuectx.edge: the one edge
            return super().invoke(ctx)


def one_line(command) -> str:
    """A command's first paragraph as one line: the whole description, never cut with "..."."""
    text = command.short_help or command.help or ""
    first = " ".join(text.replace("\b", "").strip().split("\n\n")[0].split())
    if len(first) > 120 and ". " in first[:-1]:  # a long paragraph: its first sentence
        first = first[: first.index(". ") + 1]
    return first


def _format_subcommands(self, ctx, formatter):
    rows = []
    for name in self.list_commands(ctx):
        command = self.get_command(ctx, name)
        if command is not None and not command.hidden:
            teach(command)
            rows.append((name, one_line(command)))
    if rows:
        with formatter.section("Commands"):
            formatter.write_dl(rows)


def teach(command) -> None:
    """Make a command's `--help` teach: its `Example:` lines each stay on their own line
    (click would run them into one paragraph), and a group lists its subcommands with whole
    descriptions. Idempotent; applied when a command is looked up."""
    import types

    if getattr(command, "_taught", False):
        return
    command._taught = True
    if command.help:
        paragraphs = command.help.split("\n\n")
        command.help = "\n\n".join(
            "\b\n" + p.strip("\n") if any(line.strip().startswith(("Example", "$ "))
                                        for line in p.splitlines()) and not p.startswith("\b")
            else p for p in paragraphs)
    if hasattr(command, "list_commands") and not isinstance(command, EdgeGroup):
        command.format_commands = types.MethodType(_format_subcommands, command)


def run(app: Callable[[], object]) -> None:
    """Run a Typer app as a program: a reader that went away (`ctx list | head`) is not an
    error."""
    try:
        app()
    except BrokenPipeError:
        # Python's advice: point stdout at devnull so the flush at exit does not fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(0)


def format_option(formats: type[Enum], *supported: str, help: str | None = None,
                  auto: bool = True):
    """The `--format/-f` option of one command, declaring the formats it supports (sqlite-utils
    style): `auto` plus `supported`, as a Typer choice, so any other value is a usage error
    (exit 2) and `--help` lists exactly these. The command receives a str enum member equal
    to the format's name (`fmt == Format.json` holds); `formats(fmt)` gives the program's.

        fmt: format_option(Format, "json", "ndjson", "table") = Format.auto
    """
    names = (["auto"] if auto else []) + [s for s in supported if s != "auto"]
    for name in names:
        formats(name)  # each must be a member of the program's Format enum
    choice = Enum(f"{formats.__name__}_" + "_".join(names), {n: n for n in names}, type=str)

    text = help or (f"Output format: {', '.join(names)}" + (
        f" (auto: table on a terminal, else {'ndjson' if 'ndjson' in names else 'json'})."
        if auto else "."))
    return Annotated[choice, typer.Option("--format", "-f", help=text,
                                          show_default=False)]
