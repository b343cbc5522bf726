"""How ctx writes data to stdout: json, ndjson, ids, table (rich, for people), markdown.

stdout carries only data; messages go to stderr (`say`). `auto` means a table on a
terminal and NDJSON (lists) or JSON (one object) when piped.
"""
from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from enum import Enum

from ctx.model import Node


class Format(str, Enum):
    auto = "auto"
    json = "json"
    ndjson = "ndjson"
    table = "table"
    ids = "ids"
    markdown = "markdown"


def dumps(obj) -> str:
    return json.dumps(obj, ensure_ascii=False)


def say(message: str) -> None:
    """A line for people, on stderr."""
    print(message, file=sys.stderr)


def resolve(fmt: Format, *, single: bool = False) -> Format:
    if fmt != Format.auto:
        return fmt
    if sys.stdout.isatty():
        return Format.table
    return Format.json if single else Format.ndjson


def _preview(text: str, width: int = 90) -> str:
    one = " ".join(text.split())
    return one if len(one) <= width else one[: width - 1] + "…"


def emit_nodes(nodes: Sequence[Node], fmt: Format, *, title: str | None = None,
               single: bool = False) -> None:
    """Nodes in `fmt`; with `single` (a command about one node) JSON is that object, not a list."""
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
        for n in nodes:
            tags = f" ({', '.join(n.tags)})" if n.tags else ""
            print(f"- [{n.type}:{n.short_id}] {n.content}{tags}")
    else:
        from rich.console import Console
        from rich.table import Table

        table = Table(title=title, show_lines=False, header_style="bold")
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
            content = _preview(n.content)
            if n.superseded_by:
                content = f"[strike]{content}[/strike] → {n.superseded_by[:8]}"
            row = [n.short_id, n.type, n.tier or "", content, ", ".join(other)]
            table.add_row(*row, *([n.project or "global"] if projects else []))
        Console().print(table)
        print(f"{len(nodes)} node{'s' if len(nodes) != 1 else ''}", file=sys.stderr)


def emit_records(records: Sequence[dict], fmt: Format, *, columns: Sequence[str] | None = None,
                 single: bool = False, title: str | None = None) -> None:
    """Generic dict output (views, edges, status…)."""
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
        from rich.console import Console
        from rich.table import Table

        cols = list(columns or (records[0].keys() if records else []))
        table = Table(title=title, header_style="bold")
        for c in cols:
            table.add_column(c)
        for r in records:
            table.add_row(*[_cell(r.get(c)) for c in cols])
        Console().print(table)


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, (dict, list)):
        return dumps(value)
    return str(value)


def emit_rows(rows: Sequence[dict], fmt: Format, table) -> None:
    """Dicts with an `id`: JSON, NDJSON, ids, or `table()` (a function that prints one for people)."""
    fmt = resolve(fmt)
    if fmt == Format.json:
        print(dumps(list(rows)))
    elif fmt in (Format.ndjson, Format.ids):
        for r in rows:
            print(r["id"] if fmt == Format.ids else dumps(r))
    else:
        table()
