"""Hand-offs between hooks (seed §1): the only SQL over the `pending` table.

A hook leaves a value under a key (`expand_nodes:<session>`, a recall, a capture cursor) and
a later hook takes it. The store's methods (`Store.set_pending`, `pop_pending`, …) and the
hand-off reader (ctx/claude/handoff.py) call these; so does the cached session start
(ctx/claude/hooks/warm.py), which checks for a waiting expansion before anything heavy is
imported — hence stdlib only, no other ctx module.
"""
from __future__ import annotations

import sqlite3


def put(conn: sqlite3.Connection, key: str, value: str, created_at: str) -> None:
    """Leave `value` under `key`, replacing what was there."""
    conn.execute(
        "INSERT INTO pending (key, value, created_at) VALUES (?, ?, ?) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value, created_at = excluded.created_at",
        (key, value, created_at),
    )


def get(conn: sqlite3.Connection, key: str) -> str | None:
    row = conn.execute("SELECT value FROM pending WHERE key = ?", (key,)).fetchone()
    return row[0] if row else None


def delete(conn: sqlite3.Connection, key: str) -> None:
    conn.execute("DELETE FROM pending WHERE key = ?", (key,))


def any_of(conn: sqlite3.Connection, keys) -> bool:
    """Whether a value waits under any of `keys` (a read only: the common hook writes nothing)."""
    keys = list(keys)
    marks = ",".join("?" * len(keys))
    return conn.execute(f"SELECT 1 FROM pending WHERE key IN ({marks}) LIMIT 1",
                        keys).fetchone() is not None


def by_prefix(conn: sqlite3.Connection, prefix: str) -> list[tuple[str, str, str]]:
    """(key, value, created_at) of every entry whose key starts with `prefix`, newest first."""
    end = prefix[:-1] + chr(ord(prefix[-1]) + 1) if prefix else "\uffff"
    return [tuple(r) for r in conn.execute(
        "SELECT key, value, created_at FROM pending WHERE key >= ? AND key < ? "
        "ORDER BY created_at DESC, key", (prefix, end)).fetchall()]


def waiting_keys(conn: sqlite3.Connection) -> list[str]:
    """The keys of the hand-offs still waiting (the Stop hook's per-session transcript
    cursors are bookkeeping, not hand-offs), sorted."""
    return [r[0] for r in conn.execute(
        "SELECT key FROM pending WHERE key NOT LIKE 'cursor:%' ORDER BY key")]
