"""ctx's schema, as an ordered list of migrations.

Each migration runs in its own transaction together with its `schema_version` record, so a
crash leaves the database at the previous version, never half-way. `PRAGMA user_version`
mirrors the latest version so the hot path (hooks) can check "current?" with one pragma.
Append new migrations; never edit one that has shipped.
"""
from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    apply: str | Callable[[sqlite3.Connection], None]


M001_CORE = """
CREATE TABLE IF NOT EXISTS schema_version (
    version INTEGER PRIMARY KEY,
    applied_at TEXT NOT NULL
);
-- seq is the stable rowid (FTS5 and vector indexes key on it); id is the ULID.
CREATE TABLE nodes (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    type TEXT NOT NULL,
    content TEXT NOT NULL,
    metadata TEXT NOT NULL DEFAULT '{}',
    token_estimate INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    superseded_by TEXT REFERENCES nodes(id) ON DELETE SET NULL
);
CREATE INDEX nodes_type ON nodes(type);
CREATE INDEX nodes_superseded_by ON nodes(superseded_by);
CREATE INDEX nodes_created_at ON nodes(created_at);
CREATE INDEX nodes_updated_at ON nodes(updated_at);
CREATE TABLE tags (
    node_id TEXT NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
    tag TEXT NOT NULL,
    PRIMARY KEY (node_id, tag)
) WITHOUT ROWID;
CREATE INDEX tags_by_tag ON tags(tag, node_id);
CREATE TABLE edges (
    from_id TEXT NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
    to_id TEXT NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
    type TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (from_id, to_id, type)
) WITHOUT ROWID;
CREATE INDEX edges_by_to ON edges(to_id, type);
CREATE TABLE views (
    name TEXT PRIMARY KEY,
    query TEXT NOT NULL,
    budget INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE TABLE pending (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE VIRTUAL TABLE nodes_fts USING fts5(
    content, content='nodes', content_rowid='seq', tokenize='unicode61 remove_diacritics 2'
);
CREATE TRIGGER nodes_fts_insert AFTER INSERT ON nodes BEGIN
    INSERT INTO nodes_fts(rowid, content) VALUES (new.seq, new.content);
END;
CREATE TRIGGER nodes_fts_delete AFTER DELETE ON nodes BEGIN
    INSERT INTO nodes_fts(nodes_fts, rowid, content) VALUES ('delete', old.seq, old.content);
END;
CREATE TRIGGER nodes_fts_update AFTER UPDATE OF content ON nodes BEGIN
    INSERT INTO nodes_fts(nodes_fts, rowid, content) VALUES ('delete', old.seq, old.content);
    INSERT INTO nodes_fts(rowid, content) VALUES (new.seq, new.content);
END;
INSERT INTO views (name, query, budget, created_at, updated_at) VALUES (
    'default', 'tag:tier:pinned OR tag:tier:reference OR tag:tier:working', 50000,
    strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
);
"""

MIGRATIONS: list[Migration] = [
    Migration(1, "core store: nodes, tags, edges, views, pending, full-text index", M001_CORE),
    # 2: semantic index, sessions and request records (ctx/semantic, ctx/requests.py)
]

LATEST = max(m.version for m in MIGRATIONS)


def statements(script: str) -> list[str]:
    """Split a SQL script into statements (triggers contain ';' so split on completeness)."""
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


def current_version(conn: sqlite3.Connection) -> int:
    return conn.execute("PRAGMA user_version").fetchone()[0]


def migrate(conn: sqlite3.Connection, *, target: int | None = None) -> list[int]:
    """Apply every migration above the database's version (up to `target`). Returns versions applied."""
    applied = []
    for m in MIGRATIONS:
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
            if callable(m.apply):
                m.apply(conn)
            else:
                for stmt in statements(m.apply):
                    conn.execute(stmt)
            conn.execute(
                "INSERT INTO schema_version (version, applied_at) "
                "VALUES (?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))",
                (m.version,),
            )
            conn.execute(f"PRAGMA user_version = {int(m.version)}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        applied.append(m.version)
    return applied
