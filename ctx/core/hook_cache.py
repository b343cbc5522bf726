"""The store's change counter and the cached session-start answers: the only SQL over the
`store_version` and `hook_cache` tables (migration 5).

`store_version.n` is bumped by the database's own triggers on every change to nodes, tags,
edges, views and projects, so a reader can tell "nothing changed since" from one row: the
cached session start (ctx/claude/hooks/warm.py, which decides what a cached answer is keyed
on and when it may answer) and the viewer's health checks (ctx/web/health.py) read it.

Stdlib only, no other ctx module: the cached session start reads it before anything heavy
is imported.
"""
from __future__ import annotations

import json
import sqlite3


def store_version(conn: sqlite3.Connection) -> int | None:
    """The change counter, or None in a database from before it existed."""
    try:
        row = conn.execute("SELECT n FROM store_version WHERE id = 1").fetchone()
    except sqlite3.OperationalError:
        return None
    return row[0] if row else None


def keep(conn: sqlite3.Connection, key: str, *, version: int, schema: int,
         project_id: int | None, checks: list, text: str, items: list, made_at: str) -> None:
    """Keep one session-start answer under `key` (replacing the last one)."""
    conn.execute("INSERT OR REPLACE INTO hook_cache (key, version, schema, project_id, checks, "
                 "text, node_ids, made_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                 (key, version, schema, project_id, json.dumps(checks), text,
                  json.dumps(items), made_at))


def cached(conn: sqlite3.Connection, key: str) -> tuple | None:
    """(version, schema, project_id, checks, text, items) kept under `key` — checks and items
    as the JSON text `keep` wrote —, or None, also in a database from before the cache."""
    try:
        return conn.execute("SELECT version, schema, project_id, checks, text, node_ids "
                            "FROM hook_cache WHERE key = ?", (key,)).fetchone()
    except sqlite3.OperationalError:
        return None
