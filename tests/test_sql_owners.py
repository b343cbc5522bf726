"""One owner per table (issue 21, STYLE.md 16): SQL over the nodes, tags, edges and views
tables lives in the store modules; everything else (the Claude integration, MCP, the web
viewer, the CLI, doctor, compose, transfer …) calls a named function such as
`Store.live_counts()` instead of writing a fifth copy of a query.

The test reads the source, so a new `SELECT … FROM nodes` outside the owners fails here.
"""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# module (or package, ending in /) → why it may hold SQL over these tables
OWNERS = {
    "ctx/core/store.py": "the store: nodes, tags, edges, views, pending; a project's nodes",
    "ctx/core/migrations.py": "the schema (tables, triggers, the default view)",
    "ctx/core/ids.py": "short ids: two primary-key neighbour lookups (ids sits below the store)",
    "ctx/query/": "the query language compiles to SQL over nodes n",
    "ctx/semantic/index.py": "the semantic index: which nodes need (re)embedding",
    "ctx/semantic/search.py": "the semantic index's search: chunks and FTS joined to nodes",
}
TABLE_SQL = re.compile(r"\b(?:FROM|JOIN|INTO|UPDATE)\s+(?:nodes|tags|edges|views)\b", re.IGNORECASE)


def _statements(text: str) -> list[str]:
    """The lines of `text` that read or write one of the four tables."""
    return [line.strip() for line in text.splitlines() if TABLE_SQL.search(line)]


def _owned(path: str) -> bool:
    return any(path == o or (o.endswith("/") and path.startswith(o)) for o in OWNERS)


def test_only_the_owners_write_sql_over_the_store_tables():
    offenders = []
    for path in sorted((ROOT / "ctx").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if _owned(rel):
            continue
        offenders += [f"{rel}: {line}" for line in _statements(path.read_text(encoding="utf-8"))]
    assert not offenders, ("SQL over nodes/tags/edges/views outside their owners (add a named "
                           "function to ctx/core/store.py and call it):\n" + "\n".join(offenders))


def test_every_owner_still_owns_something():
    """The list only shrinks: an owner that no longer holds such SQL leaves it."""
    for owner in OWNERS:
        files = [ROOT / owner] if not owner.endswith("/") else sorted((ROOT / owner).rglob("*.py"))
        assert any(_statements(f.read_text(encoding="utf-8")) for f in files), owner


def test_the_check_sees_the_usual_shapes():
    """It can fail: the forms a copy of a query takes are caught, lookalikes are not."""
    caught = ['conn.execute("SELECT count(*) FROM nodes")',
              'f"SELECT t.tag FROM nodes n JOIN tags t ON t.node_id = n.id"',
              '"INSERT OR IGNORE INTO edges (from_id, to_id) VALUES (?, ?)"',
              '"UPDATE nodes SET content = ?"', '"DELETE FROM views WHERE name = ?"',
              '"select id from Nodes where id > ?"']
    missed = ['"SELECT rowid FROM nodes_fts WHERE nodes_fts MATCH ?"',
              '"INSERT INTO nodes_fts(nodes_fts) VALUES (\'optimize\')"',
              '"the nodes from the tags"', '"SELECT id FROM session_items"']
    assert all(_statements(s) for s in caught)
    assert not any(_statements(s) for s in missed)


# Every table of every schema (ctx's, cue's, cuectx's bookkeeping) and the modules whose SQL
# reads or writes it, as the tree has them now (issue 35 item 5). A new module writing SQL over
# a table fails here: call a named function of an owner instead, or say here why it owns it.
# Many tables still have several owners: the list should only shrink.
SCHEMAS = ("ctx/core/migrations.py", "cue/core/db.py", "cuectx/migrations.py")
TABLE_OWNERS = {
    "_meta": {"cue/core/db.py"},
    "chunks": {
        "ctx/core/migrations.py", "ctx/doctor/paraphrase.py", "ctx/semantic/chunk.py",
        "ctx/semantic/index.py", "ctx/semantic/search.py",
    },
    "dead_chunks": {
        "ctx/core/migrations.py", "ctx/doctor/paraphrase.py", "ctx/doctor/secrets.py",
        "ctx/semantic/index.py",
    },
    "digests": {"cue/core/db.py", "cue/digest/run.py"},
    "digests_new": {"cue/core/db.py"},
    "doctor_fixes": {"ctx/doctor/fixes.py"},
    "edges": {"ctx/core/store.py", "ctx/query/sql.py"},
    "embedded_nodes": {"ctx/core/migrations.py", "ctx/semantic/index.py"},
    "frame_cache": {"cue/select/features.py"},
    "hook_cache": {"ctx/core/hook_cache.py"},
    "memory": {
        "ctx/claude/automemory.py", "cue/digest/__init__.py", "cue/digest/memory.py",
        "cue/digest/plausible.py",
    },
    "node_bands": {"ctx/core/fingerprint.py", "ctx/core/store.py"},
    "node_fingerprints": {"ctx/core/fingerprint.py", "ctx/core/store.py"},
    "node_versions": {"ctx/core/store.py"},
    "nodes": {
        "ctx/core/ids.py", "ctx/core/migrations.py", "ctx/core/store.py", "ctx/query/__init__.py",
        "ctx/semantic/index.py", "ctx/semantic/search.py",
    },
    "nodes_fts": {
        "ctx/core/migrations.py", "ctx/doctor/secrets.py", "ctx/query/sql.py",
        "ctx/semantic/search.py",
    },
    "pauses": {"cue/inputs/pauses.py"},
    "pending": {"ctx/core/pending.py"},
    "project_aliases": {"ctx/core/projects.py"},
    # warm.py: the cached session start marks the project active before anything heavy loads
    # (projects.py would bring repo, errors and cuectx.value onto a cache hit); query/sql.py:
    # the query language compiles `project:NAME` to a subquery inside the nodes query it builds.
    "projects": {"ctx/claude/hooks/warm.py", "ctx/core/projects.py", "ctx/query/sql.py"},
    "request_items": {"ctx/claude/requests.py"},
    # requests.py owns the request records; sessions.py sits below it (requests.py imports it)
    # and its session overview, session projects and retention's stale sessions are queries
    # across sessions and requests; doctor/secrets.py sits below ctx.claude and redacts
    # stored prompts in place.
    "requests": {
        "ctx/claude/requests.py", "ctx/claude/sessions.py", "ctx/doctor/secrets.py",
    },
    "schema_version": {"cuectx/migrations.py"},
    "session_actions": {"ctx/claude/sessions.py"},
    "session_injected": {"ctx/claude/session_record.py", "ctx/core/migrations.py"},
    "session_items": {"ctx/claude/session_record.py", "ctx/core/migrations.py"},
    # session_record.py writes a SessionStart's row (stdlib-light, the cached session start's);
    # sessions.py reads them and joins them to requests (see requests above).
    "sessions": {"ctx/claude/session_record.py", "ctx/claude/sessions.py"},
    "share_base": {"ctx/core/share.py"},
    "share_config": {"ctx/core/share.py"},
    "share_files": {"ctx/core/shared_files.py"},
    "store_version": {"ctx/core/hook_cache.py", "ctx/core/migrations.py"},
    "tags": {"ctx/core/store.py", "ctx/query/__init__.py", "ctx/query/sql.py"},
    "vector_centers": {"ctx/semantic/index.py"},
    "vector_segments": {
        "ctx/doctor/paraphrase.py", "ctx/doctor/secrets.py", "ctx/semantic/index.py",
    },
    "views": {"ctx/core/migrations.py", "ctx/core/store.py"},
}


def _tables() -> set[str]:
    found = set()
    for schema in SCHEMAS:
        found |= {t.lower() for t in re.findall(
            r"CREATE (?:VIRTUAL )?TABLE (?:IF NOT EXISTS )?([A-Za-z_0-9]+)",
            (ROOT / schema).read_text(encoding="utf-8"), re.IGNORECASE)}
    return found


def _sql_users() -> dict[str, set[str]]:
    names = sorted(_tables(), key=len, reverse=True)
    sql = re.compile(r"\b(?:FROM|JOIN|INTO|UPDATE)\s+(" + "|".join(names) + r")\b", re.IGNORECASE)
    users: dict[str, set[str]] = {}
    for package in ("ctx", "cue", "cuectx"):
        for path in sorted((ROOT / package).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            for table in {m.lower() for m in sql.findall(path.read_text(encoding="utf-8"))}:
                users.setdefault(table, set()).add(rel)
    return users


def test_every_table_has_its_owners():
    assert _tables() == set(TABLE_OWNERS), "a table without owners (or gone): list it here"
    users = _sql_users()
    strays = {t: sorted(m - TABLE_OWNERS[t]) for t, m in users.items() if m - TABLE_OWNERS[t]}
    assert not strays, f"SQL over a table outside its owners (list it here, saying why): {strays}"
