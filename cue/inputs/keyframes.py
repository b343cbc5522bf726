"""The keyframe folder: screenshots a capture tool wrote, and when each was taken.

Naming contract (first match wins), for `*.jpg|*.jpeg|*.png|*.webp` (any case):

1. An ISO-8601 time in the name, UTC unless it carries an offset; `-` may stand in for
   `:` so the name is valid everywhere: `2026-11-21T14-03-07.250Z.jpg`,
   `screen_2026-11-21T14:03:07+09:00.png`, `20261121T140307Z.webp`.
2. A unix epoch run of digits: 13 digits = milliseconds (`1763733787250.jpg`), 10 digits
   = seconds with an optional fraction (`1763733787.25.jpg`), 16 = µs, 19 = ns; a text
   prefix is fine (`display1-1763733787250.jpg`).
3. Otherwise the file's modification time.

Sub-folders are searched too; one named like a date (`2026-11-21`) is skipped when the
window cannot touch that day. Hidden files (`.name`) and other suffixes are ignored, so a
capture tool can write `.tmp` files and rename them into place.
"""
from __future__ import annotations

import math
import os
import re
from calendar import timegm
from pathlib import Path

from cue.core.errors import CueError
from cuectx.value import Value

IMAGE_SUFFIXES = frozenset({".jpg", ".jpeg", ".png", ".webp"})

_ISO = re.compile(
    r"(?<!\d)(\d{4})-?(\d{2})-?(\d{2})[T_ ](\d{2})[:\-]?(\d{2})[:\-]?(\d{2})"
    r"(?:[.,](\d{1,9}))?(Z|z|[+\-]\d{2}(?::?\d{2})?)?(?!\d)"
)
_EPOCH = re.compile(r"(?<!\d)(\d{19}|\d{16}|\d{13}|\d{10}(?:\.\d{1,9})?)(?!\d)")
_DAY_DIR = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
# Plausible capture times: 2001-09-09 … 2286-11-20 (10-digit unix seconds).
_MIN_TS, _MAX_TS = 1_000_000_000.0, 9_999_999_999.0


class Keyframe(Value):
    __slots__ = ("path", "time_source", "ts")

    def __init__(self, path: Path, ts: float, time_source: str = "name") -> None:
        self.path = path
        self.ts = ts  # capture time, unix seconds
        self.time_source = time_source  # "name" or "mtime"


def capture_time_from_name(name: str) -> float | None:
    """Capture time (unix seconds) encoded in a file name, or None."""
    stem = name.rsplit(".", 1)[0] if "." in name else name
    if stem.isdigit() and len(stem) == 13:  # the common case, without regexes
        ts = int(stem) / 1000.0
        return ts if _MIN_TS <= ts <= _MAX_TS else None
    m = _ISO.search(stem)
    if m:
        y, mo, d, h, mi, s, frac, zone = m.groups()
        try:
            ts = float(timegm((int(y), int(mo), int(d), int(h), int(mi), int(s), 0, 0, 0)))
        except (ValueError, OverflowError):
            ts = None
        if ts is not None and 1 <= int(mo) <= 12 and 1 <= int(d) <= 31 and int(h) < 24:
            if frac:
                ts += int(frac) / 10 ** len(frac)
            if zone and zone not in ("Z", "z"):
                sign = -1 if zone[0] == "+" else 1
                digits = zone[1:].replace(":", "")
                ts += sign * (int(digits[:2]) * 3600 + int(digits[2:4] or 0) * 60)
            return ts
    for m in _EPOCH.finditer(stem):
        run = m.group(1)
        if "." in run:
            ts = float(run)
        else:
            ts = int(run) / {10: 1, 13: 1e3, 16: 1e6, 19: 1e9}[len(run)]
        if _MIN_TS <= ts <= _MAX_TS:
            return ts
    return None


def list_keyframes(keyframe_dir: Path | str, start: float, end: float) -> list[Keyframe]:
    """Keyframes captured in [start, end], sorted by capture time (then name)."""
    root = Path(os.path.abspath(Path(keyframe_dir).expanduser()))
    if not root.is_dir():
        if root.exists():
            raise CueError(f"keyframe folder {root} is not a folder")
        raise CueError(f"keyframe folder {root} does not exist; "
                       "point --keyframes at the folder your capture tool writes")
    found: list[Keyframe] = []
    _scan(root, start, end, found)
    found.sort(key=lambda k: (k.ts, k.path.name))
    return found


_MAX_MS = 10**13 - 1


def _ms_stem(t: float, rounding) -> str:
    """`t` as a 13-digit millisecond name stem, clamped (open-ended ±inf ranges included)."""
    ms = rounding(t * 1000) if math.isfinite(t) else (_MAX_MS if t > 0 else 0)
    return f"{min(max(0, ms), _MAX_MS):013d}"

_FAST_SUFFIXES = frozenset(s[1:] for s in IMAGE_SUFFIXES)


def _scan(folder: Path, start: float, end: float, out: list[Keyframe]) -> None:
    try:
        entries = list(os.scandir(folder))
    except OSError as exc:
        raise CueError(f"cannot read keyframe folder {folder}: {exc.strerror}") from None
    # Fast path for the recommended `<13-digit unix ms>.<ext>` names: equal-length digit
    # strings compare like the numbers, so a folder of a million frames is a string compare
    # per name.
    lo = _ms_stem(start, math.floor)
    hi = _ms_stem(end, math.ceil)
    for entry in entries:
        name = entry.name
        if len(name) > 14 and name[13] == "." and name[:13].isdigit() \
                and name[14:].lower() in _FAST_SUFFIXES:
            stem = name[:13]
            if lo <= stem <= hi:
                ts = int(stem) / 1000.0
                if start <= ts <= end and _MIN_TS <= ts:
                    out.append(Keyframe(Path(entry.path), ts, "name"))
            continue
        if name.startswith("."):
            continue
        dot = name.rfind(".")
        if dot > 0 and name[dot:].lower() in IMAGE_SUFFIXES:
            ts = capture_time_from_name(name)
            source = "name"
            if ts is None:
                try:
                    st = entry.stat()
                except OSError:
                    continue
                ts, source = st.st_mtime, "mtime"
            if start <= ts <= end:
                out.append(Keyframe(Path(entry.path), ts, source))
        elif entry.is_dir(follow_symlinks=False) and _day_may_overlap(name, start, end):
            _scan(Path(entry.path), start, end, out)


def _day_may_overlap(name: str, start: float, end: float) -> bool:
    m = _DAY_DIR.match(name)
    if not m:
        return True
    try:
        day = timegm((int(m[1]), int(m[2]), int(m[3]), 0, 0, 0, 0, 0, 0))
    except (ValueError, OverflowError):
        return True
    # A local-time day can start up to 14 h before or after the UTC day.
    return day - 14 * 3600 <= end and day + 86400 + 14 * 3600 >= start
