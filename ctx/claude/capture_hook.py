"""Session capture on the hook path: after each Stop (`after_stop`, called by the Stop hook
once its own work is done), and on PreCompact and SessionEnd (`run`), which Claude Code
2.1.330 sends — PreCompact before a compaction drops the detail (`trigger` manual|auto),
SessionEnd as a `claude -p` run or a session ends (`reason`). All three bring the same
one record per session up to date (ctx.claude.capture_store).

Never breaks a turn: $CTX_CAPTURE=off does nothing, and any failure is one warning line.
"""
from __future__ import annotations

import json
import os
import time

from ctx.claude.hooks.call import HookCall
from ctx.claude.hooks.store_access import hook_scope, open_store

# Claude Code appends to the transcript from a write queue, so at Stop the turn's last lines
# can still be on their way (seen under load: a capture missed the last command's result).
# After the answer nobody waits, so the record waits for the turn's last text a while; in the
# hook's own process Claude Code waits too, so briefly.
SETTLE_AFTER_ANSWER_S = 3.0
SETTLE_INLINE_S = 0.3
SETTLE_POLL_S = 0.025
TAIL_BYTES = 256 * 1024


def run(call: HookCall) -> None:
    """The PreCompact / SessionEnd hook: capture, output nothing."""
    from ctx.core.settings import capture_enabled

    if not capture_enabled() or not call.session_id or not call.text("transcript_path"):
        return
    with open_store(call) as store:
        after_stop(call, store)
    return


def after_stop(call: HookCall, store) -> None:
    """Update the session's record — in a hook server's child once Claude Code has its
    answer (ctx.claude.hooks.AFTER_ANSWER: a long transcript slice costs the turn nothing),
    else now. A warning, never an exception."""
    from ctx.claude import hooks
    from ctx.core.settings import capture_enabled

    path = call.text("transcript_path")
    if not path or not call.session_id or call.response is not None or not capture_enabled():
        return
    if hooks.AFTER_ANSWER is not None and call.process_exits:
        hooks.AFTER_ANSWER.append(lambda: _capture(call, store, path, SETTLE_AFTER_ANSWER_S))
        return
    _capture(call, store, path, SETTLE_INLINE_S)


def settle(path: str, last_text: str | None, timeout: float) -> bool:
    """Wait up to `timeout` seconds until the transcript's tail holds the end of `last_text`
    (the Stop input's last_assistant_message: its last line, which no block boundary splits,
    as Claude Code's JSON writes it). True when it is there (or there is nothing to wait
    for); False on timeout or a file that cannot be read."""
    lines = (last_text or "").strip().splitlines()
    needle = json.dumps(lines[-1].strip()[-80:] if lines else "", ensure_ascii=False)[1:-1]
    if not needle:
        return True
    needle_bytes = needle.encode("utf-8", "surrogatepass")
    deadline = time.monotonic() + timeout
    while True:
        try:
            with open(path, "rb") as f:
                size = os.fstat(f.fileno()).st_size
                f.seek(max(0, size - TAIL_BYTES))
                if needle_bytes in f.read():
                    return True
        except OSError:
            return False
        if time.monotonic() >= deadline:
            return False
        time.sleep(SETTLE_POLL_S)


def _capture(call: HookCall, store, path: str, settle_s: float = 0.0) -> None:
    try:
        if call.event == "Stop":
            settle(path, call.text("last_assistant_message"), settle_s)
        from ctx.claude import capture_store

        done = capture_store.update(store, hook_scope(call, store), session_id=call.session_id,
                                    transcript_path=path, cwd=call.text("cwd"),
                                    event=call.event)
        if call.verbose:
            call.warn(f"session record {done.status}: {done.why}")
    except FileNotFoundError:
        return  # no transcript yet: nothing happened worth a record
    except Exception as exc:
        from ctx.core.errors import CorruptDatabaseError

        if isinstance(exc, CorruptDatabaseError):
            raise
        call.warn(f"session record not updated ({type(exc).__name__}: {exc})")
