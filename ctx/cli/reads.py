"""`ctx show|list|query`: what the read commands do, without Typer.

Typer's commands (ctx/cli/nodes.py: the options, the help) and the fast read path
(ctx/cli/fast.py: the same commands before Typer loads) both call these functions, so the
two paths print the same bytes: there is one body per command. Parameters and defaults are
the Typer commands' (a test keeps them equal); `fmt` is a format name ("auto", "json", …) or
Typer's enum member for it.
"""
from __future__ import annotations

import sys

from ctx.cli.output import Format, dumps, emit_nodes, emit_records, resolve
from ctx.cli.state import open_store, read_scope, scope_options


def show(ids: list[str], fmt: str = Format.auto) -> None:
    with open_store(readonly=True) as store:
        nodes = [store.get(i) for i in ids]
        edges = store.edges([n.id for n in nodes])
    records = []
    for n in nodes:
        d = n.to_dict()
        d["edges"] = [e.to_dict() for e in edges if n.id in (e.from_id, e.to_id)]
        records.append(d)
    out = resolve(fmt, single=len(records) == 1)
    if out == Format.table:
        _show_panels(records)
    elif out == Format.markdown:
        emit_nodes(nodes, Format.markdown)
    elif out == Format.ids:
        emit_nodes(nodes, Format.ids)
    else:
        emit_records(records, out, single=len(records) == 1)


def _show_panels(records: list[dict]) -> None:
    from rich.panel import Panel

    from cuectx.output import console as people_console
    from cuectx.output import literal

    console = people_console()
    for r in records:
        lines = [r["content"], "", f"type: {r['type']}   tags: {', '.join(r['tags']) or '-'}",
                 f"created: {r['created_at']}   updated: {r['updated_at']}   ~{r['token_estimate']} tokens"]
        if r["metadata"]:
            lines.append(f"metadata: {dumps(r['metadata'])}")
        if r["superseded_by"]:
            lines.append(f"superseded by: {r['superseded_by']}")
        for e in r["edges"]:
            lines.append(f"edge: {e['from']} -{e['type']}-> {e['to']}")
        console.print(Panel(literal("\n".join(lines)), title=literal(r["id"]), title_align="left"))


def list_(type_: str | None = None, tag: list[str] | None = None, limit: int | None = None,
          include_superseded: bool = False, project: str | None = None,
          all_projects: bool = False, fmt: str = Format.auto) -> None:
    scope_options(project, all_projects)
    with open_store(readonly=True) as store:
        nodes = store.list_nodes(type=type_, tags=tag or [], include_superseded=include_superseded,
                                 limit=limit, newest_first=limit is not None,
                                 scope=read_scope(store))
    if limit is not None:
        nodes.reverse()
    emit_nodes(nodes, fmt)


def query(expr: str, limit: int | None = None, include_superseded: bool = False,
          project: str | None = None, all_projects: bool = False,
          fmt: str = Format.auto) -> None:
    scope_options(project, all_projects)
    with open_store(readonly=True) as store:
        scope = read_scope(store)
        if fmt == Format.ids:  # ids need no node materialisation
            sys.stdout.write("".join(i + "\n" for i in store.query(
                expr, include_superseded=include_superseded, limit=limit, ids_only=True,
                scope=scope)))
            return
        nodes = store.query(expr, include_superseded=include_superseded, limit=limit, scope=scope)
    emit_nodes(nodes, fmt)
