"""The session record in the store: read the transcript from where the last capture of this
session stopped, fold the new lines (ctx.claude.capture), write or update the one node.

Called by the Stop hook after its own work, and by the PreCompact and SessionEnd hooks
(ctx.claude.capture_hook). The fold's state and the byte offset it reached live in
`pending` under `capture:<session_id>`, so each Stop reads only the lines since the last
one. The record is an `observation` tagged `tier:off-context` + `capture:session`: outside
session start's view (its tiers are pinned/reference/working), eligible per prompt like any
other memory. It is scrubbed here with the secret guard's redaction whatever $CTX_SECRETS
says (a transcript is not something anyone chose to store), then by the store's own guard.
"""
from __future__ import annotations

import json
import os

from ctx.claude import capture
from cuectx.value import Value

KEY = "capture:{session_id}"
MAX_READ_BYTES = 32 * 1024 * 1024  # a first read of a huge transcript starts this far from its end


class Captured(Value):
    """What one capture did: `node_id` (None: no record), `status` (created, updated,
    unchanged, dropped, off) and why."""

    __slots__ = ("node_id", "status", "why")

    def __init__(self, node_id: str | None, status: str, why: str) -> None:
        self.node_id = node_id
        self.status = status
        self.why = why


def load(store, session_id: str) -> dict | None:
    raw = store.get_pending(KEY.format(session_id=session_id))
    try:
        saved = json.loads(raw) if raw else None
    except ValueError:
        return None
    return saved if isinstance(saved, dict) and isinstance(saved.get("state"), dict) else None


def update(store, scope, *, session_id: str, transcript_path: str, cwd: str | None = None,
           event: str = "Stop", max_chars: int | None = None) -> Captured:
    """Bring the session's record up to date with its transcript. Raises OSError when the
    transcript cannot be read (the caller warns and goes on)."""
    from ctx.core.settings import capture_max_chars

    key = KEY.format(session_id=session_id)
    saved = load(store, session_id)
    size = os.path.getsize(transcript_path)
    fresh = (saved is None or saved.get("path") != transcript_path
             or not isinstance(saved.get("offset"), int) or saved["offset"] > size
             or saved["state"].get("v") != capture.VERSION)
    state = capture.new_state() if fresh else saved["state"]
    start = 0 if fresh else saved["offset"]
    node_id = None if saved is None else saved.get("node")
    skip_partial = size - start > MAX_READ_BYTES
    if skip_partial:
        start = size - MAX_READ_BYTES
    with open(transcript_path, "rb") as f:
        f.seek(start)
        data = f.read(size - start)
    if skip_partial:  # begin at the first whole line
        cut = data.find(b"\n") + 1
        data, start = data[cut:], start + cut
    end = data.rfind(b"\n") + 1  # complete lines only; a half-written one waits for next time
    for line in data[:end].splitlines():
        capture.fold(state, line)
    offset = start + end
    root = capture.worktree_top(state.get("cwd") or cwd) or cwd
    why_not = capture.trivial(state)
    result = Captured(node_id, "dropped", why_not or "")
    with store.transaction():
        if why_not is None:
            text = capture.render(state, root, max_chars=max_chars or capture_max_chars())
            result = _write(store, scope, session_id, node_id, text, state, event)
            node_id = result.node_id
        store.set_pending(key, json.dumps(
            {"path": transcript_path, "offset": offset, "node": node_id, "root": root,
             "event": event, "state": state}, ensure_ascii=False, sort_keys=True))
    return result


def _write(store, scope, session_id: str, node_id: str | None, text: str, state: dict,
           event: str) -> Captured:
    from ctx.core import guard
    from ctx.core.errors import NotFoundError

    text, _ = guard.screen(text, guard.REDACT, "the session record")
    meta = {"capture": {"session": session_id, "version": capture.VERSION,
                        "started_at": state["first_at"], "ended_at": state["last_at"],
                        "prompts": state["n_prompts"], "tool_uses": state["tool_uses"],
                        "why": capture.reason(state)}}
    if node_id:
        try:
            node = store.get(node_id)
        except NotFoundError:  # deleted by hand: the person's choice stands
            return Captured(node_id, "deleted", "the record was deleted; not written again")
        if node.superseded_by:  # folded into the project's digest, or replaced by hand
            return Captured(node.id, "retired", "the record was retired; left as it is")
        if node.content == text:
            return Captured(node.id, "unchanged", capture.reason(state))
        store.update(node.id, content=text, metadata=meta)
        return Captured(node.id, "updated", capture.reason(state))
    created = _stamp(state["first_at"])
    node = store.add(text, capture.NODE_TYPE, capture.TAGS, meta, created_at=created,
                     project_id=scope.write_project_id(store.conn) if scope else None)
    return Captured(node.id, "created", capture.reason(state))


def _stamp(value: str | None) -> str | None:
    """The transcript's ISO time as the store writes times (2026-11-21T23:05:08.123Z)."""
    if not value or len(value) < 19 or value[10] != "T":
        return None
    if len(value) >= 24 and value[19] == "." and value.endswith("Z"):
        return value[:23] + "Z"
    return value[:19] + ".000Z"


# -- what was captured (`ctx capture show`) --------------------------------------------------

class SessionCapture(Value):
    """One session's capture: its state and the record it gave (None: none kept, `why`)."""

    __slots__ = ("event", "node", "offset", "path", "root", "session_id", "state", "updated_at",
                 "why")

    def __init__(self, session_id, path, offset, root, event, state, node, why, updated_at):
        self.session_id = session_id
        self.path = path
        self.offset = offset
        self.root = root
        self.event = event
        self.state = state
        self.node = node
        self.why = why
        self.updated_at = updated_at

    def to_dict(self) -> dict:
        s = self.state
        return {"session": self.session_id, "transcript": self.path, "read_to_byte": self.offset,
                "last_event": self.event, "updated_at": self.updated_at,
                "kept": self.node is not None and not self.node.superseded_by,
                "why": self.why, "record": self.node.id if self.node else None,
                "record_status": _node_status(self.node),
                "content": self.node.content if self.node else None,
                "counts": {"prompts": s["n_prompts"], "tool_uses": s["tool_uses"],
                           "files": len(s["files"]), "commands": s["n_commands"],
                           "read_only_commands": s["read_only"], "errors": s["n_errors"],
                           "memories": s["n_memories"]},
                "started_at": s["first_at"], "ended_at": s["last_at"]}


def _node_status(node) -> str | None:
    if node is None:
        return None
    return f"folded into {node.superseded_by}" if node.superseded_by else "live"


def captures(store, session: str | None = None, *, limit: int = 20) -> list[SessionCapture]:
    """The sessions captured, newest first (`session`: one, by id or a unique prefix)."""
    from ctx.core.errors import CtxError, NotFoundError

    rows = store.pending_by_prefix("capture:")
    if session:
        rows = [r for r in rows if r[0][len("capture:"):].startswith(session)]
        if not rows:
            raise NotFoundError(f"no session {session!r} was captured "
                                f"(see `ctx capture list`; CTX_CAPTURE may be off)")
        if len(rows) > 1 and not any(r[0] == "capture:" + session for r in rows):
            raise CtxError(f"session prefix {session!r} is ambiguous ({len(rows)} sessions)")
        rows = [r for r in rows if r[0] == "capture:" + session] or rows
    out = []
    for key, value, created_at in rows[:limit]:
        try:
            saved = json.loads(value)
            state = saved["state"]
            state["n_prompts"]
        except (ValueError, KeyError, TypeError):
            continue
        node = None
        if saved.get("node"):
            try:
                node = store.get(saved["node"])
            except NotFoundError:
                node = None
        why_not = capture.trivial(state)
        if why_not:
            why = f"not kept: {why_not}"
        elif saved.get("node") and node is None:
            why = "kept, then deleted by hand (not written again)"
        else:
            why = f"kept: {capture.reason(state)}"
        out.append(SessionCapture(key[len("capture:"):], saved.get("path"), saved.get("offset"),
                                  saved.get("root"), saved.get("event"), state, node, why,
                                  created_at))
    return out


# -- curation: old records folded into the project's digest ----------------------------------

DIGEST_TAGS = ("tier:off-context", "capture:digest")
DIGEST_MAX_LINES = 200


def digest_line(node) -> str:
    """One line for a folded record: its first line (date, task) and the files it touched."""
    lines = node.content.splitlines()
    head = lines[0].removeprefix("Session ") if lines else node.id
    files = [ln.split(": ", 1)[1] for ln in lines[1:] if ln.startswith(("Created: ", "Edited: "))]
    tail = f" — {'; '.join(files)}" if files else ""
    return capture._clip(head + tail, 300)


def fold_old(store, *, older_than_days: int, now: str | None = None,
             dry_run: bool = False) -> list[tuple[str, str | None, str]]:
    """Fold session records older than `older_than_days` (by the session's end) into one
    digest node per project (`summary`, tier off-context, tag capture:digest): a line per
    session, the record superseded by the digest (reversible, nothing deleted); the capture
    states (in `pending`) of sessions idle that long go too. Returns (record id, project id,
    digest line) for each folded record."""
    from datetime import UTC, datetime, timedelta

    from ctx.core.stamps import now_iso

    now = now or now_iso()
    cutoff = (datetime.strptime(now[:19], "%Y-%m-%dT%H:%M:%S").replace(tzinfo=UTC)
              - timedelta(days=older_than_days)).strftime("%Y-%m-%dT%H:%M:%S")
    if not dry_run:  # capture states of sessions idle that long: their fold is done
        with store.transaction():
            for key, _, touched in store.pending_by_prefix("capture:"):
                if touched[:19] < cutoff:
                    store.delete_pending(key)
    nodes = store.query("tag:capture:session", scope=None)
    old = [n for n in nodes
           if ((n.metadata.get("capture") or {}).get("ended_at") or n.updated_at)[:19] < cutoff]
    if not old:
        return []
    pids = store.project_ids([n.id for n in old])
    folded = [(n.id, pids.get(n.id), digest_line(n)) for n in old]
    if dry_run:
        return folded
    by_project: dict = {}
    for node_id, pid, line in folded:
        by_project.setdefault(pid, []).append((node_id, line))
    with store.transaction():
        digests = {store.project_ids([d.id]).get(d.id): d
                   for d in store.query("tag:capture:digest", scope=None)}
        for pid, items in by_project.items():
            current = digests.get(pid)
            lines = current.content.splitlines()[1:] if current else []
            lines = sorted(set(lines) | {line for _, line in items})[-DIGEST_MAX_LINES:]
            text = "Earlier sessions in this project (folded session records):\n" + "\n".join(lines)
            if current:
                digest = store.update(current.id, content=text)
            else:
                digest = store.add(text, "summary", DIGEST_TAGS, {"capture": {"digest": True}},
                                   project_id=pid)
            for node_id, _ in items:
                store.supersede(node_id, digest.id)
    return folded
