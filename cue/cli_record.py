"""cue record · cue prune (wiring only; see cue.record and cue.prune)."""
from __future__ import annotations

import signal
import threading
import time
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from cue.output import dumps, out, say


class RecordFormat(str, Enum):
    text = "text"
    json = "json"


def capture_folders(cfg) -> tuple[Path, Path]:
    """The keyframe and event folders the recorder writes and `cue digest` reads."""
    from cue import paths

    k, e = cfg["digest.keyframes"], cfg["digest.events"]
    return (Path(k).expanduser() if k else paths.keyframes_dir(),
            Path(e).expanduser() if e else paths.events_dir())


def record_settings(cfg):
    from cue import paths
    from cue.prune import parse_size
    from cue.record.loop import RecordSettings
    from cue.record.privacy import Exclusions
    from cue.timespec import parse_duration

    keyframes, events = capture_folders(cfg)
    return RecordSettings(
        keyframes=keyframes, events=events, home=paths.home(),
        exclusions=Exclusions.from_settings(cfg["record.exclude_apps"],
                                            cfg["record.exclude_titles"]),
        interval=cfg["record.interval"], heartbeat=cfg["record.heartbeat"],
        change_threshold=cfg["record.change_threshold"], max_width=cfg["record.max_width"],
        quality=cfg["record.quality"], keep_secs=parse_duration(cfg["record.keep"]),
        max_bytes=parse_size(cfg["record.max_disk"]))


def record_command(
    for_: Annotated[str | None, typer.Option(
        "--for", help="Stop by itself after this long: 10m, 8h. Default: until Ctrl-C or "
        "SIGTERM.", show_default=False)] = None,
    format: Annotated[RecordFormat, typer.Option(
        "--format", "-f", help="text: a summary line on stderr; json: a summary object on "
        "stdout when it stops.")] = RecordFormat.text,
) -> None:
    """Record screens (keyframes) and window/input events for cue, in the foreground.

    Linux X11 only. Stops cleanly on Ctrl-C/SIGTERM or after --for; `cue pause` pauses it.

    Example: cue record --for 10m
    """
    import os

    from cue import config, paths
    from cue.db import connect
    from cue.privacy import pause_state
    from cue.record.backend import detect
    from cue.record.loop import Recorder
    from cue.record.writer import RecorderLock, private_dir
    from cue.timespec import parse_duration

    duration = parse_duration(for_) if for_ is not None else None
    cfg = config.load()
    settings = record_settings(cfg)
    backend = detect()
    os.umask(0o077)  # everything this process creates is owner-only
    private_dir(paths.home())
    lock = RecorderLock(paths.home())
    lock.acquire()
    conn = connect()
    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stop.set())
                for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        recorder = Recorder(
            backend, settings, is_paused=lambda: pause_state(conn).paused, say=say,
            on_start=lambda: say(f"Recording {backend.describe()} into {paths.home()} — "
                                 "Ctrl-C to stop, `cue pause` to pause."))
        started = time.time()
        stats = recorder.run(stop, started + duration if duration else None)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        conn.close()
        lock.release()
    summary = {"seconds": round(time.time() - started, 1), "keyframes": stats.frames,
               "keyframe_bytes": stats.frame_bytes, "events": stats.events,
               "grabs": stats.grabs, "unchanged": stats.unchanged,
               "excluded_skips": stats.excluded_skips, "keyframes_dir": str(settings.keyframes),
               "events_dir": str(settings.events)}
    if format is RecordFormat.json:
        out(dumps(summary) + "\n")
    else:
        from cue.prune import human_size

        say(f"Stopped after {_dur(summary['seconds'])}: {stats.frames} keyframes "
            f"({human_size(stats.frame_bytes)}), {stats.events} events.")


def _dur(secs: float) -> str:
    secs = round(secs)
    h, rem = divmod(secs, 3600)
    m, s = divmod(rem, 60)
    return f"{h}h{m:02d}m" if h else (f"{m}m{s:02d}s" if m else f"{s}s")


def prune_command(
    dry_run: Annotated[bool, typer.Option(
        "--dry-run", help="Say what would be removed; remove nothing.")] = False,
    format: Annotated[RecordFormat, typer.Option("--format", "-f")] = RecordFormat.text,
) -> None:
    """Remove old keyframes and event logs: older than record.keep, then oldest first
    while over record.max_disk. Digests, memory and the database are never touched.

    Example: cue prune --dry-run
    """
    from cue import config, paths, prune
    from cue.record.writer import read_status, recorder_running
    from cue.timespec import parse_duration

    cfg = config.load()
    folders = list(capture_folders(cfg))
    protect = []
    if recorder_running(paths.home()):
        status = read_status(paths.home()) or {}
        if status.get("events_file"):
            protect.append(Path(status["events_file"]))
    plan = prune.plan(folders, keep_secs=parse_duration(cfg["record.keep"]),
                      max_bytes=prune.parse_size(cfg["record.max_disk"]), now=time.time(),
                      protect=protect)
    removed = (0, 0) if dry_run else prune.apply(plan, folders)
    if format is RecordFormat.json:
        out(dumps({
            "dry_run": dry_run, "total_bytes": plan.total_bytes,
            "max_bytes": plan.max_bytes, "keep_secs": plan.keep_secs,
            "remove": [{"path": str(f.path), "kind": f.kind, "ts": f.ts, "bytes": f.size,
                        "why": why} for f, why in plan.remove],
            "remove_bytes": plan.remove_bytes, "removed_files": removed[0],
            "after_bytes": plan.after_bytes}) + "\n")
        return
    h = prune.human_size
    verb = "Would remove" if dry_run else "Removed"
    lines = []
    if dry_run:
        lines += [f"  {f.path}  ({h(f.size)}, {why})" for f, why in plan.remove]
    lines.append(f"{verb} {len(plan.remove) if dry_run else removed[0]} files "
                 f"({h(plan.remove_bytes)}); capture files now {h(plan.after_bytes)} of "
                 f"{h(plan.max_bytes)} (record.max_disk), keeping {cfg['record.keep']}.")
    out("\n".join(lines) + "\n")


def register(app: typer.Typer) -> None:
    """Add this group's commands to the app."""
    app.command("record")(record_command)
    app.command("prune")(prune_command)
