"""The query AST: small frozen dataclasses. `str(expr)` is canonical query text that
parses back to an equal expression (relative dates stay relative)."""
from __future__ import annotations

from dataclasses import dataclass, field


def quote(s: str) -> str:
    """`s` as a query string literal."""
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _bare_value(s: str) -> bool:
    """Would `s` lex back unchanged as a bare field value?"""
    return bool(s) and not any(c.isspace() or c in '()"\\' for c in s)


class Expr:
    __slots__ = ()


@dataclass(frozen=True)
class Text(Expr):
    """Full-text: a bare word or a quoted phrase (the same to FTS5: a phrase of the
    tokens in `text`); `prefix` for a bare `word*`, matching tokens that start so."""
    text: str
    prefix: bool = False

    def __str__(self) -> str:
        if self.prefix:
            return self.text + "*"
        if (not _bare_value(self.text) or self.text.startswith("-") or ":" in self.text
                or self.text.upper() in ("AND", "OR", "NOT") or self.text.endswith("*")):
            return quote(self.text)
        return self.text


@dataclass(frozen=True)
class Type(Expr):
    name: str

    def __str__(self) -> str:
        return f"type:{self.name}"


@dataclass(frozen=True)
class Tag(Expr):
    """Exact tag, or every tag starting with `tag` when `prefix` (`tag:task:*`)."""
    tag: str
    prefix: bool = False

    def __str__(self) -> str:
        if self.prefix:
            return f"tag:{self.tag}*"
        if _bare_value(self.tag) and not self.tag.endswith("*"):
            return f"tag:{self.tag}"
        return f"tag:{quote(self.tag)}"


@dataclass(frozen=True)
class IdPrefix(Expr):
    prefix: str  # upper-case

    def __str__(self) -> str:
        return f"id:{self.prefix}"


@dataclass(frozen=True)
class Date(Expr):
    """`created`/`updated` compared with the interval [start, end) that `text` names
    (a year, month, day, minute, second or millisecond; relative values are instants)."""
    field: str  # "created" | "updated"
    op: str  # "=", ">", ">=", "<", "<="
    start: str  # ISO-8601 UTC, 'YYYY-MM-DDTHH:MM:SS.fffZ'
    end: str
    text: str = field(default="", compare=False)

    def __str__(self) -> str:
        op = "" if self.op == "=" else self.op
        return f"{self.field}:{op}{self.text or self.start}"


@dataclass(frozen=True)
class Tokens(Expr):
    op: str
    count: int

    def __str__(self) -> str:
        return f"tokens:{'' if self.op == '=' else self.op}{self.count}"


@dataclass(frozen=True)
class Has(Expr):
    what: str  # "edges" | "tags"

    def __str__(self) -> str:
        return f"has:{self.what}"


@dataclass(frozen=True)
class LinkedFrom(Expr):
    """Nodes that an edge points to from a node whose id starts with `prefix`."""
    prefix: str

    def __str__(self) -> str:
        return f"from:{self.prefix}"


@dataclass(frozen=True)
class LinkedTo(Expr):
    """Nodes with an edge to a node whose id starts with `prefix`."""
    prefix: str

    def __str__(self) -> str:
        return f"to:{self.prefix}"


@dataclass(frozen=True)
class InProject(Expr):
    """Nodes of the project named `name` (case-insensitive; an unknown name matches nothing)."""
    name: str

    def __str__(self) -> str:
        if _bare_value(self.name):
            return f"project:{self.name}"
        return f"project:{quote(self.name)}"


@dataclass(frozen=True)
class Global(Expr):
    """`scope:global`: nodes that belong to no project."""

    def __str__(self) -> str:
        return "scope:global"


def names_scope(e: Expr) -> bool:
    """Does the query choose its own scope (a `project:` or `scope:` term anywhere)?"""
    if isinstance(e, (InProject, Global)):
        return True
    if isinstance(e, Not):
        return names_scope(e.item)
    if isinstance(e, (And, Or)):
        return any(names_scope(i) for i in e.items)
    return False


@dataclass(frozen=True)
class Not(Expr):
    item: Expr

    def __str__(self) -> str:
        return f"NOT {_wrap(self.item, Not)}"


@dataclass(frozen=True)
class And(Expr):
    items: tuple[Expr, ...]

    def __str__(self) -> str:
        return " AND ".join(_wrap(i, And) for i in self.items)


@dataclass(frozen=True)
class Or(Expr):
    items: tuple[Expr, ...]

    def __str__(self) -> str:
        return " OR ".join(_wrap(i, Or) for i in self.items)


def _wrap(item: Expr, parent: type) -> str:
    """Parenthesise where precedence needs it (and for nested same-kind groups, so
    that the tree shape survives a round trip)."""
    if isinstance(item, (And, Or)) and (parent is Not or parent is And or isinstance(item, parent)):
        return f"({item})"
    return str(item)
