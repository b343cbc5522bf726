"""What the `ctx mcp` tools do (SPEC §2.9), as plain functions over a Store: no MCP SDK here.

ctx/mcp/server.py gives each function a name, a description and a JSON schema and serves it
over stdio; this module does the work with the same rules the hooks and the CLI use:
`remember` is ctx.claude.actions.remember (same de-duplication, tier and task rules, same
supersede), recall runs the query language or the hybrid search of ctx.semantic, compose is
ctx.core.compose. Each function returns a JSON-ready dict (and, for compose, the markdown a
model reads); bad input raises CtxError with a sentence that says what to fix.

Project scope (SPEC §2.8) is the hooks': `scope` is the server's project (its working
directory's repository, or $CTX_PROJECT) + global memory. New memory goes to that project
(`where="global"`: global memory); recall, compose and status read project + global unless
the query names its own (`project:NAME`, `scope:global`) or `all_projects` is asked for.
"""
from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ctx.claude import actions
from ctx.core.errors import CtxError
from ctx.core.ids import short_id
from ctx.core.model import Node
from ctx.core.store import Store, validate_tag

if TYPE_CHECKING:
    from ctx.core.store import Scope

RECALL_MAX = 50
SHOW_MAX = 50
# Long memories are cut in recall results (show gives them whole, up to SHOW_CHARS each):
# Claude Code refuses MCP results over ~25k tokens.
RECALL_CHARS = 2_000
SHOW_CHARS = 40_000
SHOW_TOTAL_CHARS = 60_000  # all nodes of one show together (~15k tokens)
COMPOSE_BUDGET = 8_000  # tokens; Claude Code warns above 10k tokens of tool output, cuts at 25k
COMPOSE_MAX_BUDGET = 20_000
REMEMBER_STATUS = {actions.Status.DONE: "remembered", actions.Status.EXISTS: "already remembered",
                   actions.Status.LIKELY: "likely duplicate, not stored"}
INDEX_SECONDS = 5.0  # JIT-embed new nodes for at most this long per recall; the rest by words


def node_record(node: Node, *, max_chars: int | None = None) -> dict:
    """A node as a model sees it: full id (prefixes work too), type, tier, tags, text."""
    content = node.content
    out = {"id": node.id, "type": node.type, "tier": node.tier, "tags": list(node.tags)}
    if max_chars is not None and len(content) > max_chars:
        out["content"] = content[:max_chars] + "…"
        out["truncated"] = f"{len(content):,} characters; `show` gives the whole text"
    else:
        out["content"] = content
    out["project"] = node.project  # None: global memory
    out["created_at"] = node.created_at
    if node.metadata:
        out["metadata"] = node.metadata
    if node.superseded_by:
        out["superseded_by"] = node.superseded_by
    return out


def _tags(tags: Sequence[str] | None) -> list[str]:
    """Validated one by one: a tag holding a comma or a space is refused, not split."""
    return [validate_tag(t) for t in tags or ()]


# ------------------------------------------------------------------------------ writes

def remember(store: Store, content: str, type: str = "fact", tier: str | None = None,
             tags: Sequence[str] | None = None, rationale: str | None = None,
             source: str | None = None, supersedes: str | None = None,
             where: str = "project", scope: Scope | None = None,
             dedupe: str | None = None) -> dict:
    """Store a memory exactly as `<ctx:remember …>` in a reply does (ctx.claude.actions.remember):
    into `scope`'s project, or global memory with `where="global"`."""
    if where not in ("project", "global"):
        raise CtxError(f"where must be \"project\" or \"global\", not {where!r}")

    def given(value):
        return str(value) if value is not None and str(value).strip() else None

    memory = actions.Memory(content or "", type=type, tier=given(tier), tags=tuple(_tags(tags)),
                            rationale=given(rationale), source=given(source),
                            supersedes=given(supersedes), where=where, dedupe=given(dedupe))
    outcome = actions.remember(store, memory, scope=scope)
    if not outcome.ok:
        raise CtxError(outcome.message)
    out = {"status": REMEMBER_STATUS[outcome.status], "message": outcome.report(store),
           "node": node_record(store.get(outcome.node_ids[0]))}
    if outcome.secrets:
        out["secrets_redacted"] = list(outcome.secret_kinds)
        out["message"] += " — do not store secrets"
    if supersedes:
        out["superseded"] = store.resolve(supersedes)
    return out


def supersede(store: Store, old: str, new: str | None = None, content: str | None = None,
              type: str | None = None, tier: str | None = None,
              tags: Sequence[str] | None = None) -> dict:
    """Replace OLD by an existing node NEW, or by a new node holding CONTENT (which keeps
    OLD's type, tier, tags and project unless given)."""
    if (new is None) == (content is None):
        raise CtxError("give exactly one of `new` (the id of a node that replaces the old one) "
                       "or `content` (the text of a new node that replaces it)")
    if new is not None:
        with store.transaction():
            old_node, new_node = store.supersede(old, new)
        return {"message": f"{short_id(store, new_node.id)} supersedes "
                           f"{short_id(store, old_node.id)}",
                "old": node_record(old_node, max_chars=RECALL_CHARS),
                "new": node_record(new_node, max_chars=RECALL_CHARS)}
    previous = store.get(old)
    if previous.superseded_by:
        raise CtxError(f"{short_id(store, previous.id)} is already superseded by "
                       f"{short_id(store, previous.superseded_by)}; supersede that one instead")
    keep = [t for t in previous.tags if not t.startswith("tier:")] if tags is None else list(tags)
    if previous.project is None:
        where, home = "global", None
    else:
        from ctx.core.projects import get
        from ctx.core.store import Scope

        where, home = "project", Scope(project=get(store.conn, previous.project))
    result = remember(store, content or "", type=type or previous.type, tier=tier or previous.tier,
                      tags=keep, supersedes=previous.id, where=where, scope=home)
    old_node = store.get(previous.id)
    return {"message": result["message"], "old": node_record(old_node, max_chars=RECALL_CHARS),
            "new": result["node"]}


def link(store: Store, from_id: str, to_id: str, type: str = "RELATES_TO") -> dict:
    with store.transaction():
        edge = store.link(from_id, to_id, type)
    return {"message": f"linked {short_id(store, edge.from_id)} {edge.type} "
                       f"{short_id(store, edge.to_id)}",
            "edge": edge.to_dict()}


def forget(store: Store, ids: Sequence[str]) -> dict:
    """Delete nodes for good (tags, edges and vectors too). All ids are resolved first: one
    unknown id deletes nothing."""
    if not ids:
        raise CtxError("give at least one node id to forget")
    with store.transaction():
        nodes = list({n.id: n for n in (store.get(i) for i in ids)}.values())
        for n in nodes:
            store.delete(n.id)
    return {"message": f"forgot {len(nodes)} node{'s' if len(nodes) != 1 else ''}",
            "forgotten": [node_record(n, max_chars=RECALL_CHARS) for n in nodes]}


# ------------------------------------------------------------------------------ reads

def show(store: Store, ids: Sequence[str]) -> dict:
    if not ids:
        raise CtxError("give at least one node id to show")
    if len(ids) > SHOW_MAX:
        raise CtxError(f"show at most {SHOW_MAX} nodes at a time (got {len(ids)})")
    nodes = [store.get(i) for i in dict.fromkeys(ids)]
    edges = store.edges([n.id for n in nodes])
    out = []
    each = max(RECALL_CHARS, min(SHOW_CHARS, SHOW_TOTAL_CHARS // len(nodes)))
    for n in nodes:
        record = node_record(n, max_chars=each)
        record["updated_at"] = n.updated_at
        record["edges"] = [e.to_dict() for e in edges if n.id in (e.from_id, e.to_id)]
        out.append(record)
    return {"nodes": out}


def recall(store: Store, query: str, limit: int = 10, mode: str = "auto",
           filter: str | None = None, include_superseded: bool = False,
           scope: Scope | None = None) -> dict:
    """Query language (`type:decision AND tag:project:api`) or plain words (hybrid search:
    meaning (multilingual-e5) + words; words only when the model is not installed)."""
    from ctx.semantic.search import MODES

    query = (query or "").strip()
    if not query:
        raise CtxError("the query is empty: give plain words (\"how we deploy\") or a query "
                       "like 'type:decision AND tag:project:api'")
    if not 1 <= limit <= RECALL_MAX:
        raise CtxError(f"limit must be between 1 and {RECALL_MAX}")
    if mode == "auto":
        mode = "query" if actions.is_query_language(query) else "hybrid"
    if mode == "query":
        if filter:
            raise CtxError("`filter` goes with plain-words search; in query mode put the "
                           "condition in the query itself (… AND type:decision)")
        return _recall_query(store, query, limit, include_superseded, scope)
    if mode not in MODES:
        raise CtxError(f"unknown mode {mode!r}; use auto, query, {', '.join(MODES)}")
    return _recall_search(store, query, limit, mode, filter, include_superseded, scope)


def _recall_query(store: Store, query: str, limit: int, include_superseded: bool,
                  scope: Scope | None) -> dict:
    from ctx.query import compile_expr, names_scope, parse

    expr = parse(query)
    compiled = compile_expr(expr)
    where, params = f"({compiled.where})", list(compiled.params)
    if scope is not None and not scope.all_projects and not names_scope(expr):
        scope_sql, scope_params = scope.sql()
        where, params = f"{where} AND {scope_sql}", params + scope_params
    total = store.count(where, params, include_superseded=include_superseded)
    # Newest first: a recall wants what was decided last, not the oldest nodes.
    nodes = store.select(where, params, include_superseded=include_superseded, limit=limit,
                         order="n.id DESC")
    return {"query": query, "mode": "query", "total": total,
            "results": [{**node_record(n, max_chars=RECALL_CHARS), "score": None} for n in nodes]}


def _recall_search(store: Store, text: str, limit: int, mode: str, filter_: str | None,
                   include_superseded: bool, scope: Scope | None) -> dict:
    from ctx.semantic.search import Eligibility, SearchOptions, keyword_query, search

    note = None
    if mode != "keyword" and not actions.semantic_available():
        from ctx.semantic.model import locate, missing_message

        why = (missing_message() if locate() is None
               else "meaning search is switched off ($CTX_SEMANTIC)")
        if mode == "semantic":
            raise CtxError(why + "; mode \"keyword\" works without it")
        mode, note = "keyword", f"ranked by words only: {why}"
    if filter_:
        from ctx.query import compile_query

        compile_query(filter_)  # a malformed filter is the caller's to fix, not a fallback
    if mode == "keyword" and keyword_query(text) is None:
        return {"query": text, "mode": mode, "total": 0, "results": [],
                "note": "no searchable words in the query"}

    def run(m: str):
        options = SearchOptions(mode=m, top_k=max(20, limit), top_n=limit, filter=filter_ or None,
                                include_superseded=include_superseded)
        return search(store.conn, text, options, eligibility=Eligibility.within(scope),
                      index_deadline=time.monotonic() + INDEX_SECONDS)

    try:
        result = run(mode)
    except CtxError:
        raise
    except Exception as exc:  # a broken model must not lose the recall: words still work
        if mode == "keyword":
            raise
        result, note = run("keyword"), f"semantic search failed ({type(exc).__name__}); ranked by words"
        mode = "keyword"
    hits = result.hits[:limit]
    nodes = {n.id: n for n in store.get_many([h.node_id for h in hits])}
    results = []
    for h in hits:
        if h.node_id in nodes:
            record = node_record(nodes[h.node_id], max_chars=RECALL_CHARS)
            record["score"] = round(h.score, 4)
            if h.similarity is not None:
                record["similarity"] = round(h.similarity, 4)
            results.append(record)
    out = {"query": text, "mode": mode, "total": len(result.candidates), "results": results}
    if result.not_indexed:
        out["not_embedded"] = result.not_indexed
    if note:
        out["note"] = note
    return out


def status(store: Store, db_path: str, scope: Scope | None = None) -> dict:
    info = store.stats(scope=scope)
    info["db"] = db_path
    if scope is not None:
        info["scope"] = scope.label
        info["project"] = scope.project_name
    info["current_task"] = store.get_pending(actions.CURRENT_TASK)
    info["summary"] = actions.status_text(store, scope=scope)
    semantic: dict = {"model": None}
    if actions.semantic_available():
        from ctx.semantic import index
        from ctx.semantic.model import locate

        files = locate()
        if files is not None:
            st = index.stats(store.conn, files.model_id)
            semantic = {"model": files.model_id, "nodes_embedded": st["nodes_embedded"]}
    info["semantic"] = semantic
    return info


def compose(store: Store, query: str | None = None, view: str = "default",
            budget: int | None = None, scope: Scope | None = None) -> tuple[dict, str]:
    """(meta, markdown): the memory block Claude Code gets at session start."""
    from ctx.core.compose import compose as do_compose
    from ctx.core.compose import render_json, render_markdown
    from ctx.core.model import now_iso

    if budget is not None and budget < 1:
        raise CtxError("budget must be a positive number of tokens")
    comp = do_compose(store, (query or "").strip() or None, view=view or "default", budget=budget,
                      scope=scope)
    stamp = now_iso()
    return render_json(comp, rendered_at=stamp)["meta"], render_markdown(comp, rendered_at=stamp)
