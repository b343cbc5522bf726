"""`cue prune`: keep the recorder's folders within `record.keep` and `record.max_disk`.

Only capture files are ever removed — keyframe images and `.mcap` event logs under the
keyframe and event folders (plus hidden `.tmp` leftovers of an interrupted write, after an
hour). Digests, memory, the database, config and logs are never touched. First everything
older than `keep` goes; then, while the rest is over `max_disk`, the oldest files go first.
A keyframe's age is its capture time (from the name, else mtime); an event log's is the
time it was last written. Files in `protect` (the log a recorder has open) stay.
"""
from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from cue.inputs.keyframes import IMAGE_SUFFIXES, capture_time_from_name
from cuectx.value import Value

STALE_TEMP_SECS = 3600.0


class CaptureFile(Value):
    __slots__ = ("kind", "path", "size", "ts")

    def __init__(self, path: Path, ts: float, size: int, kind: str) -> None:
        self.path = path
        self.ts = ts
        self.size = size
        self.kind = kind  # "keyframe" | "events" | "temp"


class PrunePlan(Value):
    __slots__ = ("keep_secs", "max_bytes", "remove", "total_bytes")

    def __init__(self, remove: list[tuple[CaptureFile, str]] | None = None, total_bytes: int = 0,
                 keep_secs: float = 0.0, max_bytes: int = 0) -> None:
        self.remove = [] if remove is None else remove  # (file, why)
        self.total_bytes = total_bytes  # before pruning
        self.keep_secs = keep_secs
        self.max_bytes = max_bytes

    @property
    def remove_bytes(self) -> int:
        return sum(f.size for f, _ in self.remove)

    @property
    def after_bytes(self) -> int:
        return self.total_bytes - self.remove_bytes


def capture_files(folders: Iterable[Path]) -> list[CaptureFile]:
    """Keyframes, event logs and hidden temp files under the folders (recursive)."""
    out: list[CaptureFile] = []
    for folder in folders:
        if folder.is_dir():
            _walk(folder, out)
    return out


def _walk(folder: Path, out: list[CaptureFile]) -> None:
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        name = entry.name
        if entry.is_dir(follow_symlinks=False):
            _walk(Path(entry.path), out)
            continue
        if not entry.is_file(follow_symlinks=False):
            continue
        suffix = os.path.splitext(name)[1].lower()
        if name.startswith("."):
            if not name.endswith(".tmp"):
                continue
            kind = "temp"
        elif suffix in IMAGE_SUFFIXES:
            kind = "keyframe"
        elif suffix == ".mcap":
            kind = "events"
        else:
            continue
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        ts = capture_time_from_name(name) if kind == "keyframe" else None
        out.append(CaptureFile(Path(entry.path), ts if ts is not None else st.st_mtime,
                               st.st_size, kind))


def disk_use(folders: Iterable[Path]) -> int:
    return sum(f.size for f in capture_files(folders))


def plan(folders: Iterable[Path], *, keep_secs: float, max_bytes: int, now: float,
         protect: Iterable[Path] = ()) -> PrunePlan:
    """What to remove so that nothing is older than keep_secs and the rest fits max_bytes."""
    keep_out = {Path(p).resolve() for p in protect}
    files = capture_files(folders)
    result = PrunePlan(total_bytes=sum(f.size for f in files), keep_secs=keep_secs,
                       max_bytes=max_bytes)
    rest: list[CaptureFile] = []
    for f in files:
        if f.path.resolve() in keep_out:
            continue
        if f.kind == "temp":
            if f.ts < now - STALE_TEMP_SECS:
                result.remove.append((f, "unfinished temp file"))
            continue
        if keep_secs > 0 and f.ts < now - keep_secs:
            result.remove.append((f, "older than record.keep"))
        else:
            rest.append(f)
    left = result.after_bytes
    if max_bytes > 0 and left > max_bytes:
        for f in sorted(rest, key=lambda f: (f.ts, f.path.name)):
            if left <= max_bytes:
                break
            result.remove.append((f, "over record.max_disk"))
            left -= f.size
    return result


def apply(p: PrunePlan, folders: Iterable[Path]) -> tuple[int, int]:
    """Remove what the plan lists; then empty day folders. Returns (files, bytes) removed."""
    files = size = 0
    for f, _ in p.remove:
        try:
            f.path.unlink()
        except FileNotFoundError:
            continue
        files += 1
        size += f.size
    for folder in folders:
        if folder.is_dir():
            _remove_empty(folder, top=True)
    return files, size


def _remove_empty(folder: Path, top: bool) -> None:
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            _remove_empty(Path(entry.path), top=False)
    if not top:
        try:
            folder.rmdir()  # only succeeds when empty
        except OSError:
            pass
