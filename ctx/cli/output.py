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
from cuectx.output import check_format, literal
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
    """A line for people, on stderr: on a terminal, wrapped between words to its width."""
    if _stderr_tty():
        import shutil
        import textwrap

        width = shutil.get_terminal_size((80, 24)).columns
        message = "\n".join(textwrap.fill(line, width, break_long_words=False,
                                           break_on_hyphens=False) or line
                             for line in message.split("\n"))
    print(message, file=sys.stderr)


def _stderr_tty() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


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
        from rich.text import Text

        from cuectx.human import plural
        from cuectx.output import Col, print_fitted

        sid = short_ids([*(n.id for n in nodes), *(n.superseded_by for n in nodes)])
        # tags go under the content (dim), so the text takes the width a tags column held
        # and the tier under the type: at 80 columns the content keeps ~40 of them
        columns = [Col("id", style="cyan"), Col("type / tier", style="magenta"),
                   Col("content", free=True, lines=4)]
        # a project column once the nodes are from more than one (global memory counts)
        projects = len({n.project for n in nodes}) > 1
        if projects:
            columns.append(Col("project", style="green", squeeze=True))
        rows = []
        for n in nodes:
            other = [t for t in n.tags if not t.startswith("tier:")]
            content = literal(_preview(n.content, 400))
            if n.superseded_by:
                content = Text.assemble((content.plain, "strike"),
                                        f" → {sid.get(n.superseded_by, n.superseded_by)}")
            if other:
                content = (content, Text(" ".join(other), style="dim"))
            kind = (n.type, Text(n.tier, style="dim")) if n.tier else n.type
            rows.append([sid[n.id], kind, content,
                         *([n.project or "global"] if projects else [])])
        print_fitted(columns, rows, title=title)
        where = {n.project for n in nodes}
        only = f" in {next(iter(where)) or 'global memory'}" if len(where) == 1 and nodes else ""
        print(plural(len(nodes), "node") + only, file=sys.stderr)


def emit_records(records: Sequence[dict], fmt: Format, *, columns: Sequence[str] | None = None,
                 single: bool = False, title: str | None = None, free: str | None = None,
                 squeeze: Sequence[str] = (), lines: int | None = 2,
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
        print_table(records, columns, title=title, free=free, squeeze=squeeze, lines=lines)


def print_table(records: Sequence[dict], columns: Sequence[str] | None = None, *,
                title: str | None = None, free: str | None = None,
                squeeze: Sequence[str] = (), lines: int | None = 2) -> None:
    """Dicts as a table on stdout that fits the terminal: every cell literal, `free` (the
    free-text column) takes the spare width, `*_at` times read "3 h ago" (JSON keeps them
    absolute)."""
    from cuectx.output import Col, print_fitted

    cols = list(columns or (records[0].keys() if records else []))
    spec = [Col(c, free=c == free, squeeze=c in squeeze, max_width=40 if c in squeeze else None,
                lines=lines) for c in cols]
    rows = [[_cell(r.get(c), time=c.endswith("_at")) for c in cols] for r in records]
    print_fitted(spec, rows, title=title)


def _cell(value, *, time: bool = False) -> str:
    if value is None:
        return ""
    if time and isinstance(value, str):
        from cuectx.human import ago

        return ago(value)
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
