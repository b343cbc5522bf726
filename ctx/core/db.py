"""The one way ctx opens SQLite (cuectx.sqlite underneath): WAL, busy_timeout, foreign keys,
migrations on open.

Read-only commands open the file with `mode=ro` once it exists and is current; writers
(and the first open of a new file) apply migrations. Every sqlite3 error that means
"this is not a database" becomes CorruptDatabaseError, which hooks treat as critical.
"""
from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

from ctx.core import settings
from ctx.core.errors import CorruptDatabaseError, DatabaseError
from ctx.core.migrations import MIGRATIONS
from cuectx import sqlite as shared
from cuectx.sqlite import BUSY_TIMEOUT_MS, enable_wal, optimize, transaction

__all__ = ["BUSY_TIMEOUT_MS", "connect", "enable_wal", "opened", "optimize", "transaction",
           "translate"]


def translate(exc: sqlite3.Error, path: str | os.PathLike | None = None) -> DatabaseError:
    """Turn a sqlite3 error into a sentence a person can act on, naming the database file
    (`path` as --db gives it; None: $CTX_DB or the default, as `connect` opens it)."""
    return shared.translate(
        exc, settings.db_file(path), program="ctx", database_error=DatabaseError,
        corrupt_error=CorruptDatabaseError,
        corrupt_hint="restore it from a backup or `ctx export`, or move it aside to start fresh")


def connect(path: str | os.PathLike | None = None, *, readonly: bool = False,
            busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> sqlite3.Connection:
    """Open (creating if needed) the ctx database. Caller closes it (or use `opened`).
    (os.path, not pathlib: every hook opens the store here.)"""
    path = settings.db_file(path)
    folder = os.path.dirname(path) or "."
    if not os.path.isdir(folder):
        if os.path.normpath(folder) == os.path.normpath(settings.home_dir()):
            os.makedirs(folder, mode=0o700, exist_ok=True)
        else:
            raise DatabaseError(f"folder {folder} does not exist; create it or choose "
                                f"another --db path")
    if os.path.isdir(path):
        raise DatabaseError(f"{path} is a folder, not a database file")
    try:
        return shared.connect(path, MIGRATIONS, readonly=readonly,
                              busy_timeout_ms=busy_timeout_ms)
    except sqlite3.Error as exc:
        raise translate(exc, path) from exc


@contextmanager
def opened(path: str | os.PathLike | None = None, *,
           readonly: bool = False) -> Iterator[sqlite3.Connection]:
    conn = connect(path, readonly=readonly)
    try:
        yield conn
    finally:
        if not readonly:
            optimize(conn)
        conn.close()
