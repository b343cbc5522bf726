"""`ctx add|show|list|query|update|tag|untag|link|supersede|rm`: one node at a time.

The read commands (show, list, query) declare their options here and do their work in
ctx/cli/reads.py."""
from __future__ import annotations

import sys
from typing import Annotated

import typer

from ctx.cli import reads
from ctx.cli.options import (
    AllowSecretsOpt,
    AllProjectsOpt,
    FormatOpt,
    IncludeSupersededOpt,
    ProjectOpt,
    RecordFormatOpt,
)
from ctx.cli.output import Format, emit_nodes, emit_records, say
from ctx.cli.state import (
    open_store,
    parse_meta,
    parse_ndjson,
    read_text_input,
    scope_options,
    write_project_id,
)
from ctx.core.errors import CtxError
from ctx.core.ids import short_id
from ctx.core.model import LARGE_CONTENT_CHARS
from cuectx.errors import UsageError
from cuectx.human import plural


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
    dedupe: Annotated[str | None, typer.Option(
        "--dedupe", metavar="skip|keep|ask",
        help="A likely duplicate of a live node: skip it, keep (store it too), or ask "
             "(default $CTX_DEDUPE, else ask). Exact and near-exact duplicates are never "
             "stored again; the existing id is printed.")] = None,
    fmt: FormatOpt = Format.ids,
) -> None:
    """Add a memory node (prints its id) to the current folder's project, or --global.
    A duplicate of a live node is not stored again: its id is printed instead.

    Example: ctx add -t decision --meta rationale="fewer parts" "Use SQLite"
    Example: cue digest --format json | ctx add --json -
    """
    from ctx.core.settings import DEDUPE_POLICIES

    if dedupe is not None and dedupe not in DEDUPE_POLICIES:
        raise UsageError(f"--dedupe is one of {', '.join(DEDUPE_POLICIES)}, not {dedupe!r}")
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
        project_id = write_project_id(store, to_global=global_)
        records, existing = _without_duplicates(store, records, project_id, dedupe)
        nodes = store.add_many(records, project_id=project_id) if records else []
        nodes = sorted([*nodes, *store.get_many(existing)], key=lambda n: n.id) \
            if existing and nodes else nodes or store.get_many(existing)
    emit_nodes(nodes, fmt, single=json_input is None)
    if len(records) > 1:
        say(f"added {plural(len(records), 'node')}")


def _without_duplicates(store, records: list, project_id, policy: str | None):
    """The records to store, and the ids of live nodes the others duplicate (ctx.core.dedupe:
    exact and near-exact never stored again; a likely one as CTX_DEDUPE / --dedupe says)."""
    from functools import partial

    from ctx.core import dedupe
    from ctx.core.fingerprint import normal_hash
    from ctx.core.settings import dedupe_policy
    from ctx.doctor.paraphrase import paraphrase_of

    # by meaning too when the store has an embedding index (the model loads: ~0.5 s once)
    meaning = partial(paraphrase_of, load=True)
    policy = dedupe_policy(policy)
    confirm = None
    if policy == "ask" and sys.stdin.isatty() and sys.stderr.isatty():
        def confirm():
            return typer.confirm("store it anyway?", default=False, err=True)
    keep, existing, seen = [], [], set()
    for r in records:
        content = r.get("content") if isinstance(r, dict) else None
        if not isinstance(content, str) or not content.strip():
            keep.append(r)  # add_many says what is wrong with it
            continue
        text = dedupe.as_stored(content, store.secrets)
        if normal_hash(text) in seen:
            say("skipped a record that repeats an earlier one in the same input")
            continue
        seen.add(normal_hash(text))
        dup = dedupe.check(store, text, r.get("project_id", project_id), meaning=meaning)
        asking = dup is not None and not dup.blocks and policy == "ask" and confirm is not None
        if asking:
            say(f"likely a duplicate of {short_id(store, dup.node_id)} ({dup.evidence})")
        stored = dedupe.should_store(dup, policy, confirm=confirm)
        if dup is not None and not asking:
            say(dedupe.message(dup, stored, short_id(store, dup.node_id),
                               how_to_keep="add it with --dedupe keep"))
        if stored:
            keep.append(r)
        else:
            existing.append(dup.node_id)
    return keep, list(dict.fromkeys(existing))


def show(
    ids: Annotated[list[str], typer.Argument(help="Node ids or unique prefixes (≥ 4 chars).")],
    fmt: FormatOpt = Format.auto,
    history: Annotated[bool, typer.Option(
        "--history", help="Also every earlier version (`ctx edit`) and the supersede chain.")] = False,
) -> None:
    """Show nodes in full, with tags and edges.

    Example: ctx show 01JD3K8W

    Example: ctx show 01JD3K8W --history
    """
    reads.show(ids, fmt, history)


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
    reads.list_(type_, tag, limit, include_superseded, project, all_projects, fmt)


def query(
    expr: Annotated[str, typer.Argument(help="A query, e.g. 'type:decision AND tag:tier:reference'.")],
    limit: Annotated[int | None, typer.Option("--limit", "-n", min=1)] = None,
    include_superseded: IncludeSupersededOpt = False,
    project: ProjectOpt = None,
    all_projects: AllProjectsOpt = False,
    fmt: FormatOpt = Format.auto,
) -> None:
    """Find nodes with the query language (see README: Query language).

    Example: ctx query 'type:fact AND ("rate limit" OR tag:api) AND NOT tag:old'
    """
    reads.query(expr, limit, include_superseded, project, all_projects, fmt)


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


def register(app: typer.Typer) -> None:
    app.command()(add)
    app.command()(show)
    app.command("list")(list_)
    app.command()(query)
    app.command()(update)
    app.command()(tag)
    app.command()(untag)
    app.command()(link)
    app.command()(supersede)
    app.command()(rm)
