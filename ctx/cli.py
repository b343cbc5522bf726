"""`ctx` command line: wiring only. The work is in store.py, compose.py, query/ and friends.

Every command opens the database, does one job and exits. stdout is data; messages and
errors go to stderr; errors exit non-zero (see ctx.errors.ExitCode).
"""
from __future__ import annotations

import json
import os
import sqlite3
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer

from ctx import db
from ctx.errors import CtxError
from ctx.ids import short_id
from ctx.output import (
    NODE_FORMATS,
    RECORD_FORMATS,
    Format,
    dumps,
    emit_nodes,
    emit_records,
    formats,
    resolve,
    say,
    set_short_ids,
)
from ctx.store import LARGE_CONTENT_CHARS, Store
from cuectx.cli import EdgeGroup, set_traceback
from cuectx.cli import run as run_app

# Command groups loaded only when asked for: converting their Typer commands costs a few
# milliseconds on every `ctx` run, and most runs are `add`, `query` or a hook.
LAZY_COMMANDS = {
    "install": "ctx.cli_install",
    "search": "ctx.cli_semantic",
    "index": "ctx.cli_semantic",
    "session": "ctx.cli_semantic",
    "requests": "ctx.cli_semantic",
    "project": "ctx.cli_project",
    "mcp": "ctx.cli_mcp",
    "ui": "ctx.cli_ui",
    "doctor": "ctx.cli_doctor",
}


class CtxGroup(EdgeGroup):
    """Loads LAZY_COMMANDS on first use; errors become one `Error: …` line on stderr and a
    documented exit code (cuectx.cli.EdgeGroup)."""

    debug_env = "CTX_DEBUG"

    def translate_sqlite(self, exc):
        return db.translate(exc, Path(state.db_path or os.environ.get("CTX_DB") or "store.db"))

    def list_commands(self, ctx):
        return list(dict.fromkeys([*super().list_commands(ctx), *LAZY_COMMANDS]))

    def get_command(self, ctx, name):
        if name not in self.commands and name in LAZY_COMMANDS:
            self._load(LAZY_COMMANDS[name])
        return super().get_command(ctx, name)

    def _load(self, module_name: str) -> None:
        import importlib

        sub = typer.Typer(rich_markup_mode=None)
        importlib.import_module(module_name).register(sub)
        group = typer.main.get_command(sub)
        for name, command in getattr(group, "commands", {group.name: group}).items():
            self.add_command(command, name)


app = typer.Typer(
    name="ctx",
    cls=CtxGroup,
    help="Persistent, inspectable memory for Claude Code.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
view_app = typer.Typer(help="Named queries with a token budget (`default` feeds Claude Code).",
                       no_args_is_help=True)
app.add_typer(view_app, name="view")


class State:
    db_path: str | None = None
    project: str | None = None
    all_projects: bool = False


state = State()

# Each command declares the formats it supports (ctx.output.formats); others exit 2.
FormatOpt = formats(*NODE_FORMATS)         # commands that print nodes
RecordFormatOpt = formats(*RECORD_FORMATS)  # commands that print records (views, edges, status)
ProjectOpt = Annotated[str | None, typer.Option(
    "--project", "-P", metavar="NAME", help="This project (+ global) instead of the folder's; `global`: global only.")]
AllProjectsOpt = Annotated[bool, typer.Option("--all-projects", help="Every project's memory.")]
AllowSecretsOpt = Annotated[bool, typer.Option(
    "--allow-secrets", help="Store (or export) credentials as given instead of applying "
                            "$CTX_SECRETS (redact by default).")]
IncludeSupersededOpt = Annotated[bool, typer.Option("--include-superseded",
                                                    help="Also show nodes that were superseded.")]


@app.callback()
def _root(
    db_path: Annotated[str | None, typer.Option("--db", envvar="CTX_DB", metavar="PATH",
                                                   help="Database file (default ~/.ctx/store.db).")] = None,
    traceback: Annotated[bool, typer.Option("--traceback", help="Show the full traceback on errors.")] = False,
    project: Annotated[str | None, typer.Option(
        "--project", "-P", metavar="NAME",
        help="Work in this project (+ global memory) instead of the current folder's; "
             "`global` for global memory only.")] = None,
    all_projects: Annotated[bool, typer.Option(
        "--all-projects", help="Read every project's memory (list, query, search, compose, status).")] = False,
) -> None:
    """Persistent, inspectable memory for Claude Code.

    Memory is scoped: commands read the current folder's project (its git repository) plus
    global memory, and `add` stores into that project.

    Example: ctx add --type fact --tag tier:reference "Staging DB listens on port 6543"
    """
    state.db_path = db_path
    state.project = project
    state.all_projects = all_projects
    set_traceback(traceback, "CTX_DEBUG")
    set_short_ids(_short_ids_in_store)


def _short_ids_in_store(ids: list[str]) -> dict[str, str]:
    """Short ids for tables and markdown: unique in the whole store (ctx.ids.short_ids)."""
    from ctx.ids import short_ids

    with db.opened(state.db_path, readonly=True) as conn:
        return short_ids(conn, ids)


@contextmanager
def open_store(*, readonly: bool = False, allow_secrets: bool = False) -> Iterator[Store]:
    """The store for one command. Writes are screened for secrets (ctx.guard: $CTX_SECRETS,
    or allowed by --allow-secrets); one warning line says what was redacted (kinds only)."""
    conn = db.connect(state.db_path, readonly=readonly)
    try:
        store = Store(conn, secrets="allow" if allow_secrets else None)
        yield store
    except sqlite3.Error as exc:
        raise db.translate(exc, Path(state.db_path or "")) from exc
    finally:
        conn.close()
    from ctx import guard

    if store.secret_events and (line := guard.warning(store.secret_events)):
        say(f"ctx warning: {line}")


def scope_options(project: str | None, all_projects: bool) -> None:
    """--project/--all-projects given after the command name (`ctx list -P api`) count the
    same as before it (`ctx -P api list`)."""
    if project is not None:
        state.project = project
    if all_projects:
        state.all_projects = True


def read_scope(store: Store):
    """The scope reading commands use: --all-projects, --project NAME, else the working
    directory's project (or $CTX_PROJECT), always with global memory (ctx.scope)."""
    from ctx.scope import current_scope

    return current_scope(store.conn, project=state.project, all_projects=state.all_projects)


def write_project_id(store: Store, *, to_global: bool = False) -> int | None:
    """Where `add` stores: --global → global; --project NAME; else the working directory's
    project (created on its first memory), or global outside any repository."""
    from ctx.scope import current_scope

    if to_global:
        if state.project:
            raise CtxError("give --global or --project, not both")
        return None
    if state.all_projects:
        raise CtxError("--all-projects does not say where to add; use --project NAME or --global")
    return current_scope(store.conn, project=state.project).write_project_id(store.conn)


def read_text_input(source: str) -> str:
    """Text from `-` (stdin) or a file path, strictly UTF-8."""
    if source == "-":
        data = sys.stdin.buffer.read()
        where = "stdin"
    else:
        path = Path(source).expanduser()
        if not path.is_file():
            raise CtxError(f"no such file: {source}")
        data = path.read_bytes()
        where = source
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CtxError(f"{where} is not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset "
                       f"{exc.start})") from None


def parse_meta(values: list[str]) -> dict | None:
    """--meta '{"k": "v"}' or repeated --meta k=v."""
    if not values:
        return None
    meta: dict = {}
    for raw in values:
        raw = raw.strip()
        if raw.startswith("{"):
            try:
                obj = json.loads(raw)
            except json.JSONDecodeError as exc:
                raise CtxError(f"--meta is not valid JSON: {exc.msg} at position {exc.pos}") from None
            if not isinstance(obj, dict):
                raise CtxError("--meta JSON must be an object")
            meta.update(obj)
        elif "=" in raw:
            key, _, value = raw.partition("=")
            if not key.strip():
                raise CtxError(f"--meta {raw!r} needs a key: KEY=VALUE")
            meta[key.strip()] = value
        else:
            raise CtxError(f"--meta {raw!r} must be KEY=VALUE or a JSON object")
    return meta


def parse_ndjson(text: str) -> list[dict]:
    records = []
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise CtxError(f"line {lineno}: not valid JSON ({exc.msg} at column {exc.colno})") from None
        if isinstance(obj, list):  # a JSON array of records is fine too
            records.extend(obj)
        else:
            records.append(obj)
    return records


# ---------------------------------------------------------------------------- nodes

@app.command()
def add(
    content: Annotated[str | None, typer.Argument(help="The text to remember, or - for stdin.")] = None,
    type_: Annotated[str, typer.Option("--type", "-t", help="fact, decision, pattern, observation, "
                                       "hypothesis, task, summary, source, open-question.")] = "fact",
    tag: Annotated[list[str] | None, typer.Option("--tag", help="A tag (repeatable), e.g. tier:reference.")] = None,
    meta: Annotated[list[str] | None, typer.Option("--meta", help="KEY=VALUE (repeatable) or a JSON object.")] = None,
    json_input: Annotated[str | None, typer.Option(
        "--json", metavar="FILE|-",
        help="Add NDJSON records {content, type, tags, metadata} from a file or - (stdin).")] = None,
    global_: Annotated[bool, typer.Option(
        "--global", help="Store as global memory (every project sees it), not in this project.")] = False,
    project: ProjectOpt = None,
    allow_secrets: AllowSecretsOpt = False,
    fmt: FormatOpt = Format.ids,
) -> None:
    """Add a memory node (prints its id) to the current folder's project, or --global.

    Example: ctx add -t decision --tag tier:reference --meta rationale="fewer moving parts" "Use SQLite"
    Example: cue digest --format json | ctx add --json -
    """
    if json_input is not None:
        if content is not None:
            raise CtxError("give either CONTENT or --json, not both")
        records = parse_ndjson(read_text_input(json_input))
        if not records:
            # An idle cron window (`cue digest --format json | ctx add --json -`) is not an error.
            say("nothing to add: no records on input")
            return
        defaults_tags = list(tag or [])
        for r in records:
            if isinstance(r, dict):
                if defaults_tags:
                    r["tags"] = list(r.get("tags") or []) + defaults_tags
                if "type" not in r and type_ != "fact":
                    r["type"] = type_
    else:
        if content is None:
            raise CtxError("nothing to add: give the content as an argument, - for stdin, or --json -")
        text = read_text_input("-") if content == "-" else content
        records = [{"content": text, "type": type_, "tags": list(tag or []), "metadata": parse_meta(meta or [])}]
    for r in records:
        if isinstance(r, dict) and isinstance(r.get("content"), str) and len(r["content"]) > LARGE_CONTENT_CHARS:
            say(f"ctx warning: large content ({len(r['content']):,} characters)")
    scope_options(project, False)
    for r in records:
        if isinstance(r, dict):
            r.pop("project_id", None)  # the project is chosen here, not by the input
    with open_store(allow_secrets=allow_secrets) as store, store.transaction():
        nodes = store.add_many(records, project_id=write_project_id(store, to_global=global_))
    emit_nodes(nodes, fmt, single=json_input is None)
    if len(nodes) > 1:
        say(f"added {len(nodes)} nodes")


@app.command()
def show(
    ids: Annotated[list[str], typer.Argument(help="Node ids or unique prefixes (≥ 4 chars).")],
    fmt: FormatOpt = Format.auto,
) -> None:
    """Show nodes in full, with tags and edges.

    Example: ctx show 01JD3K8W
    """
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
            console.print(Panel(literal("\n".join(lines)), title=literal(r["id"]),
                                title_align="left"))
    elif out == Format.markdown:
        emit_nodes(nodes, Format.markdown)
    elif out == Format.ids:
        emit_nodes(nodes, Format.ids)
    else:
        emit_records(records, out, single=len(records) == 1)


@app.command("list")
def list_(
    type_: Annotated[str | None, typer.Option("--type", "-t", help="Only this node type.")] = None,
    tag: Annotated[list[str] | None, typer.Option(
        "--tag", help="Only nodes with this tag (repeatable: all of them).")] = None,
    limit: Annotated[int | None, typer.Option("--limit", "-n", min=1, help="At most this many (newest first).")] = None,
    include_superseded: IncludeSupersededOpt = False,
    project: ProjectOpt = None,
    all_projects: AllProjectsOpt = False,
    fmt: FormatOpt = Format.auto,
) -> None:
    """List nodes (oldest first; with --limit, the newest N) of this project and global memory.

    Example: ctx list --type decision --tag project:api
    """
    scope_options(project, all_projects)
    with open_store(readonly=True) as store:
        nodes = store.list_nodes(type=type_, tags=tag or [], include_superseded=include_superseded,
                                 limit=limit, newest_first=limit is not None,
                                 scope=read_scope(store))
    if limit is not None:
        nodes.reverse()
    emit_nodes(nodes, fmt)


@app.command()
def query(
    expr: Annotated[str, typer.Argument(help="A query, e.g. 'type:decision AND tag:tier:reference'.")],
    limit: Annotated[int | None, typer.Option("--limit", "-n", min=1)] = None,
    include_superseded: IncludeSupersededOpt = False,
    project: ProjectOpt = None,
    all_projects: AllProjectsOpt = False,
    fmt: FormatOpt = Format.auto,
) -> None:
    """Find nodes with the query language (see README: Query language).

    Example: ctx query 'type:fact AND (tag:project:api OR "rate limit") AND NOT tag:tier:off-context'
    """
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


@app.command()
def update(
    node: Annotated[str, typer.Argument(help="Node id or prefix.")],
    content: Annotated[str | None, typer.Argument(help="New content, or - for stdin.")] = None,
    type_: Annotated[str | None, typer.Option("--type", "-t")] = None,
    meta: Annotated[list[str] | None, typer.Option("--meta", help="Replace metadata: KEY=VALUE or JSON.")] = None,
    allow_secrets: AllowSecretsOpt = False,
    fmt: FormatOpt = Format.ids,
) -> None:
    """Change a node's content, type or metadata in place (use `supersede` to keep history).

    Example: ctx update 01JD3K8W "Staging DB listens on port 6544"
    """
    text = read_text_input("-") if content == "-" else content
    with open_store(allow_secrets=allow_secrets) as store:
        n = store.update(node, content=text, metadata=parse_meta(meta or []), type=type_)
    emit_nodes([n], fmt, single=True)


@app.command()
def tag(
    node: Annotated[str, typer.Argument(help="Node id or prefix.")],
    tags: Annotated[list[str], typer.Argument(help="Tags to add (a tier:… tag replaces the old tier).")],
    fmt: FormatOpt = Format.ids,
) -> None:
    """Add tags to a node.

    Example: ctx tag 01JD3K8W tier:pinned project:api
    """
    with open_store() as store:
        n = store.tag(node, tags)
    emit_nodes([n], fmt, single=True)


@app.command()
def untag(
    node: Annotated[str, typer.Argument(help="Node id or prefix.")],
    tags: Annotated[list[str], typer.Argument(help="Tags to remove.")],
    fmt: FormatOpt = Format.ids,
) -> None:
    """Remove tags from a node.

    Example: ctx untag 01JD3K8W tier:working
    """
    with open_store() as store:
        n = store.untag(node, tags)
    emit_nodes([n], fmt, single=True)


@app.command()
def link(
    from_id: Annotated[str, typer.Argument(metavar="FROM", help="Source node.")],
    to_id: Annotated[str, typer.Argument(metavar="TO", help="Target node.")],
    type_: Annotated[str, typer.Option(
        "--type", "-t", help="DEPENDS_ON, DERIVED_FROM, SUPERSEDES, RELATES_TO.")] = "RELATES_TO",
    fmt: RecordFormatOpt = Format.auto,
) -> None:
    """Link two nodes with a typed edge.

    Example: ctx link 01JD3K8W 01JD3M2Q --type DEPENDS_ON
    """
    with open_store() as store:
        edge = store.link(from_id, to_id, type_)
    emit_records([edge.to_dict()], fmt, single=True, columns=["from", "type", "to", "created_at"])


@app.command()
def supersede(
    old: Annotated[str, typer.Argument(help="The node being replaced.")],
    new: Annotated[str, typer.Argument(help="The node that replaces it.")],
    fmt: FormatOpt = Format.ids,
) -> None:
    """Mark OLD as replaced by NEW (OLD disappears from queries and context).

    Example: ctx supersede 01JD3K8W 01JD4ZZQ
    """
    with open_store() as store:
        old_node, _ = store.supersede(old, new)
        short = short_id(store, old_node.id)
    emit_nodes([old_node], fmt, single=True)
    say(f"{short} is now superseded by {old_node.superseded_by}")


@app.command()
def rm(
    ids: Annotated[list[str], typer.Argument(help="Node ids or prefixes to delete.")],
) -> None:
    """Delete nodes for good (tags and edges too). Prefer `supersede` to keep history.

    Example: ctx rm 01JD3K8W
    """
    with open_store() as store, store.transaction():
        # Resolve all first: an unknown id deletes nothing.
        nodes = [store.get(i) for i in ids]
        for n in nodes:
            store.delete(n.id)
    for n in nodes:
        print(n.id)
    say(f"deleted {len(nodes)} node{'s' if len(nodes) != 1 else ''}")


# ---------------------------------------------------------------------------- views

@view_app.command("list")
def view_list(fmt: RecordFormatOpt = Format.auto) -> None:
    """List views.

    Example: ctx view list
    """
    with open_store(readonly=True) as store:
        views = store.list_views()
    emit_records([v.to_dict() for v in views], fmt, columns=["name", "budget", "query", "updated_at"])


@view_app.command("show")
def view_show(name: Annotated[str, typer.Argument()] = "default",
              fmt: RecordFormatOpt = Format.auto) -> None:
    """Show one view.

    Example: ctx view show default
    """
    with open_store(readonly=True) as store:
        v = store.get_view(name)
    emit_records([v.to_dict()], fmt, single=True, columns=["name", "budget", "query", "updated_at"])


@view_app.command("create")
def view_create(
    name: Annotated[str, typer.Argument()],
    query_: Annotated[str, typer.Option("--query", "-q", help="The view's query.")],
    budget: Annotated[int, typer.Option("--budget", "-b", min=1, help="Token budget.")] = 50_000,
    fmt: RecordFormatOpt = Format.auto,
) -> None:
    """Create a view.

    Example: ctx view create api --query 'tag:project:api' --budget 8000
    """
    with open_store() as store:
        v = store.create_view(name, query_, budget)
    emit_records([v.to_dict()], fmt, single=True, columns=["name", "budget", "query"])


@view_app.command("update")
def view_update(
    name: Annotated[str, typer.Argument()],
    query_: Annotated[str | None, typer.Option("--query", "-q")] = None,
    budget: Annotated[int | None, typer.Option("--budget", "-b", min=1)] = None,
    fmt: RecordFormatOpt = Format.auto,
) -> None:
    """Change a view's query or budget.

    Example: ctx view update default --budget 80000
    """
    with open_store() as store:
        v = store.update_view(name, query=query_, budget=budget)
    emit_records([v.to_dict()], fmt, single=True, columns=["name", "budget", "query"])


@view_app.command("delete")
def view_delete(name: Annotated[str, typer.Argument()]) -> None:
    """Delete a view (not `default`).

    Example: ctx view delete api
    """
    with open_store() as store:
        store.delete_view(name)
    say(f"deleted view {name}")


# ---------------------------------------------------------------------------- compose, status

@app.command()
def compose(
    view: Annotated[str, typer.Option("--view", "-v", help="View to compose.")] = "default",
    query_: Annotated[str | None, typer.Option("--query", "-q", help="Use this query instead of the view's.")] = None,
    budget: Annotated[int | None, typer.Option("--budget", "-b", min=1,
                                                  help="Token budget (default: $CTX_DEFAULT_BUDGET, "
                                                       "else the view's).")] = None,
    fmt: formats("markdown", "json", auto=False) = Format.markdown,
    project: ProjectOpt = None,
    all_projects: AllProjectsOpt = False,
) -> None:
    """Compose memory into context within a token budget (what Claude Code is given).

    Example: ctx compose --view default --budget 8000 --format json
    """
    from ctx.compose import compose as do_compose
    from ctx.compose import render_json, render_markdown
    from ctx.store import now_iso

    scope_options(project, all_projects)
    with open_store(readonly=True) as store:
        comp = do_compose(store, query_, view=view, budget=budget, scope=read_scope(store))
    stamp = now_iso()
    if fmt == "json":
        print(dumps(render_json(comp, rendered_at=stamp)))
    else:
        sys.stdout.write(render_markdown(comp, rendered_at=stamp))


@app.command()
def status(fmt: RecordFormatOpt = Format.auto, project: ProjectOpt = None,
           all_projects: AllProjectsOpt = False) -> None:
    """Summarise the store: counts by type and tier (in the current scope), edges, views, pending hand-offs.

    Example: ctx status --format json
    """
    scope_options(project, all_projects)
    with open_store(readonly=True) as store:
        scope = read_scope(store)
        info = store.stats(scope=scope)
        info["db"] = str(Path(store.conn.execute("PRAGMA database_list").fetchone()[2]))
        info["scope"] = scope.label
        info["project"] = scope.project_name
        info["projects"] = store.conn.execute("SELECT count(*) FROM projects").fetchone()[0]
    out = resolve(fmt, single=True)
    if out in (Format.json, Format.ndjson):
        print(dumps(info))
        return
    lines = [f"database: {info['db']} (schema v{info['schema_version']})",
             (f"scope: {info['scope']}   (projects in the store: {info['projects']}; "
              f"see `ctx project list`)"),
             (f"nodes: {info['live_nodes']} live, {info['superseded_nodes']} superseded, "
              f"~{info['tokens']:,} tokens"),
             "by type: " + (", ".join(f"{k} {v}" for k, v in info["by_type"].items()) or "-"),
             "by tier: " + (", ".join(f"{k[5:]} {v}" for k, v in info["by_tier"].items()) or "-"),
             f"edges: {info['edges']}   tags: {info['tags']}   views: {info['views']}",
             "pending: " + (", ".join(info["pending"]) or "-")]
    print("\n".join(lines))


# ---------------------------------------------------------------------------- export / import

@app.command("export")
def export_(
    output: Annotated[str | None, typer.Argument(help="File to write (default stdout).")] = None,
    allow_secrets: AllowSecretsOpt = False,
) -> None:
    """Export every node, edge and view as JSONL (lossless; `import` reads it back).

    Refuses (writing nothing) when a stored node holds a secret, unless --allow-secrets;
    `ctx doctor --secrets --fix` redacts them in the store first.

    Example: ctx export > backup.jsonl
    """
    from ctx.transfer import export_lines

    with open_store(readonly=True) as store:
        if not allow_secrets:
            from ctx import guard

            guard.refuse_export(guard.scan_store(store) + guard.scan_projects(store))
        lines = list(export_lines(store))
    text = "".join(line + "\n" for line in lines)
    if output and output != "-":
        Path(output).expanduser().write_text(text, encoding="utf-8")
        say(f"exported {len(lines)} records to {output}")
    else:
        sys.stdout.write(text)


@app.command("import")
def import_(
    source: Annotated[str, typer.Argument(help="JSONL file from `ctx export`, or - for stdin.")] = "-",
    skip_existing: Annotated[bool, typer.Option(
        "--skip-existing", help="Skip nodes whose id exists instead of failing.")] = False,
    allow_secrets: AllowSecretsOpt = False,
) -> None:
    """Import a JSONL export (all or nothing; secrets in it follow $CTX_SECRETS).

    Example: ctx --db new.db import backup.jsonl
    """
    from ctx.transfer import import_lines

    text = read_text_input(source)
    with open_store(allow_secrets=allow_secrets) as store:
        counts = import_lines(store, text.splitlines(), skip_existing=skip_existing)
    say("imported " + ", ".join(f"{v} {k}" for k, v in counts.items()))


def run() -> None:
    run_app(app)
