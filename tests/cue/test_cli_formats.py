"""One edge for both programs: every cue command declares its --format with the shared
option (cuectx.cli.format_option over cue.cli.output.Format), the names mean the same in ctx
and cue, and a format a command does not support is a usage error (exit 2)."""
from __future__ import annotations

import json

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


def _two_digests():
    from cue.core.db import connect
    from cue.digest import Digest, store_digest

    conn = connect()
    common = {"id": None, "created_at": 1_763_766_000.0, "window_start": 1_763_765_000.0,
              "model": None, "fell_back": False, "frame_count": 8, "event_count": 120}
    store_digest(conn, Digest(window_end=1_763_765_900.0, status="ok", backend="cloud",
                              summary="First digest.", **common))
    store_digest(conn, Digest(window_end=1_763_766_000.0, status="skipped", backend="local",
                              summary="[skipped: no model]", **common))
    conn.close()


def test_digests_options_before_list_apply_to_it(tmp_path, monkeypatch):
    """`cue digests -f json list` used to print the piped default (NDJSON), the -f dropped."""
    monkeypatch.setenv("CUE_HOME", str(tmp_path))
    _two_digests()
    before = CliRunner().invoke(app, ["digests", "-f", "json", "-n", "1", "list"])
    after = CliRunner().invoke(app, ["digests", "list", "-f", "json", "-n", "1"])
    assert before.exit_code == 0, before.output
    assert before.stdout == after.stdout
    assert [d["status"] for d in json.loads(before.stdout)] == ["skipped"]
    split = CliRunner().invoke(app, ["digests", "--status", "ok", "list", "-f", "json"])
    assert [d["summary"] for d in json.loads(split.stdout)] == ["First digest."]
    same = CliRunner().invoke(app, ["digests", "-f", "json", "list", "-f", "json"])
    assert same.exit_code == 0
    assert same.stdout == json.dumps(json.loads(same.stdout), ensure_ascii=False) + "\n"


@pytest.mark.parametrize(("args", "says"), [
    (["digests", "-f", "json", "list", "-f", "ndjson"], "given twice"),
    (["digests", "-n", "1", "show", "latest"], "--limit applies to `cue digests list`"),
    (["digests", "--status", "ok", "show", "latest"], "--status applies to"),
    (["digests", "-f", "table", "show", "latest"], "text or json"),
])
def test_digests_options_before_a_subcommand_that_cannot_take_them_are_usage_errors(
        tmp_path, monkeypatch, args, says):
    monkeypatch.setenv("CUE_HOME", str(tmp_path))
    _two_digests()
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2 and result.stdout == "", result.output
    assert says in result.stderr


def test_digests_json_before_show_applies(tmp_path, monkeypatch):
    monkeypatch.setenv("CUE_HOME", str(tmp_path))
    _two_digests()
    result = CliRunner().invoke(app, ["digests", "-f", "json", "show", "latest"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["summary"] == "[skipped: no model]"


def test_memory_options_before_a_subcommand(tmp_path, monkeypatch):
    """`cue memory -f json history` is `cue memory history -f json`; the update's own options
    (--since, --backend, --dry-run) before `show`/`history` are usage errors, not dropped."""
    monkeypatch.setenv("CUE_HOME", str(tmp_path))
    result = CliRunner().invoke(app, ["memory", "-f", "json", "history"])
    assert result.exit_code == 0, result.output
    assert result.stdout == "[]\n"
    for args, says in ((["memory", "--since", "3d", "show"], "--since applies to `cue memory`"),
                       (["memory", "--dry-run", "history"], "--dry-run applies to"),
                       (["memory", "-f", "text", "history"], "not text")):
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 2 and result.stdout == "", (args, result.output)
        assert says in result.stderr, (args, result.stderr)
    shown = CliRunner().invoke(app, ["memory", "-f", "json", "show"])
    assert shown.exit_code == 3 and "no memory yet" in shown.stderr  # reached show itself
