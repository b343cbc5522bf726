"""cue status (wiring only): the pause state, what cue can see lately, the recorder."""
from __future__ import annotations

import time
from pathlib import Path

from cue.cli.options import EventsOpt, KeyframesOpt
from cue.cli.output import Format, dumps, formats, local_time, out
from cue.cli.pause import state_json


def status_command(
    keyframes: KeyframesOpt = None,
    events: EventsOpt = None,
    format: formats("text", "json", auto=False) = Format.text,
) -> None:
    """Show whether cue is paused and what it can see: keyframes and events lately.

    Example: cue status --format json
    """
    from cue.core import paths
    from cue.core.db import connect
    from cue.inputs.events import read_events
    from cue.inputs.keyframes import list_keyframes
    from cue.inputs.pauses import pause_state, paused_intervals
    from cue.select.features import cached_frame_count

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
        cached = cached_frame_count(conn)
    finally:
        conn.close()
    frames = list_keyframes(kdir, recent, now) if kdir.is_dir() else []
    info = {
        **state_json(state),
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
    if format == Format.json:
        out(dumps(info) + "\n")
        return
    if state.paused:
        until = f"until {local_time(state.until)}" if state.until else "until `cue resume`"
        lines = [f"Paused since {local_time(state.since)}, {until}."
                 + (f" ({state.reason})" if state.reason else "")]
    elif log_paused:
        lines = ["Paused by the capture tool (a /cue/pause event in the log)."]
    else:
        lines = ["Not paused."]
    k = info["keyframes"]
    if k["exists"]:
        newest = f", newest {local_time(k['newest'])}" if k["newest"] else ""
        lines.append(f"Keyframes: {k['last_15m']} in the last 15 min{newest} ({kdir})")
    else:
        lines.append(f"Keyframes: no folder at {kdir}")
    e = info["events"]
    if e["exists"]:
        newest = f", newest {local_time(e['newest'])}" if e["newest"] else ""
        lines.append(f"Events: {e['last_15m']} in the last 15 min{newest} ({edir})")
    else:
        lines.append(f"Events: no event log at {edir}")
    lines.append(f"Database: {info['database']} ({cached} cached frame hashes)")
    from cue.record.status import recorder_lines

    lines.extend(recorder_lines(info["recorder"]))
    out("\n".join(lines) + "\n")


def _recorder(kdir: Path, edir: Path) -> dict:
    """`cue record`'s part of the status: running?, last frame/event, disk use vs budget."""
    from cue.core import config, paths
    from cue.record.status import recorder_status

    return recorder_status(paths.home(), kdir, edir, config.load())
