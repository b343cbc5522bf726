"""Pause history: `cue pause` / `cue resume`, and which stretches of time are off limits.

Two sources, merged: the `pauses` table (written by `cue pause`, WAL SQLite) and
`/cue/pause` events in the MCAP log (written by a capture tool). Frames and events inside
a paused interval are never selected, summarised or sent anywhere.

A `/cue/pause` "paused" event counts if it is at most PAUSE_LOOKBACK_SECS before the
window; a "resumed" event with no "paused" before it in that lookback means the pause
began earlier, so the window is treated as paused from its start (fail closed).
"""
from __future__ import annotations

import math
import sqlite3
import time
from contextlib import closing
from pathlib import Path

from cue.core import paths
from cue.inputs.events import TOPIC_PAUSE, Event, read_events
from cuectx.value import Value

PAUSE_LOOKBACK_SECS = 86400.0


class PauseState(Value):
    __slots__ = ("paused", "reason", "since", "until")

    def __init__(self, paused: bool, since: float | None = None, until: float | None = None,
                 reason: str | None = None) -> None:
        self.paused = paused
        self.since = since  # when the current pause began
        self.until = until  # planned end (`cue pause --for`); None = until resumed
        self.reason = reason


def pause(conn: sqlite3.Connection, *, for_secs: float | None = None,
          reason: str | None = None, now: float | None = None) -> PauseState:
    """Pause now, for `for_secs` or until `resume`. Pausing while paused resets the end."""
    now = time.time() if now is None else now
    until = None if for_secs is None else now + for_secs
    conn.execute("BEGIN IMMEDIATE")
    try:
        row = _current(conn, now)
        if row is None:
            conn.execute(
                "INSERT INTO pauses(started_at, until_at, reason, source) VALUES (?, ?, ?, 'cli')",
                (now, until, reason))
        else:
            conn.execute("UPDATE pauses SET until_at = ?, reason = COALESCE(?, reason) "
                         "WHERE id = ?", (until, reason, row["id"]))
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return pause_state(conn, now=now)


def resume(conn: sqlite3.Connection, *, now: float | None = None) -> bool:
    """End the current pause. Returns False if nothing was paused."""
    now = time.time() if now is None else now
    cur = conn.execute(
        "UPDATE pauses SET ended_at = ? WHERE ended_at IS NULL AND started_at <= ? "
        "AND (until_at IS NULL OR until_at > ?)", (now, now, now))
    return cur.rowcount > 0


def pause_state(conn: sqlite3.Connection, *, now: float | None = None) -> PauseState:
    """Whether `cue pause` is in effect now (the pauses table only)."""
    now = time.time() if now is None else now
    row = _current(conn, now)
    if row is None:
        return PauseState(False)
    return PauseState(True, row["started_at"], row["until_at"], row["reason"])


def is_paused(conn: sqlite3.Connection | None = None, now: float | None = None, *,
              events_dir: Path | None = None) -> bool:
    """Is capture paused at `now` — by `cue pause` or by a /cue/pause event?"""
    now = time.time() if now is None else now
    if conn is None:
        from cue.core.db import connect

        with closing(connect()) as own:
            return bool(paused_intervals(own, now, now, events_dir=events_dir))
    return bool(paused_intervals(conn, now, now, events_dir=events_dir))


def paused_intervals(conn: sqlite3.Connection, start: float, end: float, *,
                     events_dir: Path | None = None,
                     events: list[Event] | None = None) -> list[tuple[float, float]]:
    """Paused stretches overlapping [start, end], clipped to it, merged and sorted.

    Sources: the pauses table, and /cue/pause events — from `events` if given (they
    should reach PAUSE_LOOKBACK_SECS before `start`), else read from `events_dir`
    (default: the cue events folder, if it exists).
    """
    spans = list(_table_intervals(conn, start, end))
    if events is None:
        folder = Path(events_dir) if events_dir is not None else paths.events_dir()
        if folder.exists():
            events = read_events(folder, start - PAUSE_LOOKBACK_SECS, end, topics=[TOPIC_PAUSE])
        else:
            events = []
    spans.extend(intervals_from_events(events, start, end))
    return merge(spans, start, end)


def intervals_from_events(events: list[Event], start: float, end: float) -> list[tuple[float, float]]:
    """Paused stretches from /cue/pause events (others are ignored)."""
    pauses = [e for e in events if e.topic == TOPIC_PAUSE]
    out: list[tuple[float, float]] = []
    began: float | None = None
    first = True
    for ev in pauses:
        state = ev.data.get("state")
        if state == "paused":
            if began is None:
                began = ev.ts
        elif state == "resumed":
            if began is not None:
                out.append((began, ev.ts))
            elif first and ev.ts >= start:
                out.append((-math.inf, ev.ts))  # paused before anything we can see
            began = None
        first = False
    if began is not None:
        out.append((began, math.inf))
    return [(max(a, start), min(b, end)) for a, b in out if a <= end and b >= start]


def merge(spans: list[tuple[float, float]], start: float, end: float) -> list[tuple[float, float]]:
    clipped = sorted((max(a, start), min(b, end)) for a, b in spans if a <= end and b >= start)
    out: list[tuple[float, float]] = []
    for a, b in clipped:
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def contains(intervals: list[tuple[float, float]], ts: float) -> bool:
    return any(a <= ts <= b for a, b in intervals)


def _table_intervals(conn: sqlite3.Connection, start: float, end: float):
    rows = conn.execute(
        "SELECT started_at, ended_at, until_at FROM pauses WHERE started_at <= ? "
        "AND (ended_at IS NULL OR ended_at >= ?) AND (until_at IS NULL OR until_at >= ?)",
        (end, start, start))
    for started, ended, until in rows:
        stop = min(x for x in (ended, until, math.inf) if x is not None)
        yield (started, stop)


def _current(conn: sqlite3.Connection, now: float):
    return conn.execute(
        "SELECT id, started_at, until_at, reason FROM pauses WHERE ended_at IS NULL "
        "AND started_at <= ? AND (until_at IS NULL OR until_at > ?) "
        "ORDER BY started_at DESC LIMIT 1", (now, now)).fetchone()

