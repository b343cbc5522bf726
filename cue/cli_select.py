"""cue select · cue pause · cue resume · cue status (wiring only; see cue.frame_select,
cue.privacy)."""
from __future__ import annotations

import sys
import time
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from cue.errors import CueError
from cue.output import dumps, out
from cuectx.output import console, literal, resolve


class SelectFormat(str, Enum):
    json = "json"
    table = "table"


class StateFormat(str, Enum):
    text = "text"
    json = "json"


KeyframesOpt = Annotated[Path | None, typer.Option(
    "--keyframes", help="Keyframe folder (default: $CUE_HOME/keyframes).", show_default=False)]
EventsOpt = Annotated[Path | None, typer.Option(
    "--events", help="MCAP event log, or a folder of them (default: $CUE_HOME/events).",
    show_default=False)]


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
    format: Annotated[SelectFormat | None, typer.Option(
        "--format", "-f", help="json (the default when piped) or table (the default on a "
        "terminal).", show_default=False)] = None,
) -> None:
    """Pick the keyframes worth summarising from a time window, with scores and reasons.

    Anchors (first, middle, last) always stay; the rest are ranked by app/title changes,
    input bursts, visual change and text density, near-duplicates dropped. Frames taken
    while capture was paused are never picked.

    Example: cue select --since 15m --format json | jq -r '.frames[].path'
    """
    from cue.frame_select import select_frames
    from cue.timespec import parse_duration, parse_time

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
    fmt = format or SelectFormat(resolve("auto", piped="json"))

    sel = select_frames(keyframes, window, max_frames, end=end_ts, events_dir=events)
    for note in sel.notes:
        print(f"note: {note}", file=sys.stderr)
    if fmt is SelectFormat.json:
        out(dumps(selection_json(sel)) + "\n")
    else:
        _print_table(sel)


def selection_json(sel) -> dict:
    """The `cue select --format json` document (a dict ready for json.dumps)."""
    from cue.timespec import iso_utc

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

    from rich.table import Table

    span = (f"{datetime.fromtimestamp(sel.start):%Y-%m-%d %H:%M:%S} → "
            f"{datetime.fromtimestamp(sel.end):%H:%M:%S}")
    if not sel.frames:
        print(f"No keyframes to select in {span} ({sel.considered} in the window, "
              f"{sel.paused_frames} paused).", file=sys.stderr)
        return
    table = Table(title=literal(f"{len(sel.frames)} of {sel.considered} keyframes, {span}"
                                + (f" · {sel.paused_frames} paused" if sel.paused_frames else "")),
                  title_justify="left")
    for col, kw in (("#", {"justify": "right"}), ("time", {}), ("+s", {"justify": "right"}),
                    ("score", {"justify": "right"}), ("why", {}), ("file", {})):
        table.add_column(col, **kw)
    for f in sel.frames:
        table.add_row(str(f.index), f"{datetime.fromtimestamp(f.ts):%H:%M:%S}",
                      f"{f.offset_secs:.0f}", f"{f.scores['combined']:.2f}",
                      literal(("⚓ " if f.anchor else "") + f.reason), literal(f.path.name))
    console().print(table)  # literal text: a window title or file name is never markup


# ---------------------------------------------------------------- pause / resume / status

def pause_command(
    for_: Annotated[str | None, typer.Option(
        "--for", help="Resume by itself after this long: 30m, 2h. Default: until "
        "`cue resume`.", show_default=False)] = None,
    reason: Annotated[str | None, typer.Option(
        "--reason", help="A note kept with the pause.", show_default=False)] = None,
    format: Annotated[StateFormat, typer.Option("--format", "-f")] = StateFormat.text,
) -> None:
    """Pause: frames and events from now on are left out of selections and digests.

    Example: cue pause --for 30m
    """
    from cue.db import connect
    from cue.privacy import pause
    from cue.timespec import parse_duration

    secs = parse_duration(for_) if for_ is not None else None
    conn = connect()
    try:
        state = pause(conn, for_secs=secs, reason=reason)
    finally:
        conn.close()
    if format is StateFormat.json:
        out(dumps(_state_json(state)) + "\n")
    elif state.until is None:
        out("Paused until you run `cue resume`.\n")
    else:
        out(f"Paused until {_local(state.until)} (in {_human(state.until - time.time())}).\n")


def resume_command(
    format: Annotated[StateFormat, typer.Option("--format", "-f")] = StateFormat.text,
) -> None:
    """End a pause now (a no-op, said so, when nothing is paused).

    Example: cue resume
    """
    from cue.db import connect
    from cue.privacy import pause_state, resume

    conn = connect()
    try:
        was = resume(conn)
        state = pause_state(conn)
    finally:
        conn.close()
    if format is StateFormat.json:
        out(dumps({**_state_json(state), "resumed": was}) + "\n")
    else:
        out("Resumed.\n" if was else "Not paused; nothing to resume.\n")


def status_command(
    keyframes: KeyframesOpt = None,
    events: EventsOpt = None,
    format: Annotated[StateFormat, typer.Option("--format", "-f")] = StateFormat.text,
) -> None:
    """Show whether cue is paused and what it can see: keyframes and events lately.

    Example: cue status --format json
    """
    from cue import paths
    from cue.db import connect
    from cue.events import read_events
    from cue.keyframes import list_keyframes
    from cue.privacy import pause_state, paused_intervals

    now = time.time()
    recent = now - 900
    kdir = keyframes or paths.keyframes_dir()
    edir = events or paths.events_dir()
    conn = connect()
    try:
        state = pause_state(conn, now=now)
        notes: list[str] = []
        ev = read_events(edir, recent, now, notes=notes) if edir.exists() else []
        log_paused = bool(paused_intervals(conn, now, now, events_dir=edir)) if edir.exists() \
            else False
        cached = conn.execute("SELECT count(*) FROM frame_cache").fetchone()[0]
    finally:
        conn.close()
    frames = list_keyframes(kdir, recent, now) if kdir.is_dir() else []
    info = {
        **_state_json(state),
        "paused_by_event_log": log_paused,
        "keyframes": {"folder": str(kdir), "exists": kdir.is_dir(),
                      "last_15m": len(frames),
                      "newest": frames[-1].ts if frames else None},
        "events": {"source": str(edir), "exists": edir.exists(), "last_15m": len(ev),
                   "newest": ev[-1].ts if ev else None, "notes": notes},
        "database": str(paths.db_path()),
        "frame_cache_rows": cached,
        "recorder": _recorder(kdir, edir),
    }
    if format is StateFormat.json:
        out(dumps(info) + "\n")
        return
    if state.paused:
        until = f"until {_local(state.until)}" if state.until else "until `cue resume`"
        lines = [f"Paused since {_local(state.since)}, {until}."
                 + (f" ({state.reason})" if state.reason else "")]
    elif log_paused:
        lines = ["Paused by the capture tool (a /cue/pause event in the log)."]
    else:
        lines = ["Not paused."]
    k = info["keyframes"]
    if k["exists"]:
        newest = f", newest {_local(k['newest'])}" if k["newest"] else ""
        lines.append(f"Keyframes: {k['last_15m']} in the last 15 min{newest} ({kdir})")
    else:
        lines.append(f"Keyframes: no folder at {kdir}")
    e = info["events"]
    if e["exists"]:
        newest = f", newest {_local(e['newest'])}" if e["newest"] else ""
        lines.append(f"Events: {e['last_15m']} in the last 15 min{newest} ({edir})")
    else:
        lines.append(f"Events: no event log at {edir}")
    lines.append(f"Database: {info['database']} ({cached} cached frame hashes)")
    from cue.record.status import recorder_lines

    lines.extend(recorder_lines(info["recorder"]))
    out("\n".join(lines) + "\n")


def _recorder(kdir: Path, edir: Path) -> dict:
    """`cue record`'s part of the status: running?, last frame/event, disk use vs budget."""
    from cue import config, paths
    from cue.record.status import recorder_status

    return recorder_status(paths.home(), kdir, edir, config.load())


def _state_json(state) -> dict:
    return {"paused": state.paused, "since": state.since, "until": state.until,
            "reason": state.reason}


def _local(ts: float | None) -> str:
    from datetime import datetime

    return "—" if ts is None else f"{datetime.fromtimestamp(ts):%Y-%m-%d %H:%M:%S}"


def _human(secs: float) -> str:
    secs = max(0, round(secs))
    h, rem = divmod(secs, 3600)
    m, s = divmod(rem, 60)
    return " ".join(p for p in (f"{h}h" if h else "", f"{m}m" if m else "",
                                f"{s}s" if s and not h else "") if p) or "0s"


def register(app: typer.Typer) -> None:
    """Add this group's commands to the app."""
    app.command("select")(select_command)
    app.command("pause")(pause_command)
    app.command("resume")(resume_command)
    app.command("status")(status_command)
