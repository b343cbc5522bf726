"""Where the recorder's bytes go: keyframes written atomically, hourly MCAP files, and a
small status file beside a lock so `cue status` can tell whether a recorder is running.

Everything is created owner-only: files 0600, folders 0700.
"""
from __future__ import annotations

import fcntl
import json
import os
from datetime import UTC, datetime
from pathlib import Path

from cue.core.errors import CueError
from cue.inputs.events import EventWriter
from cuectx.files import replace_file

FILE_MODE = 0o600
DIR_MODE = 0o700


def private_dir(path: Path) -> Path:
    """Create `path` (and parents) 0700; tighten an existing folder we own."""
    path.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
    try:
        if path.stat().st_mode & 0o077:
            path.chmod(DIR_MODE)
    except OSError:
        pass
    return path


def keyframe_path(root: Path, ts: float, monitor: int, monitors: int) -> Path:
    """`root/YYYY-MM-DD/<unix ms>.jpg` (local day); `display2-<ms>.jpg` with several monitors."""
    day = datetime.fromtimestamp(ts).strftime("%Y-%m-%d")
    ms = f"{int(ts * 1000):013d}"
    name = f"display{monitor}-{ms}.jpg" if monitors > 1 else f"{ms}.jpg"
    return root / day / name


class HourlyLog:
    """MCAP event files, a new one each UTC hour: `events/2026-11-21T14-05-09Z.mcap`.

    `on_open(log)` runs for each new file so it can restate the current window and pause
    state (each file reads on its own)."""

    def __init__(self, folder: Path, on_open=None):
        self.folder = private_dir(folder)
        self.on_open = on_open
        self.log: EventWriter | None = None
        self.hour: int | None = None
        self.events = 0

    @property
    def path(self) -> Path | None:
        return self.log.path if self.log else None

    def writer(self, ts: float) -> EventWriter:
        hour = int(ts // 3600)
        if self.log is None or hour != self.hour:
            self.close()
            stamp = datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%dT%H-%M-%S")
            path = self.folder / f"{stamp}Z.mcap"
            n = 1
            while path.exists():  # a restart within the same second
                path = self.folder / f"{stamp}Z-{n}.mcap"
                n += 1
            self.log = EventWriter(path)
            try:
                os.chmod(path, FILE_MODE)
            except OSError:
                pass
            self.hour = hour
            if self.on_open:
                self.on_open(self.log, ts)
        return self.log

    def write(self, topic: str, data: dict, ts: float) -> None:
        self.writer(ts).write(topic, data, ts)
        self.events += 1

    def flush(self) -> None:
        if self.log is not None:
            self.log.flush()

    def close(self) -> None:
        if self.log is not None:
            self.log.close()
            self.log = None


# ---------------------------------------------------------------- lock + status

def lock_path(home: Path) -> Path:
    return home / "recorder.lock"


def status_path(home: Path) -> Path:
    return home / "recorder.json"


class RecorderLock:
    """An exclusive flock on CUE_HOME/recorder.lock for the recorder's lifetime (released
    by the kernel if it dies); the file holds the pid for people."""

    def __init__(self, home: Path):
        self.path = lock_path(home)
        self.fd: int | None = None

    def acquire(self) -> None:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, FILE_MODE)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            other = os.read(fd, 32).decode(errors="replace").strip() or "?"
            os.close(fd)
            raise CueError(f"a recorder is already running (pid {other}); "
                           "stop it first, or use another CUE_HOME") from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self.fd = fd

    def release(self) -> None:
        if self.fd is not None:
            try:
                os.ftruncate(self.fd, 0)
            finally:
                os.close(self.fd)
                self.fd = None


def recorder_running(home: Path) -> int | None:
    """The pid of the recorder holding CUE_HOME's lock, or None."""
    path = lock_path(home)
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            text = os.read(fd, 32).decode(errors="replace").strip()
            return int(text) if text.isdigit() else -1
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def write_status(home: Path, status: dict) -> None:
    replace_file(status_path(home), [json.dumps(status, ensure_ascii=False).encode()], sync=False)


def read_status(home: Path) -> dict | None:
    try:
        return json.loads(status_path(home).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None

