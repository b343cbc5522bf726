"""cue record (wiring only; see cue.record)."""
from __future__ import annotations

import signal
import threading
import time
from typing import Annotated

import typer

from cue.cli.output import Format, dumps, formats, out, say


def record_command(
    for_: Annotated[str | None, typer.Option(
        "--for", help="Stop by itself after this long: 10m, 8h. Default: until Ctrl-C or "
        "SIGTERM.", show_default=False)] = None,
    format: formats("text", "json", auto=False, help="text: a summary line on stderr; json: a summary object on "
        "stdout when it stops.") = Format.text,
) -> None:
    """Record screens (keyframes) and window/input events for cue, in the foreground.

    Linux X11 only. Stops cleanly on Ctrl-C/SIGTERM or after --for; `cue pause` pauses it.

    Example: cue record --for 10m
    """
    import os

    from cue.core import config, paths
    from cue.core.db import connect
    from cue.core.timespec import parse_duration
    from cue.inputs.pauses import pause_state
    from cue.record.loop import Recorder, record_settings
    from cue.record.platform import detect
    from cue.record.writer import RecorderLock, private_dir

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
    if format == Format.json:
        out(dumps(summary) + "\n")
    else:
        from cue.core.sizes import human_size

        say(f"Stopped after {_dur(summary['seconds'])}: {stats.frames} keyframes "
            f"({human_size(stats.frame_bytes)}), {stats.events} events.")


def _dur(secs: float) -> str:
    secs = round(secs)
    h, rem = divmod(secs, 3600)
    m, s = divmod(rem, 60)
    return f"{h}h{m:02d}m" if h else (f"{m}m{s:02d}s" if m else f"{s}s")
