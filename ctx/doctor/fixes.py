"""`ctx doctor --fix` and `--undo`: apply findings as supersede links and tier changes —
never a deleted node — and log each change (table `doctor_fixes`, migration 8, owned here)
so the last run (or any run by id) can be put back.

Orphan fixes remove what points at nodes already gone (a dangling edge, index vectors of
deleted nodes): there is nothing left to restore there, so they are logged but not undone.
Secrets are redacted in place (ctx/doctor/secrets.py), which is not undoable by design.
"""
from __future__ import annotations

import json

from ctx.core.errors import CtxError, NotFoundError
from ctx.core.ids import new_ulid
from ctx.core.model import Edge, now_iso
from ctx.core.store import Store
from ctx.doctor.findings import Finding
from cuectx.value import Value


class FixReport(Value):
    __slots__ = ("changes", "done", "run_id", "skipped")

    def __init__(self, run_id: str, done: list[str] | None = None, skipped: list[str] | None = None,
                 changes: int = 0) -> None:
        self.run_id = run_id
        self.done = [] if done is None else done  # one line per change, for people
        self.skipped = [] if skipped is None else skipped  # steps that no longer applied
        self.changes = changes

    def to_dict(self) -> dict:
        return {"run": self.run_id, "changes": self.changes, "done": self.done,
                "skipped": self.skipped}


def apply(store: Store, findings: list[Finding]) -> FixReport:
    """Carry out every finding's steps in one transaction; a step whose nodes changed since
    (already superseded, gone) is skipped and said so."""
    report = FixReport(new_ulid())
    redact = False
    with store.transaction():
        for f in findings:
            for step in f.steps:
                if step[0] == "redact":
                    redact = True
                    continue
                line = _apply_step(store, report.run_id, f.kind, step, f.seen)
                if line.startswith("skipped"):
                    report.skipped.append(line)
                else:
                    report.done.append(line)
                    report.changes += 1
    if any(s == ("compact",) for f in findings for s in f.steps):
        from ctx.semantic.index import drop_orphans

        n = drop_orphans(store.conn)
        report.done.append(f"compacted the embedding index ({n} orphaned vector(s) or chunk(s))")
        report.changes += 1
    if redact:
        from ctx.doctor import secrets

        hits = secrets.scan_store(store) + secrets.scan_requests(store) + secrets.scan_projects(store)
        n = secrets.fix_store(store, hits)
        report.done.append(f"redacted {len(hits)} secret(s) in {n} node(s), request(s) or project(s)")
        report.changes += 1
    return report


def _live(store: Store, node_id: str) -> bool:
    found = store.get_many([node_id])
    return bool(found) and found[0].superseded_by is None


def _log(store: Store, run_id: str, kind: str, action: str, payload: dict) -> None:
    store.conn.execute("INSERT INTO doctor_fixes (run_id, applied_at, kind, action, payload) "
                       "VALUES (?, ?, ?, ?, ?)",
                       (run_id, now_iso(), kind, action, json.dumps(payload, ensure_ascii=False)))


def _changed(store: Store, seen: dict, ids: tuple[str, ...]) -> str | None:
    """The first of `ids` edited since the check saw it (a finding about its old text)."""
    now = store.stamps([i for i in ids if i in seen])
    return next((i for i in ids if i in seen and i in now and now[i] != seen[i]), None)


def _apply_step(store: Store, run_id: str, kind: str, step: tuple, seen: dict | None = None) -> str:
    name = step[0]
    seen = seen or {}
    if name == "supersede":
        old, new = step[1], step[2]
        if not (_live(store, old) and _live(store, new)):
            return f"skipped: {old} or {new} is no longer live"
        edited = _changed(store, seen, (old, new))
        if edited:
            return f"skipped: {edited} was edited after the check (run `ctx doctor` again)"
        before = store.get(old).updated_at
        store.supersede(old, new)
        _log(store, run_id, kind, "supersede", {"old": old, "new": new, "updated_at": before})
        return f"{old} superseded by {new}"
    if name == "tier":
        node_id, tier = step[1], step[2]
        try:
            node = store.get(node_id)
        except NotFoundError:
            return f"skipped: {node_id} is gone"
        if node.tier == tier:
            return f"skipped: {node_id} is already tier:{tier}"
        if _changed(store, seen, (node_id,)):
            return f"skipped: {node_id} was edited after the check (run `ctx doctor` again)"
        store.tag(node_id, [f"tier:{tier}"])
        _log(store, run_id, kind, "tier", {"id": node_id, "from": node.tier, "to": tier,
                                           "updated_at": node.updated_at})
        return f"{node_id}: tier:{node.tier or '-'} → tier:{tier}"
    if name == "drop-edge":
        edge = Edge(*step[1:5])
        store.remove_edge(edge)
        _log(store, run_id, kind, "edge", edge.to_dict())
        return f"removed edge {edge.from_id} {edge.type} {edge.to_id}"
    if name == "clear-superseded-by":
        store.clear_superseded_by(step[1])
        _log(store, run_id, kind, "superseded-by", {"id": step[1], "was": step[2]})
        return f"{step[1]} is live again (its superseder {step[2]} is gone)"
    raise CtxError(f"unknown fix step {name!r}")


def undo(store: Store, run_id: str | None = None) -> FixReport:
    """Put back what one `--fix` run changed (default: the latest not yet undone; `run_id`
    is a whole run id): links and tiers as they were, and each node's updated_at as it
    was. A node removed since is said so; the rest of the run is still undone."""
    conn = store.conn
    if run_id is None:
        row = conn.execute("SELECT run_id FROM doctor_fixes WHERE undone_at IS NULL "
                           "ORDER BY seq DESC LIMIT 1").fetchone()
        if row is None:
            raise NotFoundError("there is no `ctx doctor --fix` run to undo")
        run_id = row[0]
    rows = conn.execute("SELECT seq, kind, action, payload FROM doctor_fixes WHERE run_id = ? "
                        "AND undone_at IS NULL ORDER BY seq DESC", (run_id.strip().upper(),)).fetchall()
    if not rows:
        raise NotFoundError(f"no fix run {run_id!r} left to undo (`ctx doctor --history` lists them)")
    report = FixReport(run_id)
    with store.transaction():
        for seq, _kind, action, payload in rows:
            p = json.loads(payload)
            node_id = p.get("old") if action == "supersede" else p.get("id")
            if action in ("supersede", "tier") and not store.stamps([node_id]):
                report.skipped.append(f"not undone: {node_id} was removed since the fix")
                conn.execute("UPDATE doctor_fixes SET undone_at = ? WHERE seq = ?", (now_iso(), seq))
                continue
            if action == "supersede":
                store.unsupersede(p["old"], p["new"])
                report.done.append(f"{p['old']} is live again (was superseded by {p['new']})")
            elif action == "tier":
                node = store.get(p["id"])
                if p["from"]:
                    store.tag(node.id, [f"tier:{p['from']}"])
                else:
                    store.untag(node.id, [f"tier:{p['to']}"])
                report.done.append(f"{node.id}: back to tier:{p['from'] or '-'}")
            else:
                report.skipped.append(f"not undone: {action} {payload} (it pointed at a node that is gone)")
                continue
            if p.get("updated_at"):
                store.set_updated_at(node_id, p["updated_at"])
            conn.execute("UPDATE doctor_fixes SET undone_at = ? WHERE seq = ?", (now_iso(), seq))
            report.changes += 1
    return report


def history(store: Store, limit: int = 20) -> list[dict]:
    """The latest fix runs: id, when, how many changes, how many undone."""
    return [{"run": r[0], "applied_at": r[1], "changes": r[2], "undone": r[3]}
            for r in store.conn.execute(
                "SELECT run_id, min(applied_at), count(*), count(undone_at) FROM doctor_fixes "
                "GROUP BY run_id ORDER BY min(seq) DESC LIMIT ?", (limit,))]
