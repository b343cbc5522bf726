"""The error classes both programs build theirs on: each carries a sentence and an exit code.

`ctx.errors.CtxError` and `cue.errors.CueError` subclass `Error`; their database errors also
subclass `DatabaseError` here, so the shared SQLite layer can raise the program's own class.
"""
from __future__ import annotations

from cuectx.exits import ExitCode


class Error(Exception):
    """An error a person can act on; `str()` is a full sentence."""

    exit_code: ExitCode = ExitCode.ERROR


class NotFoundError(Error):
    exit_code = ExitCode.NOT_FOUND


class DatabaseError(Error):
    exit_code = ExitCode.DATABASE


class CorruptDatabaseError(DatabaseError):
    """The file is not a usable database (ctx hooks treat only this one as critical)."""


class BackendError(Error):
    exit_code = ExitCode.BACKEND


class UsageError(Error):
    """A command-line usage error found after parsing (e.g. a --format the command lacks)."""

    exit_code = ExitCode.USAGE
