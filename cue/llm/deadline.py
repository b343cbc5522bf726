"""A wall-clock deadline that holds even when the call under it never returns."""
from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


class DeadlineExceeded(Exception):
    pass


def call_with_deadline(fn: Callable[[], T], seconds: float, *,
                       on_abandon: Callable[[], None] | None = None) -> T:
    """Run fn in a daemon thread; return its result, re-raise its exception, or raise
    DeadlineExceeded after `seconds` (calling on_abandon, e.g. to close a socket)."""
    box: dict[str, object] = {}

    def target() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 — re-raised in the caller's thread
            box["error"] = exc

    thread = threading.Thread(target=target, name="cue-llm-call", daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        if on_abandon is not None:
            try:
                on_abandon()
            except Exception:  # noqa: BLE001, S110 — best effort; the deadline already passed
                pass
        raise DeadlineExceeded(f"no answer within {seconds:g}s")
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box["value"]  # type: ignore[return-value]
