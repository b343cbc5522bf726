"""ctx's domain errors; the exit codes are cuectx.exits.ExitCode (one table for ctx and cue)."""
from __future__ import annotations

from cuectx import errors as shared
from cuectx.exits import ExitCode

__all__ = ["AmbiguousIdError", "CorruptDatabaseError", "CtxError", "DatabaseError", "ExitCode",
           "NotFoundError", "QuerySyntaxError"]


class CtxError(shared.Error):
    """An error a person can act on; `str()` is a full sentence."""

    exit_code = ExitCode.ERROR


class NotFoundError(CtxError, shared.NotFoundError):
    exit_code = ExitCode.NOT_FOUND


class AmbiguousIdError(NotFoundError):
    pass


class DatabaseError(CtxError, shared.DatabaseError):
    exit_code = ExitCode.DATABASE


class CorruptDatabaseError(DatabaseError, shared.CorruptDatabaseError):
    """The file is not a usable ctx database. Hooks treat only this one as critical."""


class QuerySyntaxError(CtxError):
    def __init__(self, message: str, position: int, expected: str | None = None):
        self.position = position
        self.expected = expected
        super().__init__(message)
