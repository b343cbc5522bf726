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


# ------------------------------------------------------------------ the session's items
# Appended to a store query selecting node ids (one `?`: the session id): the session's
# active items, and those of them a prompt must not select again (manual, or already sent).
ACTIVE_ITEM_IDS_SQL = (" UNION SELECT node_id FROM session_items WHERE session_id = ? "
                       "AND state = 'active'")
HELD_ITEM_IDS_SQL = (" UNION SELECT i.node_id FROM session_items i WHERE i.session_id = ?"
                     " AND i.state = 'active' AND (i.include_mode = 'manual' OR EXISTS (SELECT 1"
                     " FROM session_injected j WHERE j.session_id = i.session_id"
                     " AND j.node_id = i.node_id))")


def items(conn: sqlite3.Connection, session_id: str) -> list[tuple]:
    """(node_id, include_mode, state, added_at, sent) of the session's items, oldest first."""
    return [(r[0], r[1], r[2], r[3], bool(r[4])) for r in conn.execute(
        "SELECT s.node_id, s.include_mode, s.state, s.added_at, i.node_id IS NOT NULL "
        "FROM session_items s LEFT JOIN session_injected i "
        "ON i.session_id = s.session_id AND i.node_id = s.node_id "
        "WHERE s.session_id = ? ORDER BY s.added_at, s.node_id", (session_id,)).fetchall()]


def item_nodes(conn: sqlite3.Connection, session_ids: list[str]) -> list[tuple[str, str]]:
    """(session_id, node_id) of every item of these sessions."""
    marks = ",".join("?" * len(session_ids))
    return [tuple(r) for r in conn.execute(
        f"SELECT session_id, node_id FROM session_items WHERE session_id IN ({marks})",
        session_ids)]


def active_item_counts(conn: sqlite3.Connection, session_ids: list[str]) -> dict[str, int]:
    """Session id → how many active items it has (missing: none)."""
    marks = ",".join("?" * len(session_ids))
    return dict(conn.execute(
        f"SELECT session_id, count(*) FROM session_items WHERE session_id IN ({marks}) "
        "AND state = 'active' GROUP BY session_id", session_ids).fetchall())


def item_row(conn: sqlite3.Connection, session_id: str, node_id: str) -> tuple | None:
    """(include_mode, state) of the node's item in the session, or None."""
    return conn.execute("SELECT include_mode, state FROM session_items WHERE session_id = ? "
                        "AND node_id = ?", (session_id, node_id)).fetchone()


def put_item(conn: sqlite3.Connection, session_id: str, node_id: str, include_mode: str,
             state: str, now: str) -> None:
    """The node's item in the session is this, from now (replacing what was there)."""
    conn.execute("INSERT OR REPLACE INTO session_items (session_id, node_id, include_mode, "
                 "state, added_at) VALUES (?, ?, ?, ?, ?)",
                 (session_id, node_id, include_mode, state, now))


def remove_item(conn: sqlite3.Connection, session_id: str, node_id: str) -> None:
    conn.execute("UPDATE session_items SET state = 'removed' WHERE session_id = ? "
                 "AND node_id = ?", (session_id, node_id))
