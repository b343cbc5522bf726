"""Include modes and Claude Code sessions (SPEC §3, seed: context management).

- **Agent level** = the whole store. Each node has an include mode: `always` (in the
  session-start view: tiers pinned/reference/working), `agent` (every other live node,
  eligible for per-prompt semantic selection) or `manual` (tag `include:manual`: never
  selected automatically). An explicit `include:always|manual|agent` tag overrides.
- **Session level** = one Claude Code `session_id`: the `always` items SessionStart
  injected, plus items a person adds (`ctx session add`, mode manual) or removes
  (`ctx session remove`). Reset on `source=clear|compact` (the conversation forgot them).
  `session_injected` remembers what was sent, with the text's hash (an edited node is
  sent again).

Request records (one per prompt) are ctx/claude/requests.py; how a record is shown,
ctx/claude/request_view.py. Pure: takes a connection, returns value classes
(cuectx.value).
"""
from __future__ import annotations

import sqlite3

from ctx.claude import session_record
from ctx.claude.session_record import RESET_SOURCES, record_start  # noqa: F401 (part of the API)
from ctx.core.db import transaction
from ctx.core.errors import NotFoundError
from ctx.core.model import CONTEXT_TIER_TAGS
from ctx.core.stamps import content_hash as _hash
from ctx.core.stamps import now_iso as _now
from ctx.core.store import MANUAL_IDS_SQL, NOT_AGENT_IDS_SQL, Store
from cuectx.value import Value

INCLUDE_MODES = ("always", "manual", "agent")
ALWAYS_TIERS = CONTEXT_TIER_TAGS  # a node in one of these tiers is included always
PROMPT_KEEP_CHARS = 4000


def include_mode(tags) -> str:
    """A node's include mode at the agent level (explicit `include:` tag wins)."""
    tags = set(tags)
    for mode in ("manual", "always", "agent"):
        if f"include:{mode}" in tags:
            return mode
    return "always" if tags & set(ALWAYS_TIERS) else "agent"


def not_agent_sql(session_id: str | None) -> tuple[str, tuple]:
    """SQL selecting the ids of nodes that are *not* agent-selectable: include mode always
    or manual, or an active item of the session (it is in the request anyway)."""
    sql = NOT_AGENT_IDS_SQL
    if not session_id:
        return sql, ()
    return sql + session_record.ACTIVE_ITEM_IDS_SQL, (session_id,)


def prompt_exclude_sql(session_id: str | None) -> tuple[str, tuple]:
    """SQL selecting the ids of nodes per-prompt selection must not consider: `include:manual`
    (never selected automatically), the session's manual items, and its `always` items the
    session start already sent (they are in every request as session items). Everything
    else in scope is a candidate — `always` items the session-start view had no room for
    included (issue 22); one an earlier prompt sent is recorded as sent "earlier"."""
    sql = MANUAL_IDS_SQL
    if not session_id:
        return sql, ()
    return sql + session_record.HELD_ITEM_IDS_SQL, (session_id,)


class Session(Value):
    __slots__ = ("id", "last_seen_at", "reset_at", "source", "started_at")

    def __init__(self, id: str, source: str | None, started_at: str, reset_at: str,
                 last_seen_at: str) -> None:
        self.id = id
        self.source = source
        self.started_at = started_at
        self.reset_at = reset_at
        self.last_seen_at = last_seen_at


class SessionItem(Value):
    __slots__ = ("added_at", "include_mode", "injected", "node_id", "state")

    def __init__(self, node_id: str, include_mode: str, state: str, added_at: str,
                 injected: bool = False) -> None:
        self.node_id = node_id
        self.include_mode = include_mode  # always | manual
        self.state = state  # active | removed
        self.added_at = added_at
        self.injected = injected


# ------------------------------------------------------------------------------ sessions

def start_session(conn: sqlite3.Connection, session_id: str | None, source: str | None,
                  node_ids, *, injected=None, now: str | None = None) -> Session | None:
    """SessionStart: record the session and the `always` items it was given.

    `injected` (default: all of `node_ids`) are the ones actually sent to Claude. A new
    session, or source startup|clear|compact, starts from scratch; resume|fork keep the
    items (manual additions, removals) and add any new always items."""
    if not session_id:
        return None
    contents = _contents(conn, list(dict.fromkeys(node_ids)))
    record_start(conn, session_id, source, node_ids,
                 {i: _hash(text) for i, text in contents.items()}, injected=injected, now=now)
    return get_session(conn, session_id)


def _contents(conn, ids) -> dict[str, str]:
    return Store(conn).contents(ids)


def get_session(conn: sqlite3.Connection, session_id: str) -> Session:
    row = conn.execute("SELECT id, source, started_at, reset_at, last_seen_at FROM sessions "
                       "WHERE id = ?", (session_id,)).fetchone()
    if row is None:
        raise NotFoundError(f"no session {session_id!r}; see `ctx requests list` for session ids")
    return Session(*row)


def resolve_session(conn: sqlite3.Connection, ref: str | None) -> str:
    """A session id from a prefix, or the most recently active session when ref is None."""
    if not ref:
        row = conn.execute("SELECT id FROM sessions ORDER BY last_seen_at DESC, rowid DESC "
                           "LIMIT 1").fetchone()
        if row is None:
            raise NotFoundError("no sessions recorded yet (they start when Claude Code runs "
                                "the session-start hook)")
        return row[0]
    rows = conn.execute("SELECT id FROM sessions WHERE id = ? OR substr(id, 1, ?) = ? LIMIT 2",
                        (ref, len(ref), ref)).fetchall()
    exact = [r[0] for r in rows if r[0] == ref]
    if exact:
        return exact[0]
    if not rows:
        raise NotFoundError(f"no session {ref!r}")
    if len(rows) > 1:
        raise NotFoundError(f"session prefix {ref!r} is ambiguous; give more characters")
    return rows[0][0]


def list_sessions(conn: sqlite3.Connection, limit: int = 20) -> list[Session]:
    return [Session(*r) for r in conn.execute(
        "SELECT id, source, started_at, reset_at, last_seen_at FROM sessions "
        "ORDER BY last_seen_at DESC LIMIT ?", (limit,))]


def session_overview(conn: sqlite3.Connection, limit: int = 20) -> list[dict]:
    """The latest sessions, most recently active first, each as a person knows it: its
    project (`session_projects`; None: global memory only, or nothing says), its first prompt,
    its counts (`ctx session list`)."""
    rows = latest_sessions(conn, limit)
    where = session_projects(conn, [r["id"] for r in rows])
    for r in rows:
        r["project"] = where.get(r["id"])
    return rows


def latest_sessions(conn: sqlite3.Connection, limit: int, *, items: bool = False) -> list[dict]:
    """The latest sessions' rows, most recently active first, with their request count and
    first prompt (`items`: also how many active items each has)."""
    columns = ("id", "source", "started_at", "reset_at", "last_seen_at", "requests",
               "first_prompt")
    rows = [dict(zip(columns, r)) for r in conn.execute(
        "SELECT s.id, s.source, s.started_at, s.reset_at, s.last_seen_at, "
        "(SELECT count(*) FROM requests r WHERE r.session_id = s.id), "
        "(SELECT r.prompt FROM requests r WHERE r.session_id = s.id ORDER BY r.seq LIMIT 1) "
        "FROM sessions s ORDER BY s.last_seen_at DESC LIMIT ?", (limit,))]
    if not items:
        return rows
    counts = session_record.active_item_counts(conn, [r["id"] for r in rows])
    return [{**{k: v for k, v in r.items() if k != "first_prompt"}, "items": counts.get(r["id"], 0),
             "first_prompt": r["first_prompt"]} for r in rows]


def session_projects(conn: sqlite3.Connection, session_ids: list[str]) -> dict[str, str | None]:
    """Each session's project, as its hooks saw it — the one rule `ctx session list` and the
    viewer share: the scope its latest request was selected in (`params.scope`, "NAME +
    global"; "global": a folder in no project → None), else the project most of its items
    belong to. Missing: nothing recorded says."""
    if not session_ids:
        return {}
    from collections import Counter

    marks = ",".join("?" * len(session_ids))
    out: dict[str, str | None] = {}
    for sid, label in conn.execute(
            f"SELECT r.session_id, json_extract(r.params, '$.scope') FROM requests r "
            f"WHERE r.seq IN (SELECT max(seq) FROM requests WHERE session_id IN ({marks}) "
            f"GROUP BY session_id)", session_ids):
        if isinstance(label, str) and label.endswith(" + global"):
            out[sid] = label.removesuffix(" + global")
        elif label == "global":
            out[sid] = None
    items = [(sid, node_id) for sid, node_id in session_record.item_nodes(conn, session_ids)
             if sid not in out]
    project = {n.id: n.project for n in Store(conn).get_many(list({i[1] for i in items}))}
    counts: dict[str, Counter] = {}
    for sid, node_id in items:
        if project.get(node_id):
            counts.setdefault(sid, Counter())[project[node_id]] += 1
    out.update({sid: c.most_common(1)[0][0] for sid, c in counts.items()})
    return out


def session_items(conn: sqlite3.Connection, session_id: str, *,
                  include_removed: bool = True) -> list[SessionItem]:
    items = [SessionItem(*r) for r in session_record.items(conn, session_id)]
    return [i for i in items if include_removed or i.state == "active"]


def session_add(conn: sqlite3.Connection, session_id: str, node_id: str, *,
                now: str | None = None) -> SessionItem:
    """Add a node to the session by hand (mode manual); it is injected at the next prompt."""
    now = now or _now()
    get_session(conn, session_id)
    with transaction(conn):
        row = session_record.item_row(conn, session_id, node_id)
        if row is None or row[1] == "removed":
            session_record.put_item(conn, session_id, node_id, "manual", "active", now)
    return _item(conn, session_id, node_id)


def session_remove(conn: sqlite3.Connection, session_id: str, node_id: str, *,
                   now: str | None = None) -> SessionItem:
    """Remove a node from the session: not injected again, and not picked by search."""
    now = now or _now()
    get_session(conn, session_id)
    with transaction(conn):
        if session_record.item_row(conn, session_id, node_id) is None:
            session_record.put_item(conn, session_id, node_id, "manual", "removed", now)
        else:
            session_record.remove_item(conn, session_id, node_id)
    return _item(conn, session_id, node_id)


def _item(conn, session_id, node_id) -> SessionItem:
    return next(i for i in session_items(conn, session_id) if i.node_id == node_id)


def stale_sessions(conn: sqlite3.Connection, cutoff: str, look: int, *,
                   requests_since: str | None = None) -> list[str]:
    """Ids of the sessions last seen before `cutoff` (only the `look` oldest; -1: all) that
    no request names (`requests_since`: none made at or after it) — request retention's
    leftovers (ctx.claude.requests.prune)."""
    newer = " AND r.created_at >= ?" if requests_since is not None else ""
    return [r[0] for r in conn.execute(
        "SELECT id FROM (SELECT id FROM sessions WHERE last_seen_at < ? "
        "ORDER BY last_seen_at LIMIT ?) s WHERE NOT EXISTS (SELECT 1 FROM requests r "
        f"WHERE r.session_id = s.id{newer})",
        (cutoff, look) + ((requests_since,) if requests_since is not None else ()))]


def delete_sessions(conn: sqlite3.Connection, session_ids: list[str]) -> None:
    """Forget these sessions (their items and what they were sent go with them: cascade)."""
    conn.executemany("DELETE FROM sessions WHERE id = ?", [(sid,) for sid in session_ids])


def _touch_session(conn, session_id: str, now: str) -> None:
    cur = conn.execute("UPDATE sessions SET last_seen_at = ? WHERE id = ?", (now, session_id))
    if cur.rowcount == 0:  # no SessionStart seen (ctx installed mid-session): start it empty
        conn.execute("INSERT INTO sessions (id, source, started_at, reset_at, last_seen_at) "
                     "VALUES (?, NULL, ?, ?, ?)", (session_id, now, now, now))




# ------------------------------------------------------------------------------ what Claude did
SESSION_ACTIONS = ("remembered", "superseded", "summarized", "archived")


class SessionAction(Value):
    """One thing Claude did to memory in a session: `action` (SESSION_ACTIONS) on `node_id`
    (superseded: `node_id` was replaced by `other_id`; archived: moved off-context by the
    summary `other_id`), at `at`."""

    __slots__ = ("action", "at", "node_id", "other_id")

    def __init__(self, action: str, node_id: str, other_id: str | None, at: str) -> None:
        self.action = action
        self.node_id = node_id
        self.other_id = other_id
        self.at = at


def record_actions(conn: sqlite3.Connection, session_id: str | None,
                   done: list[tuple[str, str, str | None]], *, now: str | None = None) -> None:
    """Note what a reply's tags did in `session_id`: (action, node id, other id) each."""
    if not session_id or not done:
        return
    at = now or _now()
    conn.executemany("INSERT INTO session_actions (session_id, at, action, node_id, other_id) "
                     "VALUES (?, ?, ?, ?, ?)",
                     [(session_id, at, action, node_id, other) for action, node_id, other in done])


def session_actions(conn: sqlite3.Connection, session_id: str,
                    limit: int = 500) -> list[SessionAction]:
    """What Claude remembered, superseded and summarized in a session, in order."""
    return [SessionAction(a, n, o, at) for a, n, o, at in conn.execute(
        "SELECT action, node_id, other_id, at FROM session_actions WHERE session_id = ? "
        "ORDER BY seq LIMIT ?", (session_id, limit))]
