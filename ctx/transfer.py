"""Lossless JSONL export/import of a ctx store.

One record per line, in a fixed order (views, nodes by id, edges by (from, to, type)) with
sorted keys, so export → import → export is byte-identical. The `kind` field says what a
line is. Pending hook hand-offs are transient and not exported.
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Iterator

from ctx.errors import CtxError
from ctx.store import Store, validate_edge_type

FORMAT_VERSION = 1


def _line(obj: dict) -> str:
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def export_lines(store: Store) -> Iterator[str]:
    yield _line({"kind": "ctx-export", "version": FORMAT_VERSION})
    for v in store.list_views():
        yield _line({"kind": "view", **v.to_dict()})
    last = ""
    while True:  # page through nodes so a huge store doesn't load at once
        rows = store.conn.execute("SELECT id FROM nodes WHERE id > ? ORDER BY id LIMIT 1000",
                                  (last,)).fetchall()
        if not rows:
            break
        for n in store.get_many([r[0] for r in rows]):
            d = n.to_dict()
            d["tags"] = sorted(d["tags"])
            yield _line({"kind": "node", **d})
        last = rows[-1][0]
    for e in store.edges():
        yield _line({"kind": "edge", **e.to_dict()})


def import_lines(store: Store, lines: Iterable[str], *, skip_existing: bool = False) -> dict[str, int]:
    """Import in one transaction: every line is checked before anything is written."""
    views, nodes, edges = [], [], []
    for lineno, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            rec = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise CtxError(f"line {lineno}: not valid JSON ({exc.msg})") from None
        kind = rec.get("kind") if isinstance(rec, dict) else None
        if kind == "ctx-export":
            if rec.get("version") != FORMAT_VERSION:
                raise CtxError(f"line {lineno}: export format version {rec.get('version')} "
                               f"is not supported (expected {FORMAT_VERSION})")
        elif kind == "view":
            views.append(rec)
        elif kind == "node":
            nodes.append(rec)
        elif kind == "edge":
            edges.append(rec)
        else:
            raise CtxError(f"line {lineno}: unknown record kind {kind!r} (expected view, node or edge)")
    counts = {"nodes": 0, "edges": 0, "views": 0, "skipped": 0}
    with store.transaction():
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
