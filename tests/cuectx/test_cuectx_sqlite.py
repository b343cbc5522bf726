"""cuectx.sqlite and cuectx.migrations: what both programs' stores stand on."""
from __future__ import annotations

import sqlite3
import threading
import time

import pytest

from cuectx import sqlite as shared
from cuectx.errors import CorruptDatabaseError, DatabaseError
from cuectx.exits import ExitCode
from cuectx.migrations import Migration, current_version, migrate

MIGRATIONS = [
    Migration(1, "notes", "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL);"),
    Migration(2, "tags", "CREATE TABLE tags (note INTEGER REFERENCES notes(id), tag TEXT);"),
]


def test_exit_code_table_is_the_documented_one():
    assert [(c.name, int(c)) for c in ExitCode] == [
        ("OK", 0), ("ERROR", 1), ("USAGE", 2), ("NOT_FOUND", 3), ("DATABASE", 4), ("BACKEND", 5)]


def test_connect_sets_pragmas_wal_and_records_each_migration(tmp_path):
    path = tmp_path / "a.db"
    conn = shared.connect(path, MIGRATIONS)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == shared.BUSY_TIMEOUT_MS
    assert current_version(conn) == 2 and (path.stat().st_mode & 0o777) == 0o600
    rows = conn.execute("SELECT version, name, applied_at FROM schema_version").fetchall()
    assert [(r[0], r[1]) for r in rows] == [(1, "notes"), (2, "tags")]
    assert all(r[2].endswith("Z") for r in rows)
    conn.close()
    ro = shared.connect(path, MIGRATIONS, readonly=True)
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        ro.execute("INSERT INTO notes (body) VALUES ('x')")
    ro.close()


@pytest.mark.parametrize("name", ["a?mode=rw.db", "b#c.db", "d%3Fe.db", "f%.db", "g h.db"])
def test_a_read_only_open_reads_the_file_named_whatever_its_name_holds(tmp_path, name):
    """In a URI `?`, `#` and `%` mean something: a read-only open of `a?mode=rw.db` must
    read that file (not `a`, and not writable), and create no other file beside it."""
    (tmp_path / "dbs").mkdir()
    path = tmp_path / "dbs" / name
    conn = shared.connect(path, MIGRATIONS)
    conn.execute("INSERT INTO notes (body) VALUES ('in the right file')")
    conn.close()
    ro = shared.connect(path, MIGRATIONS, readonly=True)
    assert ro.execute("SELECT body FROM notes").fetchall()[0][0] == "in the right file"
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        ro.execute("INSERT INTO notes (body) VALUES ('x')")
    ro.close()
    assert {p.name for p in (tmp_path / "dbs").iterdir()} <= {name, name + "-wal", name + "-shm"}


def test_a_failing_migration_leaves_the_previous_version_whole(tmp_path):
    conn = shared.connect(tmp_path / "b.db", MIGRATIONS[:1])
    broken = [*MIGRATIONS, Migration(3, "broken", "CREATE TABLE ok3 (x);\nSELECT nope FROM nowhere;")]
    with pytest.raises(sqlite3.OperationalError):
        migrate(conn, broken)
    assert current_version(conn) == 2  # 2 applied, 3 rolled back with its record
    assert conn.execute("SELECT max(version) FROM schema_version").fetchone()[0] == 2
    assert not conn.execute("SELECT name FROM sqlite_master WHERE name = 'ok3'").fetchall()
    assert not conn.in_transaction


def test_record_table_gains_a_name_column_in_old_databases(tmp_path):
    conn = sqlite3.connect(tmp_path / "old.db", isolation_level=None)
    conn.executescript("CREATE TABLE schema_version (version INTEGER PRIMARY KEY, "
                       "applied_at TEXT NOT NULL); INSERT INTO schema_version VALUES (1, 'then');"
                       "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL);"
                       "PRAGMA user_version = 1;")
    assert migrate(conn, MIGRATIONS) == [2]
    assert conn.execute("SELECT version, name FROM schema_version").fetchall() == [
        (1, "notes"), (2, "tags")]


def test_transaction_nests_on_the_connection_not_on_a_wrapper(tmp_path):
    conn = shared.connect(tmp_path / "c.db", MIGRATIONS)

    class Wrapper:  # two independent helpers over one connection, as two Stores would be
        def __init__(self, c):
            self.conn = c

        def add(self, body):
            with shared.transaction(self.conn):
                self.conn.execute("INSERT INTO notes (body) VALUES (?)", (body,))

    a, b = Wrapper(conn), Wrapper(conn)
    with shared.transaction(conn):
        a.add("one")
        b.add("two")
        assert conn.in_transaction
    assert not conn.in_transaction
    with pytest.raises(RuntimeError), shared.transaction(conn):
        a.add("three")
        raise RuntimeError("boom")  # the outer transaction rolls back the inner writes
    assert [r[0] for r in conn.execute("SELECT body FROM notes")] == ["one", "two"]


def test_translate_turns_sqlite_errors_into_sentences(tmp_path):
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"not sqlite at all " * 200)
    with pytest.raises(sqlite3.DatabaseError) as info:
        shared.connect(bad, MIGRATIONS)
    err = shared.translate(info.value, bad, program="cue")
    assert isinstance(err, CorruptDatabaseError) and err.exit_code == ExitCode.DATABASE
    assert "is not a usable cue database" in str(err)

    path = tmp_path / "locked.db"
    shared.connect(path, MIGRATIONS).close()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    conn = shared.connect(path, MIGRATIONS, busy_timeout_ms=100)
    with pytest.raises(sqlite3.OperationalError) as info, shared.transaction(conn):
        pass
    err = shared.translate(info.value, path, busy_timeout_ms=100)
    assert type(err) is DatabaseError and "locked by another process" in str(err)
    holder.execute("ROLLBACK")


def test_concurrent_first_opens_all_end_migrated(tmp_path):
    path = tmp_path / "race.db"
    errors = []

    def open_it():
        try:
            shared.connect(path, MIGRATIONS).close()
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=open_it) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    conn = shared.connect(path, MIGRATIONS)
    assert conn.execute("SELECT count(*) FROM schema_version").fetchone()[0] == 2


def _stat_tables(conn) -> set[str]:
    if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_stat1'").fetchone():
        return set()
    return {r[0] for r in conn.execute("SELECT tbl FROM sqlite_stat1")}


def test_optimize_gives_the_planner_statistics_for_what_was_queried(tmp_path):
    conn = shared.connect(tmp_path / "s.db", MIGRATIONS)
    conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, k TEXT)")
    conn.execute("CREATE INDEX t_k ON t (k)")
    conn.executemany("INSERT INTO t (k) VALUES (?)", [(f"k{i % 50}",) for i in range(2000)])
    conn.execute("SELECT count(*) FROM t WHERE k = 'k3'").fetchone()
    assert _stat_tables(conn) == set()
    shared.optimize(conn)
    assert "t" in _stat_tables(conn)
    conn.close()


def test_optimize_never_waits_for_a_lock_or_raises(tmp_path):
    path = tmp_path / "s.db"
    conn = shared.connect(path, MIGRATIONS)
    conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, k TEXT)")
    conn.execute("CREATE INDEX t_k ON t (k)")
    conn.executemany("INSERT INTO t (k) VALUES (?)", [(str(i % 50),) for i in range(2000)])
    conn.execute("SELECT count(*) FROM t WHERE k = '3'").fetchone()  # optimize would analyze t
    holder = shared.connect(path, MIGRATIONS)
    holder.execute("BEGIN IMMEDIATE")  # another writer holds the lock
    t0 = time.perf_counter()
    shared.optimize(conn)  # busy: skipped at once (the busy timeout is 5 s)
    assert time.perf_counter() - t0 < 2
    holder.execute("ROLLBACK")
    conn.execute("BEGIN")
    shared.optimize(conn)  # inside a transaction: left alone
    assert conn.in_transaction
    conn.execute("ROLLBACK")
    for c in (conn, holder):
        c.close()
    readonly = shared.connect(path, MIGRATIONS, readonly=True)
    shared.optimize(readonly)  # read-only: nothing to write, nothing raised
    readonly.close()
