"""The store library: validation, ids, tags, edges, supersede, views, pending, FTS sync."""
from __future__ import annotations

import sqlite3

import pytest

from ctx.core import db
from ctx.core.errors import (
    AmbiguousIdError,
    CorruptDatabaseError,
    CtxError,
    DatabaseError,
    NotFoundError,
)
from ctx.core.migrations import LATEST, MIGRATIONS, migrate
from ctx.core.store import Store


@pytest.fixture
def store(tmp_path):
    conn = db.connect(tmp_path / "s.db")
    yield Store(conn)
    conn.close()


def fts(store, word):
    return [r[0] for r in store.conn.execute(
        "SELECT n.id FROM nodes_fts JOIN nodes n ON n.seq = nodes_fts.rowid "
        "WHERE nodes_fts MATCH ? ORDER BY n.id", (word,))]


def test_connect_sets_wal_busy_timeout_and_default_view(tmp_path):
    conn = db.connect(tmp_path / "s.db")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == 5000
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    view = Store(conn).get_view("default")
    assert view.query == "tag:tier:pinned OR tag:tier:reference OR tag:tier:working"
    assert view.budget == 50000
    assert (tmp_path / "s.db").stat().st_mode & 0o777 == 0o600


def test_add_round_trips_and_trims(store):
    n = store.add("  Staging DB listens on port 6543\n", "fact", ["tier:reference", "project:api"],
                  {"source": "ops"})
    assert len(n.id) == 26
    got = store.get(n.id)
    assert got.content == "Staging DB listens on port 6543"
    assert got.tags == ("project:api", "tier:reference")
    assert got.metadata == {"source": "ops"}
    assert got.token_estimate == len(got.content) // 4
    assert got.created_at.endswith("Z") and got.created_at == got.updated_at


@pytest.mark.parametrize("content,type_,tags,message", [
    ("x", "factoid", [], "unknown node type"),
    ("   ", "fact", [], "content is empty"),
    ("x", "fact", ["has space"], "malformed tag"),
    ("x", "fact", ["a,b"], "malformed tag"),
    ("x", "fact", ["tier:hot"], "unknown tier"),
    ("x", "fact", ["tier:pinned", "tier:working"], "one tier"),
    ("x" * 1_000_001, "fact", [], "limit is"),
])
def test_bad_input_is_rejected_and_writes_nothing(store, content, type_, tags, message):
    with pytest.raises(CtxError, match=message):
        store.add(content, type_, tags)
    assert store.count() == 0


def test_add_many_is_all_or_nothing(store):
    with pytest.raises(CtxError, match="record 2"):
        store.add_many([{"content": "ok"}, {"content": ""}])
    assert store.count() == 0


def test_prefix_resolution_unique_ambiguous_unknown(store):
    a = store.add("alpha", id="01JD3K8W0000000000000000AA")
    store.add("beta", id="01JD3K8W0000000000000000BB")
    assert store.resolve("01jd3k8w0000000000000000a") == a.id  # case-insensitive
    with pytest.raises(AmbiguousIdError, match="matches 2 nodes"):
        store.resolve("01JD3K8W")
    with pytest.raises(NotFoundError, match="no node"):
        store.resolve("7ZZZZZZZ")
    with pytest.raises(NotFoundError, match="too short"):
        store.resolve("01J")
    with pytest.raises(NotFoundError, match="not a node id"):
        store.resolve("hello world")


def test_fts_follows_add_update_delete(store):
    n = store.add("the quick brown fox")
    assert fts(store, "quick") == [n.id]
    store.update(n.id, content="a lazy dog")
    assert fts(store, "quick") == []
    assert fts(store, "lazy") == [n.id]
    store.delete(n.id)
    assert fts(store, "lazy") == []


def test_tier_tag_replaces_previous_tier(store):
    n = store.add("x", tags=["tier:working", "task:auth"])
    n = store.tag(n.id, ["tier:reference"])
    assert n.tags == ("task:auth", "tier:reference")
    n = store.untag(n.id, ["task:auth"])
    assert n.tags == ("tier:reference",)


def test_supersede_sets_pointer_edge_and_refuses_cycles(store):
    old = store.add("port 6543")
    new = store.add("port 6544")
    o, _ = store.supersede(old.id, new.id)
    assert o.superseded_by == new.id
    assert [(e.from_id, e.to_id, e.type) for e in store.edges([old.id])] == [(new.id, old.id, "SUPERSEDES")]
    assert [n.id for n in store.list_nodes()] == [new.id]
    assert {n.id for n in store.list_nodes(include_superseded=True)} == {old.id, new.id}
    with pytest.raises(CtxError, match="cycle"):
        store.supersede(new.id, old.id)


def test_link_validates_and_delete_cascades(store):
    a, b = store.add("a"), store.add("b")
    with pytest.raises(CtxError, match="unknown edge type"):
        store.link(a.id, b.id, "LIKES")
    with pytest.raises(CtxError, match="itself"):
        store.link(a.id, a.id, "RELATES_TO")
    e = store.link(a.id, b.id, "depends_on")
    assert e.type == "DEPENDS_ON"
    store.delete(b.id)
    assert store.edges() == []


def test_views_crud_and_default_protected(store):
    store.create_view("api", "tag:project:api", 8000)
    with pytest.raises(CtxError, match="already exists"):
        store.create_view("api", "type:fact", 1)
    assert store.update_view("api", budget=9000).budget == 9000
    with pytest.raises(CtxError, match="cannot be deleted"):
        store.delete_view("default")
    store.delete_view("api")
    with pytest.raises(NotFoundError):
        store.get_view("api")


def test_pending_is_handed_over_once(store):
    store.set_pending("recall_results", "[1]")
    store.set_pending("recall_results", "[2]")
    assert store.pop_pending("recall_results") == "[2]"
    assert store.pop_pending("recall_results") is None


def test_upgrade_from_version_1_keeps_data(tmp_path):
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path, isolation_level=None)
    migrate(conn, target=1)
    conn.execute("INSERT INTO nodes (id, type, content, metadata, token_estimate, created_at, "
                 "updated_at) VALUES ('01JD3K8W0000000000000000AA', 'fact', 'kept', '{}', 1, "
                 "'2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')")
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 1
    conn.close()
    conn = db.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == LATEST
    versions = [r[0] for r in conn.execute("SELECT version FROM schema_version ORDER BY version")]
    assert versions == [m.version for m in MIGRATIONS]
    assert Store(conn).get("01JD3K8W0000000000000000AA").content == "kept"


def test_corrupt_and_missing_folder_are_clear_errors(tmp_path):
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"this is not sqlite" * 300)
    with pytest.raises(CorruptDatabaseError, match="not a usable ctx database"):
        db.connect(bad)
    with pytest.raises(DatabaseError, match="does not exist"):
        db.connect(tmp_path / "nope" / "s.db")


def test_readonly_open_of_current_db_cannot_write(tmp_path):
    db.connect(tmp_path / "s.db").close()
    conn = db.connect(tmp_path / "s.db", readonly=True)
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        conn.execute("DELETE FROM views")


def test_tags_are_deduplicated_in_linear_time_and_capped(store):
    """Issue 26: 100k tags took 84 s (a quadratic check) and held the write lock."""
    import time

    from ctx.core.store import MAX_TAGS

    node = store.add("tag me", "fact")
    t0 = time.perf_counter()
    with pytest.raises(CtxError, match="at most"):
        store.tag(node.id, [f"t{i}" for i in range(100_000)])
    node = store.tag(node.id, ["same"] * 100_000)
    assert time.perf_counter() - t0 < 5
    assert node.tags == ("same",) or list(node.tags) == ["same"]
    store.tag(node.id, [f"t{i}" for i in range(MAX_TAGS - 1)])
    with pytest.raises(CtxError, match="at most"):
        store.tag(node.id, ["one-too-many"])


def test_metadata_is_capped_like_content(store):
    from ctx.core.store import MAX_METADATA_CHARS

    with pytest.raises(CtxError, match="metadata is"):
        store.add("x", "fact", metadata={"blob": "b" * (MAX_METADATA_CHARS + 1)})
    node = store.add("x", "fact", metadata={"ok": "b" * 1000})
    with pytest.raises(CtxError, match="metadata is"):
        store.update(node.id, metadata={"blob": "b" * (MAX_METADATA_CHARS + 1)})
