"""Running cue in-process as a shell would, and reading back every byte it keeps."""
from __future__ import annotations

import sqlite3
import sys

import pytest

from cue.cli import app as cli
from cue.core import paths

NOW = 1_763_766_000.0  # 2025-11-21 23:00 UTC


def run_cue(monkeypatch, capsysbinary, *args: str, now: float = NOW) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of `cue ARGS…` through the real entry point, at `now`."""
    monkeypatch.setattr(sys, "argv", ["cue", *args])
    monkeypatch.setattr("time.time", lambda: now)
    with pytest.raises(SystemExit) as exc:
        cli.run()
    out, err = capsysbinary.readouterr()
    return int(exc.value.code or 0), out.decode(), err.decode()


def everything_written() -> str:
    """The database (all tables), memory.md, digest.md and privacy.log, as text."""
    db = sqlite3.connect(paths.db_path())
    dump = "\n".join(db.iterdump())
    db.close()
    files = [paths.memory_md(), paths.digest_md(), paths.privacy_log()]
    return dump + "".join(p.read_text() for p in files if p.exists())
