"""Docs can't drift: every command of both programs is in the README, with a --help example."""
from __future__ import annotations

from pathlib import Path

import pytest
import typer

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def commands(app: typer.Typer, prefix: str) -> list[tuple[str, object]]:
    group = typer.main.get_command(app)
    out = []

    def walk(cmd, path):
        names = cmd.list_commands(None) if hasattr(cmd, "list_commands") else []
        if names:  # get_command also loads ctx's lazily registered groups
            for name in names:
                sub = cmd.get_command(None, name)
                if not sub.hidden:
                    walk(sub, f"{path} {name}")
        else:
            out.append((path, cmd))

    walk(group, prefix)
    return out


def all_commands():
    from ctx.cli.app import app as ctx_app
    from cue.cli.app import app as cue_app

    return commands(ctx_app, "ctx") + commands(cue_app, "cue")


@pytest.mark.parametrize("path", [p for p, _ in all_commands()])
def test_every_command_is_in_the_readme(path):
    assert f"{path}" in README, f"README.md does not mention `{path}`"


@pytest.mark.parametrize("path,cmd", all_commands())
def test_every_command_help_has_an_example(path, cmd):
    assert "Example" in (cmd.help or ""), f"`{path} --help` has no example"


def test_readme_shows_the_two_setup_commands():
    assert "make test" in README and "make demo" in README
