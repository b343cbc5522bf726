"""cue select (wiring only; see cue.select)."""
from __future__ import annotations

import sys
import time
from typing import Annotated

import typer

from cue.cli.options import EventsOpt, KeyframesOpt
from cue.cli.output import Format, dumps, formats, out, resolve
from cue.core.errors import CueError


def select_command(
    since: Annotated[str | None, typer.Option(
        "--since", help="Window length ending at --end (or now): 15m, 90s, 1h30m. "
        "Default 15m.", show_default=False)] = None,
    start: Annotated[str | None, typer.Option(
        "--start", help="Window start: ISO-8601 (local time unless it has Z or an offset) "
        "or unix seconds.", show_default=False)] = None,
    end: Annotated[str | None, typer.Option(
        "--end", help="Window end, same forms as --start (default: now).",
        show_default=False)] = None,
    max_frames: Annotated[int, typer.Option(
        "--max-frames", "-n", min=1, help="Most frames to pick.")] = 10,
    keyframes: KeyframesOpt = None,
    events: EventsOpt = None,
    format: formats("json", "table", help="auto (the default): table on a terminal, json "
                    "when piped; or json, table.") = Format.auto,
) -> None:
    """Pick the keyframes worth summarising from a time window, with scores and reasons.

    Anchors (first, middle, last) always stay; the rest are ranked by app/title changes,
    input bursts, visual change and text density, near-duplicates dropped. Frames taken
    while capture was paused are never picked.

    Example: cue select --since 15m --format json | jq -r '.frames[].path'
    """
    from cue.core.timespec import parse_duration, parse_time
    from cue.select.choose import select_frames

    if since is not None and start is not None:
        raise CueError("give either --since or --start, not both")
    end_ts = parse_time(end) if end is not None else time.time()
    if start is not None:
        start_ts = parse_time(start)
        if start_ts >= end_ts:
            raise CueError("--start must be before --end")
        window = end_ts - start_ts
    else:
        window = parse_duration(since or "15m")
    fmt = resolve(format, single=True)

    sel = select_frames(keyframes, window, max_frames, end=end_ts, events_dir=events)
    for note in sel.notes:
        print(f"note: {note}", file=sys.stderr)
    if fmt == Format.json:
        out(dumps(selection_json(sel)) + "\n")
    else:
        _print_table(sel)


def selection_json(sel) -> dict:
    """The `cue select --format json` document (a dict ready for json.dumps)."""
    from cue.core.timespec import iso_utc

    return {
        "start": sel.start,
        "end": sel.end,
        "start_iso": iso_utc(sel.start),
        "end_iso": iso_utc(sel.end),
        "window_secs": round(sel.end - sel.start, 3),
        "max_frames": sel.max_frames,
        "considered": sel.considered,
        "paused_frames": sel.paused_frames,
        "unreadable": [str(p) for p in sel.unreadable],
        "paused": [[a, b] for a, b in sel.paused],
        "events": sel.events,
        "notes": sel.notes,
        "frames": [
            {
                "index": f.index,
                "path": str(f.path),
                "ts": f.ts,
                "time": iso_utc(f.ts),
                "offset_secs": f.offset_secs,
                "anchor": f.anchor,
                "reason": f.reason,
                "scores": f.scores,
                "app": f.app,
                "title": f.title,
            }
            for f in sel.frames
        ],
    }


def _print_table(sel) -> None:
    from datetime import datetime

    span = (f"{datetime.fromtimestamp(sel.start):%Y-%m-%d %H:%M:%S} → "
            f"{datetime.fromtimestamp(sel.end):%H:%M:%S}")
    if not sel.frames:
        print(f"No keyframes to select in {span} ({sel.considered} in the window, "
              f"{sel.paused_frames} paused).", file=sys.stderr)
        return
    from cuectx.human import plural
    from cuectx.output import Col, print_fitted

    title = (f"{len(sel.frames)} of {plural(sel.considered, 'keyframe')}, {span}"
             + (f" · {sel.paused_frames} paused" if sel.paused_frames else ""))
    # literal text: a window title or file name is never markup
    print_fitted([Col("#", justify="right"), Col("time"), Col("+s", justify="right"),
                  Col("score", justify="right"), Col("why", free=True, lines=None),
                  Col("file", squeeze=True)],
                 [[str(f.index), f"{datetime.fromtimestamp(f.ts):%H:%M:%S}", f"{f.offset_secs:.0f}",
                   f"{f.scores['combined']:.2f}", ("⚓ " if f.anchor else "") + f.reason,
                   f.path.name] for f in sel.frames], title=title)
