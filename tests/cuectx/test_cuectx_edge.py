"""Both programs' error edge: one `Error:` line and the shared exit code; --traceback and
CTX_DEBUG/CUE_DEBUG show the traceback instead."""
from __future__ import annotations

import os
import sqlite3
import subprocess

import pytest

from cue.core import paths as cue_paths


def run(binary, *args, env=None):
    return subprocess.run([binary, *args], capture_output=True, text=True, timeout=60,
                          env={**os.environ, **(env or {})}, check=False)


def test_cue_locked_database_is_one_error_line_exit_4(cue_bin):
    assert run(cue_bin, "pause").returncode == 0  # creates the database
    holder = sqlite3.connect(cue_paths.db_path(), isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        proc = run(cue_bin, "resume")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert proc.returncode == 4, proc.stderr
    assert proc.stdout == ""
    assert proc.stderr.startswith("Error: database ") and "locked by another process" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr


@pytest.mark.parametrize("how", ["--traceback", "CUE_DEBUG"])
def test_cue_traceback_shows_what_the_error_line_hid(cue_bin, how):
    db = cue_paths.db_path()
    db.parent.mkdir(parents=True, exist_ok=True)
    db.write_bytes(b"this is not a database " * 100)
    plain = run(cue_bin, "pause")
    assert plain.returncode == 4 and plain.stderr.startswith("Error: ")
    assert "is not a usable cue database" in plain.stderr and "Traceback" not in plain.stderr
    args, env = (["--traceback"], None) if how == "--traceback" else ([], {"CUE_DEBUG": "1"})
    loud = run(cue_bin, *args, "pause", env=env)
    assert loud.returncode != 0 and "Traceback (most recent call last)" in loud.stderr
    assert "DatabaseError" in loud.stderr


@pytest.mark.parametrize("how", ["--traceback", "CTX_DEBUG"])
def test_ctx_traceback_shows_what_the_error_line_hid(ctx_bin, how):
    plain = run(ctx_bin, "show", "01ZZZZZZZZ")
    assert plain.returncode == 3 and plain.stderr.startswith("Error: ")
    assert "Traceback" not in plain.stderr
    args, env = (["--traceback"], None) if how == "--traceback" else ([], {"CTX_DEBUG": "1"})
    loud = run(ctx_bin, *args, "show", "01ZZZZZZZZ", env=env)
    assert loud.returncode != 0 and "Traceback (most recent call last)" in loud.stderr
    assert "NotFoundError" in loud.stderr


def test_ctx_and_cue_usage_errors_exit_2(ctx_bin, cue_bin):
    assert run(ctx_bin, "list", "--bogus").returncode == 2
    assert run(cue_bin, "pause", "--bogus").returncode == 2
