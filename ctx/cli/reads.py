"""`ctx show|list|query|search`: what the read commands do, without Typer.

Typer's commands (ctx/cli/nodes.py and semantic.py: the options, the help) call these
functions; parameters and defaults are the Typer commands'. `fmt` is a format name ("auto",
"json", …) or Typer's enum member for it.
"""
from __future__ import annotations

import sys

from ctx.cli.output import Format, dumps, emit_nodes, emit_records, emit_rows, resolve, say
from ctx.cli.state import open_store, read_scope, scope_options
from ctx.core.errors import CtxError

BADGE_STYLE = {"always": "bold green", "manual": "bold yellow", "agent": "bold cyan"}


def show(ids: list[str], fmt: str = Format.auto, history: bool = False) -> None:
    with open_store(readonly=True) as store:
        nodes = [store.get(i) for i in ids]
        edges = store.edges([n.id for n in nodes])
        records = []
        for n in nodes:
            d = n.to_dict()
            d["edges"] = [e.to_dict() for e in edges if n.id in (e.from_id, e.to_id)]
            if history:  # earlier versions (`ctx edit`) and the supersede chain, oldest first
                d["versions"] = store.versions(n.id)
                d["supersede_chain"] = store.supersede_chain(n.id, 50)
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
        if "versions" in r:
            lines += _history_lines(r)
        console.print(Panel(literal("\n".join(lines)), title=literal(r["id"]), title_align="left"))


def _history_lines(r: dict) -> list[str]:
    """The history part of a panel: each earlier version in full, then the supersede chain."""
    versions = r["versions"]
    lines = ["", f"history: {len(versions) + 1} version(s); this is version {len(versions) + 1}"
             if versions else "history: never edited"]
    for v in reversed(versions):
        head = (f"version {v['version']} (replaced {v['saved_at']}): {v['type']}, tags: "
                f"{', '.join(v['tags']) or '-'}")
        lines += ["", head, *("  " + line for line in v["content"].splitlines() or [""])]
        if v["metadata"]:
            lines.append(f"  metadata: {dumps(v['metadata'])}")
    chain = r["supersede_chain"]
    if len(chain) > 1:
        lines += ["", "supersede chain (oldest first): " + " → ".join(
            f"{i}{' (this)' if i == r['id'] else ''}" for i in chain)]
    return lines


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


def search(text: str, top_k: int = 20, top_n: int = 5, include_score: float = 0.7,
           mode: str = "hybrid", filter_: str | None = None, include_superseded: bool = False,
           all_: bool = False, project: str | None = None, all_projects: bool = False,
           fmt: str = Format.auto) -> None:
    from ctx.query import names_scope, parse
    from ctx.semantic import search as semantic
    from ctx.semantic.search import Eligibility, SearchOptions

    scope_options(project, all_projects)
    options = SearchOptions(top_k=top_k, top_n=top_n, include_score=include_score, mode=mode,
                            filter=filter_, include_superseded=include_superseded).validate()
    if mode != "keyword":
        from ctx.semantic.model import locate, missing_message

        if locate() is None:
            raise CtxError(missing_message() + "; `--mode keyword` works without it")
    callback, close = progress_bar("embedding")
    try:
        with open_store() as store:
            scope = None if filter_ and names_scope(parse(filter_)) else read_scope(store)
            result = semantic.search(store.conn, text, options, progress=callback,
                                     eligibility=Eligibility.within(scope))
            close()
            rows = _hit_rows(store, result.candidates if all_ else result.hits, result.options.mode)
    finally:
        close()
    emit_rows(rows, fmt, lambda: _hits_table(rows, result))


def _hit_rows(store, hits, mode: str) -> list[dict]:
    from ctx.claude.sessions import include_mode
    from ctx.core.ids import short_ids
    from ctx.semantic.search import ranking_score, with_nodes

    nodes = {n.id: n for n in store.get_many([h.node_id for h in hits])}
    sid = short_ids(store, list(nodes))
    rows = []
    for h, node, chunk in with_nodes(hits, nodes):
        rows.append({
            "id": node.id, "short_id": sid[node.id], "type": node.type, "rank": h.rank,
            "score": round(ranking_score(h, mode), 4),  # the score that ranked it
            "similarity": None if h.similarity is None else round(h.similarity, 4),
            "bm25": h.bm25, "fused": h.fused, "semantic_rank": h.semantic_rank,
            "keyword_rank": h.keyword_rank, "selected_by": h.selected_by,
            "include_mode": include_mode(node.tags), "tags": list(node.tags),
            "chunk": chunk, "chunk_start": h.chunk_start, "chunk_end": h.chunk_end,
            "content": node.content,
        })
    return rows


def _hits_table(rows: list[dict], result) -> None:
    from rich.text import Text

    from cuectx.output import Col, print_fitted

    columns = [Col("#", justify="right"), Col("id", style="cyan"), Col("type", style="magenta"),
               Col("mode"), Col("score", justify="right"), Col("match", free=True, lines=3)]
    print_fitted(columns, [
        [str(r["rank"]), r["short_id"], r["type"],
         Text(r["include_mode"].title(), style=BADGE_STYLE[r["include_mode"]]),
         f"{r['score']:.2f}" + (" ★" if r["selected_by"] == "score" else ""),
         " ".join((r["chunk"] or r["content"]).split())]
        for r in rows])
    note = f"{len(rows)} of {len(result.candidates)} ranked · {result.options.mode}"
    if result.not_indexed:
        note += f" · {result.not_indexed} node(s) not embedded yet (run `ctx index`)"
    say(note + f" · {result.elapsed_ms:.0f} ms")


def progress_bar(label: str):
    """A (callback, close) pair drawing a rich progress bar on stderr once there is work
    (rich is imported only then: most searches have nothing to embed). Only on a terminal:
    on a pipe or in a log a bar is noise beside the output, so the callback is None there."""
    import sys

    if not sys.stderr.isatty():
        return None, lambda: None
    state: dict = {}

    def callback(done: int, total: int) -> None:
        if total <= 16 and "bar" not in state:
            return  # a handful: not worth a bar
        if "bar" not in state:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeRemainingColumn,
            )

            bar = Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TextColumn("chunks"),
                           TimeRemainingColumn(), console=Console(stderr=True), transient=False)
            bar.start()
            state["bar"], state["task"] = bar, bar.add_task(label, total=total)
        state["bar"].update(state["task"], completed=done, total=total)

    def close() -> None:
        if "bar" in state:
            state["bar"].stop()

    return callback, close
