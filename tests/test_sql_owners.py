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
    "ctx/core/store.py": "the store: nodes, tags, edges, views, pending",
    "ctx/core/projects.py": "project rows, and moving/merging/forgetting a project's nodes",
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
