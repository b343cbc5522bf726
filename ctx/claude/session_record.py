"""What a SessionStart writes about the session: its row, its `always` items and what was
sent (ctx.claude.sessions explains sessions; this is the write, kept stdlib-light because
the cached session-start path in ctx/claude/hooks/warm.py uses it too)."""
from __future__ import annotations

import sqlite3

from ctx.core.stamps import content_hash, now_iso

RESET_SOURCES = ("startup", "clear", "compact")


def record_start(conn: sqlite3.Connection, session_id: str, source: str | None, node_ids,
                 hashes: dict[str, str], *, injected=None, now: str | None = None) -> None:
    """Record the session and the `always` items it was given (`injected`, default all of
    them, were actually sent). A new session, or source startup|clear|compact, starts from
    scratch; resume|fork keep the items (manual additions, removals) and add new always ones.
    `hashes` is each existing node's content_hash (a node without one is gone: skipped)."""
    now = now or now_iso()
    node_ids = list(dict.fromkeys(node_ids))
    sent = set(node_ids if injected is None else injected)
    own = not conn.in_transaction  # join a transaction already open on this connection
    if own:
        conn.execute("BEGIN IMMEDIATE")
    try:
        row = conn.execute("SELECT id FROM sessions WHERE id = ?", (session_id,)).fetchone()
        if row is None:
            conn.execute("INSERT INTO sessions (id, source, started_at, reset_at, last_seen_at) "
                         "VALUES (?, ?, ?, ?, ?)", (session_id, source, now, now, now))
        elif source in RESET_SOURCES:
            conn.execute("DELETE FROM session_items WHERE session_id = ?", (session_id,))
            conn.execute("DELETE FROM session_injected WHERE session_id = ?", (session_id,))
            conn.execute("UPDATE sessions SET source = ?, reset_at = ?, last_seen_at = ? "
                         "WHERE id = ?", (source, now, now, session_id))
        else:
            conn.execute("UPDATE sessions SET source = ?, last_seen_at = ? WHERE id = ?",
                         (source, now, session_id))
        for node_id in node_ids:
            if node_id not in hashes:
                continue
            conn.execute("INSERT OR IGNORE INTO session_items (session_id, node_id, include_mode, "
                         "state, added_at) VALUES (?, ?, 'always', 'active', ?)",
                         (session_id, node_id, now))
            if node_id in sent:
                mark_injected(conn, session_id, node_id, None, None, now, digest=hashes[node_id])
    except BaseException:
        if own:
            conn.execute("ROLLBACK")
        raise
    if own:
        conn.execute("COMMIT")


def mark_injected(conn, session_id, node_id, content, request_id, now, *, digest=None) -> None:
    """The conversation holds this node's text now (`digest`: its content_hash, if known)."""
    conn.execute("INSERT OR REPLACE INTO session_injected (session_id, node_id, content_hash, "
                 "request_id, injected_at) VALUES (?, ?, ?, ?, ?)",
                 (session_id, node_id, digest or content_hash(content), request_id, now))


def injected_hashes(conn: sqlite3.Connection, session_id: str | None) -> dict[str, str]:
    """Node id → the content_hash of the text the conversation holds (none without a session)."""
    if not session_id:
        return {}
    return dict(conn.execute("SELECT node_id, content_hash FROM session_injected "
                             "WHERE session_id = ?", (session_id,)).fetchall())
