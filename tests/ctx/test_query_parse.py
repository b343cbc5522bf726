"""The query language's grammar: every construct, precedence, round trips and errors."""
from __future__ import annotations

from datetime import UTC, datetime

import pytest

from ctx.core.errors import QuerySyntaxError
from ctx.query import (
    MAX_DEPTH,
    MAX_TERMS,
    And,
    Date,
    Has,
    IdPrefix,
    LinkedFrom,
    LinkedTo,
    Not,
    Or,
    Tag,
    Text,
    Tokens,
    Type,
    caret,
    looks_like_query,
    parse,
)

NOW = datetime(2026, 3, 14, 15, 9, 26, 535000, tzinfo=UTC)


def p(q):
    return parse(q, now=NOW)


def T(word, prefix=False):
    return Text(word, prefix)


@pytest.mark.parametrize("query, expected", [
    ("type:fact", Type("fact")),
    ("type:Open-Question", Type("open-question")),
    ("TYPE:decision", Type("decision")),
    ("tag:auth", Tag("auth")),
    ("tag:tier:pinned", Tag("tier:pinned")),
    ("tag:task:auth:v2", Tag("task:auth:v2")),
    ('tag:"a b"', Tag("a b")),
    ('tag:"say \\"hi\\" \\\\ ok"', Tag('say "hi" \\ ok')),
    ('tag:"task:*"', Tag("task:*")),
    ("tag:task:*", Tag("task:", prefix=True)),
    ("tag:*", Tag("", prefix=True)),
    ("id:01hq4", IdPrefix("01HQ4")),
    ("from:01HQ4", LinkedFrom("01HQ4")),
    ("to:01hq4abc", LinkedTo("01HQ4ABC")),
    ("has:edges", Has("edges")),
    ("has:TAGS", Has("tags")),
    ("tokens:<500", Tokens("<", 500)),
    ("tokens:<=500", Tokens("<=", 500)),
    ("tokens:>0", Tokens(">", 0)),
    ("tokens:>=12", Tokens(">=", 12)),
    ("tokens:=7", Tokens("=", 7)),
    ("tokens:7", Tokens("=", 7)),
    ("oauth", T("oauth")),
    ('"refresh tokens"', T("refresh tokens")),
    ('"AND"', T("AND")),
    ('"type:fact"', T("type:fact")),
    ("auth*", T("auth", prefix=True)),
    ("*", T("*")),
    ("a-b", T("a-b")),
    ("2026-01-01", T("2026-01-01")),
    ("12:30", T("12:30")),
    ("naïve", T("naïve")),
    ("-", T("-")),
])
def test_terms(query, expected):
    assert p(query) == expected


DAY = ("2026-01-01T00:00:00.000Z", "2026-01-02T00:00:00.000Z")


@pytest.mark.parametrize("query, op, start, end", [
    ("created:2026-01-01", "=", *DAY),
    ("created:=2026-01-01", "=", *DAY),
    ("created:>2026-01-01", ">", *DAY),
    ("created:>=2026-01-01", ">=", *DAY),
    ("created:<2026-01-01", "<", *DAY),
    ("created:<=2026-01-01", "<=", *DAY),
    ("created:2026", "=", "2026-01-01T00:00:00.000Z", "2027-01-01T00:00:00.000Z"),
    ("created:2026-12", "=", "2026-12-01T00:00:00.000Z", "2027-01-01T00:00:00.000Z"),
    ("created:2026-02", "=", "2026-02-01T00:00:00.000Z", "2026-03-01T00:00:00.000Z"),
    ("created:2026-02-28T23:59", "=", "2026-02-28T23:59:00.000Z", "2026-03-01T00:00:00.000Z"),
    ("created:2026-02-28t10:00:05z", "=", "2026-02-28T10:00:05.000Z", "2026-02-28T10:00:06.000Z"),
    ("created:2026-02-28T10:00:05.25", "=", "2026-02-28T10:00:05.250Z", "2026-02-28T10:00:05.251Z"),
    ("created:2026-02-28T01:30+02:00", "=", "2026-02-27T23:30:00.000Z", "2026-02-27T23:31:00.000Z"),
    ("created:2026-02-28T01:30-0130", "=", "2026-02-28T03:00:00.000Z", "2026-02-28T03:01:00.000Z"),
    ("created:9999-12-31", "=", "9999-12-31T00:00:00.000Z", "9999-12-31T24:00:00.000Z"),
    ("created:9999", "=", "9999-01-01T00:00:00.000Z", "9999-12-31T24:00:00.000Z"),
    ("created:today", "=", "2026-03-14T00:00:00.000Z", "2026-03-15T00:00:00.000Z"),
    ("created:>=Yesterday", ">=", "2026-03-13T00:00:00.000Z", "2026-03-14T00:00:00.000Z"),
    # relative values are instants; bare ones mean "since then"
    ("created:7d", ">=", "2026-03-07T15:09:26.535Z", "2026-03-07T15:09:26.535Z"),
    ("created:=7d", ">=", "2026-03-07T15:09:26.535Z", "2026-03-07T15:09:26.535Z"),
    ("created:<12h", "<", "2026-03-14T03:09:26.535Z", "2026-03-14T03:09:26.535Z"),
    ("created:>2W", ">", "2026-02-28T15:09:26.535Z", "2026-02-28T15:09:26.535Z"),
    ("created:<now", "<", "2026-03-14T15:09:26.535Z", "2026-03-14T15:09:26.535Z"),
])
def test_dates(query, op, start, end):
    e = p(query)
    assert e == Date("created", op, start, end)
    assert p("updated" + query[7:]) == Date("updated", op, start, end)


def test_relative_dates_count_back_from_now_by_default():
    e = parse("updated:1h")
    assert isinstance(e, Date) and e.op == ">="
    now = datetime.now(UTC)
    then = datetime.strptime(e.start, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
    assert abs((now - then).total_seconds() - 3600) < 60


@pytest.mark.parametrize("query, expected", [
    # implicit AND between adjacent terms, explicit AND, case-insensitive keywords
    ("a b", And((T("a"), T("b")))),
    ("a AND b", And((T("a"), T("b")))),
    ("a and b And c", And((T("a"), T("b"), T("c")))),
    ("a or b", Or((T("a"), T("b")))),
    ("not a", Not(T("a"))),
    ("-a", Not(T("a"))),
    ("-tag:x", Not(Tag("x"))),
    ('-"a b"', Not(T("a b"))),
    ("- a", And((T("-"), T("a")))),
    ("NOT NOT a", Not(Not(T("a")))),
    ("--a", Not(Not(T("a")))),
    # AND binds tighter than OR; NOT tighter than AND
    ("a OR b c", Or((T("a"), And((T("b"), T("c")))))),
    ("a b OR c", Or((And((T("a"), T("b"))), T("c")))),
    ("a OR b AND c OR d", Or((T("a"), And((T("b"), T("c"))), T("d")))),
    ("NOT a b", And((Not(T("a")), T("b")))),
    ("NOT a OR b", Or((Not(T("a")), T("b")))),
    ("a NOT b", And((T("a"), Not(T("b"))))),
    # parentheses
    ("(a OR b) c", And((Or((T("a"), T("b"))), T("c")))),
    ("NOT (a OR b)", Not(Or((T("a"), T("b"))))),
    ("-(a b)", Not(And((T("a"), T("b"))))),
    ("((a))", T("a")),
    ("(a)(b)", And((T("a"), T("b")))),
    ("(tag:x)", Tag("x")),
    ("a (b OR c) AND d", And((T("a"), Or((T("b"), T("c"))), T("d")))),
    ('type:fact"x"', And((Type("fact"), T("x")))),
    ("type:decision (tag:tier:pinned OR tag:tier:reference) -oauth",
     And((Type("decision"), Or((Tag("tier:pinned"), Tag("tier:reference"))), Not(T("oauth"))))),
])
def test_operators_and_precedence(query, expected):
    assert p(query) == expected


@pytest.mark.parametrize("query", [
    "a b", "a OR b c", "(a OR b) c", "NOT (a b)", "(a b) c", "a OR (b OR c)", "NOT NOT a",
    'tag:"a b" tag:tier:pinned tag:x* "AND" "x:y" "-z" "a*" "\\\\" \'q\'',
    "created:>2026-01-01 updated:<=7d created:today tokens:<=500 tokens:3",
    "id:01HQ from:01A to:01B has:edges has:tags type:open-question",
    'naïve "日本語 テキスト" a-b 12:30 auth* *',
])
def test_str_round_trips(query):
    e = p(query)
    assert p(str(e)) == e


def test_str_is_canonical():
    assert str(p("a b or -c")) == "a AND b OR NOT c"
    assert str(p("(a or b) c")) == "(a OR b) AND c"
    assert str(p('tag:"a b" type:Fact created:7d')) == 'tag:"a b" AND type:fact AND created:>=7d'


def err(query):
    with pytest.raises(QuerySyntaxError) as info:
        p(query)
    return info.value


@pytest.mark.parametrize("query, column, words, expected", [
    ("", 1, "expected a term, found an empty query", "a term"),
    ("   ", 1, "expected a term, found an empty query", "a term"),
    ("a AND", 6, "expected a term after AND, found end of query", "a term"),
    ("oauth AND OR x", 11, "expected a term after AND, found OR", "a term"),
    ("a OR", 5, "expected a term after OR, found end of query", "a term"),
    ("OR a", 1, "expected a term, found OR", "a term"),
    ("AND", 1, "expected a term, found AND", "a term"),
    ("NOT", 4, "expected a term after NOT, found end of query", "a term"),
    ("a NOT )", 7, "expected a term after NOT, found ')'", "a term"),
    ("-AND", 2, "expected a term after '-', found AND", "a term"),
    ("()", 2, "expected a term after '(', found ')'", "a term"),
    ("(a", 3, "expected ')' to close the '(' at column 1, found end of query", "')'"),
    ("(a OR (b)", 10, "expected ')' to close the '(' at column 1", "')'"),
    ("a)", 2, "found ')' with no '(' before it", "a term, AND, OR or end of query"),
    ('"abc', 1, "expected a closing '\"' for the quote opened here, found end of query",
     "a closing '\"'"),
    ('tag:"abc', 5, "expected a closing '\"'", "a closing '\"'"),
    ("foo:bar", 1, ("unknown field 'foo:'; known fields are type:, tag:, id:, created:, "
                    "updated:, tokens:, has:, from:, to:"), "a known field"),
    ("a http://x", 3, "unknown field 'http:'", "a known field"),
    ("tag:", 5, "expected a value right after tag:, found end of query", "a value for tag:"),
    ("tag: x", 5, "expected a value right after tag:, found 'x'", "a value for tag:"),
    ("(type:)", 7, "expected a value right after type:, found ')'", "a value for type:"),
    ('tag:""', 5, "expected a tag inside the quotes", "a tag"),
    ("type:facts", 6, "unknown node type 'facts'; expected one of fact, decision", "a node type"),
    ("id:01-HQ", 4, "expected an id or id prefix (letters and digits) after id:, found '01-HQ'",
     "an id prefix"),
    ("from:é", 6, "after from:", "an id prefix"),
    ("to:*", 4, "after to:", "an id prefix"),
    ("has:friends", 5, "expected edges or tags after has:, found 'friends'", "edges or tags"),
    ("tokens:<", 9, "expected a whole number of tokens after tokens:<, found nothing", "a number"),
    ("tokens:lots", 8, "found 'lots'", "a number"),
    ("tokens:>-5", 9, "found '-5'", "a number"),
    ("tokens:1.5", 8, "found '1.5'", "a number"),
    ("tokens:٣", 8, "found '٣'", "a number"),
    ("tokens:99999999999999999999", 8, "the number 99999999999999999999 is too large",
     "a smaller number"),
    ("created:>", 10, ("expected a date like 2026-01-31, 2026-01-31T09:30, today, 7d, 12h or "
                       "2w after created:>, found nothing"), "a date"),
    ("created:2026-13-01", 9, "found '2026-13-01'", "a date"),
    ("created:2026-02-30", 9, "found '2026-02-30'", "a date"),
    ("created:0000-01-01", 9, "found '0000-01-01'", "a date"),
    ("updated:<=26-01-01", 11, "after updated:<=, found '26-01-01'", "a date"),
    ("created:2026-01-01T25:00", 9, "found", "a date"),
    ("created:2026-01-01T10:00+24:00", 9, "found", "a date"),
    ("created:0001-01-01T00:00+01:00", 9, "found", "a date"),
    ("created:999999999w", 9, "found '999999999w'", "a date"),
    ("created:7y", 9, "found '7y'", "a date"),
    ("created:٢٠٢٦-01-01", 9, "found '٢٠٢٦-01-01'", "a date"),
    ("a \udcff", 3, "the query is not valid UTF-8 text", "text"),
])
def test_errors_name_the_column_and_what_was_expected(query, column, words, expected):
    e = err(query)
    assert str(e).startswith(f"query syntax error at column {column}: ")
    assert words in str(e)
    assert e.position == column - 1
    assert e.expected == expected
    assert "\n" not in str(e)


def test_limits_are_syntax_errors_not_crashes():
    deep = "(" * (MAX_DEPTH + 1) + "a" + ")" * (MAX_DEPTH + 1)
    assert "nests parentheses and NOTs more than" in str(err(deep))
    assert "more than" in str(err("NOT " * (MAX_DEPTH + 1) + "a"))
    assert p("(" * MAX_DEPTH + "a" + ")" * MAX_DEPTH) == T("a")
    e = err(" ".join(f"w{i}" for i in range(MAX_TERMS + 1)))
    assert f"more than {MAX_TERMS} terms" in str(e)
    assert e.position == len(" ".join(f"w{i}" for i in range(MAX_TERMS))) + 1
    assert len(p(" ".join(f"w{i}" for i in range(MAX_TERMS))).items) == MAX_TERMS


def test_caret_points_at_the_error():
    q = "type:fact AND"
    e = err(q)
    assert caret(q, e.position) == "  type:fact AND\n               ^"


def test_parse_rejects_non_strings():
    with pytest.raises(TypeError):
        parse(b"type:fact")


@pytest.mark.parametrize("text, expected", [
    ("type:fact", True),
    ("Tag:tier:pinned", True),
    ("-tag:x oauth", True),
    ("(from:01HQ)", True),
    ("oauth OR pkce", True),
    ("NOT oauth", True),
    ("how does oauth work", False),
    ("salt and pepper or not", False),
    ("TODO: fix the login", False),  # not a field of ours
    ('what did "we decide', False),  # unbalanced quote: plain words
    ("", False),
])
def test_looks_like_query(text, expected):
    assert looks_like_query(text) is expected
