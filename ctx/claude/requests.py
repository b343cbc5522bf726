"""Request records: one per UserPromptSubmit (SPEC §3, seed: context management).

**Request level** = one prompt: the session's items (ctx/claude/sessions.py) plus the `agent`
items selected for the prompt. Only what the conversation does not hold yet is injected,
fitted under the hook's cap (ctx/core/text.py). Every request is recorded with its items,
include modes, scores, whether each was injected now or earlier, and the best candidates
left out and why. How a record is shown: ctx/claude/request_view.py.

Pure: takes a connection, returns value classes (cuectx.value); the hooks and
ctx/cli/semantic.py do the I/O.
"""
from __future__ import annotations

import json
import sqlite3
import time

from ctx.claude.session_record import injected_hashes
from ctx.claude.session_record import mark_injected as _mark_injected
from ctx.claude.sessions import (
    PROMPT_KEEP_CHARS,
    _contents,
    _now,
    _touch_session,
    delete_sessions,
    prompt_exclude_sql,
    session_items,
    stale_sessions,
)
from ctx.core import trust
from ctx.core.db import transaction
from ctx.core.errors import CtxError, NotFoundError
from ctx.core.ids import new_ulid
from ctx.core.stamps import content_hash as _hash
from ctx.core.text import text_len  # UTF-16 units, as Claude Code counts
from cuectx.value import Value


class RequestItem(Value):
    __slots__ = ("include_mode", "included", "injected", "node_id", "rank", "reason", "score")

    def __init__(self, node_id: str, include_mode: str, included: bool, injected: str | None = None,
                 score: float | None = None, reason: str | None = None,
                 rank: int | None = None) -> None:
        self.node_id = node_id
        self.include_mode = include_mode  # always | manual | agent
        self.included = included
        self.injected = injected  # "now" | "earlier" | None (not sent)
        self.score = score
        self.reason = reason  # why excluded (or why an included item was not sent)
        self.rank = rank


class RequestRecord(Value):
    __slots__ = ("created_at", "elapsed_ms", "fallback_reason", "id", "injected_chars", "items",
                 "params", "path", "prompt", "session_id")

    def __init__(self, id: str, session_id: str | None, created_at: str, prompt: str, path: str,
                 fallback_reason: str | None = None, params: dict | None = None,
                 injected_chars: int = 0, elapsed_ms: float | None = None,
                 items: list[RequestItem] | None = None) -> None:
        self.id = id
        self.session_id = session_id
        self.created_at = created_at
        self.prompt = prompt
        self.path = path  # semantic | keyword | none
        self.fallback_reason = fallback_reason
        self.params = {} if params is None else params
        self.injected_chars = injected_chars
        self.elapsed_ms = elapsed_ms
        self.items = [] if items is None else items

    def to_dict(self) -> dict:
        return {**self.as_dict(), "items": [i.as_dict() for i in self.items]}


class BuiltRequest(Value):
    __slots__ = ("record", "text")

    def __init__(self, text: str, record: RequestRecord) -> None:
        self.text = text  # what to inject now ("" for nothing)
        self.record = record


# ------------------------------------------------------------------------------ requests

def _kept_prompt(prompt: str) -> str:
    """The prompt as the request record keeps it: cut to PROMPT_KEEP_CHARS, with credentials
    the user pasted redacted (ctx.core.guard) unless CTX_SECRETS=allow — a record is not memory,
    so `refuse` redacts here too rather than losing the record."""
    from ctx.core import guard

    kept = prompt[:PROMPT_KEEP_CHARS]
    try:
        mode = guard.policy()
    except CtxError:
        mode = guard.REDACT
    return kept if mode == guard.ALLOW else guard.screen(kept, guard.REDACT)[0]


def build_request(conn: sqlite3.Connection, session_id: str | None, prompt: str, *,
                  max_chars: int, options=None, now: str | None = None,
                  db_path: str | None = None, scope=None) -> BuiltRequest:
    """UserPromptSubmit: select, fit under `max_chars`, record, and return the text to inject.

    Injected now: manual session items not yet sent, then the agent items selected for the
    prompt that the conversation does not hold yet, best first, whole items only. `scope`
    (ctx.core.store.Scope) limits selection to the session's project + global (None: all)."""
    from ctx.semantic.search import Eligibility
    from ctx.semantic.select import OVER_CHAR_CAP, REMOVED_BY_USER, SelectOptions, select_for_prompt

    t0 = time.perf_counter()
    options = options or SelectOptions.from_env()
    now = now or _now()
    exclude, params = prompt_exclude_sql(session_id)
    eligibility = Eligibility.within(scope, exclude, params)
    if session_id:
        with transaction(conn):
            _touch_session(conn, session_id, now)
    items = session_items(conn, session_id) if session_id else []
    removed = {i.node_id for i in items if i.state == "removed"}
    active = [i for i in items if i.state == "active"]
    injected = injected_hashes(conn, session_id)

    selection = select_for_prompt(conn, prompt, eligibility=eligibility,
                                  options=options, db_path=db_path)

    record = RequestRecord(new_ulid(), session_id, now, _kept_prompt(prompt),
                           selection.path, selection.fallback_reason, params={
                               **options.to_dict(), "max_chars": max_chars,
                               "timings": selection.timings,
                               **({"scope": scope.label} if scope is not None else {})})
    contents = _contents(conn, [i.node_id for i in active]
                         + [c.node_id for c in selection.selected + selection.excluded])
    to_send: list[tuple[str, str, float | None]] = []   # (node_id, mode, score)
    # an `always` item the session start had no room for competes per prompt like any other
    # candidate (issue 22): it is recorded once, with the prompt's verdict and its own mode
    considered = {c.node_id for c in selection.selected}
    considered |= {c.node_id for c in selection.excluded[:options.max_excluded]}
    mode_of = {i.node_id: i.include_mode for i in active}
    for item in sorted(active, key=lambda i: (i.include_mode != "manual", i.added_at)):
        if item.node_id not in contents:
            continue
        sent = injected.get(item.node_id) == _hash(contents[item.node_id])
        if not sent and item.include_mode != "manual" and item.node_id in considered:
            continue
        ri = RequestItem(item.node_id, item.include_mode, True,
                         injected="earlier" if sent else None)
        record.items.append(ri)
        if not sent and item.include_mode == "manual":
            to_send.append((item.node_id, "manual", None))
        elif not sent:
            ri.reason = "left out at session start (character cap)"
    rank = 0
    for cand in selection.selected:
        rank += 1
        if cand.node_id not in contents:
            continue
        mode = mode_of.get(cand.node_id, "agent")
        if cand.node_id in removed:
            record.items.append(RequestItem(cand.node_id, mode, False,
                                            score=_score(cand.hit), reason=REMOVED_BY_USER,
                                            rank=rank))
            continue
        sent = injected.get(cand.node_id) == _hash(contents[cand.node_id])
        record.items.append(RequestItem(cand.node_id, mode, True,
                                        injected="earlier" if sent else None,
                                        score=_score(cand.hit), rank=rank))
        if not sent:
            to_send.append((cand.node_id, "agent", _score(cand.hit)))
    excluded = [c for c in selection.excluded if c.node_id in contents]
    for cand in excluded[:options.max_excluded]:
        rank += 1
        reason = REMOVED_BY_USER if cand.node_id in removed else cand.reason
        record.items.append(RequestItem(cand.node_id, mode_of.get(cand.node_id, "agent"), False,
                                        score=_score(cand.hit), reason=reason, rank=rank))

    text, sent_ids = render_selected(conn, to_send, max_chars, path=selection.path)
    by_id = {i.node_id: i for i in record.items}
    for node_id, mode, _ in to_send:
        item = by_id[node_id]
        if node_id in sent_ids:
            item.injected = "now"
        elif mode == "agent":
            item.included, item.reason = False, OVER_CHAR_CAP
        else:
            item.reason = OVER_CHAR_CAP
    record.injected_chars = text_len(text)
    record.elapsed_ms = round((time.perf_counter() - t0) * 1000, 1)
    with transaction(conn):
        _save(conn, record)
        if session_id:
            for node_id in sent_ids:
                _mark_injected(conn, session_id, node_id, contents[node_id], record.id, now)
    return BuiltRequest(text, record)


def _score(hit) -> float | None:
    value = hit.score if (hit.similarity is not None or hit.fused is not None) else hit.bm25
    return None if value is None else round(float(value), 4)






HEADER = "## Relevant Memory"
INTRO = {
    "semantic": "Selected from ctx for this prompt (semantic search; relevance in brackets):",
    "keyword": "Selected from ctx for this prompt (keyword search):",
}


def render_selected(conn: sqlite3.Connection, to_send, max_chars: int, *,
                    path: str) -> tuple[str, set[str]]:
    """Markdown for the items to inject, whole items only, at most `max_chars` long."""
    if not to_send or max_chars <= 0:
        return "", set()
    from ctx.core.ids import short_ids
    from ctx.core.store import Store

    store = Store(conn)
    nodes = {n.id: n for n in store.get_many([i for i, _, _ in to_send])}
    sid = short_ids(store, list(nodes))
    head = f"{HEADER}\n\n{INTRO.get(path, INTRO['keyword'])}"
    parts, sent = [], set()
    used = text_len(head)
    left = 0
    reserve = 160
    for node_id, mode, score in to_send:
        node = nodes.get(node_id)
        if node is None:
            continue
        line = f"- [{node.type}:{sid[node.id]}] {node.content.strip()}".replace("\n", "\n  ")
        if trust.origin_of(node) is not None:  # memory from others: quoted, labelled (issue 34)
            line = f"{trust.foreign_line(node.to_dict(), sid[node.id])} ({trust.SECTIONS[trust.origin_of(node)]})"
        if mode == "manual":
            line += "\n  - Added to this session by the user"
        elif score is not None and path == "semantic":
            line = line.replace("] ", f"] ({score:.2f}) ", 1)
        other = [t for t in node.tags if not t.startswith("include:")]
        if other and trust.origin_of(node) is None:
            line += "\n  - Tags: " + ", ".join(other)
        cost = text_len(line) + 2
        if used + cost + reserve > max_chars:
            left += 1
            continue
        parts.append(line)
        sent.add(node_id)
        used += cost
    if not parts:
        return "", set()
    text = head + "\n\n" + "\n\n".join(parts)
    if left:
        note = (f"\n\n_{left} more relevant memor{'ies' if left != 1 else 'y'} left out to stay "
                f"under the hook's character limit; ask with <ctx:recall query=\"…\"/>._")
        if text_len(text + note) <= max_chars:
            text += note
    return text, sent


def _save(conn, record: RequestRecord) -> None:
    conn.execute(
        "INSERT INTO requests (id, session_id, created_at, prompt, path, fallback_reason, params, "
        "injected_chars, elapsed_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (record.id, record.session_id, record.created_at, record.prompt, record.path,
         record.fallback_reason, json.dumps(record.params, ensure_ascii=False),
         record.injected_chars, record.elapsed_ms))
    conn.executemany(
        "INSERT OR IGNORE INTO request_items (request_id, node_id, include_mode, included, "
        "injected, score, reason, rank) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [(record.id, i.node_id, i.include_mode, int(i.included), i.injected, i.score, i.reason,
          i.rank) for i in record.items])


def get_request(conn: sqlite3.Connection, ref: str | None = None, *,
                session_id: str | None = None) -> RequestRecord:
    """A request by id (or unique prefix ≥ 4 chars); None → the latest (of the session)."""
    if ref is None:
        sql, params = "SELECT * FROM requests", []
        if session_id:
            sql += " WHERE session_id = ?"
            params.append(session_id)
        row = conn.execute(sql + " ORDER BY seq DESC LIMIT 1", params).fetchone()
        if row is None:
            raise NotFoundError("no requests recorded yet (one is recorded per prompt by the "
                                "prompt-submit hook)")
    else:
        ref = ref.strip().upper()
        if len(ref) < 4:
            raise CtxError("a request id prefix needs at least 4 characters")
        rows = conn.execute("SELECT * FROM requests WHERE id >= ? AND id < ? ORDER BY id LIMIT 2",
                            (ref, ref + "\uffff")).fetchall()
        if not rows:
            raise NotFoundError(f"no request {ref!r}; see `ctx requests list`")
        if len(rows) > 1 and rows[0]["id"] != ref:
            raise NotFoundError(f"request prefix {ref!r} is ambiguous; give more characters")
        row = rows[0]
    return _record(conn, row)


def _record(conn, row) -> RequestRecord:
    items = [RequestItem(r[0], r[1], bool(r[2]), r[3], r[4], r[5], r[6]) for r in conn.execute(
        "SELECT node_id, include_mode, included, injected, score, reason, rank FROM request_items "
        "WHERE request_id = ?", (row["id"],))]
    return RequestRecord(row["id"], row["session_id"], row["created_at"], row["prompt"], row["path"],
                         row["fallback_reason"], json.loads(row["params"] or "{}"),
                         row["injected_chars"], row["elapsed_ms"], items)


def requests_naming(conn: sqlite3.Connection, node_id: str, limit: int = 20) -> list[dict]:
    """The latest requests whose record names this node, newest first: the request's id,
    session_id, created_at, prompt, path and params (JSON text), and the node's item there
    (include_mode, included, injected, score, reason)."""
    columns = ("id", "session_id", "created_at", "prompt", "path", "params", "include_mode",
               "included", "injected", "score", "reason")
    return [dict(zip(columns, r)) for r in conn.execute(
        "SELECT r.id, r.session_id, r.created_at, r.prompt, r.path, r.params, i.include_mode, "
        "i.included, i.injected, i.score, i.reason FROM request_items i JOIN requests r "
        "ON r.id = i.request_id WHERE i.node_id = ? ORDER BY r.seq DESC LIMIT ?",
        (node_id, limit))]


def list_requests(conn: sqlite3.Connection, *, session_id: str | None = None,
                  limit: int = 20) -> list[dict]:
    sql = ("SELECT r.id, r.session_id, r.created_at, r.path, r.injected_chars, r.elapsed_ms, "
           "r.prompt, "
           "(SELECT count(*) FROM request_items i WHERE i.request_id = r.id AND i.included) AS items, "
           "(SELECT count(*) FROM request_items i WHERE i.request_id = r.id AND i.included "
           " AND i.include_mode = 'agent') AS agent, "
           "(SELECT count(*) FROM request_items i WHERE i.request_id = r.id AND i.injected = 'now') "
           " AS injected_now FROM requests r")
    params: list = []
    if session_id:
        sql += " WHERE r.session_id = ?"
        params.append(session_id)
    sql += " ORDER BY r.seq DESC LIMIT ?"
    params.append(limit)
    return [dict(r) for r in conn.execute(sql, params)]




# ------------------------------------------------------------------------------ retention

class Pruned(Value):
    """What a prune removed (or, dry, would remove): request records with their items, and
    ended sessions that no kept request names. Nodes are never touched."""

    __slots__ = ("cutoff", "items", "requests", "sessions")

    def __init__(self, requests: int, items: int, sessions: int, cutoff: str) -> None:
        self.requests = requests
        self.items = items
        self.sessions = sessions
        self.cutoff = cutoff


def _cutoff(keep_days: int, now: str | None = None) -> str:
    from datetime import UTC, datetime, timedelta

    base = datetime.fromisoformat(now) if now else datetime.now(UTC)
    return (base - timedelta(days=keep_days)).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def prune(conn: sqlite3.Connection, keep_days: int, *, now: str | None = None,
          limit: int | None = None, dry_run: bool = False) -> Pruned:
    """Remove request records older than `keep_days` (oldest first, at most `limit`), then
    ended sessions last seen before the cutoff that no request names any more.

    Every statement walks an index from its oldest end and reads only what it removes, so
    a few rows at a time are cheap on the hook path however large the tables are."""
    cutoff = _cutoff(keep_days, now)
    cap = -1 if limit is None else limit
    expired = "SELECT seq FROM requests WHERE created_at < ? ORDER BY created_at LIMIT ?"
    n_req, n_items = conn.execute(
        f"SELECT count(*), (SELECT count(*) FROM request_items WHERE request_id IN "
        f"(SELECT id FROM requests WHERE seq IN ({expired}))) FROM requests WHERE seq IN ({expired})",
        (cutoff, cap, cutoff, cap)).fetchone()
    # Sessions: only the oldest few are looked at per step (those whose requests are gone);
    # a full prune looks at all of them.
    look = -1 if limit is None else 4 * limit
    if dry_run:  # what would be left: only requests newer than the cutoff (when unlimited)
        n_sessions = len(stale_sessions(conn, cutoff, look, requests_since=cutoff)) \
            if limit is None else 0
        return Pruned(n_req, n_items, n_sessions, cutoff)
    n_sessions = 0
    with transaction(conn):
        if n_req:  # request_items go with them (ON DELETE CASCADE)
            conn.execute(f"DELETE FROM requests WHERE seq IN ({expired})", (cutoff, cap))
        stale = stale_sessions(conn, cutoff, look)
        if stale:  # session_items and session_injected cascade
            delete_sessions(conn, stale)
            n_sessions = len(stale)
    return Pruned(n_req, n_items, n_sessions, cutoff)


# Per prompt, the hook removes at most this many expired records (and sessions): one new
# record in, a few old ones out, so a store catches up with its retention within days and
# no prompt pays for a backlog (`ctx requests prune` clears one at once).
PRUNE_STEP = 4


def prune_step(conn: sqlite3.Connection, keep_days: int | None) -> Pruned | None:
    if keep_days is None:
        return None
    return prune(conn, keep_days, limit=PRUNE_STEP)
