"""Compiled queries run against a real ctx database and select the right nodes."""
from __future__ import annotations

from datetime import UTC, datetime

import pytest

from ctx.core import db
from ctx.core.errors import QuerySyntaxError
from ctx.core.store import Store
from ctx.query import compile_query
from ctx.query.sql import fts_phrase, successor

NOW = datetime(2026, 3, 14, 12, 0, 0, tzinfo=UTC)

A = "01HQAAAA000000000000000001"
B = "01HQAAAB000000000000000002"
C = "01HQBBBB000000000000000003"
D = "01HQBBBC000000000000000004"
E = "01HQCCCC000000000000000005"
OLD = "01HQDDDD000000000000000006"
ALL = {A, B, C, D, E}


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """One small store for the module (every test here only reads it)."""
    conn = db.connect(tmp_path_factory.mktemp("query") / "q.db")
    s = Store(conn)
    s.add("The API uses OAuth 2.0 with PKCE for public clients.", "fact",
          ["tier:pinned", "project:auth"], id=A,
          created_at="2026-01-01T08:00:00.000Z", updated_at="2026-02-01T00:00:00.000Z")
    s.add("Refresh tokens are stored server-side only.", "decision",
          ["tier:reference", "project:auth"], id=B,
          created_at="2026-01-15T12:00:00.000Z", updated_at="2026-01-15T12:00:00.000Z")
    s.add("Rate limiting uses a token bucket algorithm", "pattern",
          ["tier:working", "task:login"], id=C,
          created_at="2025-12-31T23:59:59.999Z", updated_at="2026-03-14T11:30:00.000Z")
    s.add("naïve café: the cache is stale \"sometimes\" AND it's NEAR(oauth) OR NOT", "observation",
          ["tier:off-context"], id=D,
          created_at="2026-03-01T00:00:00.000Z", updated_at="2026-03-01T00:00:00.000Z")
    s.add("Why does the login flow retry twice? " * 10, "open-question", [], id=E,
          created_at="2026-03-14T06:00:00.000Z", updated_at="2026-03-14T06:00:00.000Z")
    s.add("The API used OAuth 1.0 before.", "fact", ["tier:reference", "project:auth"], id=OLD,
          created_at="2025-06-01T00:00:00.000Z")
    s.link(A, B, "DEPENDS_ON")
    s.link(C, B, "RELATES_TO")
    s.supersede(OLD, A)  # edge A SUPERSEDES OLD; OLD.superseded_by = A
    # The store refuses spaces in tags; the language still reaches such a tag.
    conn.execute("INSERT INTO tags (node_id, tag) VALUES (?, 'a b')", (E,))
    yield s
    conn.close()


def ids(store, q, *, include_superseded=False):
    cq = compile_query(q, now=NOW)
    return {n.id for n in store.select(cq.where, cq.params, include_superseded=include_superseded)}


@pytest.mark.parametrize("q, expected", [
    ("type:fact", {A}),
    ("type:open-question", {E}),
    ("tag:project:auth", {A, B}),
    ("tag:tier:pinned OR tag:tier:reference OR tag:tier:working", {A, B, C}),
    ("tag:project:*", {A, B}),
    ("tag:tier:*", {A, B, C, D}),
    ("tag:*", ALL),
    ('tag:"a b"', {E}),
    ("tag:project", set()),  # exact, not a prefix
    ("-tag:tier:off-context", {A, B, C, E}),
    ("NOT tag:tier:*", {E}),
    ("id:01hqaaa", {A, B}),
    ("id:01hqaaaa", {A}),
    ("id:01HQAAAB", {B}),
    (f"id:{A}", {A}),
    ("id:01HQZ", set()),
    ("from:01HQAAAA", {B}),  # A DEPENDS_ON B (A SUPERSEDES OLD is hidden: OLD is superseded)
    ("to:01hqaaab", {A, C}),
    ("to:01HQBBBB", set()),
    ("has:edges", {A, B, C}),
    ("-has:edges", {D, E}),
    ("has:tags", ALL),
    ("oauth", {A, D}),
    ("OAuth pkce", {A}),
    ('"token bucket"', {C}),
    ('"bucket token"', set()),
    ("tok*", {B, C}),
    ("token", {C}),
    ("cafe naive", {D}),  # remove_diacritics
    ("CAFÉ", {D}),
    ("oauth OR refresh", {A, B, D}),
    ("oauth -pkce", {D}),
    ("-oauth -token* type:observation", set()),
    ("created:2026-01-01", {A}),
    ("created:<2026-01-01", {C}),
    ("created:<=2025-12-31", {C}),
    ("created:>2025-12-31", {A, B, D, E}),
    ("created:>=2026-01-15", {B, D, E}),
    ("created:2026-01", {A, B}),
    ("created:2025", {C}),
    ("created:2025-12-31T23:59:59.999", {C}),
    ("created:2026-01-01T09:00+01:00", {A}),
    ("updated:2026-02", {A}),
    ("updated:today", {C, E}),
    ("updated:1h", {C}),
    ("created:<7d", {A, B, C, D}),
    ("created:>now", set()),
    ("tokens:<11", {B, C}),
    ("tokens:>=13", {A, D, E}),
    ("tokens:92", {E}),
    ("tokens:=92", {E}),
    ("tokens:<=10", {B, C}),
    ("tokens:>92", set()),
    # precedence and grouping, executed
    ("oauth OR refresh type:decision", {A, B, D}),
    ("oauth OR refresh type:fact", {A, D}),
    ("(oauth OR refresh) type:decision", {B}),
    ("type:fact OR type:decision tag:tier:reference", {A, B}),
    ("NOT type:fact OR type:decision", {B, C, D, E}),
    ("NOT (type:fact OR type:decision)", {C, D, E}),
    ("tag:project:auth -(oauth pkce)", {B}),
    ("(tag:tier:pinned OR oauth OR tok*) -type:observation", {A, B, C}),
    ("(oauth OR type:pattern) (tag:tier:pinned OR tag:tier:working)", {A, C}),
    ("to:01HQAAAB has:edges -tag:tier:pinned created:2025", {C}),
    # several tag/edge terms in one AND: one drives, the others probe
    ("tag:tier:reference tag:project:auth", {B}),
    ("tag:project:auth tag:tier:reference", {B}),
    ("tag:project:auth from:01HQAAAA tag:tier:*", {B}),
    ("to:01HQAAAB tag:task:login tag:tier:working", {C}),
    ("tag:project:auth tag:project:auth", {A, B}),
])
def test_queries_select_the_right_nodes(store, q, expected):
    assert ids(store, q) == expected


def test_superseded_nodes_are_the_stores_business(store):
    assert ids(store, "from:01HQAAAA") == {B}
    assert ids(store, "from:01HQAAAA", include_superseded=True) == {B, OLD}
    assert ids(store, "oauth", include_superseded=True) == {A, D, OLD}
    assert {n.id for n in store.query("type:fact")} == {A}
    assert {n.id for n in store.query("type:fact", include_superseded=True)} == {A, OLD}


@pytest.mark.parametrize("q", [
    '"\'; DROP TABLE nodes; --"',
    "tag:\"x' OR '1'='1\"",
    '"NEAR(oauth)"', '"a" OR "b"', '"col:oauth"', '"^oauth"', '"oauth*"', '"*"', '""""',
    '" "', '"!!!"', "!!!", "\"AND\"", '"NOT"', '"OR oauth"', "it's", "'oauth'", "a\x00b",
    "\"\\\\\"", "+oauth", "oauth;", "{oauth}", "-- comment", "/* x */",
])
def test_hostile_text_never_reaches_sql_or_fts5_syntax(store, q):
    cq = compile_query(q, now=NOW)
    for value in ("DROP", "NEAR", "1'='1", "comment", "x */", "oauth"):
        assert value not in cq.where
    store.select(cq.where, cq.params)  # runs: no FTS5 or SQL syntax error
    assert store.conn.execute("SELECT count(*) FROM nodes").fetchone()[0] == 6


def test_fts_strings_quote_every_token():
    assert fts_phrase('say "hi"') == '"say ""hi"""'
    assert fts_phrase("a\x00b") == '"a b"'
    assert compile_query("oauth* pkce").params == ['("oauth" * AND "pkce")']
    assert compile_query('a OR "b c"').params == ['("a" OR "b c")']
    assert compile_query("a -b -c").params == ['("a" NOT "b" NOT "c")']


def test_sql_shapes():
    cq = compile_query("tag:tier:pinned OR tag:tier:reference OR tag:tier:working")
    assert cq.where == "(n.id IN (SELECT t.node_id FROM tags t WHERE t.tag IN (?, ?, ?)))"
    assert cq.params == ["tier:pinned", "tier:reference", "tier:working"]
    cq = compile_query("type:fact OR type:decision")
    assert cq.where == "(n.type IN (?, ?))"
    cq = compile_query("oauth type:fact NOT tag:x")
    assert cq.where == ("(n.seq IN (SELECT rowid FROM nodes_fts WHERE nodes_fts MATCH ?) AND "
                        "n.type = ? AND NOT (EXISTS (SELECT 1 FROM tags t WHERE t.node_id = n.id "
                        "AND t.tag = ?)))")
    assert cq.params == ['"oauth"', "fact", "x"]
    cq = compile_query("id:01hq")
    assert cq.where == "((n.id >= ? AND n.id < ?))" and cq.params == ["01HQ", "01HR"]


def test_successor_bounds_every_string_with_the_prefix():
    assert successor("task:") == "task;"
    assert successor("az") == "a{"
    assert successor("a\U0010ffff") == "b"
    assert successor("\U0010ffff") is None
    assert successor("") is None
    assert successor("\ud7ff") == "\ue000"
    for prefix in ("task:", "ü", "a\U0010ffff", "\ud7ff"):
        upper = successor(prefix)
        for tail in ("", "\x00", "z", "\U0010ffff\U0010ffff"):
            assert (prefix + tail).encode() < upper.encode()


# --- the plans SQLite picks: the indexes do the work ---------------------------------------

def plan(store, q, order="") -> str:
    cq = compile_query(q, now=NOW)
    sql = f"SELECT n.id FROM nodes n WHERE +n.superseded_by IS NULL AND {cq.where} {order}"
    return "\n".join(r[3] for r in store.conn.execute("EXPLAIN QUERY PLAN " + sql, cq.params))


@pytest.mark.parametrize("q, expected", [
    ("tag:tier:pinned", ["USING COVERING INDEX tags_by_tag (tag=?)",
                         "(id=?)"]),
    ("tag:tier:pinned OR tag:tier:reference", ["USING COVERING INDEX tags_by_tag (tag=?)"]),
    ("tag:task:*", ["USING COVERING INDEX tags_by_tag (tag>? AND tag<?)"]),
    ("type:decision", ["SEARCH n USING INDEX nodes_type (type=?)"]),
    ("created:>2026-01-01", ["SEARCH n USING INDEX nodes_created_at (created_at>?)"]),
    ("updated:2026-01", ["SEARCH n USING INDEX nodes_updated_at (updated_at>? AND updated_at<?)"]),
    ("id:01HQ", ["SEARCH n USING COVERING INDEX nodes_id_live (id>? AND id<?)"]),
    ("to:01HQAAAB", ["SEARCH e USING COVERING INDEX edges_by_to (to_id>? AND to_id<?)"]),
    ("from:01HQAAAA", ["SEARCH e USING PRIMARY KEY (from_id>? AND from_id<?)"]),
    ("oauth", ["SEARCH n USING INTEGER PRIMARY KEY (rowid=?)",
               "SCAN nodes_fts VIRTUAL TABLE INDEX 0:M"]),
    ("oauth tag:tier:pinned", ["SCAN nodes_fts VIRTUAL TABLE INDEX 0:M",
                               "USING COVERING INDEX tags_by_tag (tag=?)"]),
    # under NOT a term only filters: one probe of the (node_id, tag) key per candidate row
    ("type:fact -tag:tier:off-context", ["SEARCH n USING INDEX nodes_type (type=?)",
                                         "SEARCH t USING PRIMARY KEY (node_id=? AND tag=?)"]),
    ("type:fact -(tag:a OR tag:b*)",
     ["SEARCH t USING PRIMARY KEY (node_id=? AND tag=?)",
      "SEARCH t USING PRIMARY KEY (node_id=? AND tag>? AND tag<?)"]),
    ("type:fact -from:01HQ", ["SEARCH e USING COVERING INDEX edges_by_to (to_id=?)"]),
    ("type:fact -to:01HQ", ["SEARCH e USING PRIMARY KEY (from_id=? AND to_id>? AND to_id<?)"]),
    # in an AND, the first non-tier tag/edge term drives and the others probe per row
    ("tag:tier:off-context tag:project:auth", ["LIST SUBQUERY",
                                               "SEARCH t USING COVERING INDEX tags_by_tag (tag=?)",
                                               "SEARCH t USING PRIMARY KEY (node_id=? AND tag=?)"]),
    ("to:01HQ tag:a", ["SEARCH e USING COVERING INDEX edges_by_to (to_id>? AND to_id<?)",
                       "SEARCH t USING PRIMARY KEY (node_id=? AND tag=?)"]),
])
def test_plans_use_the_indexes(store, q, expected):
    got = plan(store, q)
    for line in expected:
        assert line in got, got
    assert "SCAN n\n" not in got + "\n"


def test_one_list_per_and():
    cq = compile_query("tag:tier:working tag:project:api to:01HQ")
    assert cq.where.count("IN (SELECT") == 1
    assert "n.id IN (SELECT t.node_id FROM tags t WHERE t.tag = ?)" in cq.where
    assert cq.params[:1] == ["tier:working"]  # SQL order follows the query; project:api drives
    assert cq.where.index("n.id IN (SELECT") > cq.where.index("EXISTS")
    cq = compile_query("tag:tier:working tag:tier:pinned")
    assert cq.where == ("(n.id IN (SELECT t.node_id FROM tags t WHERE t.tag = ?) AND "
                        "EXISTS (SELECT 1 FROM tags t WHERE t.node_id = n.id AND t.tag = ?))")


def test_plans_use_the_indexes_at_scale(tmp_path):
    """On 3,000 nodes with statistics, a rare tag is found through tags_by_tag, not a scan."""
    conn = db.connect(tmp_path / "big.db")
    rows = [(f"01HQ{i:022d}", "fact", f"note {i}", "{}", 2, "2026-01-01T00:00:00.000Z",
             "2026-01-01T00:00:00.000Z") for i in range(3000)]
    with db.transaction(conn):
        conn.executemany("INSERT INTO nodes (id, type, content, metadata, token_estimate, "
                         "created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
        conn.executemany("INSERT INTO tags VALUES (?, ?)",
                         [(r[0], "tier:pinned" if i % 100 == 0 else "tier:off-context")
                          for i, r in enumerate(rows)])
    conn.execute("ANALYZE")
    s = Store(conn)
    got = plan(s, "tag:tier:pinned", "ORDER BY n.id")
    assert "tags_by_tag (tag=?)" in got and "SCAN n" not in got, got
    assert len(s.query("tag:tier:pinned")) == 30
    conn.close()


def test_compile_errors_are_query_syntax_errors():
    with pytest.raises(QuerySyntaxError):
        compile_query("type:fact AND")


@pytest.mark.parametrize("q, expected", [
    ("oauth & pkce", {A}),
    ("oauth - pkce", {A}),
    ('"token bucket" -- "..."', {C}),
    ("oauth -& type:fact", {A}),
    ("& type:fact", {A}),
    ("&", set()),
    ("& OR oauth", {A, D}),
])
def test_punctuation_words_do_not_empty_an_and(store, q, expected):
    assert ids(store, q) == expected


def test_module_example_holds():
    import doctest

    import ctx.query

    assert doctest.testmod(ctx.query).failed == 0
