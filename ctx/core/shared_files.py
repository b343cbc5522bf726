"""What ctx last read or wrote of each shared file (the `share_files` table, migration 7).

The session-start hook's fast path: one stat of `.ctx/memory.jsonl` and one row here say
"unchanged since ctx last saw it" without loading the rest of sharing (ctx/core/share.py,
which calls `record` after every read and write). Stdlib only, no record classes: importing it
costs the hook next to nothing.
"""
from __future__ import annotations

import os
import sqlite3


def state(conn: sqlite3.Connection, path: str) -> tuple[int, int, str] | None:
    """(size, mtime_ns, sha256) of `path` when ctx last read or wrote it, else None."""
    row = conn.execute("SELECT size, mtime_ns, hash FROM share_files WHERE path = ?", (path,)).fetchone()
    return (row[0], row[1], row[2]) if row else None


def unchanged(conn: sqlite3.Connection, path: str, st: os.stat_result) -> bool:
    """True when the file has the size and mtime it had when ctx last saw it."""
    known = state(conn, path)
    return known is not None and known[0] == st.st_size and known[1] == st.st_mtime_ns


def record(conn: sqlite3.Connection, path: str, channel: str, st: os.stat_result, digest: str,
           when: str) -> None:
    conn.execute("INSERT INTO share_files (path, channel, size, mtime_ns, hash, checked_at) "
                 "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(path) DO UPDATE SET channel = excluded.channel, "
                 "size = excluded.size, mtime_ns = excluded.mtime_ns, hash = excluded.hash, "
                 "checked_at = excluded.checked_at",
                 (path, channel, st.st_size, st.st_mtime_ns, digest, when))


def shared_file(scope) -> tuple[str, os.stat_result] | None:
    """The scope's repository's shared memory file (`.ctx/memory.jsonl`) and its stat when
    there is one, else None: one stat, what the session-start and stop hooks ask first."""
    root = scope.project.root if scope.project is not None else (scope.ref.root if scope.ref else None)
    if not root:
        return None
    path = os.path.join(root, ".ctx", "memory.jsonl")
    try:
        return path, os.stat(path)
    except OSError:
        return None
