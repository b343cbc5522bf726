"""User text is data, never markup: every table and panel of both programs shows what a
person or Claude wrote exactly as written, and exits 0 (STYLE.md §11).

Tables are rendered through the injectable output environment (a terminal 250 columns
wide, `--format auto`), so this exercises the table path that piping never reaches."""
from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cuectx.output import Environment, use_environment

MARK = "[/b] [link] [bold red]x[/bold red]"
FILE_MARK = "[link] [bold red]x[red]"  # a file name cannot hold "/"
runner = CliRunner()


@pytest.fixture
def terminal():
    with use_environment(Environment(stdout_isatty=True, width=250)) as env:
        yield env


def run(app, *args):
    r = runner.invoke(app, list(args))
    assert r.exit_code == 0, (args, r.stdout, r.stderr, r.exception)
    return r.stdout


# ---------------------------------------------------------------------------- ctx

@pytest.fixture
def ctx_store(ctx_bin, tmp_path):
    """A node, a session and a request record, each holding MARK wherever text is shown."""
    from ctx.cli.app import app

    node_id = run(app, "add", "--global", "--type", "fact", "--tag", "tier:pinned",
                  "--meta", f"note={MARK}", f"remember {MARK} this").strip()
    env = {**os.environ, "CTX_SEMANTIC": "off"}
    for event, payload in (
            ("session-start", {"session_id": "s-mark", "hook_event_name": "SessionStart",
                               "source": "startup", "cwd": str(tmp_path)}),
            ("prompt-submit", {"session_id": "s-mark", "hook_event_name": "UserPromptSubmit",
                               "prompt": f"what about {MARK}?", "cwd": str(tmp_path)})):
        proc = subprocess.run([ctx_bin, "hook", event], input=json.dumps(payload), text=True,
                              capture_output=True, env=env, timeout=60, check=False)
        assert proc.returncode == 0, proc.stderr
    return node_id


def test_ctx_tables_show_user_text_verbatim(ctx_store, terminal):
    from ctx.cli.app import app

    assert MARK in run(app, "list")
    assert MARK in run(app, "query", "type:fact")
    shown = run(app, "show", ctx_store)
    assert f"remember {MARK} this" in shown and MARK in shown.split("metadata:")[1]
    assert MARK in run(app, "search", "--mode", "keyword", "remember")
    session = run(app, "session", "show")
    assert "remember [/b] [link]" in session  # the item's name, cut from the content
    assert MARK in run(app, "requests", "list")
    assert MARK in run(app, "requests", "show", "--last")
    assert "───" in run(app, "list")  # it really was the table (its header rule)
    run(app, "add", "--global", f"the {MARK} port is 1")
    run(app, "add", "--global", f"the {MARK} port is 2")
    doctor = runner.invoke(app, ["doctor", "--no-vectors", "--kind", "contradiction"])
    assert doctor.exit_code == 1 and "[/b]" in doctor.stdout and "[link]" in doctor.stdout


def test_ctx_markdown_and_status_are_plain_text(ctx_store, terminal):
    from ctx.cli.app import app

    assert f"remember {MARK} this" in run(app, "list", "-f", "markdown")
    assert "database:" in run(app, "status")


# ---------------------------------------------------------------------------- cue

def _keyframes_with_marked_names(src: Path, dst: Path, count: int = 4) -> Path:
    dst.mkdir(parents=True)
    for frame in sorted(src.iterdir())[:count]:
        shutil.copy(frame, dst / f"{frame.stem} {FILE_MARK}{frame.suffix}")
    return dst


def test_cue_tables_show_user_text_verbatim(tmp_path, terminal):
    from bench.sessions import make_activity
    from cue.cli.app import app
    from cue.core import db, paths

    act = make_activity(tmp_path / "act", 1_763_766_000.0)
    kdir = _keyframes_with_marked_names(act.keyframes_dir, tmp_path / "marked")
    (tmp_path / "no-events").mkdir()
    selected = run(app, "select", "--keyframes", str(kdir), "--events", str(tmp_path / "no-events"),
                   "--start", str(act.start), "--end", str(act.start + 60))
    assert FILE_MARK in selected and "───" in selected  # the table (its header rule)

    run(app, "pause", "--reason", MARK)
    assert MARK in run(app, "status")

    conn = db.connect()
    conn.execute("INSERT INTO digests (created_at, window_start, window_end, status, backend, "
                 "model, summary, frame_count, event_count) VALUES (1, 0, 1, 'ok', 'local', ?, ?, "
                 "1, 1)", (MARK, f"worked on {MARK}"))
    conn.execute("INSERT INTO memory (created_at, content, backend, model, digest_count) "
                 "VALUES (2, ?, 'local', ?, 1)", (f"# Memory\n{MARK}\n", MARK))
    conn.close()
    assert f"worked on {MARK}" in run(app, "digests", "list")
    assert MARK in run(app, "memory", "history")

    run(app, "config", "set", "server.model", MARK)
    assert MARK in run(app, "config", "show")
    assert paths.db_path().exists()


def test_cue_lists_are_ndjson_when_piped_and_tables_on_a_terminal(tmp_path):
    from cue.cli.app import app

    piped = runner.invoke(app, ["config", "show"])
    assert piped.exit_code == 0
    rows = [json.loads(line) for line in piped.stdout.splitlines()]
    assert {"digest.backend", "anthropic_api_key"} <= {r["key"] for r in rows}
    with use_environment(Environment(stdout_isatty=True, width=200)):
        table = runner.invoke(app, ["config", "show"])
    assert table.stdout.startswith("# ") and "digest.backend" in table.stdout
    assert runner.invoke(app, ["digests", "list", "-f", "markdown"]).exit_code == 2


def test_a_piped_table_request_is_still_literal(ctx_bin):
    """The real process, `-f table` into a pipe: the same literal text."""
    subprocess.run([ctx_bin, "add", f"piped {MARK}"], check=True, capture_output=True)
    proc = subprocess.run([ctx_bin, "list", "-f", "table"], capture_output=True, text=True,
                          env={**os.environ, "COLUMNS": "250"}, check=False)
    assert proc.returncode == 0 and f"piped {MARK}" in proc.stdout, proc.stderr


def test_sqlite_rows_untouched(ctx_store):
    from ctx.core import paths

    conn = sqlite3.connect(paths.db_path())
    assert conn.execute("SELECT content FROM nodes").fetchone()[0] == f"remember {MARK} this"
