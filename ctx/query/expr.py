"""The query AST: small immutable value classes (cuectx.value). `str(expr)` is canonical
query text that parses back to an equal expression (relative dates stay relative)."""
from __future__ import annotations

from cuectx.value import Value


def quote(s: str) -> str:
    """`s` as a query string literal."""
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _bare_value(s: str) -> bool:
    """Would `s` lex back unchanged as a bare field value?"""
    return bool(s) and not any(c.isspace() or c in '()"\\' for c in s)


class Expr(Value):
    __slots__ = ()


class Text(Expr):
    """Full-text: a bare word or a quoted phrase (the same to FTS5: a phrase of the
    tokens in `text`); `prefix` for a bare `word*`, matching tokens that start so."""

    __slots__ = ("prefix", "text")

    def __init__(self, text: str, prefix: bool = False) -> None:
        self.text = text
        self.prefix = prefix

    def __str__(self) -> str:
        if self.prefix:
            return self.text + "*"
        if (not _bare_value(self.text) or self.text.startswith("-") or ":" in self.text
                or self.text.upper() in ("AND", "OR", "NOT") or self.text.endswith("*")):
            return quote(self.text)
        return self.text


class Type(Expr):
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __str__(self) -> str:
        return f"type:{self.name}"


class Tag(Expr):
    """Exact tag, or every tag starting with `tag` when `prefix` (`tag:task:*`)."""

    __slots__ = ("prefix", "tag")

    def __init__(self, tag: str, prefix: bool = False) -> None:
        self.tag = tag
        self.prefix = prefix

    def __str__(self) -> str:
        if self.prefix:
            return f"tag:{self.tag}*"
        if _bare_value(self.tag) and not self.tag.endswith("*"):
            return f"tag:{self.tag}"
        return f"tag:{quote(self.tag)}"


class IdPrefix(Expr):
    __slots__ = ("prefix",)

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix  # upper-case

    def __str__(self) -> str:
        return f"id:{self.prefix}"


class Date(Expr):
    """`created`/`updated` compared with the interval [start, end) that `text` names
    (a year, month, day, minute, second or millisecond; relative values are instants)."""

    __slots__ = ("end", "field", "op", "start", "text")

    def __init__(self, field: str, op: str, start: str, end: str, text: str = "") -> None:
        self.field = field  # "created" | "updated"
        self.op = op  # "=", ">", ">=", "<", "<="
        self.start = start  # ISO-8601 UTC, 'YYYY-MM-DDTHH:MM:SS.fffZ'
        self.end = end
        self.text = text

    def _key(self) -> tuple:  # text is not compared
        return (self.field, self.op, self.start, self.end)

    def __str__(self) -> str:
        op = "" if self.op == "=" else self.op
        return f"{self.field}:{op}{self.text or self.start}"


class Tokens(Expr):
    __slots__ = ("count", "op")

    def __init__(self, op: str, count: int) -> None:
        self.op = op
        self.count = count

    def __str__(self) -> str:
        return f"tokens:{'' if self.op == '=' else self.op}{self.count}"


class Has(Expr):
    __slots__ = ("what",)

    def __init__(self, what: str) -> None:
        self.what = what  # "edges" | "tags"

    def __str__(self) -> str:
        return f"has:{self.what}"


class LinkedFrom(Expr):
    """Nodes that an edge points to from a node whose id starts with `prefix`."""

    __slots__ = ("prefix",)

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix

    def __str__(self) -> str:
        return f"from:{self.prefix}"


class LinkedTo(Expr):
    """Nodes with an edge to a node whose id starts with `prefix`."""

    __slots__ = ("prefix",)

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix

    def __str__(self) -> str:
        return f"to:{self.prefix}"


class InProject(Expr):
    """Nodes of the project named `name` (case-insensitive; an unknown name matches nothing)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __str__(self) -> str:
        if _bare_value(self.name):
            return f"project:{self.name}"
        return f"project:{quote(self.name)}"


class Global(Expr):
    """`scope:global`: nodes that belong to no project."""

    __slots__ = ()

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


class Not(Expr):
    __slots__ = ("item",)

    def __init__(self, item: Expr) -> None:
        self.item = item

    def __str__(self) -> str:
        return f"NOT {_wrap(self.item, Not)}"


class And(Expr):
    __slots__ = ("items",)

    def __init__(self, items: tuple[Expr, ...]) -> None:
        self.items = items

    def __str__(self) -> str:
        return " AND ".join(_wrap(i, And) for i in self.items)


class Or(Expr):
    __slots__ = ("items",)

    def __init__(self, items: tuple[Expr, ...]) -> None:
        self.items = items

    def __str__(self) -> str:
        return " OR ".join(_wrap(i, Or) for i in self.items)


def _wrap(item: Expr, parent: type) -> str:
    """Parenthesise where precedence needs it (and for nested same-kind groups, so
    that the tree shape survives a round trip)."""
    if isinstance(item, (And, Or)) and (parent is Not or parent is And or isinstance(item, parent)):
        return f"({item})"
    return str(item)
