"""cue's SQLite store: one connect(), WAL, busy_timeout, migrations on open.

Migrations are an ordered list of (version, sql) applied in one transaction each, with
PRAGMA user_version as the cheap "is this current?" check on every open.
Add a migration by appending to MIGRATIONS; never edit one that has shipped.
"""
from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from cue import paths
from cue.errors import DatabaseError

MIGRATIONS: list[tuple[int, str]] = [
    (
        1,
        """
        CREATE TABLE _meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE pauses (
            id INTEGER PRIMARY KEY,
            started_at REAL NOT NULL,          -- unix seconds
            ended_at REAL,                     -- NULL while paused
            until_at REAL,                     -- planned end for `cue pause --for`
            reason TEXT
        );
        CREATE INDEX pauses_started ON pauses(started_at);
        """,
    ),
    (
        2,
        """
        -- cue select: per-keyframe features, valid while (path, size, mtime_ns) match.
        -- Keyed by a keyed hash of the path: keyframe paths never enter the database.
        CREATE TABLE frame_cache (
            path_key TEXT PRIMARY KEY,
            size INTEGER NOT NULL,
            mtime_ns INTEGER NOT NULL,
            ts REAL NOT NULL,                  -- capture time, unix seconds
            dhash INTEGER,                     -- 64-bit difference hash (signed); NULL = unreadable
            text_density REAL,                 -- share of strong horizontal edges, 0..1
            width INTEGER,
            height INTEGER,
            error TEXT                         -- why the image could not be read (no path)
        );
        CREATE INDEX frame_cache_ts ON frame_cache(ts);
        -- where a pause came from: 'cli' (cue pause) or another tool
        ALTER TABLE pauses ADD COLUMN source TEXT NOT NULL DEFAULT 'cli';
        """,
    ),
    (
        3,
        """
        -- cue digest: one row per run. `summary` is scrubbed model text (status 'ok'), a
        -- fixed tombstone (status 'skipped'), or '[no recent activity]' (status 'empty').
        -- Never a keyframe path, never image bytes; failure details live in privacy.log.
        CREATE TABLE digests (
            id INTEGER PRIMARY KEY,
            created_at REAL NOT NULL,           -- unix seconds
            window_start REAL NOT NULL,
            window_end REAL NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('ok', 'skipped', 'empty')),
            backend TEXT NOT NULL,              -- answered (ok), last to fail (skipped), 'none'
            model TEXT,
            fell_back INTEGER NOT NULL DEFAULT 0,   -- 1 = cloud answered after a local failure
            summary TEXT NOT NULL,
            frame_count INTEGER NOT NULL,
            event_count INTEGER NOT NULL,
            image_bytes INTEGER NOT NULL DEFAULT 0, -- total size sent (a number, not the bytes)
            input_tokens INTEGER,
            output_tokens INTEGER,
            select_ms REAL,
            prepare_ms REAL,
            model_ms REAL,
            scrub_ms REAL,
            total_ms REAL
        );
        CREATE INDEX digests_window_end ON digests(window_end);
        """,
    ),
    (
        4,
        """
        -- cue memory: one row per successful update; the newest row is the current memory
        -- (memory.md holds the same text). `content` is scrubbed model text rendered into
        -- fixed sections. A failed update writes no row: the previous memory stays.
        CREATE TABLE memory (
            id INTEGER PRIMARY KEY,
            created_at REAL NOT NULL,           -- unix seconds
            content TEXT NOT NULL,
            backend TEXT NOT NULL,              -- the backend that answered
            model TEXT,
            fell_back INTEGER NOT NULL DEFAULT 0,   -- 1 = cloud answered after a local failure
            digest_count INTEGER NOT NULL,      -- digests read for this update
            digests_from REAL,                  -- window_end of the oldest digest read
            digests_through REAL,               -- window_end of the newest digest read
            last_digest_id INTEGER,             -- the next update reads digests after it
            input_tokens INTEGER,
            output_tokens INTEGER,
            model_ms REAL,
            scrub_ms REAL,
            total_ms REAL
        );
        CREATE INDEX memory_created ON memory(created_at);
        """,
    ),
]


def connect(path: Path | None = None, *, readonly: bool = False) -> sqlite3.Connection:
    """Open the cue database (creating it 0600 and its folder 0700 if needed)."""
    path = Path(path) if path else paths.db_path()
    try:
        if readonly:
            if not path.exists():
                raise DatabaseError(f"no cue database at {path}; run a cue command that writes first")
            conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5.0)
        else:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            new = not path.exists()
            conn = sqlite3.connect(path, timeout=5.0, isolation_level=None)
            if new:
                path.chmod(0o600)
        conn.row_factory = sqlite3.Row
        conn.execute("PRAGMA busy_timeout = 5000")
        conn.execute("PRAGMA foreign_keys = ON")
        if not readonly:
            enable_wal(conn)
            conn.execute("PRAGMA synchronous = NORMAL")
            _migrate(conn)
        return conn
    except sqlite3.DatabaseError as exc:
        raise DatabaseError(f"cannot open cue database {path}: {exc}") from exc


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


def _migrate(conn: sqlite3.Connection) -> None:
    current = conn.execute("PRAGMA user_version").fetchone()[0]
    pending = [(v, sql) for v, sql in MIGRATIONS if v > current]
    for version, sql in pending:
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Another process may have migrated while we waited for the lock.
            if conn.execute("PRAGMA user_version").fetchone()[0] >= version:
                conn.execute("ROLLBACK")
                continue
            for stmt in _statements(sql):
                conn.execute(stmt)
            conn.execute(f"PRAGMA user_version = {int(version)}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise


def _statements(script: str) -> list[str]:
    out, buf = [], ""
    for line in script.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            out.append(buf.strip())
            buf = ""
    if buf.strip():
        out.append(buf.strip())
    return out


def get_meta(conn: sqlite3.Connection, key: str, default: str | None = None) -> str | None:
    row = conn.execute("SELECT value FROM _meta WHERE key = ?", (key,)).fetchone()
    return row[0] if row else default


def set_meta(conn: sqlite3.Connection, key: str, value: str) -> None:
    conn.execute(
        "INSERT INTO _meta(key, value) VALUES (?, ?) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (key, value),
    )
