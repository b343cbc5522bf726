"""One edge for both programs: every cue command declares its --format with the shared
option (cuectx.cli.format_option over cue.cli.output.Format), the names mean the same in ctx
and cue, and a format a command does not support is a usage error (exit 2)."""
from __future__ import annotations

import pytest
import typer
from typer.testing import CliRunner

from cue.cli.app import app
from cue.cli.output import Format


def _commands():
    out = []

    def walk(cmd, path):
        out.append((path, cmd))
        for name in getattr(cmd, "list_commands", lambda _ctx: [])(None):
            walk(cmd.get_command(None, name), [*path, name])

    walk(typer.main.get_command(app), [])
    return [(p, c) for p, c in out if p]


FORMATTED = [(p, c) for p, c in _commands()
             if any(o.name == "format" for o in c.params)]


def test_every_command_that_prints_data_has_a_format():
    names = {" ".join(p) for p, _ in FORMATTED}
    assert {"select", "status", "pause", "resume", "scrub", "digest", "digests", "digests list",
            "digests show", "config show", "memory", "memory show", "memory history",
            "suggest", "record", "prune"} <= names


@pytest.mark.parametrize(("path", "command"), FORMATTED, ids=[" ".join(p) for p, _ in FORMATTED])
def test_formats_come_from_the_shared_option(path, command):
    option = next(o for o in command.params if o.name == "format")
    assert set(option.opts) == {"--format", "-f"}
    choices = list(option.type.choices)
    assert set(choices) <= {f.value for f in Format}
    lists = {"digests", "digests list", "memory history", "config show"}
    if " ".join(path) in lists:  # lists: the same four names as ctx's list commands
        assert choices == ["auto", "table", "json", "ndjson"]
    result = CliRunner().invoke(app, [*path, "--format", "markdown"])
    assert result.exit_code == 2 and "markdown" in result.output


def test_digests_alone_is_digests_list_with_its_options(tmp_path, monkeypatch):
    monkeypatch.setenv("CUE_HOME", str(tmp_path))
    result = CliRunner().invoke(app, ["digests", "-f", "json", "-n", "3"])
    assert result.exit_code == 0, result.output
    assert result.stdout == "[]\n"
