"""Any of ctx's global options before `hook` keeps `ctx hook …` on the hook path: never
"No such command 'hook'" with exit 2 (Claude Code reads 2 as "block")."""
from __future__ import annotations

import json
import os
import subprocess

import pytest
import typer

from ctx.__main__ import GLOBAL_OPTIONS, hook_argv

PAYLOADS = {
    "session-start": {"session_id": "s1", "hook_event_name": "SessionStart", "source": "startup",
                      "cwd": "/tmp"},
    "prompt-submit": {"session_id": "s1", "hook_event_name": "UserPromptSubmit",
                      "prompt": "hello", "cwd": "/tmp"},
    "stop": {"session_id": "s1", "hook_event_name": "Stop", "cwd": "/tmp",
             "last_assistant_message": "Noted. <ctx:remember type=\"fact\">global opts ok"
                                       "</ctx:remember>"},
}


def global_option_forms(db: str) -> dict[str, list[str]]:
    return {
        "--db": ["--db", db], "--db=": [f"--db={db}"],
        "--project": ["--project", "api"], "--project=": ["--project=api"],
        "-P": ["-P", "api"], "-Papi": ["-Papi"],
        "--all-projects": ["--all-projects"], "--traceback": ["--traceback"],
        "all of them": ["--traceback", "--db", db, "-P", "global", "--all-projects"],
    }


def test_global_options_table_matches_the_typer_root():
    """A global option added to ctx/cli/app.py must be taught to ctx/__main__.py too."""
    from ctx.cli.app import app

    group = typer.main.get_command(app)
    declared = {}
    for param in group.params:
        for opt in param.opts:
            if opt != "--help":
                declared[opt] = not param.is_flag
    assert declared == GLOBAL_OPTIONS


@pytest.mark.parametrize("event", sorted(PAYLOADS))
def test_every_hook_under_every_global_option(ctx_bin, tmp_path, event):
    db = str(tmp_path / "other.db")
    env = {**os.environ, "CTX_DB": db}
    baseline = None
    for label, opts in global_option_forms(db).items():
        proc = subprocess.run([ctx_bin, *opts, "hook", event], input=json.dumps(PAYLOADS[event]),
                              capture_output=True, text=True, env=env, timeout=60, check=False)
        assert proc.returncode == 0, (label, proc.stderr)
        assert "No such command" not in proc.stderr, label
        out = json.loads(proc.stdout)
        assert isinstance(out, dict) and proc.stdout.count("\n") == 1, label
        if label == "--all-projects":
            assert "--all-projects does not apply to hooks" in proc.stderr
        if event == "session-start" and label in ("--db", "--traceback"):
            baseline = baseline or proc.stdout
            assert proc.stdout == baseline, label  # the same bytes whatever the option
    if event == "stop":  # the remember command ran, into the --db database
        from ctx.core import db as ctx_db
        from ctx.core.store import Store

        conn = ctx_db.connect(db)
        assert any("global opts ok" in n.content for n in Store(conn).list_nodes())
        conn.close()


def test_hook_argv_parses_globals_and_leaves_the_rest_to_typer(monkeypatch):
    monkeypatch.setenv("CTX_PROJECT", "")  # recorded, so the hook_argv's changes are undone
    monkeypatch.setenv("CTX_DEBUG", "")
    assert hook_argv(["--db", "x.db", "hook", "stop", "-v"]) == ["stop", "--db", "x.db", "-v"]
    assert hook_argv(["-P", "api", "--traceback", "hook", "session-start"]) == ["session-start"]
    assert os.environ["CTX_PROJECT"] == "api" and os.environ["CTX_DEBUG"] == "1"
    for argv in (["--help", "hook"], ["list"], ["--db"], ["--bogus", "hook", "stop"],
                 ["--traceback=1", "hook", "stop"], ["--db", "x.db"]):
        assert hook_argv(argv) is None, argv
