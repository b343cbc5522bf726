"""cue's domain errors. The CLI turns each into one `Error: …` line on stderr."""
from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    ERROR = 1  # bad input, missing file, nothing to do
    USAGE = 2  # Typer/Click usage errors
    DATABASE = 3  # database locked, corrupt or unopenable
    BACKEND = 4  # the model backend failed (after the policy gate)


class CueError(Exception):
    """An error a person can act on. `str()` is a full sentence."""

    exit_code = ExitCode.ERROR


class DatabaseError(CueError):
    exit_code = ExitCode.DATABASE
