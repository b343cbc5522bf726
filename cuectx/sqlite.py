"""The one way ctx and cue open SQLite, and what its errors mean to a person.

`connect()` gives WAL (switched on outside any transaction, retried briefly when several
processes create the same file at once), `busy_timeout`, `foreign_keys=ON`,
`synchronous=NORMAL`, autocommit mode (we BEGIN ourselves), a read-only URI for read-only
commands, and migrations applied on open with `PRAGMA user_version` as the cheap check.
`transaction()` joins an open transaction by asking the connection (`conn.in_transaction`),
so any number of helpers over one connection nest correctly. `translate()` turns a sqlite3
error into a sentence. Stdlib only, and no pathlib: `ctx hook …` imports this.
"""
from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from cuectx import errors
from cuectx.migrations import Migration, current_version, latest, migrate

BUSY_TIMEOUT_MS = 5000


def is_corruption(exc: BaseException) -> bool:
    msg = str(exc).lower()
    return isinstance(exc, sqlite3.DatabaseError) and any(
        s in msg for s in ("not a database", "malformed", "corrupt", "file is encrypted"))


def is_busy(exc: BaseException) -> bool:
    msg = str(exc).lower()
    return isinstance(exc, sqlite3.OperationalError) and ("locked" in msg or "busy" in msg)


def translate(exc: sqlite3.Error, path: str | os.PathLike, *, program: str = "ctx",
              database_error: type[errors.DatabaseError] = errors.DatabaseError,
              corrupt_error: type[errors.DatabaseError] = errors.CorruptDatabaseError,
              corrupt_hint: str = "restore it from a backup, or move it aside to start fresh",
              busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> errors.DatabaseError:
    """A sqlite3 error as one sentence a person can act on (raise it `from exc`)."""
    msg = str(exc)
    if is_corruption(exc):
        return corrupt_error(f"{path} is not a usable {program} database ({msg}); {corrupt_hint}")
    if is_busy(exc):
        return database_error(f"database {path} is locked by another process (waited "
                              f"{busy_timeout_ms // 1000} s); try again")
    if "unable to open" in msg:
        return database_error(f"cannot open database {path}: {msg}")
    if "readonly" in msg or "read-only" in msg:
        return database_error(f"database {path} is read-only ({msg}); check its permissions")
    return database_error(f"database error in {path}: {msg}")


def open_connection(target: str, *, uri: bool = False,
                    busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> sqlite3.Connection:
    """sqlite3.connect with our pragmas; touches the schema so a non-database fails here."""
    conn = sqlite3.connect(target, uri=uri, timeout=busy_timeout_ms / 1000,
                           isolation_level=None, check_same_thread=False)
    try:
        conn.row_factory = sqlite3.Row
        conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except BaseException:
        conn.close()
        raise
    return conn


def enable_wal(conn: sqlite3.Connection, timeout_s: float = 5.0) -> None:
    """Switch to WAL once (it persists in the file), outside any transaction. Several
    processes creating the same new database at once can get SQLITE_BUSY here without the
    busy handler, so retry briefly."""
    if conn.in_transaction:
        raise RuntimeError("enable_wal must run outside a transaction")
    deadline = time.monotonic() + timeout_s
    while conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
        try:
            conn.execute("PRAGMA journal_mode = WAL")
        except sqlite3.OperationalError as exc:
            if not is_busy(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)


def readonly_uri(path: str | os.PathLike) -> str:
    """The `mode=ro` URI of a file. In a URI `?` starts the query, `#` the fragment and `%`
    an escape, so a file name holding them is percent-encoded (else `a?b.db` would open `a`)."""
    name = os.path.abspath(path).replace("%", "%25").replace("?", "%3F").replace("#", "%23")
    return f"file:{name}?mode=ro"


def connect(path: str | os.PathLike, migrations: Sequence[Migration], *, readonly: bool = False,
            busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> sqlite3.Connection:
    """Open `path` (creating it 0600), migrated to the newest version of `migrations`.

    With `readonly`, an existing, current file opens through a `mode=ro` URI; one that
    needs migrating opens writable once. Raises sqlite3 errors for the caller to translate
    (each program names its own database in the sentence)."""
    want = latest(migrations)
    path = os.fspath(path)
    if readonly and os.path.exists(path):
        conn = open_connection(readonly_uri(path), uri=True, busy_timeout_ms=busy_timeout_ms)
        try:
            if current_version(conn) >= want:
                return conn
        except BaseException:
            conn.close()
            raise
        conn.close()  # needs migrating: fall through to a writable open
    new = not os.path.exists(path)
    conn = open_connection(path, busy_timeout_ms=busy_timeout_ms)
    try:
        if new:
            os.chmod(path, 0o600)
        if current_version(conn) < want:
            enable_wal(conn, busy_timeout_ms / 1000)
            migrate(conn, migrations)
    except BaseException:
        conn.close()
        raise
    return conn


def optimize(conn: sqlite3.Connection) -> None:
    """SQLite's advice for a connection that is about to end: `PRAGMA optimize`. It refreshes
    the statistics the query planner reads (sqlite_stat1) for the tables this connection
    queried, when they are missing or stale — usually a no-op (~0.02 ms), at most a sampled
    ANALYZE (`analysis_limit`, a few ms). Without statistics the planner guesses: over 10k
    nodes the default view drove from the wrong index, ~35% slower. Never waits for a lock
    and never fails: a busy, read-only or damaged database keeps the statistics it has.
    It checks every table the connection used (~0.4 ms after a Stop), so callers on a hot
    path run it once in a while, not on every call."""
    try:
        if conn.in_transaction:
            return
        conn.execute("PRAGMA busy_timeout = 0")
        conn.execute("PRAGMA analysis_limit = 400")  # bounds what an ANALYZE may cost
        conn.execute("PRAGMA optimize")
    except sqlite3.Error:
        pass


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """BEGIN IMMEDIATE … COMMIT (ROLLBACK on error). Inside an open transaction on the same
    connection this joins it: the outermost one commits. Keep it short: never hold it
    across I/O."""
    if conn.in_transaction:
        yield conn
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
