"""cue prune (wiring only; see cue.record.prune)."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer

from cue.cli.output import Format, dumps, formats, out


def prune_command(
    dry_run: Annotated[bool, typer.Option(
        "--dry-run", help="Say what would be removed; remove nothing.")] = False,
    format: formats("text", "json", auto=False) = Format.text,
) -> None:
    """Remove old keyframes and event logs: older than record.keep, then oldest first
    while over record.max_disk. Digests, memory and the database are never touched.

    Example: cue prune --dry-run
    """
    from cue.core import config, paths
    from cue.core.sizes import human_size, parse_size
    from cue.core.timespec import parse_duration
    from cue.record import prune
    from cue.record.writer import read_status, recorder_running

    cfg = config.load()
    folders = list(config.capture_folders(cfg))
    protect = []
    if recorder_running(paths.home()):
        status = read_status(paths.home()) or {}
        if status.get("events_file"):
            protect.append(Path(status["events_file"]))
    plan = prune.plan(folders, keep_secs=parse_duration(cfg["record.keep"]),
                      max_bytes=parse_size(cfg["record.max_disk"]), now=time.time(),
                      protect=protect)
    removed = (0, 0) if dry_run else prune.apply(plan, folders)
    if format == Format.json:
        out(dumps({
            "dry_run": dry_run, "total_bytes": plan.total_bytes,
            "max_bytes": plan.max_bytes, "keep_secs": plan.keep_secs,
            "remove": [{"path": str(f.path), "kind": f.kind, "ts": f.ts, "bytes": f.size,
                        "why": why} for f, why in plan.remove],
            "remove_bytes": plan.remove_bytes, "removed_files": removed[0],
            "after_bytes": plan.after_bytes}) + "\n")
        return
    h = human_size
    verb = "Would remove" if dry_run else "Removed"
    lines = []
    if dry_run:
        lines += [f"  {f.path}  ({h(f.size)}, {why})" for f, why in plan.remove]
    lines.append(f"{verb} {len(plan.remove) if dry_run else removed[0]} files "
                 f"({h(plan.remove_bytes)}); capture files now {h(plan.after_bytes)} of "
                 f"{h(plan.max_bytes)} (record.max_disk), keeping {cfg['record.keep']}.")
    out("\n".join(lines) + "\n")
