"""ctx's query language: `parse()` text into an Expr, `compile_query()` it into SQL.

    >>> compile_query("type:decision tag:tier:pinned").where
    '(n.type = ? AND n.id IN (SELECT t.node_id FROM tags t WHERE t.tag = ?))'

The grammar is in `ctx.query.parser`, the fields in `ctx.query.fields`.
"""
from __future__ import annotations

from datetime import datetime

from ctx.core.errors import QuerySyntaxError
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
    names_scope,
)
from ctx.query.fields import FIELDS
from ctx.query.lexer import FIELD, KEYWORDS, tokenize
from ctx.query.parser import MAX_DEPTH, MAX_TERMS, parse
from ctx.query.sql import CompiledQuery, compile_expr

__all__ = [
    "FIELDS",
    "MAX_DEPTH",
    "MAX_TERMS",
    "And",
    "CompiledQuery",
    "Date",
    "Expr",
    "Global",
    "Has",
    "IdPrefix",
    "InProject",
    "LinkedFrom",
    "LinkedTo",
    "Not",
    "Or",
    "Tag",
    "Text",
    "Tokens",
    "Type",
    "caret",
    "compile_expr",
    "compile_query",
    "looks_like_query",
    "names_scope",
    "parse",
]


def compile_query(src: str, *, now: datetime | None = None) -> CompiledQuery:
    """Parse and compile query text: `SELECT … FROM nodes n WHERE <where>` with `params`.
    Raises ctx.core.errors.QuerySyntaxError."""
    return compile_expr(parse(src, now=now))


def caret(src: str, position: int) -> str:
    """Two lines for people: the query, and a `^` under `position` (0-based offset)."""
    line = " ".join(src.splitlines()) if "\n" in src or "\r" in src else src
    return f"  {line}\n  {' ' * position}^"


def looks_like_query(text: str) -> bool:
    """Is `text` written in the query language rather than plain words? True when it has a
    known `field:` or an upper-case AND / OR / NOT ("salt and pepper" stays plain)."""
    try:
        tokens = tokenize(text)
    except QuerySyntaxError:
        return False
    return any((t.kind == FIELD and t.field in FIELDS) or (t.kind in KEYWORDS and t.text in KEYWORDS)
               for t in tokens)
