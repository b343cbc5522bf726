"""cue's SQLite store: one connect() (cuectx.sqlite: WAL, busy_timeout, foreign keys),
migrations on open (cuectx.migrations runs them).

MIGRATIONS is cue's ordered list: each runs in one transaction with its record in
`schema_version` (version, name, applied_at) and PRAGMA user_version, the cheap "is this
current?" check on every open. Append to it; never edit one that has shipped.
"""
from __future__ import annotations

import sqlite3
from pathlib import Path

from cue.core import paths
from cue.core.errors import CorruptDatabaseError, DatabaseError
from cuectx import sqlite as shared
from cuectx.migrations import Migration
from cuectx.sqlite import enable_wal, transaction

__all__ = ["MIGRATIONS", "connect", "enable_wal", "get_meta", "set_meta", "transaction",
           "translate"]

MIGRATIONS: list[Migration] = [
    Migration(
        1,
        "pauses and meta",
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
    Migration(
        2,
        "frame cache (cue select); pauses.source",
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
    Migration(
        3,
        "digests",
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
    Migration(
        4,
        "memory",
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
    Migration(
        5,
        "digests: failed status, reason",
        """
        -- 'failed': the model answered, but not a plausible narrative (cue.digest.plausible);
        -- `summary` is then a fixed tombstone. `reason` (skipped, failed): why, scrubbed, for
        -- a person — a setting, a URL, a model file's name; never a keyframe path, image bytes
        -- or model output. SQLite cannot alter a CHECK: the table is rebuilt.
        CREATE TABLE digests_new (
            id INTEGER PRIMARY KEY,
            created_at REAL NOT NULL,
            window_start REAL NOT NULL,
            window_end REAL NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('ok', 'skipped', 'failed', 'empty')),
            backend TEXT NOT NULL,
            model TEXT,
            fell_back INTEGER NOT NULL DEFAULT 0,
            summary TEXT NOT NULL,
            frame_count INTEGER NOT NULL,
            event_count INTEGER NOT NULL,
            image_bytes INTEGER NOT NULL DEFAULT 0,
            input_tokens INTEGER,
            output_tokens INTEGER,
            select_ms REAL,
            prepare_ms REAL,
            model_ms REAL,
            scrub_ms REAL,
            total_ms REAL,
            reason TEXT
        );
        INSERT INTO digests_new (id, created_at, window_start, window_end, status, backend, model,
            fell_back, summary, frame_count, event_count, image_bytes, input_tokens, output_tokens,
            select_ms, prepare_ms, model_ms, scrub_ms, total_ms)
        SELECT id, created_at, window_start, window_end, status, backend, model, fell_back,
            summary, frame_count, event_count, image_bytes, input_tokens, output_tokens,
            select_ms, prepare_ms, model_ms, scrub_ms, total_ms FROM digests;
        DROP TABLE digests;
        ALTER TABLE digests_new RENAME TO digests;
        CREATE INDEX digests_window_end ON digests(window_end);
        """,
    ),
    Migration(
        6,
        "frame cache: layout",
        """
        -- cue select: column means and a gray histogram of the frame (48 bytes), what stays
        -- put while one document scrolls and changes with another tab or page. NULL on rows
        -- from before: those are computed again.
        ALTER TABLE frame_cache ADD COLUMN layout BLOB;
        """,
    ),
]


def translate(exc: sqlite3.Error, path: str | Path) -> DatabaseError:
    """A sqlite3 error as one sentence a person can act on."""
    return shared.translate(exc, path, program="cue", database_error=DatabaseError,
                            corrupt_error=CorruptDatabaseError)


def connect(path: Path | None = None, *, readonly: bool = False) -> sqlite3.Connection:
    """Open the cue database (creating it 0600 and its folder 0700 if needed)."""
    path = Path(path) if path else paths.db_path()
    if readonly and not path.exists():
        raise DatabaseError(f"no cue database at {path}; run a cue command that writes first")
    if path.is_dir():
        raise DatabaseError(f"{path} is a folder, not a database file")
    try:
        if not readonly:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        return shared.connect(path, MIGRATIONS, readonly=readonly)
    except sqlite3.Error as exc:
        raise translate(exc, path) from exc


def get_meta(conn: sqlite3.Connection, key: str, default: str | None = None) -> str | None:
    row = conn.execute("SELECT value FROM _meta WHERE key = ?", (key,)).fetchone()
    return row[0] if row else default


def set_meta(conn: sqlite3.Connection, key: str, value: str) -> None:
    conn.execute(
        "INSERT INTO _meta(key, value) VALUES (?, ?) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (key, value),
    )
