"""The one way ctx opens SQLite: WAL, busy_timeout, foreign keys, migrations on open.

Read-only commands open the file with `mode=ro` once it exists and is current; writers
(and the first open of a new file) apply migrations. Every sqlite3 error that means
"this is not a database" becomes CorruptDatabaseError, which hooks treat as critical.
"""
from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ctx import paths
from ctx.errors import CorruptDatabaseError, DatabaseError
from ctx.migrations import LATEST, current_version, migrate

BUSY_TIMEOUT_MS = 5000


def _is_corruption(exc: sqlite3.DatabaseError) -> bool:
    msg = str(exc).lower()
    return any(s in msg for s in ("not a database", "malformed", "corrupt", "file is encrypted"))


def translate(exc: sqlite3.Error, path: Path) -> DatabaseError:
    """Turn a sqlite3 error into a sentence a person can act on."""
    msg = str(exc)
    if isinstance(exc, sqlite3.DatabaseError) and _is_corruption(exc):
        return CorruptDatabaseError(
            f"{path} is not a usable ctx database ({msg}); restore it from a backup or "
            f"`ctx export`, or move it aside to start fresh"
        )
    if "locked" in msg or "busy" in msg:
        return DatabaseError(f"database {path} is locked by another process (waited "
                             f"{BUSY_TIMEOUT_MS // 1000} s); try again")
    if "unable to open" in msg:
        return DatabaseError(f"cannot open database {path}: {msg}")
    return DatabaseError(f"database error in {path}: {msg}")


def connect(path: str | Path | None = None, *, readonly: bool = False,
            busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> sqlite3.Connection:
    """Open (creating if needed) the ctx database. Caller closes it (or use `opened`)."""
    path = paths.db_path(path)
    if not path.parent.is_dir():
        if path.parent == paths.home():
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        else:
            raise DatabaseError(f"folder {path.parent} does not exist; create it or choose "
                                f"another --db path")
    if path.is_dir():
        raise DatabaseError(f"{path} is a folder, not a database file")
    try:
        if readonly and path.exists():
            conn = _open(f"file:{path}?mode=ro", busy_timeout_ms, uri=True)
            try:
                if current_version(conn) >= LATEST:
                    return conn
            except BaseException:
                conn.close()
                raise
            conn.close()  # needs migrating: fall through to a writable open
        new = not path.exists()
        conn = _open(str(path), busy_timeout_ms)
        try:
            if new:
                path.chmod(0o600)
            if current_version(conn) < LATEST:
                # WAL is switched on outside any transaction; it persists in the file.
                enable_wal(conn, busy_timeout_ms / 1000)
                migrate(conn)
        except BaseException:
            conn.close()
            raise
        return conn
    except sqlite3.Error as exc:
        raise translate(exc, path) from exc


def enable_wal(conn: sqlite3.Connection, timeout_s: float = 5.0) -> None:
    """Switch to WAL once (it persists in the file). Several processes creating the same new
    database at once can get SQLITE_BUSY here without the busy handler, so retry briefly."""
    deadline = time.monotonic() + timeout_s
    while conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
        try:
            conn.execute("PRAGMA journal_mode = WAL")
        except sqlite3.OperationalError as exc:
            if ("locked" not in str(exc) and "busy" not in str(exc)) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)


def _open(target: str, busy_timeout_ms: int, *, uri: bool = False) -> sqlite3.Connection:
    conn = sqlite3.connect(target, uri=uri, timeout=busy_timeout_ms / 1000,
                           isolation_level=None, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA synchronous = NORMAL")
    # Touch the schema so a non-database file fails here, inside our error translation.
    conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    return conn


@contextmanager
def opened(path: str | Path | None = None, *, readonly: bool = False) -> Iterator[sqlite3.Connection]:
    conn = connect(path, readonly=readonly)
    try:
        yield conn
    finally:
        conn.close()


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """BEGIN IMMEDIATE … COMMIT (ROLLBACK on error). Short: never hold it across I/O."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
