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

from ctx.core import projects
from ctx.core.errors import CtxError
from ctx.core.model import Edge, View
from ctx.core.store import Store

FORMAT_VERSION = 2
READABLE_VERSIONS = (1, 2)
_PROJECT_FIELDS = ("key", "name", "root", "remote", "created_at", "last_active_at")


def _line(obj: dict) -> str:
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def json_lines(lines: Iterable[str]) -> Iterator[tuple[int, object]]:
    """The one JSON-lines reader: (line number, value) for each non-blank line; a line that is
    not JSON is a CtxError naming it."""
    for lineno, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            yield lineno, json.loads(raw)
        except json.JSONDecodeError as exc:
            raise CtxError(f"line {lineno}: not valid JSON ({exc.msg} at column {exc.colno})") from None


def export_lines(store: Store) -> Iterator[str]:
    yield _line({"kind": "ctx-export", "version": FORMAT_VERSION})
    for v in store.list_views():
        yield _line({"kind": "view", **v.to_dict()})
    keys = {}
    for p in projects.all_rows(store.conn):
        keys[p.id] = p.key
        yield _line({"kind": "project", **{f: getattr(p, f) for f in _PROJECT_FIELDS},
                     "aliases": projects.aliases(store.conn, p.id)})
    for page in store.pages(200):  # a huge store is never loaded at once
        for n, project_id in page:
            d = n.to_dict()
            d["tags"] = sorted(d["tags"])
            d["project"] = keys.get(project_id)
            yield _line({"kind": "node", **d})
    for e in store.edges():
        yield _line({"kind": "edge", **e.to_dict()})


def import_lines(store: Store, lines: Iterable[str], *, skip_existing: bool = False,
                 dedupe: str | None = None) -> dict[str, int]:
    """Import in one transaction: every line is checked before anything is written.

    A live node duplicating a live node already in the store (ctx.core.dedupe; not one in
    the same file, so a backup restores losslessly) is not imported: edges and supersede
    links to it go to the stored node. `dedupe` is the policy for likely duplicates
    (skip|keep; ask means keep here: an import asks nobody); default $CTX_DEDUPE."""
    views, nodes, edges, projects = [], [], [], []
    for lineno, rec in json_lines(lines):
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
        ids = import_projects(store, projects)
        for n in nodes:
            if isinstance(n, dict):
                n.pop("project_id", None)
                key = n.pop("project", None)
                if key is not None and key not in ids:
                    raise CtxError(f"node {n.get('id')} belongs to project {key!r}, which the file "
                                   f"does not describe")
                n["project_id"] = ids.get(key) if key is not None else None
        if skip_existing:
            existing = store.all_ids()
            kept = [n for n in nodes if str(n.get("id", "")).upper() not in existing]
            counts["skipped"] = len(nodes) - len(kept)
            nodes = kept
        nodes, same_as = _without_duplicates(store, nodes, dedupe)
        counts["duplicates"] = len(same_as)
        for n in nodes:  # a node superseded by a duplicate: by the node already stored
            if isinstance(n, dict) and n.get("superseded_by") in same_as:
                n["superseded_by"] = same_as[n["superseded_by"]]
        store.add_many(nodes)
        counts["nodes"] = len(nodes)
        try:
            counts["edges"] = store.add_edges(
                Edge(same_as.get(e["from"], e["from"]), same_as.get(e["to"], e["to"]), e["type"],
                     e["created_at"]) for e in edges)
        except KeyError as exc:
            raise CtxError(f"edge record is missing {exc.args[0]!r}") from None
        for v in views:
            store.put_view(View(v["name"], v["query"], v["budget"], v["created_at"], v["updated_at"]))
            counts["views"] += 1
    return counts


def _without_duplicates(store: Store, nodes: list, policy: str | None) -> tuple[list, dict]:
    from ctx.core import dedupe
    from ctx.core.settings import dedupe_policy

    policy = dedupe_policy(policy)
    policy = "keep" if policy == "ask" else policy
    present = store.all_ids() if nodes else set()
    kept, same_as = [], {}
    for n in nodes:
        content = n.get("content") if isinstance(n, dict) else None
        if (not isinstance(content, str) or n.get("superseded_by")
                or str(n.get("id", "")).upper() in present):
            kept.append(n)
            continue
        dup = dedupe.check(store, dedupe.as_stored(content, store.secrets), n.get("project_id"))
        if dedupe.should_store(dup, policy):
            kept.append(n)
        elif n.get("id"):
            same_as[str(n["id"]).upper()] = dup.node_id
    return kept, same_as


def safe_name(name, key: str = "") -> str:
    """A project name from a file (a backup, a sync remote) made a name the CLI would accept:
    letters, digits, '.', '_', '-', at most 64 — so no file can put "SYSTEM: …" into the
    first line of session start's context. Anything else becomes '-'; empty: from the key."""
    import re

    from ctx.core.projects import RESERVED, validate_name

    raw = name if isinstance(name, str) else ""
    try:
        return validate_name(raw)
    except CtxError:
        pass
    cleaned = re.sub(r"[^A-Za-z0-9_.-]+", "-", raw).strip("-._")[:64]
    if not cleaned:
        cleaned = re.sub(r"[^A-Za-z0-9_.-]+", "-", key.rsplit("/", 1)[-1]).strip("-._")[:64] or "project"
    return cleaned if cleaned.lower() not in RESERVED else cleaned + "-project"


def import_projects(store: Store, records: list[dict]) -> dict[str, int]:
    """Project key → id in this store: a project already here (by key or alias) is reused as
    it is; a new one keeps its name, with a suffix if another project has taken it."""
    conn = store.conn
    out: dict[str, int] = {}
    for rec in records:
        key = rec["key"]
        project_id = projects.id_for_key(conn, key)
        if project_id is None:
            name = projects.unique_name(conn, safe_name(rec["name"], key))
            now = rec.get("created_at") or ""
            project_id = projects.insert(conn, key, name, rec.get("root"), rec.get("remote"),
                                         now, rec.get("last_active_at") or now)
        out[key] = project_id
        for alias in rec.get("aliases") or []:
            if isinstance(alias, str) and alias:
                projects.add_alias(conn, alias, project_id)
                out.setdefault(alias, project_id)
    return out
