"""cue.digest.backfill.ensure_scrubbed: a one-time re-scrub when SCRUB_VERSION moves."""
from __future__ import annotations

import sqlite3
import stat

import pytest

import cue.pii
from cue.core import db, paths
from cue.digest import backfill
from cue.digest.backfill import ensure_scrubbed

RAW_DIGEST = "Edited /Users/alice/app.py, mailed jane@example.com"
RAW_MEMORY = "김민수님이 010-1234-5678 로 연락"


@pytest.fixture
def conn(tmp_path):
    # Tables of our own with just the columns the backfill relies on (the real ones come
    # from cue.core.db migrations 3 and 4; test_real_schema below uses those).
    c = sqlite3.connect(tmp_path / "t.db", isolation_level=None)
    c.execute("CREATE TABLE _meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    c.execute("CREATE TABLE digests (id INTEGER PRIMARY KEY, summary TEXT)")
    c.execute("CREATE TABLE memory (id INTEGER PRIMARY KEY, content TEXT)")
    c.executemany("INSERT INTO digests(summary) VALUES (?)",
                  [(RAW_DIGEST,), ("[no recent activity]",), (None,)])
    c.execute("INSERT INTO memory(content) VALUES (?)", (RAW_MEMORY,))
    yield c
    c.close()


def _digests(conn):
    return [r[0] for r in conn.execute("SELECT summary FROM digests ORDER BY id")]


def test_backfill_scrubs_rows_and_files_once(conn):
    home = paths.ensure_home()
    paths.digest_md().write_text(f"# Digest\n{RAW_DIGEST}\n", encoding="utf-8")
    paths.memory_md().write_text("nothing personal\n", encoding="utf-8")

    assert ensure_scrubbed(conn) == 2
    assert _digests(conn) == ["Edited /Users/[USER]/app.py, mailed [EMAIL]",
                              "[no recent activity]", None]
    assert conn.execute("SELECT content FROM memory").fetchone()[0] == "[PERSON]님이 [PHONE] 로 연락"
    assert db.get_meta(conn, "scrub_version") == str(cue.pii.SCRUB_VERSION)
    assert paths.digest_md().read_text("utf-8") == "# Digest\nEdited /Users/[USER]/app.py, mailed [EMAIL]\n"
    assert stat.S_IMODE(paths.digest_md().stat().st_mode) == 0o600
    assert paths.memory_md().read_text("utf-8") == "nothing personal\n"
    assert not list(home.glob(".*.tmp"))


def test_when_current_it_is_one_select(conn):
    ensure_scrubbed(conn)
    conn.execute("INSERT INTO digests(summary) VALUES (?)", (RAW_DIGEST,))  # a raw row sneaks in
    statements = []
    conn.set_trace_callback(statements.append)
    assert ensure_scrubbed(conn) == 0
    conn.set_trace_callback(None)
    assert len(statements) == 1 and statements[0].lstrip().upper().startswith("SELECT")
    assert _digests(conn)[-1] == RAW_DIGEST  # not re-scanned: the version is current


def test_bumping_the_version_runs_it_again(conn, monkeypatch):
    ensure_scrubbed(conn)
    conn.execute("INSERT INTO digests(summary) VALUES (?)", ("key AKIAIOSFODNN7EXAMPLE",))
    monkeypatch.setattr(cue.pii, "SCRUB_VERSION", cue.pii.SCRUB_VERSION + 1)
    assert ensure_scrubbed(conn) == 1
    assert _digests(conn)[-1] == "key [API_KEY]"
    assert db.get_meta(conn, "scrub_version") == str(cue.pii.SCRUB_VERSION)
    assert ensure_scrubbed(conn) == 0


def test_missing_tables_and_files_are_fine(tmp_path):
    c = sqlite3.connect(tmp_path / "bare.db", isolation_level=None)
    c.execute("CREATE TABLE _meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    c.execute("CREATE TABLE memory (id INTEGER PRIMARY KEY, other TEXT)")  # no `content`
    try:
        assert ensure_scrubbed(c) == 0
        assert db.get_meta(c, "scrub_version") == str(cue.pii.SCRUB_VERSION)
    finally:
        c.close()


def test_real_schema():
    c = db.connect()
    try:
        c.execute(
            "INSERT INTO digests(created_at, window_start, window_end, status, backend, summary,"
            " frame_count, event_count) VALUES (1, 0, 1, 'ok', 'local', ?, 3, 4)", (RAW_DIGEST,))
        c.execute("INSERT INTO memory(created_at, content, backend, digest_count)"
                  " VALUES (1, ?, 'local', 1)", (RAW_MEMORY,))
        assert ensure_scrubbed(c) == 2
        assert "jane@example.com" not in c.execute("SELECT summary FROM digests").fetchone()[0]
        assert ensure_scrubbed(c) == 0
    finally:
        c.close()


def test_a_row_rewritten_meanwhile_is_left_alone(conn, monkeypatch):
    real_scrub = cue.pii.scrub

    def scrub_while_someone_writes(text):
        # Another process replaces the digest (already scrubbed) while we compute.
        conn.execute("UPDATE digests SET summary = 'fresh [EMAIL]' WHERE id = 1")
        return real_scrub(text)

    monkeypatch.setattr(cue.pii, "scrub", scrub_while_someone_writes)
    result = backfill.backfill(conn)
    assert _digests(conn)[0] == "fresh [EMAIL]"
    assert result.rows == 1  # only the memory row


def test_force_rescrubs_even_when_current(conn):
    ensure_scrubbed(conn)
    conn.execute("INSERT INTO memory(content) VALUES (?)", ("cwd=/home/bob",))
    result = backfill.backfill(conn, force=True)
    assert result.rows == 1
    assert conn.execute("SELECT content FROM memory ORDER BY id DESC").fetchone()[0] == "cwd=/home/[USER]"


def test_a_file_rewritten_meanwhile_is_left_alone(conn, monkeypatch):
    paths.ensure_home()
    old_file = f"# Digest\n{RAW_DIGEST}\n"
    paths.digest_md().write_text(old_file, encoding="utf-8")
    real_scrub = cue.pii.scrub

    def scrub_while_digest_runs(text):
        if text == old_file:  # scrubbing the file: a cue digest replaces it right now
            paths.digest_md().write_text("new digest, already scrubbed", encoding="utf-8")
        return real_scrub(text)

    monkeypatch.setattr(cue.pii, "scrub", scrub_while_digest_runs)
    result = backfill.backfill(conn)
    assert paths.digest_md().read_text("utf-8") == "new digest, already scrubbed"
    assert str(paths.digest_md()) not in result.files
    assert not list(paths.home().glob(".*.tmp"))
