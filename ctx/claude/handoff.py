"""What Claude asked to see, handed from its reply to the next prompt (seed §1, §8, §17).

The Stop hook's commands (ctx/claude/actions.py) leave recall results, status, expanded
nodes, task notes and notices in the `pending` table under a per-session key; the next
prompt-submit of that session takes them here, exactly once (entries written without a
session go under the bare key and reach the next prompt of any session). This module is
all that prompt-submit and session-start load of the hand-off: stdlib + the store.
"""
from __future__ import annotations

import json

from cuectx.value import Value

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing on the hook path
if TYPE_CHECKING:
    from ctx.core.store import Store

RECALL = "recall_results"
STATUS = "status_output"
EXPAND = "expand_nodes"
NOTES = "task_notes"
SECRETS = "secret_notices"  # ctx.core.guard: a memory refused or redacted for holding a secret
DUPLICATES = "duplicate_notices"  # ctx.core.dedupe: a memory not stored again, and its id
HANDOFF_KEYS = (RECALL, STATUS, EXPAND, NOTES, SECRETS, DUPLICATES)


def pending_key(base: str, session_id: str | None) -> str:
    return f"{base}:{session_id}" if session_id else base


def _load_list(raw: str | None) -> list:
    try:
        value = json.loads(raw) if raw else []
    except ValueError:
        return []
    return value if isinstance(value, list) else []


class Handoff(Value):
    __slots__ = ("duplicates", "expand_ids", "notes", "recalls", "secrets", "status")

    def __init__(self, recalls: list[dict], status: str | None, expand_ids: list[str],
                 notes: list[dict], secrets: list[dict] | None = None,
                 duplicates: list[dict] | None = None) -> None:
        self.recalls = recalls
        self.status = status
        self.expand_ids = expand_ids
        self.notes = notes
        # memories refused/redacted (ctx.core.guard)
        self.secrets = [] if secrets is None else secrets
        # memories not stored again (ctx.core.dedupe)
        self.duplicates = [] if duplicates is None else duplicates

    def __bool__(self) -> bool:
        return bool(self.recalls or self.status or self.expand_ids or self.notes or self.secrets
                    or self.duplicates)


def take_pending(store: Store, session_id: str | None, *, keys=HANDOFF_KEYS) -> Handoff:
    """Pop this session's hand-offs (and session-less ones) in one transaction.

    Does not write when there is nothing to take, so the common prompt stays read-only.
    """
    wanted = [pending_key(base, sid) for base in keys for sid in dict.fromkeys((session_id, None))]
    if not store.has_pending(wanted):
        return Handoff([], None, [], [])
    recalls, statuses, expand_ids, notes, secrets, duplicates = [], [], [], [], [], []
    with store.transaction():
        for sid in dict.fromkeys((None, session_id)):  # session-less first: they are older
            if RECALL in keys:
                recalls += _load_list(store.pop_pending(pending_key(RECALL, sid)))
            if STATUS in keys:
                text = store.pop_pending(pending_key(STATUS, sid))
                if text:
                    statuses = [text]  # only the newest status matters
            if EXPAND in keys:
                expand_ids += [i for i in _load_list(store.pop_pending(pending_key(EXPAND, sid)))
                               if isinstance(i, str) and i not in expand_ids]
            if NOTES in keys:
                notes += _load_list(store.pop_pending(pending_key(NOTES, sid)))
            if SECRETS in keys:
                secrets += _load_list(store.pop_pending(pending_key(SECRETS, sid)))
            if DUPLICATES in keys:
                duplicates += _load_list(store.pop_pending(pending_key(DUPLICATES, sid)))
    return Handoff([r for r in recalls if isinstance(r, dict)], statuses[0] if statuses else None,
                   expand_ids, [n for n in notes if isinstance(n, dict)],
                   [n for n in secrets if isinstance(n, dict)],
                   [n for n in duplicates if isinstance(n, dict)])
