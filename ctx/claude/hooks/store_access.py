"""How hooks open the store: the one `ctx.core.db.connect`, with a hook-sized busy timeout."""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from ctx.claude.hooks import LEFT_OPEN
from ctx.claude.hooks.call import HookCall

# seed §9: a locked database is waited for (CTX_HOOK_BUSY_TIMEOUT_MS, 5 s), then reported
from ctx.core.settings import hook_busy_timeout_ms as busy_timeout_ms


def hook_scope(call: HookCall, store):
    """The session's scope (ctx.core.projects): the project of the hook's `cwd` (else the process's
    working directory, which Claude Code sets to the project) or $CTX_PROJECT, + global."""
    from ctx.core.store import current_scope

    return current_scope(store.conn, call.text("cwd") or None)


@contextmanager
def open_store(call: HookCall, *, optimize: bool = False) -> Iterator:
    """The store for one hook. `optimize`: refresh the query planner's statistics as it ends
    (ctx.core.db.optimize) — the session start does, once per session; prompt-submit and stop,
    on every prompt's path, leave it to it."""
    from ctx.core import db
    from ctx.core.store import Store

    conn = db.connect(call.db, busy_timeout_ms=busy_timeout_ms())
    try:
        yield Store(conn)
    finally:
        if optimize:
            db.optimize(conn)
        if not call.process_exits:
            conn.close()
        else:
            LEFT_OPEN.append(conn)
        # Else the process is about to os._exit(): closing the last connection to a WAL
        # database checkpoints it with an fsync (~15 ms on Claude's critical path). Every
        # transaction is already committed; the next writer past wal_autocheckpoint, or any
        # CLI command, checkpoints instead — SQLite is built for a process that just stops.
        # A hook server's child closes them after its client has its answer (close_left_open).


def close_left_open() -> None:
    """Close what the hook left open (its store, the cached session start's connection) once
    nobody waits for it: the last connection to close checkpoints the WAL into the database,
    so the next hook, opening it first, has no log to replay."""
    for conn in LEFT_OPEN:
        try:
            conn.close()
        except Exception:  # noqa: BLE001, S110 — the answer is given; nothing left to tell
            pass
    LEFT_OPEN.clear()
