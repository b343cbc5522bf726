"""cue's data for the viewer, got the way the two programs always meet: by running the
`cue` CLI with `--format json` and reading its stdout. ctx never imports cue.

Why the CLI and not cue's SQLite: the frames a digest chose are not stored (the digests
table never holds a keyframe path, by design), so they must be selected again by cue's own
code — `cue select` — which also applies cue's pause history and the event log's pauses.
Reading the database directly would mean re-implementing that privacy logic here and
tracking cue's schema. The cost is one short process per call (~0.2 s), paid only on
cue's pages.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from cuectx.value import Value

TIMEOUT_S = 60


class CueResult(Value):
    __slots__ = ("data", "error")

    def __init__(self, data: object | None, error: str | None = None) -> None:
        self.data = data
        self.error = error


def command() -> list[str]:
    """`cue` beside this Python (the same venv), else on PATH, else `python -m cue`."""
    sibling = Path(sys.executable).parent / "cue"
    if sibling.is_file() and os.access(sibling, os.X_OK):
        return [str(sibling)]
    found = shutil.which("cue")
    return [found] if found else [sys.executable, "-m", "cue"]


def run(*args: str, timeout: float = TIMEOUT_S, parse: bool = True) -> CueResult:
    """Run `cue ARGS…`; its JSON, or the one `Error: …` line it printed."""
    try:
        proc = subprocess.run([*command(), *args], capture_output=True, text=True, check=False,
                              timeout=timeout, stdin=subprocess.DEVNULL)
    except FileNotFoundError:
        return CueResult(None, "the `cue` command was not found (install cue-ctx)")
    except subprocess.TimeoutExpired:
        return CueResult(None, f"`cue {' '.join(args)}` took longer than {timeout:.0f} s")
    if proc.returncode != 0:
        lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
        msg = next((ln for ln in lines if ln.startswith("Error:")), lines[-1] if lines else "")
        return CueResult(None, msg.removeprefix("Error:").strip()
                         or f"`cue {args[0]}` exited with {proc.returncode}")
    if not parse:
        return CueResult(proc.stdout)
    try:
        return CueResult(json.loads(proc.stdout) if proc.stdout.strip() else None)
    except json.JSONDecodeError:
        return CueResult(None, f"`cue {args[0]}` did not print JSON")


def digests(limit: int = 50) -> CueResult:
    return run("digests", "list", "--limit", str(limit), "--format", "json")


def digest(digest_id: int) -> CueResult:
    return run("digests", "show", str(int(digest_id)), "--format", "json")


def status() -> CueResult:
    return run("status", "--format", "json")


def memory() -> CueResult:
    return run("memory", "show", "--format", "json")


def frames(start: str, end: str, max_frames: int) -> CueResult:
    """The keyframes `cue select` picks for a window (paused frames are never among them);
    `start`/`end` as cue prints them (ISO-8601 UTC) or unix seconds."""
    return run("select", "--start", str(start), "--end", str(end),
               "--max-frames", str(max(1, int(max_frames))), "--format", "json")


def pause() -> CueResult:
    return run("pause", "--format", "json")


def resume() -> CueResult:
    return run("resume", "--format", "json")


def home() -> Path:
    """cue's data folder, as cue itself defines it ($CUE_HOME, else ~/.cue)."""
    env = os.environ.get("CUE_HOME")
    return Path(env).expanduser() if env else Path.home() / ".cue"
