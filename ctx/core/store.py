"""The ctx store: typed memory nodes, tags, edges, views and the hooks' pending hand-offs.

A library over one sqlite3 connection (from ctx.core.db.connect). It validates its input and
raises CtxError subclasses; it never prints. Writes that touch several rows run in one
short transaction, so a failure leaves nothing partial.

The scope a reader sees (SPEC §2.8) is a condition over the nodes, so it is here too;
project rows themselves are ctx.core.projects:

    scope = current_scope(conn, cwd)                 # the one call: from a folder (or CTX_PROJECT)
    store.query("type:decision", scope=scope)        # project + global
    current_scope(conn, project="api")               # another project (+ global)
    current_scope(conn, project="global")            # global only
    current_scope(conn, all_projects=True)           # everything
"""
from __future__ import annotations

import json
import os
import re
import sqlite3
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager

from ctx.core import db, pending, projects, repo
from ctx.core.errors import AmbiguousIdError, CtxError, NotFoundError
from ctx.core.ids import ALPHABET, new_ulid
from ctx.core.model import (
    CONTEXT_TIER_TAGS,
    EDGE_TYPES,
    NODE_TYPES,
    TIER_RANK,
    TIERS,
    Edge,
    Node,
    View,
    now_iso,
    token_estimate,
)
from cuectx.value import Value

MIN_PREFIX = 4
MAX_CONTENT_CHARS = 1_000_000
MAX_TAG_CHARS = 200
MAX_TAGS = 200  # per node: a write that would pass it is refused before any lock is taken
MAX_METADATA_CHARS = 100_000  # the metadata object as JSON
_TAG_RE = re.compile(r"^[^\s,]+$")
_VIEW_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_ULID_CHARS = set(ALPHABET)
_UNSET = object()
# pinned, reference, working, then the rest (ctx.core.model.TIER_RANK) — for ORDER BY
# Ids of the nodes whose include mode is `always` or `manual` (ctx.claude.sessions): an
# `include:always|manual` tag, or a tier in context without an `include:agent` tag.
NOT_AGENT_IDS_SQL = (
    "SELECT node_id FROM tags WHERE tag IN ('include:manual', 'include:always') "
    f"UNION SELECT node_id FROM tags WHERE tag IN ({','.join(repr(t) for t in CONTEXT_TIER_TAGS)}) "
    "AND node_id NOT IN (SELECT node_id FROM tags WHERE tag = 'include:agent')")
# Ids of the nodes tagged `include:manual` (never selected automatically).
# memory from others (ctx.core.trust.origin_of); the same expression as migration 10's index
_FOREIGN_SQL = ("(json_extract(metadata, '$.shared_from') IS NOT NULL "
                "OR json_extract(metadata, '$.source') = 'claude-memory')")
MANUAL_IDS_SQL = "SELECT node_id FROM tags WHERE tag = 'include:manual'"
_TIER_RANK_SQL = ("(SELECT min(CASE t.tag " + " ".join(
    f"WHEN 'tier:{tier}' THEN {rank}" for tier, rank in TIER_RANK.items())
    + f" ELSE {len(TIER_RANK)} END) FROM tags t WHERE t.node_id = n.id)")
_NODE_COLUMNS = ("id, type, content, metadata, token_estimate, created_at, updated_at, "
                 "superseded_by, project_id")


# ---------------------------------------------------------------------------- validation

def validate_type(node_type: str) -> str:
    t = (node_type or "").strip().lower()
    if t not in NODE_TYPES:
        raise CtxError(f"unknown node type {node_type!r}; use one of: {', '.join(NODE_TYPES)}")
    return t


def validate_tag(tag: str) -> str:
    t = (tag or "").strip()
    if not t or not _TAG_RE.match(t) or len(t) > MAX_TAG_CHARS or t.endswith(":") or t.startswith(":"):
        raise CtxError(f"malformed tag {tag!r}: a tag is non-empty text without spaces or commas, "
                       f"like 'tier:reference' or 'project:api'")
    if t.startswith("tier:") and t[5:] not in TIERS:
        raise CtxError(f"unknown tier {t!r}; use one of: "
                       + ", ".join(f"tier:{x}" for x in TIERS))
    return t


def validate_tags(tags: Iterable[str]) -> list[str]:
    """Valid, de-duplicated (first occurrence kept, linear time) and at most MAX_TAGS."""
    seen: dict[str, None] = {}
    for n, tag in enumerate(tags):
        if n >= 10 * MAX_TAGS and len(seen) > MAX_TAGS:
            break  # (the error below; no need to look at the other 99,000)
        seen.setdefault(validate_tag(tag))
    out = list(seen)
    if len(out) > MAX_TAGS:
        raise CtxError(f"too many tags ({len(out):,}+); a node has at most {MAX_TAGS}")
    tiers = [t for t in out if t.startswith("tier:")]
    if len(tiers) > 1:
        raise CtxError(f"a node has one tier, got {', '.join(tiers)}")
    return out


def validate_content(content: str) -> str:
    if not isinstance(content, str):
        raise CtxError("content must be text")
    text = content.strip()
    if not text:
        raise CtxError("content is empty; give the text to remember")
    if len(text) > MAX_CONTENT_CHARS:
        raise CtxError(f"content is {len(text):,} characters; the limit is "
                       f"{MAX_CONTENT_CHARS:,} — split it into several nodes")
    if "\x00" in text:
        raise CtxError("content contains a NUL character")
    return text


def validate_metadata(metadata, where: str = "metadata") -> dict:
    """The one metadata check: a JSON object (or its text); `where` names it in the error."""
    if metadata is None:
        return {}
    if isinstance(metadata, str):
        try:
            metadata = json.loads(metadata)
        except json.JSONDecodeError as exc:
            raise CtxError(f"{where} is not valid JSON: {exc.msg} at position {exc.pos}") from None
    if not isinstance(metadata, dict):
        raise CtxError(f"{where} must be a JSON object, like '{{\"source\": \"docs\"}}'")
    size = len(json.dumps(metadata, ensure_ascii=False))
    if size > MAX_METADATA_CHARS:
        raise CtxError(f"{where} is {size:,} characters as JSON; the limit is {MAX_METADATA_CHARS:,} "
                       "— keep large text in the content")
    return metadata


def validate_edge_type(edge_type: str) -> str:
    t = (edge_type or "").strip().upper().replace("-", "_")
    if t not in EDGE_TYPES:
        raise CtxError(f"unknown edge type {edge_type!r}; use one of: {', '.join(EDGE_TYPES)}")
    return t


# ---------------------------------------------------------------------------- the scope a reader sees

class Scope(Value):
    """What a reader sees: one project + global (the default), global only, or everything.

    `ref` is the project found on disk when it has no row yet (nothing stored there): reads
    then see global only, and the first write creates the row (`write_project_id`)."""

    __slots__ = ("all_projects", "project", "ref")

    def __init__(self, project: projects.Project | None = None, all_projects: bool = False,
                 ref: repo.ProjectRef | None = None) -> None:
        self.project = project
        self.all_projects = all_projects
        self.ref = ref

    def sql(self) -> tuple[str, list]:
        """A condition over `nodes n` and its parameters."""
        if self.all_projects:
            return "1", []
        if self.project is None:
            return "n.project_id IS NULL", []
        return "(n.project_id = ? OR n.project_id IS NULL)", [self.project.id]

    def outside_sql(self) -> tuple[str, list]:
        """The nodes `sql()` leaves out (other projects'), as a condition over `nodes n` that
        the nodes_project index can drive — a range (`project_id > 0`: ids are rowids), where
        `IS NOT NULL` would scan every node."""
        if self.all_projects:
            return "0", []
        if self.project is None:
            return "n.project_id > 0", []
        return "n.project_id > 0 AND n.project_id <> ?", [self.project.id]

    @property
    def label(self) -> str:
        if self.all_projects:
            return "all projects"
        name = self.project.name if self.project else (self.ref.name if self.ref else None)
        return f"{name} + global" if name else "global"

    @property
    def project_name(self) -> str | None:
        if self.project:
            return self.project.name
        return self.ref.name if self.ref else None

    def write_project_id(self, conn: sqlite3.Connection, *, touch: bool = True) -> int | None:
        """The project id new memory goes to (creating the row on first use); None = global."""
        if self.all_projects:
            return None
        if self.project is not None:
            if touch:
                projects.touch(conn, self.project.id)
            return self.project.id
        if self.ref is not None:
            return projects.ensure(conn, self.ref).id
        return None


EVERYTHING = Scope(all_projects=True)
GLOBAL_ONLY = Scope()


# ---------------------------------------------------------------------------- the one call

def current_scope(conn: sqlite3.Connection, cwd: str | os.PathLike | None = None, *,
                  project: str | None = None, all_projects: bool = False,
                  env: dict | None = None) -> Scope:
    """The scope to read with: `all_projects` → everything; `project` NAME → that project +
    global (`global` → global only; an unknown name is NotFoundError); else the project of
    `cwd` (default: the working directory) or `CTX_PROJECT`, + global."""
    if all_projects and project:
        raise CtxError("give --project or --all-projects, not both")
    if all_projects:
        return EVERYTHING
    if project is not None:
        if project.strip().lower() == projects.GLOBAL:
            return GLOBAL_ONLY
        return Scope(project=projects.get(conn, project))
    ref = repo.resolve(cwd, env=env)
    if ref is None:
        return GLOBAL_ONLY
    found = projects.find(conn, ref)
    return Scope(project=found) if found else Scope(ref=ref)


# ---------------------------------------------------------------------------- the store

class LiveCounts(Value):
    """Live (not superseded) nodes, per type and per tier tag (`tier:…`), both sorted by name
    and without zeros; and how many superseded nodes there are."""

    __slots__ = ("by_tier", "by_type", "live", "superseded")

    def __init__(self, live: int, superseded: int, by_type: dict[str, int],
                 by_tier: dict[str, int]) -> None:
        self.live = live
        self.superseded = superseded
        self.by_type = by_type
        self.by_tier = by_tier



class Store:
    def __init__(self, conn: sqlite3.Connection, *, secrets: str | None = None):
        self.conn = conn
        # ctx.core.guard: every content/metadata write is screened for credentials under this
        # policy (None: $CTX_SECRETS, default redact); what was met is logged (kinds only).
        self.secrets = secrets
        self.secret_events: list = []

    # -- transactions
    @contextmanager
    def transaction(self) -> Iterator[Store]:
        """One short write transaction; inside one already open on this connection (by any
        Store or helper) it joins that one (db.transaction asks `conn.in_transaction`)."""
        with db.transaction(self.conn):
            yield self

    # -- reading
    def _rows_to_nodes(self, rows: Sequence[sqlite3.Row]) -> list[Node]:
        """Rows of _NODE_COLUMNS, optionally with a `tags` column (joined by \x1f)."""
        if not rows:
            return []
        keys = rows[0].keys()
        if "tags" in keys:
            tags = {r["id"]: (r["tags"].split("\x1f") if r["tags"] else []) for r in rows}
        else:
            tags = self.tags_for([r["id"] for r in rows])
        names = self.project_names() if any(r["project_id"] is not None for r in rows) else {}
        return [
            Node(id=r["id"], type=r["type"], content=r["content"],
                 metadata=json.loads(r["metadata"]) if r["metadata"] not in ("{}", "", None) else {},
                 tags=tuple(tags.get(r["id"], ())),
                 token_estimate=r["token_estimate"], created_at=r["created_at"],
                 updated_at=r["updated_at"], superseded_by=r["superseded_by"],
                 project=names.get(r["project_id"]))
            for r in rows
        ]

    def project_names(self) -> dict[int, str]:
        """Project id → name (a small table: read whole)."""
        return projects.names(self.conn)

    def tags_for(self, ids: Sequence[str]) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for chunk in _chunks(list(ids), 900):
            marks = ",".join("?" * len(chunk))
            for node_id, tag in self.conn.execute(
                f"SELECT node_id, tag FROM tags WHERE node_id IN ({marks}) ORDER BY node_id, tag",
                chunk,
            ):
                out.setdefault(node_id, []).append(tag)
        return out

    def resolve(self, ref: str) -> str:
        """Full id for an id or a unique prefix (≥ 4 characters, case-insensitive)."""
        prefix = (ref or "").strip().upper()
        if len(prefix) < MIN_PREFIX:
            raise NotFoundError(f"id {ref!r} is too short; give at least {MIN_PREFIX} characters")
        if not set(prefix) <= _ULID_CHARS or len(prefix) > 26:
            raise NotFoundError(f"{ref!r} is not a node id (ids look like 01JD3K8W…)")
        rows = self.conn.execute(
            "SELECT id FROM nodes WHERE id >= ? AND id < ? ORDER BY id LIMIT 6",
            (prefix, prefix + "\x7f"),
        ).fetchall()
        if not rows:
            raise NotFoundError(f"no node with id {ref!r}")
        if len(rows) > 1:
            shown = ", ".join(r[0] for r in rows[:5])
            raise AmbiguousIdError(f"id prefix {ref!r} matches {len(rows) if len(rows) < 6 else 'more than 5'} "
                                   f"nodes ({shown}); give more characters")
        return rows[0][0]

    def get(self, ref: str) -> Node:
        node_id = self.resolve(ref)
        row = self.conn.execute(f"SELECT {_NODE_COLUMNS} FROM nodes WHERE id = ?", (node_id,)).fetchone()
        return self._rows_to_nodes([row])[0]

    def get_many(self, ids: Sequence[str]) -> list[Node]:
        """Nodes by full id, in the order given; unknown ids are skipped."""
        rows: dict[str, sqlite3.Row] = {}
        for chunk in _chunks(list(ids), 900):
            marks = ",".join("?" * len(chunk))
            for r in self.conn.execute(f"SELECT {_NODE_COLUMNS} FROM nodes WHERE id IN ({marks})", chunk):
                rows[r["id"]] = r
        return self._rows_to_nodes([rows[i] for i in ids if i in rows])

    def select(self, where: str = "1", params: Sequence = (), *, include_superseded: bool = False,
               limit: int | None = None, order: str = "n.id", ids_only: bool = False,
               scope: Scope | None = None) -> list:
        """Nodes (or just their ids) matching a SQL condition over `nodes n`.

        Callers pass compiled, parameterised SQL (ctx.query); tags come back in the same
        statement (one indexed subquery per row), so a large result is one round trip.
        `scope` (ctx.core.store.Scope) limits it to a project + global; None = every node.
        """
        if scope is not None and not scope.all_projects:
            scope_sql, scope_params = scope.sql()
            where, params = f"({where}) AND {scope_sql}", [*params, *scope_params]
        cols = "n.id" if ids_only else (
            ", ".join("n." + c.strip() for c in _NODE_COLUMNS.split(","))
            + ", (SELECT group_concat(t.tag, char(31)) FROM tags t WHERE t.node_id = n.id) AS tags")
        sql = f"SELECT {cols} FROM nodes n WHERE ({where})"
        if not include_superseded:
            sql += " AND n.superseded_by IS NULL"
        sql += f" ORDER BY {order}"
        args = list(params)
        if limit is not None:
            sql += " LIMIT ?"
            args.append(int(limit))
        rows = self.conn.execute(sql, args).fetchall()
        if ids_only:
            return [r[0] for r in rows]
        return self._rows_to_nodes(rows)

    def query(self, expr: str, *, include_superseded: bool = False, limit: int | None = None,
              ids_only: bool = False, scope: Scope | None = None) -> list:
        """Nodes (or ids) matching a query-language expression, in ULID (creation) order.
        `scope` applies unless the query names its own (`project:NAME`, `scope:global`)."""
        from ctx.query import compile_expr, names_scope, parse

        expr_ast = parse(expr)
        compiled = compile_expr(expr_ast)
        return self.select(compiled.where, compiled.params, include_superseded=include_superseded,
                           limit=limit, ids_only=ids_only,
                           scope=None if names_scope(expr_ast) else scope)

    def list_nodes(self, *, type: str | None = None, tags: Sequence[str] = (),
                   include_superseded: bool = False, limit: int | None = None,
                   newest_first: bool = False, scope: Scope | None = None) -> list[Node]:
        where, params = ["1"], []
        if type:
            where.append("n.type = ?")
            params.append(validate_type(type))
        for tag in tags:
            where.append("EXISTS (SELECT 1 FROM tags t WHERE t.node_id = n.id AND t.tag = ?)")
            params.append(tag.strip())
        return self.select(" AND ".join(where), params, include_superseded=include_superseded,
                           limit=limit, order="n.id DESC" if newest_first else "n.id", scope=scope)

    def edges(self, node_ids: Sequence[str] | None = None, types: Sequence[str] | None = None) -> list[Edge]:
        """Edges touching any of `node_ids` (all edges when None)."""
        sql, params = "SELECT from_id, to_id, type, created_at FROM edges WHERE 1", []
        if types:
            sql += f" AND type IN ({','.join('?' * len(types))})"
            params += list(types)
        if node_ids is None:
            return [Edge(*r) for r in self.conn.execute(sql + " ORDER BY from_id, to_id, type", params)]
        out: dict[tuple, Edge] = {}
        for chunk in _chunks(list(node_ids), 400):
            marks = ",".join("?" * len(chunk))
            for r in self.conn.execute(
                sql + f" AND (from_id IN ({marks}) OR to_id IN ({marks}))", params + chunk + chunk
            ):
                out[(r[0], r[1], r[2])] = Edge(*r)
        return [out[k] for k in sorted(out)]

    def count(self, where: str = "1", params: Sequence = (), *, include_superseded: bool = True,
              scope: Scope | None = None) -> int:
        """How many nodes match a SQL condition over `nodes n` (as `select` takes it)."""
        if scope is not None and not scope.all_projects:
            scope_sql, scope_params = scope.sql()
            where, params = f"({where}) AND {scope_sql}", [*params, *scope_params]
        sql = f"SELECT count(*) FROM nodes n WHERE ({where})"
        if not include_superseded:
            sql += " AND n.superseded_by IS NULL"
        return self.conn.execute(sql, list(params)).fetchone()[0]

    def count_live(self, project_id: int | None) -> int:
        """Live nodes of one project (None: global memory)."""
        return self.conn.execute("SELECT count(*) FROM nodes WHERE project_id IS ? "
                                 "AND superseded_by IS NULL", (project_id,)).fetchone()[0]

    def edge_degrees(self) -> Counter[str]:
        """Node id → how many edge ends it is (a self-loop counts twice; 0 for the rest):
        two scans of a covering index, counted in C — not an `IN (…)` lookup per few hundred
        ids (the graph page's hubs over 100k nodes: ~2 s that way)."""
        from operator import itemgetter

        counts: Counter[str] = Counter()
        for column in ("from_id", "to_id"):
            counts.update(map(itemgetter(0), self.conn.execute(f"SELECT {column} FROM edges")))
        return counts

    def count_edges(self) -> int:
        return self.conn.execute("SELECT count(*) FROM edges").fetchone()[0]

    def live_counts(self, *, scope: Scope | None = None,
                    project_id: int | None | object = _UNSET) -> LiveCounts:
        """The one "live nodes by type and by tier" count (`ctx status`, `<ctx:status/>`,
        `ctx project show`, the viewer's facets): over the whole store, `scope` (a project +
        global), or one `project_id` alone (None: global memory alone).

        The whole store is counted as all minus superseded: the superseded are few and the
        partial index nodes_superseded_by finds them, while filtering every row on
        `superseded_by IS NULL` reads the content-heavy nodes table (~10x slower at 100k,
        tens of milliseconds on the hook's critical path)."""
        c = self.conn
        if project_id is not _UNSET:
            where, params = "n.project_id IS ?", [project_id]
        elif scope is not None and not scope.all_projects:
            where, params = scope.sql()
        else:
            total = c.execute("SELECT count(*) FROM nodes").fetchone()[0]
            superseded = c.execute("SELECT count(*) FROM nodes WHERE superseded_by IS NOT NULL").fetchone()[0]
            tiers = _minus(c.execute("SELECT tag, count(*) FROM tags WHERE tag >= 'tier:' AND tag < 'tier;' "
                                     "GROUP BY tag").fetchall(),
                           c.execute("SELECT t.tag, count(*) FROM nodes n INDEXED BY nodes_superseded_by "
                                     "CROSS JOIN tags t ON t.node_id = n.id "
                                     "WHERE n.superseded_by IS NOT NULL AND t.tag >= 'tier:' "
                                     "AND t.tag < 'tier;' GROUP BY t.tag").fetchall())
            types = _minus(c.execute("SELECT type, count(*) FROM nodes GROUP BY type").fetchall(),
                           c.execute("SELECT type, count(*) FROM nodes INDEXED BY nodes_superseded_by "
                                     "WHERE superseded_by IS NOT NULL GROUP BY type").fetchall())
            return LiveCounts(total - superseded, superseded, types, tiers)
        live = c.execute(f"SELECT count(*) FROM nodes n WHERE n.superseded_by IS NULL AND {where}",
                         params).fetchone()[0]
        superseded = c.execute(f"SELECT count(*) FROM nodes n WHERE n.superseded_by IS NOT NULL AND {where}",
                               params).fetchone()[0]
        types = dict(c.execute(f"SELECT n.type, count(*) FROM nodes n WHERE n.superseded_by IS NULL "
                               f"AND {where} GROUP BY n.type ORDER BY n.type", params).fetchall())
        tiers = dict(c.execute("SELECT t.tag, count(*) FROM nodes n JOIN tags t ON t.node_id = n.id "
                               f"WHERE t.tag >= 'tier:' AND t.tag < 'tier;' AND n.superseded_by IS NULL "
                               f"AND {where} GROUP BY t.tag ORDER BY t.tag", params).fetchall())
        return LiveCounts(live, superseded, types, tiers)

    def stats(self, *, scope: Scope | None = None) -> dict:
        """Counts over the store, or over `scope` (project + global) for the node counts."""
        c = self.conn
        w, p = scope.sql() if scope is not None else ("1", [])
        counts = self.live_counts(scope=scope)
        return {
            "nodes": counts.live + counts.superseded,
            "live_nodes": counts.live,
            "superseded_nodes": counts.superseded,
            "tokens": c.execute(f"SELECT coalesce(sum(token_estimate), 0) FROM nodes n "
                                f"WHERE superseded_by IS NULL AND {w}", p).fetchone()[0],
            "by_type": counts.by_type,
            "by_tier": counts.by_tier,
            "edges": self.count_edges(),
            "tags": c.execute("SELECT count(DISTINCT tag) FROM tags").fetchone()[0],
            "views": c.execute("SELECT count(*) FROM views").fetchone()[0],
            # hand-offs still waiting (not the Stop hook's transcript cursors)
            "pending": pending.waiting_keys(c),
            "schema_version": c.execute("PRAGMA user_version").fetchone()[0],
        }

    # -- named reads for the layers above (issue 21: the only SQL over nodes/tags/edges/views)
    def ids_by_tier(self, where: str, params: Sequence = (), *, own_first: bool = False
                    ) -> Iterator[tuple[str, int]]:
        """(id, token estimate) of the nodes matching a condition over `nodes n`, pinned first,
        then reference, working, the rest (ctx.core.model.TIER_RANK), each in id order; read
        as iterated. `own_first`: the user's own memory before memory from others (the
        partial index of migration 10), so others' text never crowds the user's out of a cap."""
        if own_first:  # (a store with no memory from others pays one index probe, nothing more)
            own_first = self.conn.execute(f"SELECT 1 FROM nodes INDEXED BY nodes_foreign WHERE "
                                          f"{_FOREIGN_SQL} LIMIT 1").fetchone() is not None
        first = (f"n.id IN (SELECT id FROM nodes INDEXED BY nodes_foreign WHERE {_FOREIGN_SQL}), "
                 if own_first else "")
        return self.conn.execute(f"SELECT n.id, n.token_estimate FROM nodes n WHERE {where} "
                                 f"ORDER BY {first}{_TIER_RANK_SQL}, n.id", list(params))

    def contents(self, ids: Iterable[str]) -> dict[str, str]:
        """{id: content} for the ids that exist (no tags or projects: the cheap read)."""
        out: dict[str, str] = {}
        for part in _chunks(list(dict.fromkeys(ids)), 500):
            out.update(self.conn.execute(f"SELECT id, content FROM nodes WHERE id IN "
                                         f"({','.join('?' * len(part))})", part).fetchall())
        return out

    def any_live(self, where: str = "1", params: Sequence = ()) -> bool:
        """Is there a live node matching a condition over `nodes n`?"""
        return self.conn.execute(f"SELECT 1 FROM nodes n WHERE n.superseded_by IS NULL AND ({where}) "
                                 "LIMIT 1", list(params)).fetchone() is not None

    def pages(self, size: int = 1000) -> Iterator[list[tuple[Node, int | None]]]:
        """Every node in id order, `size` at a time, with its project id — so a huge store is
        never read at once."""
        last = ""
        while True:
            rows = self.conn.execute("SELECT id, project_id FROM nodes WHERE id > ? ORDER BY id LIMIT ?",
                                     (last, size)).fetchall()
            if not rows:
                return
            pids = dict(rows)
            yield [(n, pids[n.id]) for n in self.get_many([r[0] for r in rows])]
            last = rows[-1][0]

    def all_ids(self) -> set[str]:
        return {r[0] for r in self.conn.execute("SELECT id FROM nodes")}

    def supersede_chain(self, node_id: str, limit: int) -> list[str]:
        """The versions of a memory, oldest first: what this node replaced (following the
        nodes whose superseded_by points here, one per step) and what replaced it; at most
        `limit` steps each way."""
        back: list[str] = []
        cursor, seen = node_id, {node_id}
        while len(back) < limit:
            row = self.conn.execute("SELECT id FROM nodes WHERE superseded_by = ? ORDER BY id DESC LIMIT 1",
                                    (cursor,)).fetchone()
            if row is None or row[0] in seen:
                break
            back.append(row[0])
            seen.add(row[0])
            cursor = row[0]
        forward: list[str] = []
        cursor = node_id
        while len(forward) < limit:
            row = self.conn.execute("SELECT superseded_by FROM nodes WHERE id = ?", (cursor,)).fetchone()
            if row is None or row[0] is None or row[0] in seen:
                break
            forward.append(row[0])
            seen.add(row[0])
            cursor = row[0]
        return list(reversed(back)) + [node_id] + forward

    def neighbours(self, node_id: str, limit: int) -> list[str]:
        """Ids linked to `node_id` by an edge either way (at most `limit`)."""
        return [r[0] for r in self.conn.execute("SELECT to_id FROM edges WHERE from_id = ? UNION "
                                                "SELECT from_id FROM edges WHERE to_id = ? LIMIT ?",
                                                (node_id, node_id, limit))]

    def raw_rows(self, ids: Sequence[str] | None = None) -> Iterator[tuple[str, str, str, list[str]]]:
        """(id, content, metadata as stored JSON, tags) of every node (superseded too) or of
        `ids`, in id order — the text exactly as stored, for checks over it (ctx.doctor)."""
        if ids is None:
            chunks: Iterable[list[str] | None] = [None]
        else:
            chunks = _chunks(sorted(dict.fromkeys(ids)), 500)
        for part in chunks:
            where = "1" if part is None else f"id IN ({','.join('?' * len(part))})"
            params = [] if part is None else part
            tags: dict[str, list[str]] = {}
            for node_id, tag in self.conn.execute(
                    f"SELECT node_id, tag FROM tags WHERE {where.replace('id IN', 'node_id IN')} "
                    "ORDER BY node_id, tag", params):
                tags.setdefault(node_id, []).append(tag)
            for node_id, content, metadata in self.conn.execute(
                    f"SELECT id, content, metadata FROM nodes WHERE {where} ORDER BY id", params):
                yield node_id, content, metadata, tags.get(node_id, [])

    def rewrite_raw(self, node_id: str, content: str, metadata: str, tags: dict[str, str]) -> None:
        """Overwrite a node's stored text in place (no guard, no new version): `tags` maps an
        old tag to its new text. For repairs (ctx.doctor), inside the caller's transaction."""
        for old, new in tags.items():
            if old != new:
                self.conn.execute("DELETE FROM tags WHERE node_id = ? AND tag = ?", (node_id, old))
                self.conn.execute("INSERT OR IGNORE INTO tags (node_id, tag) VALUES (?, ?)", (node_id, new))
        self.conn.execute("UPDATE nodes SET content = ?, metadata = ?, token_estimate = ?, "
                          "updated_at = ? WHERE id = ?",
                          (content, metadata, token_estimate(content), now_iso(), node_id))
        from ctx.core.fingerprint import write_fingerprints

        write_fingerprints(self.conn, [(node_id, content)])

    def add_edges(self, edges: Iterable[Edge]) -> int:
        """Insert edges as they are (import), skipping ones already there; the types are
        checked. An edge to an unknown node is a CtxError."""
        n = 0
        for e in edges:
            try:
                self.conn.execute(
                    "INSERT OR IGNORE INTO edges (from_id, to_id, type, created_at) VALUES (?, ?, ?, ?)",
                    (e.from_id, e.to_id, validate_edge_type(e.type), e.created_at))
            except sqlite3.IntegrityError as exc:
                if "FOREIGN KEY" in str(exc):
                    raise CtxError(f"edge {e.from_id} → {e.to_id} points at a node that is not "
                                   f"in the store or the file") from None
                raise
            n += 1
        return n

    def put_view(self, view: View) -> None:
        """Create or replace a view as given (import): name, query, budget and both times."""
        self.conn.execute(
            "INSERT INTO views (name, query, budget, created_at, updated_at) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT(name) DO UPDATE SET query = excluded.query, budget = excluded.budget, "
            "created_at = excluded.created_at, updated_at = excluded.updated_at",
            (view.name, view.query, int(view.budget), view.created_at, view.updated_at))

    # -- writing nodes
    def add(self, content: str, type: str = "fact", tags: Iterable[str] = (), metadata=None, *,
            id: str | None = None, created_at: str | None = None, updated_at: str | None = None,
            superseded_by: str | None = None, project_id: int | None = None) -> Node:
        record = {"content": content, "type": type, "tags": list(tags), "metadata": metadata,
                  "id": id, "created_at": created_at, "updated_at": updated_at,
                  "superseded_by": superseded_by}
        return self.add_many([record], project_id=project_id)[0]

    def add_many(self, records: Iterable[dict], *, project_id: int | None = None) -> list[Node]:
        """Validate every record first, then insert all of them in one transaction.
        `project_id` (ctx.core.projects) is the project they belong to (None: global); a record's own
        `project_id` key wins (imports)."""
        prepared = [self._prepare(r, i) for i, r in enumerate(records)]
        self._screen_records(prepared)
        pids = {p["project_id"] for p in prepared if p["project_id"] not in (_UNSET, None)}
        pids |= {project_id} if project_id is not None else set()
        for pid in pids:
            if not projects.exists(self.conn, pid):
                raise CtxError(f"no project with id {pid}")
        with self.transaction():
            for p in prepared:
                pid = p["project_id"] if p["project_id"] is not _UNSET else project_id
                try:
                    self.conn.execute(
                        "INSERT INTO nodes (id, type, content, metadata, token_estimate, created_at, "
                        "updated_at, superseded_by, project_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (p["id"], p["type"], p["content"], p["metadata"], p["tokens"],
                         p["created_at"], p["updated_at"], None, pid),
                    )
                except sqlite3.IntegrityError:
                    raise CtxError(f"a node with id {p['id']} already exists") from None
                self.conn.executemany("INSERT OR IGNORE INTO tags (node_id, tag) VALUES (?, ?)",
                                      [(p["id"], t) for t in p["tags"]])
            from ctx.core.fingerprint import write_fingerprints

            write_fingerprints(self.conn, [(p["id"], p["content"]) for p in prepared])
            # superseded_by may point at a node later in the same batch (imports).
            for p in prepared:
                if p["superseded_by"]:
                    self.conn.execute("UPDATE nodes SET superseded_by = ? WHERE id = ?",
                                      (p["superseded_by"], p["id"]))
        return self.get_many([p["id"] for p in prepared])

    def _screen_records(self, prepared: list[dict]) -> None:
        """The secret guard (ctx.core.guard) over validated records, before anything is written:
        under refuse one secret anywhere refuses the whole batch."""
        from ctx.core import guard

        mode = guard.policy(self.secrets)
        if mode == guard.ALLOW:
            return
        events = []
        for i, p in enumerate(prepared):
            where = "the content" if len(prepared) == 1 else f"record {i + 1}"
            try:
                content, found = guard.screen(p["content"], mode, where)
                p["tags"] = guard.screen_tags(p["tags"], mode, found, where)
                if p["metadata"] != "{}":
                    meta = guard.screen_value(json.loads(p["metadata"]), mode, found, where)
                    p["metadata"] = json.dumps(meta, ensure_ascii=False, sort_keys=True)
            except guard.SecretRefusedError as exc:
                self.secret_events.append(guard.SecretEvent(None, tuple(exc.kinds), 1, "refused"))
                raise
            if found:
                p["content"], p["tokens"] = content, token_estimate(content)
                events.append(guard.SecretEvent(p["id"], tuple(dict.fromkeys(f.kind for f in found)),
                                                len(found), "redacted"))
        self.secret_events += events

    def _screen_update(self, node_id: str, content: str | None, metadata):
        from ctx.core import guard

        mode = guard.policy(self.secrets)
        if mode == guard.ALLOW:
            return content, metadata
        found: list = []
        try:
            if content is not None:
                content, found = guard.screen(content, mode)
            if metadata is not None:
                metadata = guard.screen_value(metadata, mode, found)
        except guard.SecretRefusedError as exc:
            self.secret_events.append(guard.SecretEvent(node_id, tuple(exc.kinds), 1, "refused"))
            raise
        if found:
            self.secret_events.append(guard.SecretEvent(
                node_id, tuple(dict.fromkeys(f.kind for f in found)), len(found), "redacted"))
        return content, metadata

    def _screen_new_tags(self, node_id: str, tags: list[str]) -> list[str]:
        from ctx.core import guard

        mode = guard.policy(self.secrets)
        if mode == guard.ALLOW:
            return tags
        found: list = []
        try:
            tags = guard.screen_tags(tags, mode, found, "the tags")
        except guard.SecretRefusedError as exc:
            self.secret_events.append(guard.SecretEvent(node_id, tuple(exc.kinds), 1, "refused"))
            raise
        if found:
            self.secret_events.append(guard.SecretEvent(
                node_id, tuple(dict.fromkeys(f.kind for f in found)), len(found), "redacted"))
        return tags

    def _prepare(self, record: dict, index: int) -> dict:
        if not isinstance(record, dict):
            raise CtxError(f"record {index + 1}: expected a JSON object")
        try:
            now = now_iso()
            node_id = record.get("id") or new_ulid()
            if not isinstance(node_id, str) or len(node_id) != 26 or not set(node_id.upper()) <= _ULID_CHARS:
                raise CtxError(f"id {node_id!r} is not a ULID")
            tags = record.get("tags") or []
            if isinstance(tags, str):
                tags = [t for t in re.split(r"[,\s]+", tags) if t]
            if not isinstance(tags, list):
                raise CtxError("tags must be a list of strings")
            content = validate_content(record.get("content"))
            return {
                "id": node_id.upper(),
                "type": validate_type(record.get("type") or "fact"),
                "content": content,
                "tokens": token_estimate(content),
                "tags": validate_tags(str(t) for t in tags),
                "metadata": json.dumps(validate_metadata(record.get("metadata")), ensure_ascii=False,
                                       sort_keys=True),
                "created_at": record.get("created_at") or now,
                "updated_at": record.get("updated_at") or record.get("created_at") or now,
                "superseded_by": record.get("superseded_by"),
                "project_id": _project_id(record.get("project_id", _UNSET)),
            }
        except CtxError as exc:
            if index == 0:
                raise
            raise CtxError(f"record {index + 1}: {exc}") from None

    def update(self, ref: str, *, content: str | None = None, metadata=None,
               type: str | None = None) -> Node:
        node = self.get(ref)
        sets, params = [], []
        if content is not None:
            validate_content(content)
        if metadata is not None:
            metadata = validate_metadata(metadata)
        content, metadata = self._screen_update(node.id, content, metadata)
        if content is not None:
            text = validate_content(content)
            sets += ["content = ?", "token_estimate = ?"]
            params += [text, token_estimate(text)]
        if metadata is not None:
            sets.append("metadata = ?")
            params.append(json.dumps(validate_metadata(metadata), ensure_ascii=False, sort_keys=True))
        if type is not None:
            sets.append("type = ?")
            params.append(validate_type(type))
        if sets:
            with self.transaction():
                self.conn.execute(f"UPDATE nodes SET {', '.join(sets)}, updated_at = ? WHERE id = ?",
                                  params + [now_iso(), node.id])
                if content is not None:
                    from ctx.core.fingerprint import write_fingerprints

                    write_fingerprints(self.conn, [(node.id, validate_content(content))])
        return self.get(node.id)

    def _touch(self, node_id: str) -> None:
        self.conn.execute("UPDATE nodes SET updated_at = ? WHERE id = ?", (now_iso(), node_id))

    def tag(self, ref: str, tags: Iterable[str]) -> Node:
        node = self.get(ref)
        new = validate_tags(tags)
        kept = [t for t in node.tags if not (t.startswith("tier:") and any(x.startswith("tier:") for x in new))]
        if len(set(kept) | set(new)) > MAX_TAGS:
            raise CtxError(f"{node.id} would have {len(set(kept) | set(new)):,} tags; a node has at most "
                           f"{MAX_TAGS}")
        new = self._screen_new_tags(node.id, new)
        with self.transaction():
            if any(t.startswith("tier:") for t in new):
                # A node has one tier: setting one replaces the old.
                self.conn.execute("DELETE FROM tags WHERE node_id = ? AND tag LIKE 'tier:%'", (node.id,))
            self.conn.executemany("INSERT OR IGNORE INTO tags (node_id, tag) VALUES (?, ?)",
                                  [(node.id, t) for t in new])
            self._touch(node.id)
        return self.get(node.id)

    def edit(self, ref: str, *, content: str | None = None, type: str | None = None,
             tags: Iterable[str] | None = None, metadata=None) -> tuple[Node, int | None]:
        """A new version of a memory under the same id (`ctx edit`, the viewer's edit form):
        what it held before is kept in node_versions (`versions()`), then the content, type,
        whole tag list and metadata given are applied — each screened by the secret guard as
        any write is. Returns (the node now, the number of the version saved; None when
        nothing differed, and then nothing is saved)."""
        node = self.get(ref)
        new_tags = None if tags is None else validate_tags(tags)
        changed = ((content is not None and content != node.content)
                   or (type is not None and type != node.type)
                   or (new_tags is not None and sorted(new_tags) != sorted(node.tags))
                   or (metadata is not None and metadata != node.metadata))
        if not changed:
            return node, None
        if new_tags is not None and len(new_tags) > MAX_TAGS:
            raise CtxError(f"a node has at most {MAX_TAGS} tags, not {len(new_tags):,}")
        with self.transaction():
            version = self.conn.execute("SELECT coalesce(max(version), 0) + 1 FROM node_versions "
                                        "WHERE node_id = ?", (node.id,)).fetchone()[0]
            self.conn.execute(
                "INSERT INTO node_versions (node_id, version, content, type, tags, metadata, "
                "saved_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (node.id, version, node.content, node.type, json.dumps(sorted(node.tags)),
                 json.dumps(node.metadata or {}, ensure_ascii=False, sort_keys=True), now_iso()))
            self.update(node.id, content=content if content != node.content else None,
                        type=type if type != node.type else None,
                        metadata=metadata if metadata != node.metadata else None)
            if new_tags is not None:
                gone = [t for t in node.tags if t not in new_tags]
                if gone:
                    self.untag(node.id, gone)
                added = [t for t in new_tags if t not in node.tags]
                if added:
                    self.tag(node.id, added)
        return self.get(node.id), version

    def versions(self, ref: str) -> list[dict]:
        """The versions an edit replaced, oldest first: {version, content, type, tags,
        metadata, saved_at} (the current text is the node itself)."""
        node_id = self.resolve(ref)
        return [{"version": v, "content": c, "type": t, "tags": json.loads(tags),
                 "metadata": json.loads(meta), "saved_at": at}
                for v, c, t, tags, meta, at in self.conn.execute(
                    "SELECT version, content, type, tags, metadata, saved_at FROM node_versions "
                    "WHERE node_id = ? ORDER BY version", (node_id,))]

    def untag(self, ref: str, tags: Iterable[str]) -> Node:
        node = self.get(ref)
        with self.transaction():
            self.conn.executemany("DELETE FROM tags WHERE node_id = ? AND tag = ?",
                                  [(node.id, t.strip()) for t in tags])
            self._touch(node.id)
        return self.get(node.id)

    def retag(self, node_ids: Sequence[str], remove: str, add: str) -> int:
        """Swap tag `remove` for `add` on the given nodes (e.g. tier:working → tier:off-context)."""
        add = validate_tag(add)
        n = 0
        with self.transaction():
            for node_id in node_ids:
                if add.startswith("tier:"):
                    self.conn.execute("DELETE FROM tags WHERE node_id = ? AND tag LIKE 'tier:%'", (node_id,))
                else:
                    self.conn.execute("DELETE FROM tags WHERE node_id = ? AND tag = ?", (node_id, remove))
                self.conn.execute("INSERT OR IGNORE INTO tags (node_id, tag) VALUES (?, ?)", (node_id, add))
                self._touch(node_id)
                n += 1
        return n

    def link(self, from_ref: str, to_ref: str, edge_type: str = "RELATES_TO") -> Edge:
        kind = validate_edge_type(edge_type)
        a, b = self.resolve(from_ref), self.resolve(to_ref)
        if a == b:
            raise CtxError("a node cannot be linked to itself")
        created = now_iso()
        with self.transaction():
            self.conn.execute("INSERT OR IGNORE INTO edges (from_id, to_id, type, created_at) "
                              "VALUES (?, ?, ?, ?)", (a, b, kind, created))
        row = self.conn.execute("SELECT from_id, to_id, type, created_at FROM edges WHERE from_id = ? "
                                "AND to_id = ? AND type = ?", (a, b, kind)).fetchone()
        return Edge(*row)

    def unlink(self, from_ref: str, to_ref: str, edge_type: str | None = None) -> int:
        a, b = self.resolve(from_ref), self.resolve(to_ref)
        sql, params = "DELETE FROM edges WHERE from_id = ? AND to_id = ?", [a, b]
        if edge_type:
            sql += " AND type = ?"
            params.append(validate_edge_type(edge_type))
        with self.transaction():
            return self.conn.execute(sql, params).rowcount

    def supersede(self, old_ref: str, new_ref: str) -> tuple[Node, Node]:
        """Mark `old` as replaced by `new` (seed §7): old.superseded_by = new, edge new SUPERSEDES old."""
        old, new = self.resolve(old_ref), self.resolve(new_ref)
        if old == new:
            raise CtxError("a node cannot supersede itself")
        # Refuse cycles: new must not already be (transitively) superseded by old.
        cursor, seen = new, set()
        while cursor and cursor not in seen:
            seen.add(cursor)
            if cursor == old:
                raise CtxError(f"{new_ref} is already superseded by {old_ref}; that would make a cycle")
            row = self.conn.execute("SELECT superseded_by FROM nodes WHERE id = ?", (cursor,)).fetchone()
            cursor = row[0] if row else None
        with self.transaction():
            self.conn.execute("UPDATE nodes SET superseded_by = ?, updated_at = ? WHERE id = ?",
                              (new, now_iso(), old))
            self.conn.execute("INSERT OR IGNORE INTO edges (from_id, to_id, type, created_at) "
                              "VALUES (?, ?, 'SUPERSEDES', ?)", (new, old, now_iso()))
        return self.get(old), self.get(new)

    def unsupersede(self, old_ref: str, new_ref: str | None = None) -> Node:
        """Undo a supersede: `old` is live again and the SUPERSEDES edge to it goes (only the
        one from `new` when given)."""
        old = self.resolve(old_ref)
        with self.transaction():
            row = self.conn.execute("SELECT superseded_by FROM nodes WHERE id = ?", (old,)).fetchone()
            by = new_ref or (row[0] if row else None)
            self.conn.execute("UPDATE nodes SET superseded_by = NULL, updated_at = ? WHERE id = ?",
                              (now_iso(), old))
            if by:
                self.conn.execute("DELETE FROM edges WHERE from_id = ? AND to_id = ? AND "
                                  "type = 'SUPERSEDES'", (by, old))
        return self.get(old)

    def dangling_edges(self) -> list[Edge]:
        """Edges whose end is a node no longer in the store (written with foreign keys off,
        e.g. by an older version or another tool)."""
        return [Edge(*r) for r in self.conn.execute(
            "SELECT e.from_id, e.to_id, e.type, e.created_at FROM edges e "
            "WHERE NOT EXISTS (SELECT 1 FROM nodes WHERE id = e.from_id) "
            "OR NOT EXISTS (SELECT 1 FROM nodes WHERE id = e.to_id) ORDER BY 1, 2, 3")]

    def dangling_supersedes(self) -> list[tuple[str, str]]:
        """(node, missing node) for superseded_by pointing at a node that is gone."""
        return [tuple(r) for r in self.conn.execute(
            "SELECT n.id, n.superseded_by FROM nodes n INDEXED BY nodes_superseded_by "
            "WHERE n.superseded_by IS NOT NULL AND NOT EXISTS "
            "(SELECT 1 FROM nodes m WHERE m.id = n.superseded_by)")]

    def remove_edge(self, edge: Edge) -> None:
        self.conn.execute("DELETE FROM edges WHERE from_id = ? AND to_id = ? AND type = ?",
                          (edge.from_id, edge.to_id, edge.type))

    def restore_edge(self, edge: Edge) -> None:
        """Put an edge back as it was (undo of a doctor fix), foreign keys permitting."""
        self.conn.execute("INSERT OR IGNORE INTO edges (from_id, to_id, type, created_at) "
                          "VALUES (?, ?, ?, ?)", (edge.from_id, edge.to_id, edge.type, edge.created_at))

    def clear_superseded_by(self, node_id: str) -> None:
        self.conn.execute("UPDATE nodes SET superseded_by = NULL WHERE id = ?", (node_id,))

    def live_rows(self) -> list[tuple]:
        """(id, type, content, created_at, updated_at, project_id, tags) of every live node —
        what `ctx doctor` reads once. Tags joined by \x1f."""
        return self.conn.execute(
            "SELECT n.id, n.type, n.content, n.created_at, n.updated_at, n.project_id, "
            "(SELECT group_concat(t.tag, char(31)) FROM tags t WHERE t.node_id = n.id) "
            "FROM nodes n WHERE n.superseded_by IS NULL ORDER BY n.id").fetchall()

    def edge_pairs(self) -> set[frozenset]:
        """Every pair of nodes joined by an edge, either way."""
        return {frozenset(r) for r in self.conn.execute("SELECT from_id, to_id FROM edges")}

    # -- for the duplicate check and ctx doctor (ctx.core.fingerprint owns node_fingerprints
    # and node_bands; these join them to the nodes)
    def live_with_hash(self, normal_hash: str, project_id: int | None, *,
                       exclude: Sequence[str] = ()) -> list[str]:
        """Live nodes a write into `project_id` sees (that project and global; global only for
        a global write) whose normalised text has this hash — the project's own first."""
        where, params = _write_scope(project_id)
        rows = self.conn.execute(
            "SELECT n.id FROM node_fingerprints f CROSS JOIN nodes n ON n.id = f.node_id "
            f"WHERE f.normal_hash = ? AND n.superseded_by IS NULL AND {where} "
            "ORDER BY n.project_id IS NULL, n.id LIMIT 20", [normal_hash, *params]).fetchall()
        return [r[0] for r in rows if r[0] not in exclude]

    def live_texts(self, ids: Sequence[str], project_id: int | None) -> list[tuple[str, str, str]]:
        """(id, content, created_at) of those of `ids` that are live and in a write's scope."""
        if not ids:
            return []
        where, params = _write_scope(project_id)
        out = []
        for chunk in _chunks(list(ids), 900):
            out += [tuple(r) for r in self.conn.execute(
                f"SELECT n.id, n.content, n.created_at FROM nodes n WHERE n.id IN "
                f"({','.join('?' * len(chunk))}) AND n.superseded_by IS NULL AND {where}",
                [*chunk, *params])]
        return out

    def live_band_buckets(self) -> list[list[str]]:
        """Every LSH band (ctx.core.fingerprint) two or more live nodes share: their ids."""
        rows = self.conn.execute(
            "SELECT b.band, group_concat(b.node_id, ' ') FROM node_bands b "
            "JOIN nodes n ON n.id = b.node_id WHERE n.superseded_by IS NULL "
            "GROUP BY b.band HAVING count(*) > 1").fetchall()
        return [r[1].split(" ") for r in rows]

    def find_by_metadata(self, key: str, value: str, *, live_only: bool = True) -> list[Node]:
        """Nodes whose metadata has `key` equal to `value` (e.g. the file an import came from)."""
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
            raise CtxError(f"metadata key {key!r} must be a plain name")
        sql = f"SELECT {_NODE_COLUMNS} FROM nodes WHERE json_extract(metadata, '$.{key}') = ?"
        if live_only:
            sql += " AND superseded_by IS NULL"
        return self._rows_to_nodes(self.conn.execute(sql + " ORDER BY id", (value,)).fetchall())

    def foreign_containing(self, needle: str) -> list[Node]:
        """Nodes that came from outside (metadata `shared_from`, or Claude Code's memory folder;
        ctx.core.trust) whose content holds `needle`: what the Stop hook compares a reply's
        commands with."""
        return self._rows_to_nodes(self.conn.execute(  # the partial index of migration 10
            f"SELECT {_NODE_COLUMNS} FROM nodes INDEXED BY nodes_foreign WHERE {_FOREIGN_SQL} "
            "AND instr(content, ?) > 0 ORDER BY id LIMIT 500", (needle,)).fetchall())

    def delete(self, ref: str) -> Node:
        """Hard delete: the node, its tags and edges go; nodes it superseded become live again."""
        node = self.get(ref)
        with self.transaction():
            self.conn.execute("DELETE FROM nodes WHERE id = ?", (node.id,))
        return node

    # -- sharing through git (ctx.core.share): named reads, and writes that keep the file's values
    def share_selection(self, project_id: int, *, tiers: Sequence[str], types: Sequence[str] = (),
                        tags: Sequence[str] = (), exclude_tag: str | None = None) -> list[str]:
        """Ids of the project's live nodes in one of `tiers` (of `types`, holding one of `tags`
        when given), without `exclude_tag`, by id."""
        if not tiers:
            return []
        tier_marks = ",".join("?" * len(tiers))
        where = ["n.project_id = ?", "n.superseded_by IS NULL",
                 f"EXISTS (SELECT 1 FROM tags t WHERE t.node_id = n.id AND t.tag IN ({tier_marks}))"]
        params: list = [project_id, *(f"tier:{t}" for t in tiers)]
        if types:
            where.append(f"n.type IN ({','.join('?' * len(types))})")
            params += list(types)
        if tags:
            where.append(f"EXISTS (SELECT 1 FROM tags t WHERE t.node_id = n.id AND t.tag IN "
                         f"({','.join('?' * len(tags))}))")
            params += list(tags)
        if exclude_tag:
            where.append("NOT EXISTS (SELECT 1 FROM tags t WHERE t.node_id = n.id AND t.tag = ?)")
            params.append(exclude_tag)
        return [r[0] for r in self.conn.execute(
            f"SELECT n.id FROM nodes n WHERE {' AND '.join(where)} ORDER BY n.id", params)]

    def superseded_by_any(self, ids: Sequence[str]) -> list[str]:
        """Ids of the nodes that one of `ids` supersedes (their superseded_by is in `ids`)."""
        out: list[str] = []
        for chunk in _chunks(list(ids), 900):
            out += [r[0] for r in self.conn.execute(
                f"SELECT id FROM nodes WHERE superseded_by IN ({','.join('?' * len(chunk))})", chunk)]
        return sorted(out)

    def ids_in_project(self, project_id: int | None) -> list[str]:
        """Every node of a project (None: global memory), superseded ones too, by id."""
        return [r[0] for r in self.conn.execute(
            "SELECT id FROM nodes WHERE project_id IS ? ORDER BY id", (project_id,))]

    def project_ids(self, ids: Sequence[str]) -> dict[str, int | None]:
        """Node id → its project id (None: global) for the ids that exist."""
        out: dict[str, int | None] = {}
        for chunk in _chunks(list(ids), 900):
            out.update(self.conn.execute(
                f"SELECT id, project_id FROM nodes WHERE id IN ({','.join('?' * len(chunk))})", chunk))
        return out

    def project_fingerprint(self, project_id: int) -> str:
        """Changes when the project's nodes, their tags or their edges change (a cheap check
        before writing a shared file again): count, newest update, tags and edges counted."""
        n, last = self.conn.execute("SELECT count(*), max(updated_at) FROM nodes WHERE project_id = ?",
                                    (project_id,)).fetchone()
        tags = self.conn.execute("SELECT count(*) FROM tags t JOIN nodes n ON n.id = t.node_id "
                                 "WHERE n.project_id = ?", (project_id,)).fetchone()[0]
        edges = self.conn.execute("SELECT count(*) FROM edges e JOIN nodes n ON n.id = e.from_id "
                                  "WHERE n.project_id = ?", (project_id,)).fetchone()[0]
        return f"{n}:{last}:{tags}:{edges}"

    def put_exact(self, records: Sequence[dict], *, project_id: int | None) -> list[str]:
        """Insert or replace nodes with the values given — timestamps, tags, metadata and
        superseded_by as the record says (imports keep the file's history). Screened by the
        secret guard like every write; a superseded_by naming a node that is not here is
        left empty. One transaction; returns the ids written."""
        prepared = [self._prepare(r, i) for i, r in enumerate(records)]
        self._screen_records(prepared)
        ids = [p["id"] for p in prepared]
        with self.transaction():
            existing = set(self.project_ids(ids))
            for p in prepared:
                values = (p["type"], p["content"], p["metadata"], p["tokens"], p["created_at"],
                          p["updated_at"], project_id, p["id"])
                if p["id"] in existing:
                    self.conn.execute("UPDATE nodes SET type = ?, content = ?, metadata = ?, "
                                      "token_estimate = ?, created_at = ?, updated_at = ?, "
                                      "project_id = ?, superseded_by = NULL WHERE id = ?", values)
                    self.conn.execute("DELETE FROM tags WHERE node_id = ?", (p["id"],))
                else:
                    self.conn.execute("INSERT INTO nodes (type, content, metadata, token_estimate, "
                                      "created_at, updated_at, project_id, id) "
                                      "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", values)
                self.conn.executemany("INSERT OR IGNORE INTO tags (node_id, tag) VALUES (?, ?)",
                                      [(p["id"], t) for t in p["tags"]])
            targets = [p["superseded_by"] for p in prepared if p["superseded_by"]]
            present = set(self.project_ids(targets))
            self.conn.executemany("UPDATE nodes SET superseded_by = ? WHERE id = ?",
                                  [(p["superseded_by"], p["id"]) for p in prepared
                                   if p["superseded_by"] in present and p["superseded_by"] != p["id"]])
        return ids

    def delete_many(self, ids: Sequence[str]) -> int:
        """Hard-delete nodes by full id (their tags and edges go with them)."""
        n = 0
        with self.transaction():
            for chunk in _chunks(list(ids), 900):
                n += self.conn.execute(f"DELETE FROM nodes WHERE id IN ({','.join('?' * len(chunk))})",
                                       chunk).rowcount
        return n

    def add_edges_if_present(self, edges: Iterable[tuple[str, str, str, str]]) -> int:
        """Add (from, to, type, created_at) edges whose two nodes exist; others are skipped
        (a shared file may name a node that is not here).
        Returns how many were new."""
        rows = [(a, b, validate_edge_type(t), c) for a, b, t, c in edges if a != b]
        present = set(self.project_ids(sorted({x for a, b, _, _ in rows for x in (a, b)})))
        n = 0
        with self.transaction():
            for row in rows:
                if row[0] in present and row[1] in present:
                    n += self.conn.execute("INSERT OR IGNORE INTO edges (from_id, to_id, type, "
                                           "created_at) VALUES (?, ?, ?, ?)", row).rowcount
        return n

    def set_superseded(self, pairs: Sequence[tuple[str, str]]) -> None:
        """Set superseded_by for (node, newer node) pairs as given (imports; both must exist)."""
        with self.transaction():
            self.conn.executemany("UPDATE nodes SET superseded_by = ? WHERE id = ?",
                                  [(new, old) for old, new in pairs])

    def stamps(self, ids: Sequence[str]) -> dict[str, tuple[str, str]]:
        """{id: (updated_at, content)} for the ids that exist: what a check saw, to tell
        later whether a node changed since."""
        out: dict[str, tuple[str, str]] = {}
        for part in _chunks(list(dict.fromkeys(ids)), 500):
            out.update((r[0], (r[1], r[2])) for r in self.conn.execute(
                f"SELECT id, updated_at, content FROM nodes WHERE id IN "
                f"({','.join('?' * len(part))})", part))
        return out

    def set_updated_at(self, node_id: str, stamp: str) -> None:
        """Put back a node's updated_at (an undone change leaves no trace of itself)."""
        self.conn.execute("UPDATE nodes SET updated_at = ? WHERE id = ?", (stamp, node_id))

    def touch(self, ids: Sequence[str]) -> None:
        """Set updated_at to now (an edit that must win over a concurrent deletion elsewhere)."""
        with self.transaction():
            for node_id in ids:
                self._touch(node_id)

    # -- projects' nodes (the rows themselves: ctx.core.projects)

    def list_projects(self) -> list[dict]:
        """Every project with its node counts (live, superseded), most recently active first."""
        counts = {pid: (live, gone) for pid, live, gone in self.conn.execute(
            "SELECT project_id, count(*) FILTER (WHERE superseded_by IS NULL), "
            "count(*) FILTER (WHERE superseded_by IS NOT NULL) FROM nodes "
            "WHERE project_id IS NOT NULL GROUP BY project_id")}
        out = []
        for p in projects.by_activity(self.conn):
            d = p.to_dict()
            d["nodes"], d["superseded"] = counts.get(p.id, (0, 0))
            out.append(d)
        return out

    def global_counts(self) -> tuple[int, int]:
        """Global memory's (live, superseded) node counts."""
        live = self.conn.execute("SELECT count(*) FROM nodes WHERE project_id IS NULL "
                                 "AND superseded_by IS NULL").fetchone()[0]
        gone = self.conn.execute("SELECT count(*) FROM nodes WHERE project_id IS NULL "
                                 "AND superseded_by IS NOT NULL").fetchone()[0]
        return live, gone

    def show_project(self, name: str) -> dict:
        """One project: its row, node counts, aliases, and live nodes by type and tier."""
        p = projects.get(self.conn, name)
        d = next(x for x in self.list_projects() if x["key"] == p.key)
        d["aliases"] = projects.aliases(self.conn, p.id)
        counts = self.live_counts(project_id=p.id)
        d["by_type"], d["by_tier"] = counts.by_type, counts.by_tier
        return d

    def project_node_count(self, project_id: int) -> int:
        """Every node of the project, superseded ones included."""
        return self.conn.execute("SELECT count(*) FROM nodes WHERE project_id = ?",
                                 (project_id,)).fetchone()[0]

    def move_to_project(self, node_ids: list[str], target: str) -> projects.Project | None:
        """Move nodes (full ids) to project `target` or to `global`. Returns the project (None:
        global)."""
        dest = None if target.strip().lower() == projects.GLOBAL else projects.get(self.conn, target)
        self.conn.executemany("UPDATE nodes SET project_id = ? WHERE id = ?",
                              [(dest.id if dest else None, i) for i in node_ids])
        return dest

    def merge_projects(self, source: str, into: str) -> tuple[projects.Project, int]:
        """Move every node of `source` into `into` and drop `source`; its key stays as an alias
        of `into`, so its folder resolves to `into` from now on. Returns (into, nodes moved)."""
        a, b = projects.get(self.conn, source), projects.get(self.conn, into)
        if a.id == b.id:
            raise CtxError(f"cannot merge project {a.name!r} into itself")
        moved = self.conn.execute("UPDATE nodes SET project_id = ? WHERE project_id = ?",
                                  (b.id, a.id)).rowcount
        projects.merge_rows(self.conn, a, b)
        return projects.by_id(self.conn, b.id), moved

    def forget_project(self, name: str) -> tuple[projects.Project, int]:
        """Delete the project and every node in it (their tags and edges go with them)."""
        p = projects.get(self.conn, name)
        ids = [r[0] for r in self.conn.execute("SELECT id FROM nodes WHERE project_id = ?", (p.id,))]
        # Nodes outside the project that these superseded become live again (as `ctx rm` does).
        for part in _chunks(ids, 500):
            self.conn.execute(f"DELETE FROM nodes WHERE id IN ({','.join('?' * len(part))})", part)
        projects.delete(self.conn, p)
        return p, len(ids)

    # -- views
    def get_view(self, name: str) -> View:
        row = self.conn.execute("SELECT name, query, budget, created_at, updated_at FROM views "
                                "WHERE name = ?", (name,)).fetchone()
        if not row:
            known = ", ".join(v.name for v in self.list_views())
            raise NotFoundError(f"no view named {name!r} (views: {known or 'none'})")
        return View(*row)

    def list_views(self) -> list[View]:
        return [View(*r) for r in self.conn.execute(
            "SELECT name, query, budget, created_at, updated_at FROM views ORDER BY name")]

    def create_view(self, name: str, query: str, budget: int) -> View:
        name = _validate_view_name(name)
        _validate_view_query(query)
        budget = _validate_budget(budget)
        now = now_iso()
        with self.transaction():
            try:
                self.conn.execute("INSERT INTO views (name, query, budget, created_at, updated_at) "
                                  "VALUES (?, ?, ?, ?, ?)", (name, query, budget, now, now))
            except sqlite3.IntegrityError:
                raise CtxError(f"view {name!r} already exists; use `ctx view update`") from None
        return self.get_view(name)

    def update_view(self, name: str, *, query: str | None = None, budget: int | None = None) -> View:
        self.get_view(name)
        sets, params = [], []
        if query is not None:
            _validate_view_query(query)
            sets.append("query = ?")
            params.append(query)
        if budget is not None:
            sets.append("budget = ?")
            params.append(_validate_budget(budget))
        if sets:
            with self.transaction():
                self.conn.execute(f"UPDATE views SET {', '.join(sets)}, updated_at = ? WHERE name = ?",
                                  params + [now_iso(), name])
        return self.get_view(name)

    def delete_view(self, name: str) -> View:
        view = self.get_view(name)
        if name == "default":
            raise CtxError("the default view cannot be deleted; change it with `ctx view update default`")
        with self.transaction():
            self.conn.execute("DELETE FROM views WHERE name = ?", (name,))
        return view

    # -- pending hand-offs between hooks (seed §1): ctx.core.pending owns the table
    def set_pending(self, key: str, value: str) -> None:
        pending.put(self.conn, key, value, now_iso())

    def get_pending(self, key: str) -> str | None:
        return pending.get(self.conn, key)

    def pop_pending(self, key: str) -> str | None:
        """Read and delete atomically, so a value is handed over exactly once."""
        with self.transaction():
            value = pending.get(self.conn, key)
            if value is not None:
                pending.delete(self.conn, key)
        return value

    def delete_pending(self, key: str) -> None:
        pending.delete(self.conn, key)

    def has_pending(self, keys) -> bool:
        """Whether a value waits under any of `keys` (reads only)."""
        return pending.any_of(self.conn, keys)

    def pending_by_prefix(self, prefix: str) -> list[tuple[str, str, str]]:
        """(key, value, created_at) of every pending entry whose key starts with `prefix`
        (e.g. the session records' capture states), newest first."""
        return pending.by_prefix(self.conn, prefix)


def _validate_view_name(name: str) -> str:
    if not _VIEW_NAME_RE.match(name or ""):
        raise CtxError(f"view name {name!r} must be letters, digits, '.', '_' or '-' (≤ 64)")
    return name


def _validate_view_query(query: str) -> None:
    from ctx.query import compile_query

    compile_query(query)  # raises QuerySyntaxError with the position


def _validate_budget(budget) -> int:
    try:
        value = int(budget)
    except (TypeError, ValueError):
        raise CtxError(f"budget must be a whole number of tokens, got {budget!r}") from None
    if value <= 0:
        raise CtxError("budget must be a positive number of tokens")
    return value


def _write_scope(project_id: int | None) -> tuple[str, list]:
    """What a write into `project_id` sees: that project and global (a global write: global).
    `+` keeps the planner on the id/hash indexes: the project index would scan every global
    node to find the two or three a hash or band lookup already named."""
    if project_id is None:
        return "+n.project_id IS NULL", []
    return "(+n.project_id IS NULL OR +n.project_id = ?)", [project_id]


def _project_id(value):
    if value is _UNSET or value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    raise CtxError("project_id must be a project's number or null")


def _chunks(items: list, size: int) -> Iterator[list]:
    for i in range(0, len(items), size):
        yield items[i:i + size]


def _minus(all_rows, superseded_rows) -> dict[str, int]:
    gone = dict(superseded_rows)
    counts = sorted((k, n - gone.get(k, 0)) for k, n in all_rows)
    return {k: n for k, n in counts if n > 0}
