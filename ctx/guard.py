"""The secret guard on every ctx write: what CTX_SECRETS says to do with a credential.

Store.add/add_many/update call `screen` on a node's content and on the text in its
metadata, so every path that writes through the store — the Stop hook's remember and
summarize, `ctx add`/`update`/`import`, the MCP tools, the web viewer — is guarded in one
place. The detector is cuectx.secrets (stdlib, shared with cue's scrubber).

Policies (CTX_SECRETS, or a command's --allow-secrets):
- `redact` (default): each secret becomes `[SECRET:<kind>]`; the rest is stored.
- `refuse`: nothing is written; SecretRefusedError says which kinds, where — never a value.
- `allow`: stored as given.
"""
from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass

from ctx.errors import CtxError

ENV = "CTX_SECRETS"
REDACT, REFUSE, ALLOW = "redact", "refuse", "allow"
POLICIES = (REDACT, REFUSE, ALLOW)


class SecretRefusedError(CtxError):
    """The text holds a secret and the policy is `refuse`: nothing was written."""

    def __init__(self, findings, where: str = "content"):
        from cuectx.secrets import describe

        self.kinds = list(dict.fromkeys(f.kind for f in findings))
        spots = ", ".join(f"{f.kind} at {f.start}–{f.end}" for f in findings[:5])
        super().__init__(f"refused to store {where}: it holds {describe(findings)} ({spots}); "
                         f"remove the secret, or store it redacted with CTX_SECRETS=redact, or "
                         f"as given with --allow-secrets")


@dataclass(frozen=True)
class SecretEvent:
    """One write that met a secret (for the warning line and the hooks' hand-off)."""
    node_id: str | None
    kinds: tuple[str, ...]
    count: int
    action: str  # "redacted" or "refused"


def policy(value: str | None = None) -> str:
    """The policy to apply: `value` if given, else $CTX_SECRETS, else redact."""
    raw = (value if value is not None else os.environ.get(ENV, "")).strip().lower()
    if not raw:
        return REDACT
    if raw not in POLICIES:
        raise CtxError(f"{ENV}={raw!r} is not a policy; use one of: {', '.join(POLICIES)}")
    return raw


def screen(text: str, mode: str, where: str = "content") -> tuple[str, list]:
    """(text to store, findings) under `mode`; raises SecretRefusedError under refuse."""
    if mode == ALLOW or not text:
        return text, []
    from cuectx.secrets import find, redact

    try:
        findings = find(text)
    except Exception as exc:  # noqa: BLE001 — a bug in the check must not let a secret through
        raise CtxError(f"the secret check failed ({type(exc).__name__}); nothing was stored — "
                       f"report this, or store it with --allow-secrets") from None
    if not findings:
        return text, []
    if mode == REFUSE:
        raise SecretRefusedError(findings, where)
    return redact(text, findings), findings


def screen_value(value, mode: str, found: list, where: str = "metadata"):
    """Metadata (any JSON value) with every string in it screened; findings go to `found`."""
    if isinstance(value, str):
        text, findings = screen(value, mode, where)
        found += findings
        return text
    if isinstance(value, dict):
        return {k: screen_value(v, mode, found, where) for k, v in value.items()}
    if isinstance(value, list):
        return [screen_value(v, mode, found, where) for v in value]
    return value


def screen_tags(tags: list[str], mode: str, found: list, where: str = "the tags") -> list[str]:
    """Tags with secrets redacted (`api-key:[SECRET:openai-key]`), duplicates dropped."""
    out: list[str] = []
    for tag in tags:
        text, findings = screen(tag, mode, where)
        found += findings
        if text not in out:
            out.append(text)
    return out


def warning(events: list[SecretEvent], *, short=lambda i: (i or "")[:10]) -> str | None:
    """One line for a person: how many secrets of which kinds were redacted in which nodes."""
    redacted = [e for e in events if e.action == "redacted"]
    if not redacted:
        return None
    kinds = list(dict.fromkeys(k for e in redacted for k in e.kinds))
    n = sum(e.count for e in redacted)
    ids = [short(e.node_id) for e in redacted if e.node_id]
    where = f" in {', '.join(ids[:5])}{' …' if len(ids) > 5 else ''}" if ids else ""
    return (f"redacted {n} secret{'s' if n != 1 else ''} ({', '.join(kinds)}){where} before "
            f"storing; the text keeps [SECRET:<kind>] in its place ({ENV}=refuse to refuse, "
            f"--allow-secrets to keep it)")


# ------------------------------------------------------------------ what is already stored

@dataclass(frozen=True)
class StoredSecret:
    """A secret found in a stored node (or request record): where it is, never what it is.
    `node_id` is the request's id for a request prompt, the project's name for its remote."""
    node_id: str
    field: str  # "content", "metadata", "tag", "request prompt" or "project remote"
    kind: str
    start: int  # character offsets in the content, or in the metadata's JSON text
    end: int

    def to_dict(self) -> dict:
        return {"id": self.node_id, "field": self.field, "kind": self.kind,
                "start": self.start, "end": self.end}


def scan_store(store, *, ids=None) -> list[StoredSecret]:
    """Every secret in stored nodes (superseded ones too), in id order."""
    from cuectx.secrets import find

    sql, params = "SELECT id, content, metadata FROM nodes", []
    if ids is not None:
        sql += f" WHERE id IN ({','.join('?' * len(ids))})"
        params = list(ids)
    hits = []
    for node_id, content, metadata in store.conn.execute(sql + " ORDER BY id", params):
        hits += [StoredSecret(node_id, "content", f.kind, f.start, f.end) for f in find(content)]
        if metadata and metadata != "{}":
            hits += [StoredSecret(node_id, "metadata", f.kind, f.start, f.end)
                     for f in find(metadata)]
    tag_sql = "SELECT node_id, tag FROM tags" + (sql[sql.index(" WHERE"):].replace("id IN", "node_id IN")
                                                 if ids is not None else "")
    for node_id, tag in store.conn.execute(tag_sql + " ORDER BY node_id, tag", params):
        hits += [StoredSecret(node_id, "tag", f.kind, f.start, f.end) for f in find(tag)]
    hits.sort(key=lambda h: h.node_id)
    return hits


def scan_requests(store) -> list[StoredSecret]:
    """Secrets in the prompts kept by request records (ctx.requests) from before the guard."""
    from cuectx.secrets import find

    try:
        rows = store.conn.execute("SELECT id, prompt FROM requests ORDER BY id").fetchall()
    except sqlite3.OperationalError:  # a store without the semantic tables
        return []
    return [StoredSecret(rid, "request prompt", f.kind, f.start, f.end)
            for rid, prompt in rows for f in find(prompt or "")]


def scan_projects(store) -> list[StoredSecret]:
    """Secrets in the origin remote URLs project records keep (from before the guard)."""
    from cuectx.secrets import find

    try:
        rows = store.conn.execute("SELECT name, remote FROM projects ORDER BY name").fetchall()
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
    import json

    from ctx.model import token_estimate
    from ctx.store import now_iso

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
            (remote,) = conn.execute("SELECT remote FROM projects WHERE name = ?", (name,)).fetchone()
            conn.execute("UPDATE projects SET remote = ? WHERE name = ?", (screen(remote, REDACT)[0], name))
        for request_id in requests:
            (prompt,) = conn.execute("SELECT prompt FROM requests WHERE id = ?", (request_id,)).fetchone()
            conn.execute("UPDATE requests SET prompt = ? WHERE id = ?",
                         (screen(prompt, REDACT)[0], request_id))
        for node_id in ids:
            for (tag,) in conn.execute("SELECT tag FROM tags WHERE node_id = ?", (node_id,)).fetchall():
                clean = screen(tag, REDACT)[0]
                if clean != tag:
                    conn.execute("DELETE FROM tags WHERE node_id = ? AND tag = ?", (node_id, tag))
                    conn.execute("INSERT OR IGNORE INTO tags (node_id, tag) VALUES (?, ?)", (node_id, clean))
            content, metadata = conn.execute("SELECT content, metadata FROM nodes WHERE id = ?",
                                             (node_id,)).fetchone()
            new_content = screen(content, REDACT)[0]
            found: list = []
            new_meta = (json.dumps(screen_value(json.loads(metadata), REDACT, found),
                                   ensure_ascii=False, sort_keys=True)
                        if metadata and metadata != "{}" else metadata)
            conn.execute("UPDATE nodes SET content = ?, metadata = ?, token_estimate = ?, "
                         "updated_at = ? WHERE id = ?",
                         (new_content, new_meta, token_estimate(new_content), now_iso(), node_id))
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
    from ctx.semantic.index import compact

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
