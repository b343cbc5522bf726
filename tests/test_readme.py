"""Docs can't drift: every command of both programs is in the README, with a --help example."""
from __future__ import annotations

import re
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


def mentions(text: str, path: str) -> bool:
    """Is the command `path` (e.g. "ctx show") written in `text` as a whole command name: not
    as the start of a longer one (`cue digests`, `ctx list-views`, `ctx list/query`)?"""
    words = r"\s+".join(re.escape(w) for w in path.split())
    return re.search(rf"(?<![\w./-]){words}(?![\w/-])", text) is not None


@pytest.mark.parametrize("path", [p for p, _ in all_commands()])
def test_every_command_is_in_the_readme(path):
    assert mentions(README, path), f"README.md does not mention `{path}`"


def test_a_longer_name_does_not_count_as_the_command():
    """The check can fail: what only starts like the command is not the command."""
    assert mentions("run `cue digest --day 2026-11-20`", "cue digest")
    assert mentions("ctx show 01JD3K8W", "ctx show") and mentions("(ctx add)", "ctx add")
    assert mentions("ctx  update X", "ctx update") and mentions("`ctx list`", "ctx list")
    for text, path in [("cue digests show X", "cue digest"), ("ctx list-views", "ctx list"),
                       ("`ctx list/query/search`", "ctx list"), ("ctx project list", "ctx list"),
                       ("the ctx added it", "ctx add"), ("xctx show", "ctx show"),
                       ("path/ctx update", "ctx update"), ("ctx showcase", "ctx show")]:
        assert not mentions(text, path), (text, path)


@pytest.mark.parametrize("path,cmd", all_commands())
def test_every_command_help_has_an_example(path, cmd):
    assert "Example" in (cmd.help or ""), f"`{path} --help` has no example"


def test_readme_shows_the_two_setup_commands():
    assert "make test" in README and "make demo" in README
