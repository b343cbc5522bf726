"""`field:value` terms: each known field checks its value and builds its Expr.

Dates name an interval [start, end) in UTC: `2026` (a year), `2026-03` (a month),
`2026-03-14` (a day), `2026-03-14T09:30` (a minute), `…:05` (a second), `…:05.250` (a
millisecond), optionally with `Z` or an offset like `+02:00`; `today` and `yesterday` (UTC
days); and instants relative to now: `now`, `12h`, `7d`, `2w`. A bare relative value means
"since then": `created:7d` is `created:>=7d`.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone

from ctx.core.model import NODE_TYPES
from ctx.query.expr import (
    Date,
    Expr,
    Global,
    Has,
    IdPrefix,
    InProject,
    LinkedFrom,
    LinkedTo,
    Tag,
    Tokens,
    Type,
)
from ctx.query.lexer import Token, show, syntax_error

OPS = (">=", "<=", ">", "<", "=")
HAS = ("edges", "tags")
MAX_INT = 2**63 - 1
# Upper bound used when an interval runs past year 9999: sorts after every real timestamp.
END_OF_TIME = "9999-12-31T24:00:00.000Z"

# Date patterns, compiled on first use (re caches them): most queries name no date, and
# the Stop hook parses recall queries.
_DATE = (r"(?a)(\d{4})(?:-(\d{2})(?:-(\d{2})(?:[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?"
         r"([Zz]|[+-]\d{2}:?\d{2})?)?)?)?")
_RELATIVE = r"(?ai)(\d{1,9})([hdw])"
_ID = re.compile(r"[0-9A-Za-z]+")
_UNITS = {"h": "hours", "d": "days", "w": "weeks"}
DATE_EXAMPLES = "a date like 2026-01-31, 2026-01-31T09:30, today, 7d, 12h or 2w"


def stamp(dt: datetime) -> str:
    """`dt` (aware) as ctx stores timestamps: 'YYYY-MM-DDTHH:MM:SS.fffZ' in UTC."""
    dt = dt.astimezone(UTC)
    return (f"{dt.year:04d}-{dt.month:02d}-{dt.day:02d}T{dt.hour:02d}:{dt.minute:02d}:"
            f"{dt.second:02d}.{dt.microsecond // 1000:03d}Z")


def _type(tok: Token, now: datetime) -> Expr:
    name = tok.text.lower()
    if name not in NODE_TYPES:
        raise syntax_error(tok.value_pos, f"unknown node type '{show(tok.text)}'; expected one of "
                           f"{', '.join(NODE_TYPES)}", "a node type")
    return Type(name)


def _tag(tok: Token, now: datetime) -> Expr:
    if not tok.quoted and tok.text.endswith("*"):
        return Tag(tok.text[:-1], prefix=True)
    if not tok.text:
        raise syntax_error(tok.value_pos, "expected a tag inside the quotes, found \"\"", "a tag")
    return Tag(tok.text)


def _id_value(tok: Token) -> str:
    if not _ID.fullmatch(tok.text):
        raise syntax_error(tok.value_pos, f"expected an id or id prefix (letters and digits) "
                           f"after {tok.field}:, found '{show(tok.text)}'", "an id prefix")
    return tok.text.upper()


def _op(tok: Token) -> tuple[str, str, int]:
    """Split a leading comparison off the value: (op, rest, offset of rest)."""
    for op in OPS:
        if tok.text.startswith(op):
            return op, tok.text[len(op):], tok.value_pos + len(op)
    return "=", tok.text, tok.value_pos


def _after_field(tok: Token, rest: str) -> str:
    """What the user wrote before `rest`, e.g. `tokens:<=`, for error messages."""
    return f"{tok.field}:{tok.text[: len(tok.text) - len(rest)]}"


def _tokens(tok: Token, now: datetime) -> Expr:
    op, rest, pos = _op(tok)
    if not rest.isascii() or not rest.isdigit():
        found = f"'{show(rest)}'" if rest else "nothing"
        raise syntax_error(pos, f"expected a whole number of tokens after "
                           f"{_after_field(tok, rest)}, found {found}", "a number")
    count = int(rest)
    if count > MAX_INT:
        raise syntax_error(pos, f"the number {show(rest)} is too large", "a smaller number")
    return Tokens(op, count)


def _has(tok: Token, now: datetime) -> Expr:
    what = tok.text.lower()
    if what not in HAS:
        raise syntax_error(tok.value_pos, f"expected {' or '.join(HAS)} after has:, found "
                           f"'{show(tok.text)}'", " or ".join(HAS))
    return Has(what)


def _date(tok: Token, now: datetime) -> Expr:
    op, rest, pos = _op(tok)
    try:
        interval = _interval(rest, now)
    except (ValueError, OverflowError):
        interval = None
    if interval is None:
        found = f"'{show(rest)}'" if rest else "nothing"
        raise syntax_error(pos, f"expected {DATE_EXAMPLES} after {_after_field(tok, rest)}, "
                           f"found {found}", "a date")
    start, end, relative = interval
    if relative and op == "=":
        op = ">="  # `created:7d` means "in the last 7 days"
    return Date(tok.field, op, start, end, rest)


def _interval(text: str, now: datetime) -> tuple[str, str, bool] | None:
    low = text.lower()
    if low in ("today", "yesterday"):
        day = now.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
        if low == "yesterday":
            day -= timedelta(days=1)
        return stamp(day), _after(day, timedelta(days=1)), False
    if low == "now":
        return stamp(now), stamp(now), True
    m = re.fullmatch(_RELATIVE, text)
    if m:
        then = now - timedelta(**{_UNITS[m.group(2).lower()]: int(m.group(1))})
        return stamp(then), stamp(then), True
    m = re.fullmatch(_DATE, text)
    if not m:
        return None
    year, month, day, hour, minute, second, frac, zone = m.groups()
    tz = UTC
    if zone and zone not in "Zz":
        sign = 1 if zone[0] == "+" else -1
        digits = zone[1:].replace(":", "")
        hours, minutes = int(digits[:2]), int(digits[2:])
        if hours > 23 or minutes > 59:
            return None
        tz = timezone(sign * timedelta(hours=hours, minutes=minutes))
    ms = int(frac[:3].ljust(3, "0")) if frac else 0
    start = datetime(int(year), int(month or 1), int(day or 1), int(hour or 0),
                     int(minute or 0), int(second or 0), ms * 1000, tzinfo=tz)
    if frac:
        step = timedelta(milliseconds=1)
    elif second:
        step = timedelta(seconds=1)
    elif minute:
        step = timedelta(minutes=1)
    elif day:
        step = timedelta(days=1)
    elif month:  # months and years have no fixed length
        if start.month < 12:
            return stamp(start), stamp(start.replace(month=start.month + 1)), False
        return stamp(start), _next_year(start), False
    else:
        return stamp(start), _next_year(start), False
    return stamp(start), _after(start, step), False


def _next_year(start: datetime) -> str:
    if start.year == 9999:
        return END_OF_TIME
    return stamp(start.replace(year=start.year + 1, month=1))


def _after(start: datetime, step: timedelta) -> str:
    try:
        return stamp(start + step)
    except OverflowError:
        return END_OF_TIME


def _id_prefix(tok: Token, now: datetime) -> Expr:
    return IdPrefix(_id_value(tok))


def _from(tok: Token, now: datetime) -> Expr:
    return LinkedFrom(_id_value(tok))


def _to(tok: Token, now: datetime) -> Expr:
    return LinkedTo(_id_value(tok))


def _project(tok: Token, now: datetime) -> Expr:
    if not tok.text.strip():
        raise syntax_error(tok.value_pos, "expected a project name after project:, found \"\"",
                           "a project name")
    return InProject(tok.text)


def _scope(tok: Token, now: datetime) -> Expr:
    if tok.text.lower() != "global":
        raise syntax_error(tok.value_pos, f"expected global after scope:, found '{show(tok.text)}' "
                           f"(for a project write project:NAME)", "global")
    return Global()


FIELDS: dict[str, Callable[[Token, datetime], Expr]] = {
    "type": _type,
    "tag": _tag,
    "id": _id_prefix,
    "created": _date,
    "updated": _date,
    "tokens": _tokens,
    "has": _has,
    "from": _from,
    "to": _to,
    "project": _project,
    "scope": _scope,
}


def field_term(tok: Token, now: datetime) -> Expr:
    """The Expr for a FIELD token; unknown fields and bad values raise QuerySyntaxError."""
    build = FIELDS.get(tok.field)
    if build is None:
        raise syntax_error(tok.pos, f"unknown field '{tok.field}:'; known fields are "
                           f"{', '.join(f + ':' for f in FIELDS)} (put the words in quotes "
                           f"to search for them as text)", "a known field")
    return build(tok, now)
