"""ctx's output edge: json, ndjson, ids, table (rich, for people), markdown.

stdout carries only data; messages go to stderr (`say`). Each command declares the formats
it supports with `formats(...)` (anything else is a usage error, exit 2); `auto` means a
table on a terminal and NDJSON (lists) or JSON (one object) when piped. Whether stdout is a
terminal, and the console's width, come from cuectx.output's injectable Environment, so
tests render tables without one. User text reaches rich only as literal text (the console
has markup off; titles and styled cells are `Text`), so `[/b]` or `arr[i]` shows as written.

Short ids in tables and markdown are the shortest unique prefix (ctx.core.ids.short_ids) among
every node in the store; the CLI tells this module how to reach the store
(`set_short_ids`), since the connection is usually closed by the time rows are printed.
"""
from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable, Sequence
from enum import Enum

from ctx.core.model import Node
from cuectx.output import check_format, console, literal
from cuectx.output import resolve as _resolve


class Format(str, Enum):
    auto = "auto"
    json = "json"
    ndjson = "ndjson"
    table = "table"
    ids = "ids"
    markdown = "markdown"


# What each emitter can render; commands declare a subset with `formats(...)`.
NODE_FORMATS = ("json", "ndjson", "table", "ids", "markdown")
RECORD_FORMATS = ("json", "ndjson", "table")
ROW_FORMATS = ("json", "ndjson", "table", "ids")


def formats(*supported: str, help: str | None = None, auto: bool = True):
    """The `--format/-f` option of a command that supports `supported` (plus auto)."""
    from cuectx.cli import format_option

    return format_option(Format, *supported, help=help, auto=auto)


def dumps(obj) -> str:
    return json.dumps(obj, ensure_ascii=False)


def say(message: str) -> None:
    """A line for people, on stderr."""
    print(message, file=sys.stderr)


def resolve(fmt: Format, *, single: bool = False) -> Format:
    return Format(_resolve(fmt, piped="json" if single else "ndjson"))


# ---------------------------------------------------------------------------- short ids

_short_ids: Callable[[list[str]], dict[str, str]] | None = None


def set_short_ids(source: Callable[[list[str]], dict[str, str]] | None) -> None:
    """How tables and markdown get short ids: `source(ids)` → {id: shortest unique prefix}."""
    global _short_ids
    _short_ids = source


def short_ids(ids: Iterable[str]) -> dict[str, str]:
    ids = [i for i in dict.fromkeys(ids) if i]
    if _short_ids is not None and ids:
        return _short_ids(ids)
    from ctx.core.ids import MIN_SHORT, unique_prefixes

    return unique_prefixes(ids, MIN_SHORT)  # no store at hand: unique among those shown


# ---------------------------------------------------------------------------- emitters

def _preview(text: str, width: int = 90) -> str:
    one = " ".join(text.split())
    return one if len(one) <= width else one[: width - 1] + "…"


def emit_nodes(nodes: Sequence[Node], fmt: Format, *, title: str | None = None,
               single: bool = False, command: str = "this command") -> None:
    """Nodes in `fmt`; with `single` (a command about one node) JSON is that object, not a list."""
    check_format(fmt, NODE_FORMATS, command=command)
    fmt = resolve(fmt, single=single)
    if fmt == Format.json:
        print(dumps(nodes[0].to_dict() if single and len(nodes) == 1 else [n.to_dict() for n in nodes]))
    elif fmt == Format.ndjson:
        for n in nodes:
            print(dumps(n.to_dict()))
    elif fmt == Format.ids:
        for n in nodes:
            print(n.id)
    elif fmt == Format.markdown:
        sid = short_ids(n.id for n in nodes)
        for n in nodes:
            tags = f" ({', '.join(n.tags)})" if n.tags else ""
            print(f"- [{n.type}:{sid[n.id]}] {n.content}{tags}")
    else:
        from rich.table import Table
        from rich.text import Text

        sid = short_ids([*(n.id for n in nodes), *(n.superseded_by for n in nodes)])
        table = Table(title=literal(title) if title else None, show_lines=False,
                      header_style="bold")
        table.add_column("id", style="cyan", no_wrap=True)
        table.add_column("type", style="magenta")
        table.add_column("tier")
        table.add_column("content")
        table.add_column("tags", style="dim")
        projects = any(n.project for n in nodes)  # a project column once any node has one
        if projects:
            table.add_column("project", style="green")
        for n in nodes:
            other = [t for t in n.tags if not t.startswith("tier:")]
            content = literal(_preview(n.content))
            if n.superseded_by:
                content = Text.assemble((content.plain, "strike"),
                                        f" → {sid.get(n.superseded_by, n.superseded_by)}")
            row = [literal(sid[n.id]), literal(n.type), literal(n.tier or ""), content,
                   literal(", ".join(other))]
            table.add_row(*row, *([literal(n.project or "global")] if projects else []))
        console().print(table)
        print(f"{len(nodes)} node{'s' if len(nodes) != 1 else ''}", file=sys.stderr)


def emit_records(records: Sequence[dict], fmt: Format, *, columns: Sequence[str] | None = None,
                 single: bool = False, title: str | None = None,
                 supported: Sequence[str] = RECORD_FORMATS, command: str = "this command") -> None:
    """Generic dict output (views, edges, status…): json, ndjson, table; `ids` (the first
    column) only where the caller supports it."""
    check_format(fmt, supported, command=command)
    fmt = resolve(fmt, single=single)
    if fmt == Format.json:
        print(dumps(records[0] if single and records else list(records)))
    elif fmt == Format.ndjson:
        for r in records:
            print(dumps(r))
    elif fmt == Format.ids:
        key = (columns or ["id"])[0]
        for r in records:
            print(r.get(key, ""))
    else:
        print_table(records, columns, title=title)


def print_table(records: Sequence[dict], columns: Sequence[str] | None = None, *,
                title: str | None = None) -> None:
    """Dicts as a rich table on stdout, every cell literal."""
    from rich.table import Table

    cols = list(columns or (records[0].keys() if records else []))
    table = Table(title=literal(title) if title else None, header_style="bold")
    for c in cols:
        table.add_column(literal(c))
    for r in records:
        table.add_row(*[literal(_cell(r.get(c))) for c in cols])
    console().print(table)


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, (dict, list)):
        return dumps(value)
    return str(value)


def emit_rows(rows: Sequence[dict], fmt: Format, table: Callable[[], None], *,
              command: str = "this command") -> None:
    """Dicts with an `id`: JSON, NDJSON, ids, or `table()` (a function that prints one for people)."""
    check_format(fmt, ROW_FORMATS, command=command)
    fmt = resolve(fmt)
    if fmt == Format.json:
        print(dumps(list(rows)))
    elif fmt in (Format.ndjson, Format.ids):
        for r in rows:
            print(r["id"] if fmt == Format.ids else dumps(r))
    else:
        table()
