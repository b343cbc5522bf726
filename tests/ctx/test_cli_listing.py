"""ctx's command table (ctx/cli/app.py: CtxGroup) converts only the command that runs or
whose --help is asked; `ctx --help` lists every command from what its module registered. The
text must be exactly what converting every command gives."""
from __future__ import annotations

import importlib
import os
import subprocess
import sys

import pytest
import typer

from ctx.cli.app import COMMANDS, Listed, app
from cuectx.cli import one_line, teach


def fresh_group():
    group = typer.main.get_command(app)
    return group, group.context_class(group, info_name="ctx")


def whole_module(name: str):
    """`name` as the table used to convert it: its whole module at once."""
    sub = typer.Typer(rich_markup_mode=None)
    importlib.import_module(COMMANDS[name][0]).register(sub)
    command = typer.main.get_command(sub)
    command = getattr(command, "commands", {name: command})[name]
    teach(command)
    return command


def test_the_listing_converts_nothing_and_reads_what_conversion_gives():
    listed, ctx = fresh_group()
    text = listed.get_help(ctx)
    assert listed.commands == {}  # nothing converted to list them
    converted, ctx2 = fresh_group()
    for name in COMMANDS:
        converted.get_command(ctx2, name)
    assert set(converted.commands) == set(COMMANDS)
    assert text == converted.get_help(ctx2)
    for name in COMMANDS:
        assert text.count(f"\n  {name} ") == 1, name


@pytest.mark.parametrize("name", list(COMMANDS))
def test_each_listed_line_is_the_converted_commands(name):
    group, _ = fresh_group()
    info = group._registered(COMMANDS[name][0])[1][name]
    command = whole_module(name)
    assert (one_line(Listed.of(info)), Listed.of(info).hidden) == (one_line(command),
                                                                   command.hidden)


@pytest.mark.parametrize("name", list(COMMANDS))
def test_a_command_alone_is_converted_as_its_whole_module_was(name):
    group, ctx = fresh_group()
    alone = group.get_command(ctx, name)
    assert list(group.commands) == [name]  # the module's other commands stay unconverted
    whole = whole_module(name)
    assert [p.opts for p in alone.params] == [p.opts for p in whole.params]
    sub_ctx = alone.context_class(alone, info_name=name, parent=ctx)
    assert alone.get_help(sub_ctx) == whole.get_help(sub_ctx)
    for sub in getattr(whole, "commands", {}):  # a group's subcommands too (ctx view create)
        a, w = alone.get_command(sub_ctx, sub), whole.get_command(sub_ctx, sub)
        leaf = a.context_class(a, info_name=sub, parent=sub_ctx)
        assert a.get_help(leaf) == w.get_help(leaf), sub


@pytest.mark.parametrize("args", [["--help"], ["query", "--help"], []])
def test_a_first_help_run_loads_no_rich_and_lists_the_commands(ctx_bin, tmp_path, args):
    """Typer's rich markup is off (rich_markup_mode=None): rendering the help needs no rich."""
    proc = subprocess.run([sys.executable, "-X", "importtime", ctx_bin, *args],
                          capture_output=True, timeout=60, check=False,
                          env={**os.environ, "CTX_HOME": str(tmp_path / "home")})
    lines = proc.stderr.decode().splitlines()
    loaded = {line.rsplit("|", 1)[-1].strip() for line in lines if line.startswith("import time:")}
    assert "typer" in loaded and not {m for m in loaded if m.split(".")[0] == "rich"}
    text = proc.stdout.decode() if args else "\n".join(
        line for line in lines if not line.startswith("import time:"))
    assert proc.returncode == (0 if args else 2) and "Usage: ctx" in text
    if args != ["query", "--help"]:
        assert all(f"\n  {name} " in text for name in COMMANDS)
