"""Property tests: no input makes the query language fail with anything but a
QuerySyntaxError, and whatever compiles runs against a real database."""
from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from ctx.core import db
from ctx.core.errors import QuerySyntaxError
from ctx.core.store import Store
from ctx.query import MAX_DEPTH, MAX_TERMS, compile_expr, parse

NOW = datetime(2026, 3, 14, 12, 0, tzinfo=UTC)

VOCAB = [
    "AND", "OR", "NOT", "and", "Or", "not", "(", ")", "-", '"', '\\"', "\\", ":", "*", "'",
    "type:", "type:fact", "type:OPEN-QUESTION", "type:nope", "tag:", "tag:tier:pinned",
    'tag:"a b"', "tag:*", "tag:task:*", "tag:-x", "id:", "id:01hq", "from:01HQ", "to:0",
    "has:edges", "has:tags", "has:x", "created:", "updated:", "tokens:", ">", "<", ">=", "<=",
    "=", "2026-01-01", "2026-13-40", "2026", "2026-02", "T10:00", "T23:59:59.999", "+02:00",
    "Z", "7d", "12h", "2w", "999999999w", "today", "now", "500", "-5", "1.5",
    "99999999999999999999999", "oauth", "token", "tok*", "naïve", "café", "日本語", "🙂", "é",
    "\x00", "\udcff", "\u0301", "NEAR", "^", "{", "}", ";", "--", "/*", "foo:", "http://x",
    "col:", "a:b:c", "*a", "\u3000", "\u2028",
    "project:", "project:api", "project:API", 'project:"a b"', "project:*", "project:nope",
    "scope:", "scope:global", "scope:GLOBAL", "scope:project", "-project:api", "-scope:global",
]
SEPARATORS = ["", " ", "  ", "\t", "\n"]

soup = st.lists(st.tuples(st.sampled_from(VOCAB), st.sampled_from(SEPARATORS)), max_size=14).map(
    lambda parts: "".join(word + sep for word, sep in parts))
LEAVES = ["oauth", "tok*", '"a b"', "caf\u00e9", "tag:x", "tag:task:*", "type:fact",
          "created:7d", "updated:<2026", "id:0", "from:01", "to:0", "has:edges", "tokens:<5",
          "project:api", 'project:"x y"', "scope:global"]
# Well-formed queries, often long and deeply nested: they reach the size limits and the
# SQL/FTS5 shapes that only deep structure produces.
trees = st.recursive(
    st.sampled_from(LEAVES),
    lambda inner: st.one_of(
        st.lists(inner, min_size=2, max_size=5).map(" ".join),
        st.lists(inner, min_size=2, max_size=5).map(" OR ".join),
        inner.map("({})".format),
        inner.map("-({})".format),
        inner.map("NOT {}".format),
    ),
    max_leaves=40,
)
anything = st.text(st.characters(codec=None, categories=None), max_size=60)


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    conn = db.connect(tmp_path_factory.mktemp("fuzz") / "f.db")
    s = Store(conn)
    a = s.add("The API uses OAuth 2.0 with PKCE; naïve café 日本語 token bucket", "fact",
              ["tier:pinned", "task:x"], created_at="2026-01-01T00:00:00.000Z")
    b = s.add("Refresh tokens are stored server-side only.", "decision", ["tier:working"])
    s.link(a.id, b.id, "DEPENDS_ON")
    conn.execute("INSERT INTO projects (key, name, created_at, last_active_at) "
                 "VALUES ('github.com/acme/api', 'api', '2026', '2026')")
    s.add("Deploys go through the api pipeline", "fact", ["tier:reference"], project_id=1)
    yield s
    conn.close()


def check(store, q: str) -> None:
    try:
        expr = parse(q, now=NOW)
    except QuerySyntaxError as e:
        assert str(e).startswith(f"query syntax error at column {e.position + 1}: ")
        assert 0 <= e.position <= len(q)
        assert str(e).isprintable()  # one line, no terminal escapes from the query
        assert e.expected
        return
    # The canonical text parses back to the same expression...
    assert parse(str(expr), now=NOW) == expr, str(expr)
    # ...and the SQL runs (no SQL, FTS5, binding or limit errors).
    cq = compile_expr(expr)
    assert "?" in cq.where or cq.params == []
    store.select(cq.where, cq.params)
    store.select(cq.where, cq.params, include_superseded=True)


FUZZ = settings(max_examples=400, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])


@FUZZ
@given(soup)
@example("tag:tier:pinned OR (oauth -tok* created:>2026-01-01) tokens:<500")
@example('"\\')
@example('type:"\x1b[31m\nfact"')
@example("-" * 40 + "a")
def test_token_soup(store, q):
    check(store, q)


@FUZZ
@given(anything)
def test_arbitrary_text(store, q):
    check(store, q)


def _nested(step, depth=MAX_DEPTH):
    q = "end"
    for i in range(depth):
        q = step(q, i)
    return q


WORST = [
    _nested(lambda q, i: f"w{i} OR (x{i} {q})"),  # words nested as deep as allowed
    _nested(lambda q, i: f"(w{i} OR x{i} {q})"),
    _nested(lambda q, i: f"(tag:t{i} OR type:fact w{i} {q})"),
    _nested(lambda q, i: f"NOT {q}"),
    _nested(lambda q, i: f"-({q} w{i})", MAX_DEPTH // 2),
    "a " + " ".join(f"-w{i}" for i in range(MAX_TERMS - 1)),
    " OR ".join(f"tag:t{i}*" for i in range(MAX_TERMS)),
    " ".join(f"(to:0{i % 10} OR -has:edges)" for i in range(MAX_TERMS // 2)),
    " OR ".join(f"(w{i} created:>2026-01-0{i % 9 + 1})" for i in range(MAX_TERMS // 2)),
    " ".join(f"-project:p{i}" for i in range(MAX_TERMS)),
    _nested(lambda q, i: f"(project:p{i} OR scope:global {q})"),
]


@pytest.mark.parametrize("q", WORST)
def test_queries_at_the_limits_run(store, q):
    parse(q, now=NOW)  # within the limits: no syntax error
    check(store, q)


@settings(max_examples=120, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(trees)
def test_well_formed_trees(store, q):
    check(store, q)


@pytest.mark.parametrize("q, expected", [
    ("project:api", {"api"}),
    ("project:API", {"api"}),  # names are case-insensitive
    ("scope:global", {"global"}),
    ("project:api OR scope:global", {"api", "global"}),
    ("-project:api", {"global"}),  # NOT keeps global nodes (never NULL)
    ("-scope:global", {"api"}),
    ("project:nope", set()),
    ("-project:nope", {"api", "global"}),
])
def test_project_and_scope_terms_select_by_scope(store, q, expected):
    cq = compile_expr(parse(q, now=NOW))
    got = {n.project or "global" for n in store.select(cq.where, cq.params)}
    assert got == expected
