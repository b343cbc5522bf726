"""One-time re-scrub of stored text when `cue.pii.SCRUB_VERSION` is bumped.

`ensure_scrubbed(conn)` compares `_meta.scrub_version` with SCRUB_VERSION (one SELECT
when current). When behind, it scrubs `digests.summary` and `memory.content` (whichever
tables exist) and the files digest.md / memory.md, then records the version.

Concurrency: new values are computed outside any transaction; the write transaction
re-checks the version and updates a row only if it still holds the text that was
scrubbed, so a row rewritten meanwhile (already scrubbed by its writer) is left alone.
Files are rewritten before the version is committed, so a crash in between only means
the (idempotent) backfill runs again.
"""
from __future__ import annotations

import os
import sqlite3
import tempfile
from pathlib import Path

from cue.core import db, paths
from cuectx.value import Value

META_KEY = "scrub_version"
# (table, column) pairs holding text that must be scrubbed.
TARGETS: tuple[tuple[str, str], ...] = (("digests", "summary"), ("digests", "reason"),
                                        ("memory", "content"))


class BackfillResult(Value):
    __slots__ = ("files", "previous", "rows", "version")

    def __init__(self, version: int, previous: int, rows: int, files: tuple[str, ...]) -> None:
        self.version = version  # the scrub version now recorded
        self.previous = previous  # the version found
        self.rows = rows  # rows whose text changed
        self.files = files  # files whose text changed

    @property
    def ran(self) -> bool:
        return self.previous < self.version


def ensure_scrubbed(conn: sqlite3.Connection) -> int:
    """Backfill if `_meta.scrub_version` is behind; return the number of rows changed."""
    return backfill(conn).rows


def backfill(conn: sqlite3.Connection, *, force: bool = False) -> BackfillResult:
    """Re-scrub stored text if the recorded version is behind (or always, with force)."""
    from cue.pii import SCRUB_VERSION

    previous = _recorded(conn)
    if previous >= SCRUB_VERSION and not force:
        return BackfillResult(previous, previous, 0, ())

    from cue.pii import scrub

    updates = []  # (table, column, rowid, old, new)
    for table, column in TARGETS:
        if not _has_column(conn, table, column):
            continue
        for rowid, old in conn.execute(
            f'SELECT rowid, "{column}" FROM "{table}" WHERE "{column}" IS NOT NULL'
        ):
            if isinstance(old, str):
                new = scrub(old)
                if new != old:
                    updates.append((table, column, rowid, old, new))

    changed_files = tuple(str(p) for p in (paths.digest_md(), paths.memory_md())
                          if _scrub_file(p, scrub))

    own_tx = not conn.in_transaction
    if own_tx:
        conn.execute("BEGIN IMMEDIATE")
    try:
        if not force and _recorded(conn) >= SCRUB_VERSION:  # another process finished first
            if own_tx:
                conn.execute("ROLLBACK")
            return BackfillResult(SCRUB_VERSION, previous, 0, changed_files)
        rows = 0
        for table, column, rowid, old, new in updates:
            rows += conn.execute(
                f'UPDATE "{table}" SET "{column}" = ? WHERE rowid = ? AND "{column}" = ?',
                (new, rowid, old),
            ).rowcount
        db.set_meta(conn, META_KEY, str(max(SCRUB_VERSION, previous)))
        if own_tx:
            conn.execute("COMMIT")
    except BaseException:
        if own_tx:
            conn.execute("ROLLBACK")
        raise
    return BackfillResult(max(SCRUB_VERSION, previous), previous, rows, changed_files)


def _recorded(conn: sqlite3.Connection) -> int:
    value = db.get_meta(conn, META_KEY, "0")
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


def _has_column(conn: sqlite3.Connection, table: str, column: str) -> bool:
    exists = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)
    ).fetchone()
    if not exists:
        return False
    return any(row[1] == column for row in conn.execute(f'PRAGMA table_info("{table}")'))


def _scrub_file(path: Path, scrub) -> bool:
    """Scrub a text file in place (atomically, keeping it 0600). True if it changed."""
    try:
        old = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return False
    new = scrub(old)
    if new == old:
        return False
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(new)
        os.chmod(tmp, 0o600)
        # A writer that replaced the file while we scrubbed wrote current-version text:
        # keep theirs rather than put back our scrubbed copy of the old one.
        if path.read_text(encoding="utf-8") != old:
            Path(tmp).unlink()
            return False
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return True
