"""What the viewer's pages read from the ctx store: pure functions over a connection.

Every list is bounded (LIMIT, keyset paging on the ULID), tags and names come back in the
same statement or one batched query per page — never one query per row of a whole table —
so a page costs the same on 1k nodes as on 100k.
"""
from __future__ import annotations

import re
import sqlite3

from ctx.core.model import NODE_TYPES, TIERS, Node
from ctx.core.store import Store, validate_tag, validate_type
from cuectx.value import Value

PAGE_SIZE = 50
GLOBAL = "global"
_PROJECT_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
CHAIN_MAX = 50
NO_TIER = "none"
SECRET_MARK = "[SECRET:"  # what the guard leaves where a secret was (ctx.core.guard)


class Filters(Value):
    """The memory page's filters, validated; each narrows the list and the search."""

    __slots__ = ("include_superseded", "project", "tag", "tier", "type")

    def __init__(self, type: str | None = None, tier: str | None = None, tag: str | None = None,
                 project: str | None = None, include_superseded: bool = False) -> None:
        self.type = type
        self.tier = tier  # one of TIERS, or NO_TIER
        self.tag = tag
        self.project = project  # a project's name, or GLOBAL (nodes of no project)
        self.include_superseded = include_superseded

    @classmethod
    def parse(cls, params) -> tuple[Filters, list[str]]:
        """Filters from query parameters; bad values are dropped with a message each."""
        problems: list[str] = []

        def pick(name, check):
            raw = (params.get(name) or "").strip()
            if not raw:
                return None
            try:
                return check(raw)
            except Exception as exc:  # noqa: BLE001 — every CtxError/ValueError is a message
                problems.append(str(exc))
                return None

        def tier(raw):
            if raw != NO_TIER and raw not in TIERS:
                raise ValueError(f"unknown tier {raw!r}")
            return raw

        def project(raw):
            if raw.lower() == GLOBAL:
                return GLOBAL
            if not _PROJECT_RE.match(raw):
                raise ValueError(f"{raw!r} is not a project name")
            return raw

        return cls(type=pick("type", validate_type), tier=pick("tier", tier),
                   tag=pick("tag", validate_tag), project=pick("project", project),
                   include_superseded=params.get("superseded") in ("1", "on", "true")), problems

    def sql(self) -> tuple[str, list]:
        """A condition over `nodes n`, parameterised: the query language's own compilation of
        expr(), so the list, the search filter and `ctx query` agree."""
        from ctx.query import compile_query

        expr = self.expr()
        if not expr:
            return "1", []
        compiled = compile_query(expr)
        return compiled.where, list(compiled.params)

    def expr(self) -> str | None:
        """The same filters in the query language, for `search(…, filter=…)` (applied before
        ranking, as `ctx search --filter`)."""
        parts = []
        if self.type:
            parts.append(f"type:{self.type}")
        if self.tier == NO_TIER:
            parts += [f"NOT tag:{_q('tier:' + t)}" for t in TIERS]
        elif self.tier:
            parts.append(f"tag:{_q('tier:' + self.tier)}")
        if self.tag:
            parts.append(f"tag:{_q(self.tag)}")
        if self.project == GLOBAL:
            parts.append("scope:global")
        elif self.project:
            parts.append(f"project:{_q(self.project)}")
        return " AND ".join(parts) or None

    def params(self) -> dict:
        out = {"type": self.type, "tier": self.tier, "tag": self.tag, "project": self.project,
               "superseded": "1" if self.include_superseded else None}
        return {k: v for k, v in out.items() if v}


def _q(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


class Page(Value):
    __slots__ = ("next_before", "nodes", "short", "total")

    def __init__(self, nodes: list[Node], next_before: str | None, total: int | None = None,
                 short: dict[str, str] | None = None) -> None:
        self.nodes = nodes
        self.next_before = next_before  # keyset cursor for the next (older) page
        self.total = total
        self.short = {} if short is None else short


def list_page(conn: sqlite3.Connection, filters: Filters, *, before: str | None = None,
              size: int = PAGE_SIZE) -> Page:
    """Newest first, `size` at a time, older than `before` (a node id)."""
    from ctx.core.ids import short_ids

    store = Store(conn)
    where, params = filters.sql()
    if before:
        where += " AND n.id < ?"
        params.append(before.upper())
    nodes = store.select(where, params, include_superseded=filters.include_superseded,
                         limit=size + 1, order="n.id DESC")
    more = len(nodes) > size
    nodes = nodes[:size]
    return Page(nodes, nodes[-1].id if more and nodes else None,
                short=short_ids(store, [n.id for n in nodes]))


def count(conn: sqlite3.Connection, filters: Filters) -> int:
    where, params = filters.sql()
    return Store(conn).count(where, params, include_superseded=filters.include_superseded)


def facets(conn: sqlite3.Connection) -> dict:
    """Live nodes per type and per tier (Store.live_counts), every type and tier listed, with
    how many have no tier (the Agent ones: chosen per prompt) and how many are superseded."""
    counts = Store(conn).live_counts()
    tiers = [(t, counts.by_tier.get(f"tier:{t}", 0)) for t in TIERS]
    return {"types": [(t, counts.by_type.get(t, 0)) for t in NODE_TYPES], "tiers": tiers,
            "no_tier": max(0, counts.live - sum(n for _, n in tiers)),
            "live": counts.live, "superseded": counts.superseded}


def projects(conn: sqlite3.Connection) -> list[tuple[str, int]]:
    """(project name, live nodes) for each project (Store.list_projects), then global memory."""
    store = Store(conn)
    out = [(p["name"], p["nodes"]) for p in store.list_projects()]
    if out:
        out.append((GLOBAL, store.global_counts()[0]))
    return out


class NodeDetail(Value):
    __slots__ = ("chain", "include_mode", "incoming", "node", "outgoing", "short")

    def __init__(self, node: Node, outgoing: list[tuple[str, Node | None, str]],
                 incoming: list[tuple[str, Node | None, str]], chain: list[Node],
                 short: dict[str, str], include_mode: str) -> None:
        self.node = node
        self.outgoing = outgoing  # (edge type, other node, other id)
        self.incoming = incoming
        self.chain = chain  # oldest → newest, this node included
        self.short = short
        self.include_mode = include_mode


def node_detail(conn: sqlite3.Connection, ref: str) -> NodeDetail:
    from ctx.claude.sessions import include_mode
    from ctx.core.ids import short_ids

    store = Store(conn)
    node = store.get(ref)
    edges = store.edges([node.id])
    chain_ids = supersede_chain(conn, node.id)
    others = {e.to_id if e.from_id == node.id else e.from_id for e in edges}
    nodes = {n.id: n for n in store.get_many(list(others | set(chain_ids)))}
    nodes[node.id] = node
    out = [(e.type, nodes.get(e.to_id), e.to_id) for e in edges if e.from_id == node.id]
    inc = [(e.type, nodes.get(e.from_id), e.from_id) for e in edges if e.to_id == node.id]
    short = short_ids(store, list(nodes))
    return NodeDetail(node, out, inc, [nodes[i] for i in chain_ids if i in nodes], short,
                      include_mode(node.tags))


def requests_with(conn: sqlite3.Connection, node_id: str, limit: int = 20) -> list[dict]:
    """The latest requests whose record names this node (given to Claude, or left out and
    why): the audit trail of one memory."""
    import json

    from ctx.claude.requests import requests_naming

    rows = requests_naming(conn, node_id, limit)
    for r in rows:
        try:
            params = json.loads(r.pop("params") or "{}")
        except ValueError:
            params = {}
        r["threshold"] = threshold(r["path"], params)
    return rows


def threshold(path: str | None, params: dict) -> float | None:
    """The score a candidate needed to be sent on the semantic path: the floor (with room
    under topN) or includeScore (sent whatever topN), whichever is lower; None on the keyword
    path, where words decide and a score only ranks."""
    if path != "semantic" or not isinstance(params, dict):
        return None
    bars = [v for v in (params.get("floor"), params.get("include_score"))
            if isinstance(v, int | float) and not isinstance(v, bool)]
    return min(bars) if bars else None


def supersede_chain(conn: sqlite3.Connection, node_id: str) -> list[str]:
    """The versions of a memory, oldest first (Store.supersede_chain)."""
    return Store(conn).supersede_chain(node_id, CHAIN_MAX)


def names(conn: sqlite3.Connection, ids: list[str]) -> dict[str, dict]:
    """Short id, type and a one-line name for each id (one batched read)."""
    from ctx.claude.request_view import item_name
    from ctx.core.ids import short_ids

    store = Store(conn)
    nodes = store.get_many(list(dict.fromkeys(ids)))
    short = short_ids(store, [n.id for n in nodes])
    return {n.id: {"short": short[n.id], "type": n.type, "name": item_name(n.content),
                   "tier": n.tier} for n in nodes}


def session_rows(conn: sqlite3.Connection, limit: int) -> list[dict]:
    """The latest sessions, most recently active first, each labelled for people: its
    project, its first prompt, when — plus counts (one batched read per page)."""
    from ctx.claude.sessions import latest_sessions

    rows = latest_sessions(conn, limit, items=True)
    where = session_projects(conn, [r["id"] for r in rows])
    for r in rows:
        r["project"] = where.get(r["id"])
    return rows


def session_projects(conn: sqlite3.Connection, session_ids: list[str]) -> dict[str, str]:
    """Each session's project by `ctx session list`'s rule (ctx.claude.sessions), GLOBAL for
    a session in no project. Missing: nothing recorded says."""
    from ctx.claude.sessions import session_projects as projects

    return {sid: name or GLOBAL for sid, name in projects(conn, session_ids).items()}


def sessions_for(conn: sqlite3.Connection, node: Node, limit: int = 20) -> list[dict]:
    """The sessions a node may be added to: its project's (and, for a global node, every
    project's), most recently active first."""
    rows = session_rows(conn, limit * 3)
    if node.project:
        rows = [r for r in rows if r["project"] in (node.project, GLOBAL, None)]
    return rows[:limit]


def replacements(conn: sqlite3.Connection, node: Node, q: str | None, limit: int = 5) -> list[Node]:
    """Nodes that could supersede `node`, from its project (or global memory), matching `q` by
    words — none before the person has typed something (a list offered unasked invites a wrong
    click), never the node itself, one already superseded, or one holding a redacted secret
    (its `[SECRET:…]` placeholder is not a memory anyone means to keep)."""
    q = " ".join((q or "").split())
    if not q:
        return []
    from ctx.core.errors import CtxError
    from ctx.semantic.search import SearchOptions, search

    store = Store(conn)
    scope = f"project:{_q(node.project)}" if node.project else "scope:global"
    try:
        result = search(conn, q, SearchOptions(mode="keyword", filter=scope, top_k=limit + 4,
                                               top_n=limit + 4), ensure_index=False)
        ids = [h.node_id for h in result.candidates]
    except CtxError:  # words the keyword index cannot use: no matches
        ids = []
    found = {n.id: n for n in store.get_many(ids)}
    nodes = [found[i] for i in ids if i in found]
    return [n for n in nodes if n.id != node.id and not n.superseded_by
            and SECRET_MARK not in n.content][:limit]


def session_did(conn: sqlite3.Connection, session_id: str) -> list[dict]:
    """What Claude remembered, superseded and summarized in a session (ctx.claude.sessions),
    each with the memory's short id and one-line name — or `gone` once it was forgotten."""
    from ctx.claude.sessions import session_actions

    acts = session_actions(conn, session_id)
    info = names(conn, [i for a in acts for i in (a.node_id, a.other_id) if i])
    return [{"action": a.action, "at": a.at, "id": a.node_id, "node": info.get(a.node_id),
             "other_id": a.other_id, "other": info.get(a.other_id) if a.other_id else None}
            for a in acts]
