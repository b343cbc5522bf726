"""What `cue status` says about the recorder: running?, last frame and event, disk use."""
from __future__ import annotations

from datetime import datetime
from pathlib import Path


def recorder_status(home: Path, keyframes: Path, events: Path, cfg) -> dict:
    from cue.core.sizes import parse_size
    from cue.record.prune import disk_use
    from cue.record.writer import read_status, recorder_running

    pid = recorder_running(home)
    status = read_status(home) or {}
    try:
        budget = parse_size(cfg["record.max_disk"])
    except Exception:  # noqa: BLE001 - a bad setting is reported by `cue config`, not here
        budget = None
    return {
        "running": pid is not None, "pid": pid if pid and pid > 0 else None,
        "started": status.get("started") if pid else None,
        "last_frame": status.get("last_frame"), "last_event": status.get("last_event"),
        "status_updated": status.get("updated"),
        "disk_bytes": disk_use([keyframes, events]), "max_disk_bytes": budget,
        "keep": cfg["record.keep"],
    }


def recorder_lines(info: dict) -> list[str]:
    from cue.core.sizes import human_size

    def local(ts):
        return "—" if ts is None else f"{datetime.fromtimestamp(ts):%Y-%m-%d %H:%M:%S}"

    if info["running"]:
        head = f"Recorder: running (pid {info['pid'] or '?'}, since {local(info['started'])})"
    else:
        head = "Recorder: not running (start it with `cue record`)"
    lines = [head]
    if info["last_frame"] or info["last_event"]:
        lines.append(f"  last keyframe {local(info['last_frame'])}, "
                     f"last event {local(info['last_event'])}")
    budget = info["max_disk_bytes"]
    share = f" ({100 * info['disk_bytes'] / budget:.0f} %)" if budget else ""
    lines.append(f"  capture files {human_size(info['disk_bytes'])} of "
                 f"{human_size(budget) if budget else '?'}{share} (record.max_disk), "
                 f"kept {info['keep']} (record.keep)")
    return lines


def recorder_health(home: Path) -> tuple[bool, str]:
    """(running?, one line for `cue doctor`)."""
    from cue.record.writer import read_status, recorder_running

    pid = recorder_running(home)
    if pid is None:
        return False, "cue record is not running"
    last = (read_status(home) or {}).get("last_frame")
    when = "no keyframe yet" if not last else "last keyframe recorded"
    return True, f"cue record is running (pid {pid}); {when}"
