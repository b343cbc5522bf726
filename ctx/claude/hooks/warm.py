"""The cached session start: an unchanged store answers SessionStart from one row.

Most session starts find memory as the last one left it. The full path (session_start.py)
composes the default view — thousands of nodes read, sorted and fitted — and imports the
store, the query language and their record classes to do it: about five interpreter start-ups
of work. After it answers it keeps the text in `hook_cache`, keyed by the folder and the
settings snapshot (every CTX_* variable, TZ, the locale's encoding: ctx.core.settings), with
`store_version.n` (a counter the database's own triggers bump on every change to nodes,
tags, edges, views and projects) and stamps of the files that decide the folder's project
(a `.git` in it or above it, its git config, a shared `.ctx/memory.jsonl`) and of the code
that composed it (ctx.core.code). A view whose query reads the clock (`created:1h`,
`today`) is not kept: its answer changes with time alone.

Here, before anything heavy is imported, the hook opens the database, reads that row and the
counter, stats those files, and — when all agree and no `<ctx:expand/>` is pending — records
the session exactly as the full path would (ctx.claude.session_record) and prints the same
bytes. Anything unusual (other options, odd input, an older database, a locked one, any
error) returns None and the full path runs with the same stdin: this module may only make a
hook faster, never different.

Imports: os, json, sqlite3 and ctx's stdlib-light modules (settings, code, stamps,
session_record, hook_cache and pending — the tables' owners).
"""
from __future__ import annotations

import json
import os
import sqlite3

from ctx.claude.hooks import LEFT_OPEN
from ctx.core import hook_cache, pending

# Bump when what the full path renders for the same store changes (a cached answer made by
# an older ctx must not outlive an upgrade).
RENDER_VERSION = 1
MAX_STDIN_BYTES = 32 * 1024 * 1024  # a hook's input larger than this is ignored (entry.py)
EXPAND = "expand_nodes"  # ctx.claude.actions.EXPAND (a test keeps the two equal)
STRING_FIELDS = ("session_id", "cwd", "hook_event_name", "source", "transcript_path")


def cache_key(cwd: str, cap: int, env: dict | None = None) -> str:
    """What the session-start text depends on besides the store and the files checks_for()
    stamps: the folder, the cap, the renderer's version, and the settings snapshot — every
    CTX_* variable, TZ and the locale's encoding (ctx.core.settings.snapshot), so no setting
    the full path reads can be left out."""
    from ctx.core import settings

    return json.dumps([RENDER_VERSION, cwd, cap, settings.snapshot(env)])


def checks_for(root: str | None, cwd: str) -> list[list]:
    """What a changed answer could come from outside the store, stamped (ctx.core.code): the
    code that composed it (every module the full path had loaded), and the files that decide
    the folder's project (ctx.core.repo) or its shared memory — a `.git` or bare repository's
    HEAD appearing, vanishing or changing kind in the folder or any folder above it, the
    project's git config and its `.ctx/memory.jsonl`."""
    from ctx.core import code

    paths = []
    folder = os.path.abspath(cwd)
    while True:
        paths += [os.path.join(folder, ".git"), os.path.join(folder, "HEAD")]
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    if root:
        paths += [os.path.join(root, ".git", "config"), os.path.join(root, ".ctx", "memory.jsonl")]
    return code.stamps(paths) + code.stamps()


def db_file(explicit: str | None) -> str:
    """--db, else $CTX_DB, else $CTX_HOME/store.db (ctx.core.settings, as ctx.core.paths)."""
    from ctx.core import settings  # where every CTX_* is read (stdlib only)

    return settings.db_file(explicit)


def remember(conn: sqlite3.Connection, key: str, *, version: int, project_id: int | None,
             checks: list, text: str, items: list[tuple[str, str]]) -> None:
    """Keep what the full path answered (called by session_start.py): the text, and the
    session's always items as (node id, content_hash) for the session record."""
    from ctx.core.stamps import now_iso

    schema = conn.execute("PRAGMA user_version").fetchone()[0]
    hook_cache.keep(conn, key, version=version, schema=schema, project_id=project_id,
                    checks=checks, text=text, items=items, made_at=now_iso())


def answer(args: list[str], raw: bytes) -> bytes | None:
    """stdout for `ctx hook session-start` when the cache answers it, else None."""
    explicit = None
    rest = args[1:]
    if rest[:1] == ["--db"] and len(rest) == 2:
        explicit = rest[1]
    elif len(rest) == 1 and rest[0].startswith("--db="):
        explicit = rest[0][5:]
    elif rest:
        return None  # --max-chars, --response, -v …: the full path handles them
    try:
        payload = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(payload, dict) or payload.get("hook_event_name", "SessionStart") != "SessionStart":
        return None
    if any(k in payload and not isinstance(payload[k], str) for k in STRING_FIELDS):
        return None
    session_id, source = payload.get("session_id"), payload.get("source")
    if not session_id:
        return None
    path = db_file(explicit)
    if not os.path.isfile(path):
        return None
    from ctx.core.settings import hook_busy_timeout_ms, hook_max_chars

    cap = hook_max_chars()
    key = cache_key(payload.get("cwd") or os.getcwd(), cap)
    busy = hook_busy_timeout_ms()
    conn = sqlite3.connect(path, timeout=busy / 1000, isolation_level=None)
    LEFT_OPEN.append(conn)  # closing the last connection checkpoints the WAL: an fsync we skip
    conn.execute(f"PRAGMA busy_timeout = {int(busy)}")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA synchronous = NORMAL")
    row = hook_cache.cached(conn, key)
    if row is None:
        return None
    version, schema, project_id, checks, text, node_ids = row
    if version != hook_cache.store_version(conn) or schema != conn.execute("PRAGMA user_version").fetchone()[0]:
        return None
    from ctx.core.code import changed

    if changed(json.loads(checks)):
        return None
    if pending.any_of(conn, (f"{EXPAND}:{session_id}", EXPAND)):
        return None  # expanded nodes are shown once: the full path takes them
    from ctx.claude.session_record import record_start
    from ctx.core.stamps import now_iso

    now = now_iso()
    conn.execute("BEGIN IMMEDIATE")
    try:
        if project_id is not None:  # the project is active (ctx.core.projects.touch)
            conn.execute("UPDATE projects SET last_active_at = ? WHERE id = ?", (now, project_id))
        items = json.loads(node_ids)
        record_start(conn, session_id, source, [i for i, _ in items], dict(items), now=now)
        if version != hook_cache.store_version(conn):  # changed since we read it: let the full path answer
            conn.execute("ROLLBACK")
            return None
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    out = ({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}}
           if text else {})
    return (json.dumps(out, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
