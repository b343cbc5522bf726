"""Secrets already in the store (from before the guard, or stored with --allow-secrets):
find them — nodes (content, metadata, tags), request prompts, project remotes — and redact
them in place, index and FTS included. Never returns a secret's value."""
from __future__ import annotations

import json
import sqlite3

from ctx.core import projects as project_rows
from ctx.core.errors import CtxError
from ctx.core.guard import REDACT, screen, screen_value
from ctx.semantic.index import compact
from cuectx.secrets import find
from cuectx.value import Value


class StoredSecret(Value):
    """A secret found in a stored node (or request record): where it is, never what it is.
    `node_id` is the request's id for a request prompt, the project's name for its remote."""
    __slots__ = ("end", "field", "kind", "node_id", "start")

    def __init__(self, node_id: str, field: str, kind: str, start: int, end: int) -> None:
        self.node_id = node_id
        self.field = field  # "content", "metadata", "tag", "request prompt" or "project remote"
        self.kind = kind
        self.start = start  # character offsets in the content, or in the metadata's JSON text
        self.end = end

    def to_dict(self) -> dict:
        return {"id": self.node_id, "field": self.field, "kind": self.kind,
                "start": self.start, "end": self.end}


class Finder:
    """cuectx.secrets.find, remembering what it found in each text: tags (`project:api`,
    `tier:reference`) repeat on thousands of nodes, prompts ("go on", "yes") on thousands of
    requests. `known` — what an earlier scan found (ctx.doctor.findings.Memo) — is read, and
    `seen` keeps only what this scan looked at: texts up to `LONG` characters, and longer
    ones too with `keep_long` (node contents, for a Memo; a year of prompts would not fit)."""

    LONG = 256

    def __init__(self, known: dict[str, tuple] | None = None, *, keep_long: bool = False) -> None:
        self.known = known or {}
        self.keep_long = keep_long
        self.seen: dict[str, tuple] = {}

    def __call__(self, text: str) -> tuple:
        found = self.seen.get(text)
        if found is None:
            found = self.known.get(text)
            if found is None:
                found = tuple(find(text))
            if self.keep_long or len(text) <= self.LONG:
                self.seen[text] = found
        return found


def scan_store(store, *, ids=None, finder: Finder | None = None) -> list[StoredSecret]:
    """Every secret in stored nodes (superseded ones too), in id order."""
    hits = []
    find_once = finder or Finder()  # an own Finder keeps no long content: one scan sees it once
    for node_id, content, metadata, tags in store.raw_rows(ids):
        hits += [StoredSecret(node_id, "content", f.kind, f.start, f.end)
                 for f in find_once(content)]
        if metadata and metadata != "{}":
            hits += [StoredSecret(node_id, "metadata", f.kind, f.start, f.end)
                     for f in find_once(metadata)]
        for tag in tags:
            hits += [StoredSecret(node_id, "tag", f.kind, f.start, f.end) for f in find_once(tag)]
    hits.sort(key=lambda h: h.node_id)
    return hits


def scan_requests(store, *, finder: Finder | None = None) -> list[StoredSecret]:
    """Secrets in the prompts kept by request records (ctx.claude.requests) from before the guard."""
    try:
        rows = store.conn.execute("SELECT id, prompt FROM requests ORDER BY id").fetchall()
    except sqlite3.OperationalError:  # a store without the semantic tables
        return []
    find_once = finder or Finder()
    return [StoredSecret(rid, "request prompt", f.kind, f.start, f.end)
            for rid, prompt in rows for f in find_once(prompt or "")]


def scan_projects(store) -> list[StoredSecret]:
    """Secrets in the origin remote URLs project records keep (from before the guard)."""
    try:
        rows = project_rows.remotes(store.conn)
    except sqlite3.OperationalError:
        return []
    return [StoredSecret(name, "project remote", f.kind, f.start, f.end)
            for name, remote in rows for f in find(remote or "")]


def fix_store(store, hits: list[StoredSecret]) -> int:
    """Redact what `hits` found in place — nodes (content, metadata, tags) and request
    prompts; returns how many nodes and requests changed.
    The FTS index follows through its triggers, the embedding index drops the old chunks
    through its own (the node is re-embedded from the redacted text by the next search), and
    the old text is overwritten on disk (secure_delete, FTS optimize, WAL truncated)."""

    ids = list(dict.fromkeys(h.node_id for h in hits if h.field not in ("request prompt",
                                                                        "project remote")))
    requests = list(dict.fromkeys(h.node_id for h in hits if h.field == "request prompt"))
    projects = list(dict.fromkeys(h.node_id for h in hits if h.field == "project remote"))
    if not ids and not requests and not projects:
        return 0
    conn = store.conn
    conn.execute("PRAGMA secure_delete = ON")
    with store.transaction():
        for name in projects:
            project_rows.rewrite_remote(conn, name, lambda remote: screen(remote, REDACT)[0])
        for request_id in requests:
            (prompt,) = conn.execute("SELECT prompt FROM requests WHERE id = ?", (request_id,)).fetchone()
            conn.execute("UPDATE requests SET prompt = ? WHERE id = ?",
                         (screen(prompt, REDACT)[0], request_id))
        for node_id, content, metadata, tags in list(store.raw_rows(ids)):  # read, then write
            found: list = []
            new_meta = (json.dumps(screen_value(json.loads(metadata), REDACT, found),
                                   ensure_ascii=False, sort_keys=True)
                        if metadata and metadata != "{}" else metadata)
            store.rewrite_raw(node_id, screen(content, REDACT)[0], new_meta,
                              {tag: screen(tag, REDACT)[0] for tag in tags})
        if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'nodes_fts'").fetchone():
            conn.execute("INSERT INTO nodes_fts(nodes_fts) VALUES ('optimize')")
    _compact_vectors(conn)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return len(ids) + len(requests) + len(projects)


def _compact_vectors(conn) -> None:
    """Rewrite vector segments without the redacted nodes' dead vectors (when any)."""
    try:
        if not conn.execute("SELECT 1 FROM dead_chunks LIMIT 1").fetchone():
            return
        models = [r[0] for r in conn.execute("SELECT DISTINCT model FROM vector_segments")]
    except sqlite3.OperationalError:  # no semantic tables in this store
        return
    for model in models:
        compact(conn, model, full=True)


def refuse_export(hits: list[StoredSecret]) -> None:
    if not hits:
        return
    nodes = list(dict.fromkeys(h.node_id for h in hits))
    kinds = ", ".join(dict.fromkeys(h.kind for h in hits))
    shown = ", ".join(nodes[:5]) + (" …" if len(nodes) > 5 else "")
    raise CtxError(f"refused to export: {len(hits)} secret(s) ({kinds}) in {len(nodes)} node(s) or project(s) "
                   f"({shown}); run `ctx doctor --secrets --fix` to redact them, or export as "
                   f"stored with --allow-secrets")
