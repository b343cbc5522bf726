"""Lossless JSONL export/import of a ctx store.

One record per line, in a fixed order (views, projects by key, nodes by id, edges by (from,
to, type)) with sorted keys, so export → import → export is byte-identical. The `kind` field
says what a line is. Pending hook hand-offs are transient and not exported.

Version 2 added projects (SPEC §2.8): `project` records, and each node's `project` is its
project's key (null: global). Version 1 files (no projects) still import, as global memory.
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Iterator

from ctx.core.errors import CtxError
from ctx.core.store import Store, validate_edge_type

FORMAT_VERSION = 2
READABLE_VERSIONS = (1, 2)
_PROJECT_FIELDS = ("key", "name", "root", "remote", "created_at", "last_active_at")


def _line(obj: dict) -> str:
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def export_lines(store: Store) -> Iterator[str]:
    yield _line({"kind": "ctx-export", "version": FORMAT_VERSION})
    for v in store.list_views():
        yield _line({"kind": "view", **v.to_dict()})
    keys = {}
    for row in store.conn.execute("SELECT id, key, name, root, remote, created_at, last_active_at "
                                  "FROM projects ORDER BY key").fetchall():
        keys[row[0]] = row[1]
        aliases = [r[0] for r in store.conn.execute(
            "SELECT key FROM project_aliases WHERE project_id = ? ORDER BY key", (row[0],))]
        yield _line({"kind": "project", **dict(zip(_PROJECT_FIELDS, row[1:])), "aliases": aliases})
    last = ""
    while True:  # page through nodes so a huge store doesn't load at once
        rows = store.conn.execute("SELECT id FROM nodes WHERE id > ? ORDER BY id LIMIT 1000",
                                  (last,)).fetchall()
        if not rows:
            break
        pids = dict(store.conn.execute(
            f"SELECT id, project_id FROM nodes WHERE id IN ({','.join('?' * len(rows))})",
            [r[0] for r in rows]).fetchall())
        for n in store.get_many([r[0] for r in rows]):
            d = n.to_dict()
            d["tags"] = sorted(d["tags"])
            d["project"] = keys.get(pids.get(n.id))
            yield _line({"kind": "node", **d})
        last = rows[-1][0]
    for e in store.edges():
        yield _line({"kind": "edge", **e.to_dict()})


def import_lines(store: Store, lines: Iterable[str], *, skip_existing: bool = False) -> dict[str, int]:
    """Import in one transaction: every line is checked before anything is written."""
    views, nodes, edges, projects = [], [], [], []
    for lineno, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            rec = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise CtxError(f"line {lineno}: not valid JSON ({exc.msg})") from None
        kind = rec.get("kind") if isinstance(rec, dict) else None
        if kind == "ctx-export":
            if rec.get("version") not in READABLE_VERSIONS:
                raise CtxError(f"line {lineno}: export format version {rec.get('version')} "
                               f"is not supported (expected {FORMAT_VERSION} or earlier)")
        elif kind == "project":
            if not isinstance(rec.get("key"), str) or not rec["key"] or not isinstance(rec.get("name"), str):
                raise CtxError(f"line {lineno}: a project record needs a key and a name")
            projects.append(rec)
        elif kind == "view":
            views.append(rec)
        elif kind == "node":
            nodes.append(rec)
        elif kind == "edge":
            edges.append(rec)
        else:
            raise CtxError(f"line {lineno}: unknown record kind {kind!r} (expected view, project, "
                           f"node or edge)")
    counts = {"nodes": 0, "edges": 0, "views": 0, "skipped": 0, "projects": len(projects)}
    with store.transaction():
        ids = _import_projects(store, projects)
        for n in nodes:
            if isinstance(n, dict):
                n.pop("project_id", None)
                key = n.pop("project", None)
                if key is not None and key not in ids:
                    raise CtxError(f"node {n.get('id')} belongs to project {key!r}, which the file "
                                   f"does not describe")
                n["project_id"] = ids.get(key) if key is not None else None
        if skip_existing:
            existing = {r[0] for r in store.conn.execute("SELECT id FROM nodes")}
            kept = [n for n in nodes if str(n.get("id", "")).upper() not in existing]
            counts["skipped"] = len(nodes) - len(kept)
            nodes = kept
        store.add_many(nodes)
        counts["nodes"] = len(nodes)
        for e in edges:
            try:
                store.conn.execute(
                    "INSERT OR IGNORE INTO edges (from_id, to_id, type, created_at) VALUES (?, ?, ?, ?)",
                    (e["from"], e["to"], validate_edge_type(e["type"]), e["created_at"]))
            except KeyError as exc:
                raise CtxError(f"edge record is missing {exc.args[0]!r}") from None
            except Exception as exc:
                if "FOREIGN KEY" in str(exc):
                    raise CtxError(f"edge {e['from']} → {e['to']} points at a node that is not "
                                   f"in the store or the file") from None
                raise
            counts["edges"] += 1
        for v in views:
            store.conn.execute(
                "INSERT INTO views (name, query, budget, created_at, updated_at) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT(name) DO UPDATE SET query = excluded.query, budget = excluded.budget, "
                "created_at = excluded.created_at, updated_at = excluded.updated_at",
                (v["name"], v["query"], int(v["budget"]), v["created_at"], v["updated_at"]))
            counts["views"] += 1
    return counts


def _import_projects(store: Store, records: list[dict]) -> dict[str, int]:
    """Project key → id in this store: a project already here (by key or alias) is reused as
    it is; a new one keeps its name, with a suffix if another project has taken it."""
    from ctx.core.projects import unique_name

    conn = store.conn
    out: dict[str, int] = {}
    for rec in records:
        key = rec["key"]
        row = conn.execute("SELECT id FROM projects WHERE key = ? UNION ALL "
                           "SELECT project_id FROM project_aliases WHERE key = ?", (key, key)).fetchone()
        if row is None:
            name = unique_name(conn, rec["name"])
            now = rec.get("created_at") or ""
            conn.execute("INSERT INTO projects (key, name, root, remote, created_at, last_active_at) "
                         "VALUES (?, ?, ?, ?, ?, ?)", (key, name, rec.get("root"), rec.get("remote"),
                                                       now, rec.get("last_active_at") or now))
            row = conn.execute("SELECT id FROM projects WHERE key = ?", (key,)).fetchone()
        out[key] = row[0]
        for alias in rec.get("aliases") or []:
            if isinstance(alias, str) and alias:
                conn.execute("INSERT OR IGNORE INTO project_aliases (key, project_id) VALUES (?, ?)",
                             (alias, row[0]))
                out.setdefault(alias, row[0])
    return out
