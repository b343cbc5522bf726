"""ctx's output edge: declared formats, `auto`, the injectable environment, short ids."""
from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from ctx.cli.app import app
from cuectx.output import Environment, use_environment

runner = CliRunner()


def ctx(*args, input=None):
    return runner.invoke(app, list(args), input=input)


@pytest.mark.parametrize("args", [
    ["view", "list", "-f", "markdown"], ["status", "-f", "ids"], ["compose", "-f", "table"],
    ["compose", "-f", "auto"], ["view", "show", "default", "-f", "ids"],
    ["session", "list", "-f", "markdown"], ["search", "x", "-f", "markdown"],
    ["requests", "list", "-f", "markdown"], ["list", "-f", "yaml"],
])
def test_a_format_the_command_does_not_support_is_a_usage_error(args):
    r = ctx(*args)
    assert r.exit_code == 2, (args, r.stdout, r.stderr)
    assert r.stdout == "" and "--format" in r.stderr


def test_help_lists_only_the_supported_formats():
    r = ctx("view", "list", "--help")
    assert "auto|json|ndjson|table" in r.stdout and "markdown" not in r.stdout


def test_auto_is_a_table_on_a_terminal_and_ndjson_or_json_when_piped():
    assert ctx("add", "one").exit_code == 0
    assert ctx("add", "two").exit_code == 0
    piped = ctx("list")
    assert sorted(json.loads(line)["content"] for line in piped.stdout.splitlines()) == [
        "one", "two"]
    assert json.loads(ctx("status").stdout)["live_nodes"] == 2  # one object: JSON
    with use_environment(Environment(stdout_isatty=True, width=120)):
        table = ctx("list")
        status = ctx("status")
    assert table.exit_code == 0 and table.stdout.startswith("id ") and "───" in table.stdout and "two" in table.stdout
    assert status.stdout.startswith("database: ")
    assert all(len(line) <= 120 for line in table.stdout.splitlines())


def test_tables_show_ids_that_paste_back_even_for_nodes_made_together():
    ids = ctx("add", "--json", "-", input='{"content": "a"}\n{"content": "b"}\n'
              '{"content": "c"}\n').stdout.split()
    assert len(ids) == 3 and len({i[:8] for i in ids}) == 1  # same second: same 8 chars
    with use_environment(Environment(stdout_isatty=True, width=200)):
        table = ctx("list").stdout
        markdown = ctx("list", "-f", "markdown").stdout
    for node_id in ids:
        short = next(tok for tok in table.split() if node_id.startswith(tok)
                     and len(tok) >= 8)
        assert sum(other.startswith(short) for other in ids) == 1
        assert ctx("show", short, "-f", "json").stdout.count(node_id) >= 1
        assert f":{short}]" in markdown


def test_unique_prefixes_without_a_store():
    from ctx.core.ids import unique_prefixes

    got = unique_prefixes(["01ABCDEFGH1", "01ABCDEFGH2", "01ZZZZZZZZZ"])
    assert got == {"01ABCDEFGH1": "01ABCDEFGH1", "01ABCDEFGH2": "01ABCDEFGH2",
                   "01ZZZZZZZZZ": "01ZZZZZZ"}
