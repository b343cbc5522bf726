"""The migration runner both programs use (their lists live in ctx/migrations.py, cue/db.py).

A migration is (version, name, SQL script or function). Each one runs in its own
`BEGIN IMMEDIATE` transaction together with its record in `schema_version` (version, name,
applied_at) and `PRAGMA user_version`, so a crash leaves the database at the previous
version, never half-way. `PRAGMA user_version` is the cheap "is this current?" check on the
hot path. Append new migrations to a list; never edit one that has shipped.
"""
from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence

from cuectx.value import Value


class Migration(Value):
    __slots__ = ("apply", "name", "version")

    def __init__(self, version: int, name: str,
                 apply: str | Callable[[sqlite3.Connection], None]) -> None:
        self.version = version
        self.name = name
        self.apply = apply


RECORD_TABLE = """CREATE TABLE IF NOT EXISTS schema_version (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL DEFAULT '',
    applied_at TEXT NOT NULL
)"""


def latest(migrations: Sequence[Migration]) -> int:
    return max((m.version for m in migrations), default=0)


def current_version(conn: sqlite3.Connection) -> int:
    return conn.execute("PRAGMA user_version").fetchone()[0]


def statements(script: str) -> list[str]:
    """Split a SQL script into statements (triggers contain ';', so split on completeness)."""
    out, buf = [], ""
    for line in script.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            if buf.strip():
                out.append(buf.strip())
            buf = ""
    if buf.strip():
        out.append(buf.strip())
    return out


def _ensure_record_table(conn: sqlite3.Connection, migrations: Sequence[Migration]) -> None:
    """The record table, with a `name` column even in databases made before it had one."""
    conn.execute(RECORD_TABLE)
    columns = {r[1] for r in conn.execute("PRAGMA table_info(schema_version)")}
    if "name" not in columns:
        conn.execute("ALTER TABLE schema_version ADD COLUMN name TEXT NOT NULL DEFAULT ''")
        conn.executemany("UPDATE schema_version SET name = ? WHERE version = ? AND name = ''",
                         [(m.name, m.version) for m in migrations])


def migrate(conn: sqlite3.Connection, migrations: Sequence[Migration], *,
            target: int | None = None) -> list[int]:
    """Apply every migration above the database's version (up to `target`), in order, one
    transaction each. Returns the versions applied. `conn` must be in autocommit mode
    (isolation_level=None) and outside a transaction."""
    versions = [m.version for m in migrations]
    if versions != sorted(set(versions)):
        raise ValueError(f"migration versions must be unique and ascending: {versions}")
    applied = []
    for m in migrations:
        if target is not None and m.version > target:
            break
        if m.version <= current_version(conn):
            continue
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Another process may have applied it while we waited for the write lock.
            if current_version(conn) >= m.version:
                conn.execute("ROLLBACK")
                continue
            _ensure_record_table(conn, migrations)
            if callable(m.apply):
                m.apply(conn)
            else:
                for stmt in statements(m.apply):
                    conn.execute(stmt)
            conn.execute(
                "INSERT INTO schema_version (version, name, applied_at) "
                "VALUES (?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))",
                (m.version, m.name),
            )
            conn.execute(f"PRAGMA user_version = {int(m.version)}")
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        applied.append(m.version)
    return applied
