"""`ctx search`, `ctx index`, `ctx session …`, `ctx requests …` — wiring and output only.

The work is in ctx/semantic/ (model, index, search, select) and ctx/requests.py.
"""
from __future__ import annotations

from typing import Annotated

import typer

from ctx.cli.output import RECORD_FORMATS, ROW_FORMATS, Format, dumps, emit_rows, formats, resolve, say
from ctx.cli.reads import BADGE_STYLE, progress_bar
from ctx.core.errors import CtxError
from ctx.core.model import TYPE_TITLES
from cuectx.output import console, literal

session_app = typer.Typer(help="The current Claude Code session's items (always/manual).",
                          no_args_is_help=True)
requests_app = typer.Typer(help="What each prompt was given, and why (per-request records).",
                           invoke_without_command=True)

FormatOpt = formats(*RECORD_FORMATS)  # sessions, one request, the index
RowFormatOpt = formats(*ROW_FORMATS)  # search hits, request lists (also `ids`)
SessionOpt = Annotated[str | None, typer.Option(
    "--session", "-s", envvar="CTX_SESSION", metavar="ID",
    help="Session id or prefix (default: the most recently active session).")]
# `ctx requests list` filters by session only when asked: by default it lists every session's.
SessionFilterOpt = Annotated[str | None, typer.Option(
    "--session", "-s", envvar="CTX_SESSION", metavar="ID",
    help="Only this session's requests (id or prefix; default: every session's).")]


def register(app: typer.Typer) -> None:
    app.command("search")(search_cmd)
    app.command("index")(index_cmd)
    app.add_typer(session_app, name="session")
    app.add_typer(requests_app, name="requests")


def _open(readonly: bool = False):
    from ctx.cli.state import open_store

    return open_store(readonly=readonly)


# ------------------------------------------------------------------------------ search

def search_cmd(
    text: Annotated[str, typer.Argument(help="What to look for, in plain language.")],
    top_k: Annotated[int, typer.Option("--top-k", min=1, help="Chunk matches considered.")] = 20,
    top_n: Annotated[int, typer.Option("--top-n", min=1, help="Nodes returned after grouping.")] = 5,
    include_score: Annotated[float, typer.Option(
        "--include-score", min=0.0, max=1.0,
        help="Always return nodes at or above this similarity (even past --top-n).")] = 0.7,
    mode: Annotated[str, typer.Option("--mode", "-m", help="hybrid, semantic or keyword.")] = "hybrid",
    filter_: Annotated[str | None, typer.Option(
        "--filter", metavar="EXPR", help="Query-language filter applied before ranking.")] = None,
    include_superseded: Annotated[bool, typer.Option(
        "--include-superseded", help="Also search superseded nodes.")] = False,
    all_: Annotated[bool, typer.Option("--all", help="Show every ranked candidate, not only "
                                                     "the ones the seed's rules select.")] = False,
    project: Annotated[str | None, typer.Option(
        "--project", "-P", metavar="NAME", help="This project (+ global); `global`: global only.")] = None,
    all_projects: Annotated[bool, typer.Option("--all-projects", help="Every project's memory.")] = False,
    fmt: RowFormatOpt = Format.auto,
) -> None:
    """Search memory by meaning, by words, or both (default: hybrid).

    Example: ctx search "how do readers avoid blocking?" --filter type:decision
    """
    from ctx.cli.reads import search

    search(text, top_k, top_n, include_score, mode, filter_, include_superseded, all_, project,
           all_projects, fmt)


# ------------------------------------------------------------------------------ index

def index_cmd(
    rebuild: Annotated[bool, typer.Option("--rebuild", help="Drop every vector and embed all "
                                                            "nodes again.")] = False,
    fmt: FormatOpt = Format.auto,
) -> None:
    """Embed every node that is new or changed (search does this just in time too).

    Example: ctx index --rebuild
    """
    from ctx.semantic import index
    from ctx.semantic.embed import english_companion, get_embedder

    embedder = get_embedder(bulk=True)
    companion = english_companion(embedder.model_id, bulk=True)
    callback, close = progress_bar("indexing")
    try:
        with _open() as store:
            run = index.rebuild if rebuild else index.update
            keep = (companion.model_id,) if companion is not None else ()
            report = run(store.conn, embedder, progress=callback, keep=keep)
            close()
            info = {"index": index.stats(store.conn, embedder.model_id), "run": report.to_dict()}
            if companion is not None:  # English fusion: MiniLM's vectors of the English notes
                callback, close = progress_bar("indexing English (MiniLM)")
                extra = index.update(store.conn, companion, progress=callback,
                                     keep=(embedder.model_id,))
                close()
                info["english"] = {"index": index.stats(store.conn, companion.model_id),
                                   "run": extra.to_dict()}
    finally:
        close()
    out = resolve(fmt, single=True)
    if out in (Format.json, Format.ndjson):
        print(dumps(info))
        return
    rate = report.chunks_embedded / report.seconds if report.seconds and report.chunks_embedded else 0
    say(f"embedded {report.nodes_embedded} node(s), {report.chunks_embedded} chunk(s)"
        + (f" at {rate:.0f} chunks/s" if rate else "")
        + (f"; {report.stale_fixed} stale node(s) re-embedded" if report.stale_fixed else ""))
    st = info["index"]
    print(f"index: {st['nodes_embedded']}/{st['nodes']} nodes, {st['chunks']} chunks, "
          f"{st['segments']} segment(s), {st['bytes'] / 1e6:.1f} MB ({st['model']})")
    if "english" in info:
        en = info["english"]["index"]
        print(f"English (fusion): {en['chunks']} chunks of the English nodes, "
              f"{en['bytes'] / 1e6:.1f} MB ({en['model']})")


# ------------------------------------------------------------------------------ session

@session_app.command("show")
def session_show(session: Annotated[str | None, typer.Argument(
        help="Session id or prefix (default: the most recent).")] = None,
        fmt: FormatOpt = Format.auto) -> None:
    """Show a session's items: always (from the session-start view) and manual ones.

    Example: ctx session show --format json
    """
    from ctx.claude import request_view, sessions
    from ctx.core.ids import short_ids

    with _open(readonly=True) as store:
        sid = sessions.resolve_session(store.conn, session)
        sess = sessions.get_session(store.conn, sid)
        items = sessions.session_items(store.conn, sid)
        nodes = {n.id: n for n in store.get_many([i.node_id for i in items])}
        short = short_ids(store, [i.node_id for i in items])
    rows = [{"node_id": i.node_id, "include_mode": i.include_mode, "state": i.state,
             "injected": i.injected, "added_at": i.added_at,
             "type": nodes[i.node_id].type if i.node_id in nodes else None,
             "name": request_view.item_name(nodes[i.node_id].content) if i.node_id in nodes else "(deleted)",
             "priority": request_view.tier_priority(nodes[i.node_id].tags) if i.node_id in nodes else 9}
            for i in items]
    rows.sort(key=lambda r: (r["state"] != "active", r["priority"], r["name"].lower()))
    out = resolve(fmt, single=True)
    if out in (Format.json, Format.ndjson):
        print(dumps({"session": sess.as_dict(), "items": rows}))
        return
    from rich.text import Text

    from cuectx.human import ago
    from cuectx.output import Col, print_fitted

    con = console()
    con.print(Text.assemble((f"session {sess.id}", "bold"),
                            f" · {sess.source or '-'} · started {ago(sess.started_at)}"
                            f" · last reset {ago(sess.reset_at)}"))
    if not rows:
        con.print("  (no items)")
        return
    print_fitted([Col("mode"), Col("item", free=True), Col("id", style="dim"), Col("state")],
                 [[Text(r["include_mode"].title(), style=BADGE_STYLE[r["include_mode"]]),
                   r["name"], short[r["node_id"]],
                   Text("removed" if r["state"] == "removed" else
                        "sent" if r["injected"] else "not sent yet", style="dim")]
                  for r in rows], con=con)


@session_app.command("list")
def session_list(limit: Annotated[int, typer.Option("--limit", "-n", min=1)] = 20,
                 fmt: FormatOpt = Format.auto) -> None:
    """List recent sessions, most recently active first: project, first prompt, when.

    Example: ctx session list --limit 5
    """
    from ctx.claude import sessions
    from ctx.cli.output import emit_records, resolve

    with _open(readonly=True) as store:
        rows = sessions.session_overview(store.conn, limit)
    if resolve(fmt) != Format.table:
        return emit_records(rows, fmt)
    from ctx.core.ids import unique_prefixes
    from cuectx.human import ago
    from cuectx.output import Col, print_fitted

    short = unique_prefixes([r["id"] for r in rows], 8)  # whole enough to paste into --session
    print_fitted([Col("id", style="cyan"), Col("project", style="green"), Col("last seen"),
                  Col("prompts", justify="right"), Col("first prompt", free=True)],
                 [[short[r["id"]], r["project"] or "global", ago(r["last_seen_at"]),
                   str(r["requests"]), " ".join((r["first_prompt"] or "").split())]
                  for r in rows])


@session_app.command("add")
def session_add(nodes: Annotated[list[str], typer.Argument(help="Node ids or prefixes.")],
                session: SessionOpt = None) -> None:
    """Add nodes to a session by hand (Manual); they are injected at the next prompt.

    Example: ctx session add 01JD3K8W
    """
    _session_change(nodes, session, add=True)


@session_app.command("remove")
def session_remove(nodes: Annotated[list[str], typer.Argument(help="Node ids or prefixes.")],
                   session: SessionOpt = None) -> None:
    """Remove nodes from a session: not injected again, not selected by search.

    Example: ctx session remove 01JD3K8W --session 5f2c
    """
    _session_change(nodes, session, add=False)


def _session_change(refs: list[str], session: str | None, *, add: bool) -> None:
    from ctx.claude import sessions

    with _open() as store:
        sid = sessions.resolve_session(store.conn, session)
        ids = [store.resolve(r) for r in refs]  # all resolve, or nothing changes
        for node_id in ids:
            (sessions.session_add if add else sessions.session_remove)(store.conn, sid, node_id)
    for node_id in ids:
        print(node_id)
    say(f"{'added' if add else 'removed'} {len(ids)} node(s) {'to' if add else 'from'} "
        f"session {sid}")


# ------------------------------------------------------------------------------ requests

@requests_app.callback()
def requests_default(ctx: typer.Context,
                     session: SessionOpt = None,
                     limit: Annotated[int, typer.Option("--limit", "-n", min=1)] = 20,
                     fmt: RowFormatOpt = Format.auto) -> None:
    """List recorded requests (one per prompt), newest first. Same as `ctx requests list`.

    Example: ctx requests --limit 5
    """
    if ctx.invoked_subcommand is None:
        requests_list(session=session, limit=limit, fmt=fmt)


@requests_app.command("list")
def requests_list(session: SessionFilterOpt = None,
                  limit: Annotated[int, typer.Option("--limit", "-n", min=1)] = 20,
                  fmt: RowFormatOpt = Format.auto) -> None:
    """List recorded requests (one per prompt) of every session, newest first.

    Example: ctx requests list --session 5f2c --format json
    """
    from ctx.claude import requests, sessions

    with _open(readonly=True) as store:
        sid = sessions.resolve_session(store.conn, session) if session else None
        rows = requests.list_requests(store.conn, session_id=sid, limit=limit)
    emit_rows(rows, fmt, lambda: _requests_table(rows))


def _requests_table(rows: list[dict]) -> None:
    from ctx.core.ids import unique_prefixes
    from cuectx.human import ago
    from cuectx.output import Col, print_fitted

    short = unique_prefixes([r["id"] for r in rows], 10)  # request ids: unique among those shown
    sessions = unique_prefixes([r["session_id"] for r in rows if r["session_id"]], 8)
    columns = [Col("id", style="cyan"), Col("when"), Col("session", style="dim"),
               Col("path"), Col("sent", justify="right"),
               Col("items", justify="right"), Col("prompt", free=True)]
    print_fitted(columns, [[short[r["id"]], ago(r["created_at"]), sessions.get(r["session_id"], "-"),
                            r["path"], str(r["injected_now"]), str(r["items"]),
                            " ".join(r["prompt"].split())] for r in rows])


@requests_app.command("show")
def requests_show(request: Annotated[str | None, typer.Argument(
        help="Request id or prefix.")] = None,
        last: Annotated[bool, typer.Option("--last", help="The latest request.")] = False,
        session: SessionOpt = None,
        fmt: FormatOpt = Format.auto) -> None:
    """Show what one prompt was given: items by type, with Always/Manual/Agent badges.

    Example: ctx requests show --last
    """
    from ctx.claude import request_view, requests, sessions

    if request and last:
        raise CtxError("give a request id or --last, not both")
    with _open(readonly=True) as store:
        sid = sessions.resolve_session(store.conn, session) if session else None
        record = requests.get_request(store.conn, None if last or not request else request,
                                session_id=sid)
        view = request_view.request_view(store.conn, record)
    out = resolve(fmt, single=True)
    if out in (Format.json, Format.ndjson):
        print(dumps(view))
        return
    _request_display(view)


@requests_app.command("prune")
def requests_prune(
        older_than: Annotated[int | None, typer.Option(
            "--older-than", min=1, metavar="DAYS",
            help="Keep this many days (default: $CTX_REQUESTS_KEEP, else 90).")] = None,
        dry_run: Annotated[bool, typer.Option("--dry-run", help="Say what would go; change nothing.")] = False,
        vacuum: Annotated[bool, typer.Option("--vacuum", help="Then give the freed space back to the disk.")] = False,
        fmt: FormatOpt = Format.auto) -> None:
    """Remove request records (and ended sessions) older than the retention. Nodes are never touched.

    The prompt-submit hook already removes a few expired records per prompt; this clears a
    backlog at once.

    Example: ctx requests prune --dry-run
    Example: ctx requests prune --older-than 30 --vacuum
    """
    import os

    from ctx.claude import requests
    from ctx.core.settings import DEFAULT_REQUESTS_KEEP_DAYS, requests_keep_days

    days = older_than or requests_keep_days()
    if days is None:
        say("CTX_REQUESTS_KEEP says keep request records forever; give --older-than DAYS to prune")
        return
    with _open(readonly=dry_run) as store:
        path = store.conn.execute("PRAGMA database_list").fetchone()[2]
        result = requests.prune(store.conn, days, dry_run=dry_run)
        if vacuum and not dry_run:
            store.conn.execute("VACUUM")
    size = (sum(os.path.getsize(f) for f in (path, path + "-wal") if os.path.exists(f))
            if path else None)
    info = {"requests": result.requests, "items": result.items, "sessions": result.sessions,
            "older_than_days": days, "cutoff": result.cutoff, "dry_run": dry_run,
            "db_bytes": size, "default_days": DEFAULT_REQUESTS_KEEP_DAYS}
    if resolve(fmt, single=True) in (Format.json, Format.ndjson):
        print(dumps(info))
        return
    verb = "would remove" if dry_run else "removed"
    say(f"{verb} {result.requests} request record{'s' if result.requests != 1 else ''} "
        f"({result.items} item{'s' if result.items != 1 else ''}) and {result.sessions} ended "
        f"session{'s' if result.sessions != 1 else ''} from before {result.cutoff[:10]}"
        + (f"; database {size / 1e6:.1f} MB" if size is not None else ""))


def _badge(item: dict):
    from rich.text import Text

    mode = item["include_mode"]
    label = mode.title()
    if mode == "agent" and item["score"] is not None:
        label += f" {item['score']:.2f}"
    return Text(label, style=BADGE_STYLE[mode])


def _request_display(view: dict) -> None:
    """The seed's "View Context", in the terminal: a headline (sent now / already in context),
    included items grouped by type with Always/Agent/Manual badges, then the best candidates
    left out, by the rank that left them out, with the score that ranked them. Every piece of
    user text (prompt, names, reasons) is literal Text, never markup."""
    from rich.text import Text

    from cuectx.human import ago
    from cuectx.output import Col, print_fitted

    con = console()
    when = view["created_at"][:19].replace("T", " ")
    path = view["path"] + (f" (fallback: {view['fallback_reason']})" if view["fallback_reason"] else "")
    con.print(Text.assemble((f"Request {view['id']}", "bold"),
                            f" · {ago(view['created_at'])} ({when} UTC) · session "
                            f"{(view['session_id'] or '-')[:8]} · ", literal(path)))
    con.print(literal("Prompt: " + " ".join(view["prompt"].split())[:300], style="dim"))
    from ctx.claude.request_view import sent_counts

    counts = sent_counts(view)
    head = f"{counts['now']} sent now, {counts['earlier']} already in context"
    if counts["unsent"]:
        head += f", {counts['unsent']} not sent"
    con.print(Text(head, style="bold"))
    included = [i for i in view["items"] if i["included"]]
    excluded = [i for i in view["items"] if not i["included"]]
    groups: dict[str, list[dict]] = {}
    for item in included:
        groups.setdefault(item["type"] or "deleted", []).append(item)
    columns = [Col("mode"), Col("item", free=True), Col("id", style="dim"), Col("sent")]
    for node_type in sorted(groups, key=lambda t: list(TYPE_TITLES).index(t)
                            if t in TYPE_TITLES else 99):
        rows = []
        for item in groups[node_type]:
            if item["injected"] == "now":
                sent = Text("sent now", style="green")
            elif item["injected"] == "earlier":
                sent = Text("in context", style="dim")
            else:
                sent = Text(f"not sent ({item['reason']})" if item["reason"] else "not sent",
                            style="red")
            rows.append([_badge(item), item["name"], item["short_id"], sent])
        con.print()
        print_fitted(columns, rows, con=con, header=False,
                     title=f"{TYPE_TITLES.get(node_type, node_type)} ({len(groups[node_type])})")
    if not included:
        con.print("  (no items in this request's context)")
    if excluded:
        con.print()
        print_fitted([Col("rank", justify="right"), Col("score", justify="right"),
                      Col("item", free=True), Col("id", style="dim"),
                      Col("why not", squeeze=True, style="dim", max_width=30)],
                     [[str(i["rank"]) if i["rank"] is not None else "-",
                       "" if i["score"] is None else f"{i['score']:.2f}", i["name"],
                       i["short_id"], i["reason"] or ""] for i in excluded],
                     con=con, title="Not included (best candidates, by rank)")
    con.print(Text(f"{view['injected_chars']} characters injected · "
                   f"{view['elapsed_ms'] or 0:.0f} ms", style="dim"))
