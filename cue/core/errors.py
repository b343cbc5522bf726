"""cue's domain errors. The CLI turns each into one `Error: …` line on stderr; the exit
codes are cuectx.exits.ExitCode (one table for ctx and cue)."""
from __future__ import annotations

from cuectx import errors as shared
from cuectx.exits import ExitCode

__all__ = ["CorruptDatabaseError", "CueError", "DatabaseError", "ExitCode", "NotFoundError"]


class CueError(shared.Error):
    """An error a person can act on. `str()` is a full sentence."""

    exit_code = ExitCode.ERROR


class NotFoundError(CueError, shared.NotFoundError):
    exit_code = ExitCode.NOT_FOUND


class DatabaseError(CueError, shared.DatabaseError):
    exit_code = ExitCode.DATABASE


class CorruptDatabaseError(DatabaseError, shared.CorruptDatabaseError):
    """The file is not a usable cue database."""
