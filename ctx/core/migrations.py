"""ctx's schema, as an ordered list of migrations (the runner is cuectx.migrations).

Each migration runs in its own transaction together with its record in `schema_version`
(version, name, applied_at), so a crash leaves the database at the previous version, never
half-way. `PRAGMA user_version` mirrors the latest version so the hot path (hooks) can check
"current?" with one pragma. Append new migrations; never edit one that has shipped.
"""
from __future__ import annotations

import sqlite3

from cuectx import migrations as runner
from cuectx.migrations import Migration, current_version, statements

__all__ = ["LATEST", "MIGRATIONS", "Migration", "current_version", "migrate", "statements"]

M001_CORE = """
CREATE TABLE IF NOT EXISTS schema_version (
    version INTEGER PRIMARY KEY,
    applied_at TEXT NOT NULL
);
-- seq is the stable rowid (FTS5 and vector indexes key on it); id is the ULID.
CREATE TABLE nodes (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    type TEXT NOT NULL,
    content TEXT NOT NULL,
    metadata TEXT NOT NULL DEFAULT '{}',
    token_estimate INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    superseded_by TEXT REFERENCES nodes(id) ON DELETE SET NULL
);
-- Covers the lookups every query and composition makes after finding ids via tags.
CREATE INDEX nodes_id_live ON nodes(id, superseded_by, type, token_estimate);
CREATE INDEX nodes_type ON nodes(type);
-- Partial: most nodes are live, so an index over NULLs would only mislead the planner.
CREATE INDEX nodes_superseded_by ON nodes(superseded_by) WHERE superseded_by IS NOT NULL;
CREATE INDEX nodes_created_at ON nodes(created_at);
CREATE INDEX nodes_updated_at ON nodes(updated_at);
CREATE TABLE tags (
    node_id TEXT NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
    tag TEXT NOT NULL,
    PRIMARY KEY (node_id, tag)
) WITHOUT ROWID;
CREATE INDEX tags_by_tag ON tags(tag, node_id);
CREATE TABLE edges (
    from_id TEXT NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
    to_id TEXT NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
    type TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (from_id, to_id, type)
) WITHOUT ROWID;
CREATE INDEX edges_by_to ON edges(to_id, type);
CREATE TABLE views (
    name TEXT PRIMARY KEY,
    query TEXT NOT NULL,
    budget INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE TABLE pending (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE VIRTUAL TABLE nodes_fts USING fts5(
    content, content='nodes', content_rowid='seq', tokenize='unicode61 remove_diacritics 2'
);
CREATE TRIGGER nodes_fts_insert AFTER INSERT ON nodes BEGIN
    INSERT INTO nodes_fts(rowid, content) VALUES (new.seq, new.content);
END;
CREATE TRIGGER nodes_fts_delete AFTER DELETE ON nodes BEGIN
    INSERT INTO nodes_fts(nodes_fts, rowid, content) VALUES ('delete', old.seq, old.content);
END;
CREATE TRIGGER nodes_fts_update AFTER UPDATE OF content ON nodes BEGIN
    INSERT INTO nodes_fts(nodes_fts, rowid, content) VALUES ('delete', old.seq, old.content);
    INSERT INTO nodes_fts(rowid, content) VALUES (new.seq, new.content);
END;
INSERT INTO views (name, query, budget, created_at, updated_at) VALUES (
    'default', 'tag:tier:pinned OR tag:tier:reference OR tag:tier:working', 50000,
    strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
);
"""

# 2 — semantic index (ctx/semantic/index.py) and per-session/per-request records
# (ctx/requests.py). Vectors are stored as a few large float32 BLOBs ("segments") rather
# than one BLOB per chunk: loading 100k vectors is then a handful of big reads into one
# contiguous numpy array (~100 ms) instead of 100k row fetches (~250 ms+).
M002_SEMANTIC = """
CREATE TABLE chunks (
    id INTEGER PRIMARY KEY AUTOINCREMENT,       -- never reused: vector segments key on it
    node_id TEXT NOT NULL,
    model TEXT NOT NULL,
    idx INTEGER NOT NULL,                       -- position within the node
    start INTEGER NOT NULL,                     -- [start, end) character offsets in content
    end INTEGER NOT NULL,
    UNIQUE (model, node_id, idx)
);
CREATE INDEX chunks_by_node ON chunks(node_id);
-- One row per (node, model) whose chunks are embedded; content_hash says for which text.
CREATE TABLE embedded_nodes (
    model TEXT NOT NULL,
    node_id TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    chunk_count INTEGER NOT NULL,
    embedded_at TEXT NOT NULL,
    PRIMARY KEY (model, node_id)
) WITHOUT ROWID;
CREATE INDEX embedded_nodes_by_node ON embedded_nodes(node_id);
CREATE TABLE vector_segments (
    id INTEGER PRIMARY KEY,
    model TEXT NOT NULL,
    dim INTEGER NOT NULL,
    count INTEGER NOT NULL,
    chunk_ids BLOB NOT NULL,                    -- int64 little-endian, ascending
    vectors BLOB NOT NULL                       -- float32 little-endian, count x dim, unit length
);
CREATE INDEX vector_segments_by_model ON vector_segments(model, id);
-- Chunks deleted since their segment was written: masked at search, dropped by compaction.
CREATE TABLE dead_chunks (chunk_id INTEGER PRIMARY KEY);
CREATE TRIGGER chunks_dead AFTER DELETE ON chunks BEGIN
    INSERT OR IGNORE INTO dead_chunks (chunk_id) VALUES (old.id);
END;
-- Changed or deleted text: its chunks and vectors stop counting at once (re-embedded JIT).
CREATE TRIGGER nodes_semantic_update AFTER UPDATE OF content ON nodes
WHEN new.content IS NOT old.content BEGIN
    DELETE FROM chunks WHERE node_id = old.id;
    DELETE FROM embedded_nodes WHERE node_id = old.id;
END;
CREATE TRIGGER nodes_semantic_delete AFTER DELETE ON nodes BEGIN
    DELETE FROM chunks WHERE node_id = old.id;
    DELETE FROM embedded_nodes WHERE node_id = old.id;
    DELETE FROM session_items WHERE node_id = old.id;
    DELETE FROM session_injected WHERE node_id = old.id;
END;

-- Sessions (one Claude Code session_id each) and the items they hold.
CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    source TEXT,
    started_at TEXT NOT NULL,
    reset_at TEXT NOT NULL,                     -- last startup/clear/compact
    last_seen_at TEXT NOT NULL
);
CREATE INDEX sessions_by_last_seen ON sessions(last_seen_at);
CREATE TABLE session_items (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    node_id TEXT NOT NULL,
    include_mode TEXT NOT NULL CHECK (include_mode IN ('always', 'manual')),
    state TEXT NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'removed')),
    added_at TEXT NOT NULL,
    PRIMARY KEY (session_id, node_id)
) WITHOUT ROWID;
-- What the conversation already holds: injected once, not again (unless the text changed).
CREATE TABLE session_injected (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    node_id TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    request_id TEXT,                            -- NULL: injected at session start
    injected_at TEXT NOT NULL,
    PRIMARY KEY (session_id, node_id)
) WITHOUT ROWID;
CREATE TABLE requests (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,                    -- ULID
    session_id TEXT,
    created_at TEXT NOT NULL,
    prompt TEXT NOT NULL,
    path TEXT NOT NULL,                         -- semantic | keyword | none
    fallback_reason TEXT,
    params TEXT NOT NULL DEFAULT '{}',          -- JSON: topK, topN, includeScore, floor, cap
    injected_chars INTEGER NOT NULL DEFAULT 0,
    elapsed_ms REAL
);
CREATE INDEX requests_by_session ON requests(session_id, seq);
-- Included items and the best excluded candidates of one request. node_id has no foreign
-- key on purpose: the record outlives a deleted node (shown as deleted).
CREATE TABLE request_items (
    request_id TEXT NOT NULL REFERENCES requests(id) ON DELETE CASCADE,
    node_id TEXT NOT NULL,
    include_mode TEXT NOT NULL CHECK (include_mode IN ('always', 'manual', 'agent')),
    included INTEGER NOT NULL,
    injected TEXT CHECK (injected IN ('now', 'earlier')),
    score REAL,
    reason TEXT,
    rank INTEGER,
    PRIMARY KEY (request_id, node_id)
) WITHOUT ROWID;
"""

# 3 — projects (SPEC §2.8): one store, many repositories. A node belongs to one project or,
# with project_id NULL, is global; every node that existed before this migration is global.
# `key` is the identity (normalised origin remote, else the main worktree's real path);
# `name` is what people type (unique, case-insensitive). A merged or renamed-away key stays
# an alias, so the folder it came from still resolves to the surviving project.
M003_PROJECTS = """
CREATE TABLE projects (
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL UNIQUE COLLATE NOCASE,
    root TEXT,
    remote TEXT,
    created_at TEXT NOT NULL,
    last_active_at TEXT NOT NULL
);
CREATE TABLE project_aliases (
    key TEXT PRIMARY KEY,
    project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE
) WITHOUT ROWID;
ALTER TABLE nodes ADD COLUMN project_id INTEGER REFERENCES projects(id);
CREATE INDEX nodes_project ON nodes(project_id, superseded_by);
"""

# 4 — a year of use (issue 28): the node page asks which requests named a node (an index by
# node), and retention prunes the oldest request records first (by seq, already the key).
M004_REQUEST_RETENTION = """
CREATE INDEX request_items_by_node ON request_items(node_id);
CREATE INDEX requests_by_created ON requests(created_at);
"""

# 5 — the cached session start (issue 28): `store_version.n` counts every change to what
# a session's context is made of (nodes, tags, edges, views, projects and their aliases; a
# project's last_active_at is not one), kept by triggers so no writer can forget it.
# `hook_cache` keeps the last session-start answer per (folder, settings) with the version
# it was made at: an unchanged store answers from one row (ctx/claude/hooks/warm.py).
M005_HOOK_CACHE = """
CREATE TABLE store_version (id INTEGER PRIMARY KEY CHECK (id = 1), n INTEGER NOT NULL);
INSERT INTO store_version (id, n) VALUES (1, 0);
CREATE TABLE hook_cache (
    key TEXT PRIMARY KEY,
    version INTEGER NOT NULL,                   -- store_version.n it was made at
    schema INTEGER NOT NULL,                    -- PRAGMA user_version it was made at
    project_id INTEGER,                         -- the session's project (NULL: global only)
    checks TEXT NOT NULL,                       -- JSON [[path, mtime_ns, size], ...] to stat
    text TEXT NOT NULL,                         -- the additionalContext ('' = nothing)
    node_ids TEXT NOT NULL,                     -- JSON [[node id, content_hash], ...]: always items
    made_at TEXT NOT NULL
) WITHOUT ROWID;
CREATE TRIGGER nodes_insert_bumps_version AFTER INSERT ON nodes BEGIN
    UPDATE store_version SET n = n + 1;
END;
CREATE TRIGGER nodes_update_bumps_version AFTER UPDATE ON nodes BEGIN
    UPDATE store_version SET n = n + 1;
END;
CREATE TRIGGER nodes_delete_bumps_version AFTER DELETE ON nodes BEGIN
    UPDATE store_version SET n = n + 1;
END;
CREATE TRIGGER tags_insert_bumps_version AFTER INSERT ON tags BEGIN
    UPDATE store_version SET n = n + 1;
END;
CREATE TRIGGER tags_update_bumps_version AFTER UPDATE ON tags BEGIN
    UPDATE store_version SET n = n + 1;
END;
CREATE TRIGGER tags_delete_bumps_version AFTER DELETE ON tags BEGIN
    UPDATE store_version SET n = n + 1;
END;
CREATE TRIGGER edges_insert_bumps_version AFTER INSERT ON edges BEGIN
    UPDATE store_version SET n = n + 1;
END;
CREATE TRIGGER edges_update_bumps_version AFTER UPDATE ON edges BEGIN
    UPDATE store_version SET n = n + 1;
END;
CREATE TRIGGER edges_delete_bumps_version AFTER DELETE ON edges BEGIN
    UPDATE store_version SET n = n + 1;
END;
CREATE TRIGGER views_insert_bumps_version AFTER INSERT ON views BEGIN
    UPDATE store_version SET n = n + 1;
END;
CREATE TRIGGER views_update_bumps_version AFTER UPDATE ON views BEGIN
    UPDATE store_version SET n = n + 1;
END;
CREATE TRIGGER views_delete_bumps_version AFTER DELETE ON views BEGIN
    UPDATE store_version SET n = n + 1;
END;
CREATE TRIGGER project_aliases_insert_bumps_version AFTER INSERT ON project_aliases BEGIN
    UPDATE store_version SET n = n + 1;
END;
CREATE TRIGGER project_aliases_update_bumps_version AFTER UPDATE ON project_aliases BEGIN
    UPDATE store_version SET n = n + 1;
END;
CREATE TRIGGER project_aliases_delete_bumps_version AFTER DELETE ON project_aliases BEGIN
    UPDATE store_version SET n = n + 1;
END;
CREATE TRIGGER projects_insert_bumps_version AFTER INSERT ON projects BEGIN
    UPDATE store_version SET n = n + 1;
END;
CREATE TRIGGER projects_delete_bumps_version AFTER DELETE ON projects BEGIN
    UPDATE store_version SET n = n + 1;
END;
CREATE TRIGGER projects_update_bumps_version AFTER UPDATE OF key, name, root ON projects BEGIN
    UPDATE store_version SET n = n + 1;
END;
"""

# 6 — one score scale across languages (ctx.semantic.centering): per vector, its chunk's
# Hangul share and length (float32 pairs, NULL for segments written before: read as English,
# full length); per model, running weighted sums of the vectors by language.
M006_CENTERS = """
ALTER TABLE vector_segments ADD COLUMN attrs BLOB;
CREATE TABLE vector_centers (
    model TEXT NOT NULL,
    lang TEXT NOT NULL,
    weight REAL NOT NULL,
    total BLOB NOT NULL,                        -- float64 little-endian, dim
    PRIMARY KEY (model, lang)
) WITHOUT ROWID;
"""

# 7 — sharing through git (SPEC §2.11, ctx/core/share.py owns these tables). A "channel" is
# one file memory travels through: `share:<project id>` for a repository's
# .ctx/memory.jsonl, `sync:<file>` for a file in the personal sync clone (ctx/core/sync.py).
# share_base holds, per channel and node, the version last exchanged through it (the hash of
# its line; '-' = a tombstone), so an import can tell "changed here since" from "changed
# there", and an export keeps writing a deletion's tombstone. share_files remembers what a
# file looked like when ctx last read or wrote it (a stat, then a hash: the session-start
# fast path). share_config is `ctx project share`'s selection and its --auto switch.
M007_SHARE = """
CREATE TABLE share_base (
    channel TEXT NOT NULL,
    node_id TEXT NOT NULL,
    hash TEXT NOT NULL,
    prev TEXT,
    PRIMARY KEY (channel, node_id)
) WITHOUT ROWID;
CREATE TABLE share_files (
    path TEXT PRIMARY KEY,
    channel TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    hash TEXT NOT NULL,
    checked_at TEXT NOT NULL
);
CREATE TABLE share_config (
    project_id INTEGER PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
    tiers TEXT NOT NULL,
    types TEXT NOT NULL,
    tags TEXT NOT NULL,
    auto INTEGER NOT NULL DEFAULT 0,
    fingerprint TEXT NOT NULL DEFAULT '',
    updated_at TEXT NOT NULL
);
"""

# 8 — curation (SPEC §2.10, ctx doctor): per-node text fingerprints the write-time duplicate
# check looks up (ctx.core.fingerprint: the normalised text's hash, MinHash LSH bands over the
# content words), kept by ctx.core.store on every write; and the log of what `ctx doctor
# --fix` changed, so `ctx doctor --undo` can put it back (owned by ctx/doctor/fixes.py).
M008_CURATION = """
CREATE TABLE node_fingerprints (
    node_id TEXT PRIMARY KEY REFERENCES nodes(id) ON DELETE CASCADE,
    normal_hash TEXT NOT NULL,
    version INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX node_fingerprints_by_hash ON node_fingerprints(normal_hash);
CREATE TABLE node_bands (
    band INTEGER NOT NULL,
    node_id TEXT NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
    PRIMARY KEY (band, node_id)
) WITHOUT ROWID;
CREATE INDEX node_bands_by_node ON node_bands(node_id);
CREATE TABLE doctor_fixes (
    seq INTEGER PRIMARY KEY,
    run_id TEXT NOT NULL,                       -- one `ctx doctor --fix` (a ULID)
    applied_at TEXT NOT NULL,
    kind TEXT NOT NULL,                         -- duplicate | contradiction | stale | orphan
    action TEXT NOT NULL,                       -- supersede | tier | edge | compact
    payload TEXT NOT NULL,                      -- JSON: what to put back
    undone_at TEXT
);
CREATE INDEX doctor_fixes_by_run ON doctor_fixes(run_id);
"""


# 9 — editable memory (issue 38): an edit (`ctx edit`, the viewer) keeps the node's id and
# saves what it replaced as a version (`ctx show --history`); a forgotten node takes its
# versions with it. And what Claude did in a session (remembered, superseded, archived), so
# a session's page can list it: ids only, the texts stay in nodes.
M009_VERSIONS = """
CREATE TABLE node_versions (
    node_id TEXT NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
    version INTEGER NOT NULL,                   -- 1 = the text as first stored
    content TEXT NOT NULL,
    type TEXT NOT NULL,
    tags TEXT NOT NULL DEFAULT '[]',            -- JSON list
    metadata TEXT NOT NULL DEFAULT '{}',        -- JSON object
    saved_at TEXT NOT NULL,                     -- when this version was replaced
    PRIMARY KEY (node_id, version)
) WITHOUT ROWID;
CREATE TABLE session_actions (
    seq INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL,
    at TEXT NOT NULL,
    action TEXT NOT NULL,                       -- remembered | superseded | summarized | archived
    node_id TEXT NOT NULL,                      -- no foreign key: the record outlives a forget
    other_id TEXT                               -- superseded: the node that replaced it
);
CREATE INDEX session_actions_by_session ON session_actions(session_id, seq);
"""


def _m008_curation(conn: sqlite3.Connection) -> None:
    from ctx.core.fingerprint import write_fingerprints

    for stmt in statements(M008_CURATION):
        conn.execute(stmt)
    rows = conn.execute("SELECT id, content FROM nodes").fetchall()
    write_fingerprints(conn, [(r[0], r[1]) for r in rows])


# 10 — the trust boundary (issue 34, ctx/core/trust.py): memory that came from others (an
# importer's `shared_from`, or Claude Code's memory folder) indexed apart, so the Stop hook's
# "does this command only repeat a tag found in others' memory?" reads those nodes alone
# (Store.foreign_containing) instead of every node's content on every reply.
M010_FOREIGN = """
CREATE INDEX nodes_foreign ON nodes(id) WHERE json_extract(metadata, '$.shared_from') IS NOT NULL
    OR json_extract(metadata, '$.source') = 'claude-memory';
"""


MIGRATIONS: list[Migration] = [
    Migration(1, "core store: nodes, tags, edges, views, pending, full-text index", M001_CORE),
    Migration(2, "semantic index (chunks, vector segments), sessions, request records",
              M002_SEMANTIC),
    Migration(3, "projects: nodes.project_id (NULL = global; existing nodes become global)",
              M003_PROJECTS),
    Migration(4, "request records: indexes by node (node page) and by age (retention)",
              M004_REQUEST_RETENTION),
    Migration(5, "cached session start: store_version (kept by triggers), hook_cache",
              M005_HOOK_CACHE),
    Migration(6, "semantic: per-vector language/length attributes, language centres",
              M006_CENTERS),
    Migration(7, "sharing through git: share_base, share_files, share_config", M007_SHARE),

    Migration(8, "curation: node fingerprints (duplicate check), doctor fix log",
              _m008_curation),
    Migration(9, "editable memory: node versions; what Claude did in each session",
              M009_VERSIONS),
    Migration(10, "trust boundary: an index of memory that came from others", M010_FOREIGN),
]

LATEST = runner.latest(MIGRATIONS)


def migrate(conn: sqlite3.Connection, *, target: int | None = None) -> list[int]:
    """Apply every ctx migration above the database's version (up to `target`)."""
    return runner.migrate(conn, MIGRATIONS, target=target)
