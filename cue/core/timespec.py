"""Durations ("15m", "1h30m") and points in time (ISO-8601 or unix seconds) from people.

Used by `cue select --since/--start/--end` and `cue pause --for`; pure, stdlib only.
"""
from __future__ import annotations

import re
from datetime import UTC, datetime

from cue.core.errors import CueError

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
_PART = re.compile(r"(\d+(?:\.\d+)?)\s*([smhdw])", re.IGNORECASE)


def parse_duration(text: str) -> float:
    """Seconds in a duration like `15m`, `90s`, `1h30m`, `2d` or a bare number of seconds."""
    raw = text.strip()
    if not raw:
        raise CueError("empty duration; use something like 15m, 90s or 1h30m")
    try:
        value = float(raw)
    except ValueError:
        pos, total = 0, 0.0
        compact = raw.replace(" ", "")
        for m in _PART.finditer(compact):
            if m.start() != pos:
                break
            total += float(m.group(1)) * _UNITS[m.group(2).lower()]
            pos = m.end()
        if pos != len(compact) or pos == 0:
            raise CueError(
                f"cannot read duration {text!r}; use something like 15m, 90s or 1h30m") from None
        value = total
    if value <= 0:
        raise CueError(f"duration {text!r} must be more than zero")
    return value


def parse_time(text: str) -> float:
    """Unix seconds from `1763766000`, `1763766000.5`, or ISO-8601 (`2026-11-21T14:00:00Z`).

    An ISO time without a zone is the local time of this machine, as a person means it.
    """
    raw = text.strip()
    try:
        return float(raw)
    except ValueError:
        pass
    iso = raw[:-1] + "+00:00" if raw.endswith(("Z", "z")) else raw
    try:
        dt = datetime.fromisoformat(iso)
    except ValueError:
        raise CueError(
            f"cannot read time {text!r}; use ISO-8601 (2026-11-21T14:00:00Z) or unix seconds"
        ) from None
    if dt.tzinfo is None:
        dt = dt.astimezone()  # naive → local time
    return dt.timestamp()


def iso_utc(ts: float) -> str:
    """`2026-11-21T14:00:00.123Z` for unix seconds (millisecond precision)."""
    dt = datetime.fromtimestamp(ts, tz=UTC)
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"
