"""ctx's domain errors and exit codes (one IntEnum, documented in the README)."""
from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    ERROR = 1  # invalid input: unknown type, empty content, bad query, bad JSON…
    USAGE = 2  # command-line usage error (Typer/Click)
    NOT_FOUND = 3  # unknown or ambiguous id, unknown view
    DATABASE = 4  # database locked, corrupt, or unopenable


class CtxError(Exception):
    """An error a person can act on; `str()` is a full sentence."""

    exit_code = ExitCode.ERROR


class NotFoundError(CtxError):
    exit_code = ExitCode.NOT_FOUND


class AmbiguousIdError(NotFoundError):
    pass


class DatabaseError(CtxError):
    exit_code = ExitCode.DATABASE


class CorruptDatabaseError(DatabaseError):
    """The file is not a usable ctx database. Hooks treat only this one as critical."""


class QuerySyntaxError(CtxError):
    def __init__(self, message: str, position: int, expected: str | None = None):
        self.position = position
        self.expected = expected
        super().__init__(message)
