"""Compile a query Expr into a parameterised SQL boolean expression over `nodes n`.

No user text is ever put into the SQL itself: every value is a `?` parameter, and
full-text values become FTS5 string literals (each token quoted, inner quotes doubled), so
no input can make an FTS5 syntax error. Shapes are chosen so SQLite can use the indexes:
tag, edge and full-text terms are `n.id IN (SELECT …)` / `n.seq IN (SELECT …)` (the
subquery reads `tags_by_tag`, the edges primary key or `edges_by_to`, and its rows drive
lookups on `nodes`); under a NOT, and for all but one such term of an AND, tag and edge
terms are correlated EXISTS probes instead; ORed tags and types collapse into one `IN (…)`
list, and ANDed or ORed words collapse into one FTS5 MATCH. The superseded filter is the
caller's (best written `+n.superseded_by IS NULL`: the unary + keeps SQLite from choosing
that nearly-all-rows index when it has no statistics).
"""
from __future__ import annotations

from ctx.query.expr import (
    And,
    Date,
    Expr,
    Global,
    Has,
    IdPrefix,
    InProject,
    LinkedFrom,
    LinkedTo,
    Not,
    Or,
    Tag,
    Text,
    Tokens,
    Type,
)
from cuectx.value import Value


class CompiledQuery(Value):
    __slots__ = ("params", "where")

    def __init__(self, where: str, params: list | None = None) -> None:
        self.where = where  # a parenthesised boolean SQL expression over `nodes n`
        self.params = [] if params is None else params


def compile_expr(expr: Expr) -> CompiledQuery:
    params: list = []
    return CompiledQuery(f"({_sql(_prune(expr), params, False)})", params)


def _prune(e: Expr) -> Expr:
    """Drop words with nothing to search for (`&`, `--`: ASCII punctuation, which the FTS5
    tokenizer discards) from AND groups: FTS5 would match no row at all for them."""
    if isinstance(e, Not):
        return Not(_prune(e.item))
    if isinstance(e, Or):
        return Or(tuple(_prune(i) for i in e.items))
    if isinstance(e, And):
        kept = [_prune(i) for i in e.items
                if not _blank(i) and not (isinstance(i, Not) and _blank(i.item))]
        if not kept:
            return e
        return kept[0] if len(kept) == 1 else And(tuple(kept))
    return e


def _blank(e: Expr) -> bool:
    return isinstance(e, Text) and e.text.isascii() and not any(c.isalnum() for c in e.text)


_FTS = "n.seq IN (SELECT rowid FROM nodes_fts WHERE nodes_fts MATCH ?)"
_DATE_COLUMN = {"created": "n.created_at", "updated": "n.updated_at"}


def _sql(e: Expr, p: list, probe: bool) -> str:
    """SQL for `e`. `probe`: the term can only filter rows found some other way (it is
    under a NOT, or another term drives), so tag and edge terms become correlated EXISTS
    probes of one index entry instead of `IN (SELECT …)` lists that SQLite would build in
    full (all of tier:off-context, say). Full text stays a list: probing FTS5 per row is
    far slower."""
    match = fts_query(e)
    if match is not None:
        p.append(match)
        return _FTS
    if isinstance(e, And):
        return _and(e.items, p, probe)
    if isinstance(e, Or):
        return _or(e.items, p, probe)
    if isinstance(e, Not):
        return f"NOT ({_sql(e.item, p, True)})"
    if isinstance(e, Type):
        p.append(e.name)
        return "n.type = ?"
    if isinstance(e, Tag):
        if not e.prefix:
            p.append(e.tag)
            return _tags("t.tag = ?", probe)
        return _tags(_range("t.tag", e.tag, p), probe)
    if isinstance(e, IdPrefix):
        return f"({_range('n.id', e.prefix, p)})"  # parenthesised: self-contained
    if isinstance(e, Date):
        return _date(e, p)
    if isinstance(e, Tokens):
        p.append(e.count)
        return f"n.token_estimate {e.op} ?"
    if isinstance(e, Has):
        if e.what == "tags":
            return "EXISTS (SELECT 1 FROM tags t WHERE t.node_id = n.id)"
        return ("(EXISTS (SELECT 1 FROM edges e WHERE e.from_id = n.id) OR "
                "EXISTS (SELECT 1 FROM edges e WHERE e.to_id = n.id))")
    if isinstance(e, LinkedFrom):  # an edge from <prefix> to n
        cond = _range("e.from_id", e.prefix, p)
        if probe:
            return f"EXISTS (SELECT 1 FROM edges e WHERE e.to_id = n.id AND {cond})"
        return f"n.id IN (SELECT e.to_id FROM edges e WHERE {cond})"
    if isinstance(e, LinkedTo):  # an edge from n to <prefix>
        cond = _range("e.to_id", e.prefix, p)
        if probe:
            return f"EXISTS (SELECT 1 FROM edges e WHERE e.from_id = n.id AND {cond})"
        return f"n.id IN (SELECT e.from_id FROM edges e WHERE {cond})"
    if isinstance(e, InProject):
        p.append(e.name)
        if probe:  # EXISTS is never NULL, so NOT project:x keeps global nodes
            return "EXISTS (SELECT 1 FROM projects p WHERE p.id = n.project_id AND p.name = ?)"
        return "n.project_id IN (SELECT p.id FROM projects p WHERE p.name = ?)"
    if isinstance(e, Global):
        return "n.project_id IS NULL"
    raise TypeError(f"not a query expression: {e!r}")


def _tags(cond: str, probe: bool) -> str:
    if probe:
        return f"EXISTS (SELECT 1 FROM tags t WHERE t.node_id = n.id AND {cond})"
    return f"n.id IN (SELECT t.node_id FROM tags t WHERE {cond})"


def _and(items: tuple[Expr, ...], p: list, probe: bool) -> str:
    words = [fts_query(i) for i in items]
    positive = [w for w in words if w is not None]
    negative: list[str] = []
    rest: list[Expr] = []
    for item, word in zip(items, words):
        if word is not None:
            continue
        not_word = fts_query(item.item) if isinstance(item, Not) and positive else None
        if not_word is not None:
            negative.append(not_word)
        else:
            rest.append(item)
    parts = []
    if positive:
        p.append(_fts_and(positive, negative))
        parts.append(_FTS)
    # SQLite drives the search from the first `IN (SELECT …)` list and builds every later
    # list in full just to test membership; so only one tag/edge term stays a list and the
    # others probe their index once per candidate row. The one kept is the first in the
    # user's order that is not a tier tag: the four tiers split the whole store, so a
    # tier is rarely the narrowest term.
    linked = [i for i in rest if isinstance(i, (Tag, LinkedFrom, LinkedTo))]
    drivers = [i for i in linked if not (isinstance(i, Tag) and i.tag.startswith("tier:"))]
    driver = None if probe or not linked else (drivers or linked)[0]
    for item in rest:
        if isinstance(item, Or):  # OR binds looser than AND: only OR groups need parentheses
            parts.append(f"({_sql(item, p, probe)})")
        else:
            parts.append(_sql(item, p, probe or (item in linked and item is not driver)))
    return " AND ".join(parts)


def _or(items: tuple[Expr, ...], p: list, probe: bool) -> str:
    words = [w for w in map(fts_query, items) if w is not None]
    tags = [i.tag for i in items if isinstance(i, Tag) and not i.prefix]
    types = [i.name for i in items if isinstance(i, Type)]
    parts = []
    if words:
        p.append(words[0] if len(words) == 1 else "(" + " OR ".join(words) + ")")
        parts.append(_FTS)
    if tags:
        p.extend(tags)
        parts.append(_tags(_in("t.tag", len(tags)), probe))
    if types:
        p.extend(types)
        parts.append(_in("n.type", len(types)))
    for item in items:
        merged = isinstance(item, Type) or (isinstance(item, Tag) and not item.prefix)
        if not merged and fts_query(item) is None:
            parts.append(_sql(item, p, probe))  # AND binds tighter and OR is associative
    return " OR ".join(parts)


def _in(column: str, count: int) -> str:
    return f"{column} = ?" if count == 1 else f"{column} IN ({', '.join('?' * count)})"


def _date(e: Date, p: list) -> str:
    col = _DATE_COLUMN[e.field]
    if e.op == "=":
        p.extend((e.start, e.end))
        return f"({col} >= ? AND {col} < ?)"
    op, bound = {">": (">=", e.end), ">=": (">=", e.start), "<": ("<", e.start),
                 "<=": ("<", e.end)}[e.op]
    p.append(bound)
    return f"{col} {op} ?"


def _range(column: str, prefix: str, p: list) -> str:
    """`column` starts with `prefix`, as a range an index can seek (BINARY collation
    orders UTF-8 by code point, so every such string sorts below `successor(prefix)`)."""
    p.append(prefix)
    upper = successor(prefix)
    if upper is None:
        return f"{column} >= ?"
    p.append(upper)
    return f"{column} >= ? AND {column} < ?"


def successor(prefix: str) -> str | None:
    """The least string greater than every string that starts with `prefix` (None: no bound)."""
    chars = list(prefix)
    while chars:
        code = ord(chars.pop()) + 1
        if code <= 0x10FFFF:
            if 0xD800 <= code <= 0xDFFF:
                code = 0xE000  # surrogates cannot be stored as UTF-8 text
            return "".join(chars) + chr(code)
    return None


# --- full text ---------------------------------------------------------------------------

# FTS5's query parser has a fixed stack (about 100 entries; a nested "x" OR (…) uses 3), so
# word groups nested deeper than this are split into separate MATCH subqueries instead.
FTS_MAX_NESTING = 8


def fts_query(e: Expr) -> str | None:
    """An FTS5 query for `e` if it is made of words alone (else None)."""
    built = _fts(e)
    return None if built is None else built[0]


def _fts(e: Expr) -> tuple[str, int] | None:
    """(FTS5 query, parenthesis nesting) for a words-only `e`, or None."""
    if isinstance(e, Text):
        return fts_phrase(e.text) + (" *" if e.prefix else ""), 0
    if isinstance(e, Or):
        parts = [_fts(i) for i in e.items]
        if None in parts:
            return None
        return _nest("(" + " OR ".join(q for q, _ in parts) + ")", parts)
    if isinstance(e, And):
        positive = [_fts(i) for i in e.items if not isinstance(i, Not)]
        negative = [_fts(i.item) for i in e.items if isinstance(i, Not)]
        if not positive or None in positive or None in negative:
            return None
        return _nest(_fts_and([q for q, _ in positive], [q for q, _ in negative]),
                     positive + negative)
    return None


def _nest(query: str, parts: list[tuple[str, int]]) -> tuple[str, int] | None:
    depth = 1 + max(d for _, d in parts)
    return (query, depth) if depth <= FTS_MAX_NESTING else None


def _fts_and(positive: list[str], negative: list[str]) -> str:
    """(P1 AND P2 … NOT N1 NOT N2 …): FTS5's NOT is a left-associative binary operator,
    so a flat chain needs no extra nesting."""
    if len(positive) == 1 and not negative:
        return positive[0]
    out = " AND ".join(positive)
    return "(" + out + "".join(f" NOT {n}" for n in negative) + ")"


def fts_phrase(text: str) -> str:
    """`text` as one FTS5 string (a phrase of its tokens): quotes doubled, NULs (which end
    an FTS5 string early) turned into spaces, which the tokenizer skips anyway."""
    return '"' + text.replace('"', '""').replace("\x00", " ") + '"'
