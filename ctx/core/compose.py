"""Token-budgeted composition of memory into the context Claude sees (seed §13).

Selection: the view's query; order: tier (pinned > reference > working > untiered), then
ULID — a stable order keeps Claude's prompt cache warm. Nodes are fitted greedily into the
token budget and skipped (never cut) when they don't fit. With `max_chars` (the hooks'
additionalContext cap) nodes are also fitted by rendered characters, highest priority
first, and the rendering ends with a line saying how many were left out and how to get them.
"""
from __future__ import annotations

from ctx.core import model, settings, trust
from ctx.core.ids import short_ids  # the one shortener (also imported from here by older code)
from ctx.core.model import TYPE_TITLES, Edge, Node
from ctx.core.store import Store
from ctx.core.text import indent
from cuectx.value import Value

TYPE_SECTIONS = tuple(TYPE_TITLES.items())
_FOOTER_RESERVE = 260  # room kept for the "left out" line when a cap is given
_HEADER_RESERVE = 90


def tier_rank(node: Node) -> int:
    return model.tier_rank(node.tier)


class Composition(Value):
    __slots__ = ("budget", "edges", "extra", "fetch_hint", "left_out", "left_out_tokens", "nodes",
                 "project", "query", "short_ids", "token_count", "view")

    def __init__(self, nodes: list[Node], edges: list[Edge], short_ids: dict[str, str], budget: int,
                 query: str, view: str | None, token_count: int = 0, left_out: int = 0,
                 left_out_tokens: int = 0, fetch_hint: str = "", extra: dict | None = None,
                 project: str | None = None) -> None:
        self.nodes = nodes
        self.edges = edges
        self.short_ids = short_ids
        self.budget = budget
        self.query = query
        self.view = view
        self.token_count = token_count
        self.left_out = left_out  # matched but not included (token budget or character cap)
        self.left_out_tokens = left_out_tokens
        self.fetch_hint = fetch_hint
        self.extra = {} if extra is None else extra
        self.project = project  # the scope's project, when composed for one


def resolve_budget(store: Store, view: str | None, budget: int | None) -> tuple[str, int]:
    """(query, budget) for a view: --budget > $CTX_DEFAULT_BUDGET > the view's budget."""
    v = store.get_view(view or "default")
    return v.query, budget or settings.default_budget() or v.budget


def compose(store: Store, query: str | None = None, *, view: str | None = "default",
            budget: int | None = None, max_chars: int | None = None,
            include_superseded: bool = False, extra_ids: list[str] | None = None,
            scope=None) -> Composition:
    """Select and fit nodes. `query` overrides the view's query; `extra_ids` (e.g. an
    expand request) are included whatever their tier, after the pinned nodes. `scope`
    (ctx.core.store.Scope: a project + global) narrows the selection unless the query names its
    own (`project:NAME`, `scope:global`); None = every node."""
    from ctx.query import compile_expr, names_scope, parse

    view_query, budget = resolve_budget(store, view, budget)
    q = query or view_query
    expr = parse(q)
    compiled = compile_expr(expr)
    where = f"({compiled.where})"
    params = list(compiled.params)
    if not include_superseded:
        where += " AND n.superseded_by IS NULL"
    if scope is not None and not scope.all_projects and not names_scope(expr):
        scope_sql, scope_params = scope.sql()
        where += f" AND {scope_sql}"
        params += scope_params
    cur = store.ids_by_tier(where, params, own_first=True)  # others' memory never crowds out yours

    chosen: list[Node] = []
    tokens = 0
    left_out = left_out_tokens = 0
    used_chars = _HEADER_RESERVE + (_FOOTER_RESERVE if max_chars else 0)
    sections: set[str] = set()
    ids_seen: set[str] = set()
    full = False

    def consider(node: Node) -> bool:
        nonlocal tokens, used_chars
        if tokens + node.token_estimate > budget:
            return False
        if max_chars is not None:
            section = _section_key(node)
            cost = len(_render_node(node, node.id[:8], {})) + 2  # edges added below, approximately
            if section not in sections:
                cost += len(_section_heading(section)) + 2
            cost += 80 if _has_edge_lines(node) else 0
            if used_chars + cost > max_chars:
                return False
            used_chars += cost
            sections.add(section)
        chosen.append(node)
        tokens += node.token_estimate
        return True

    # Explicitly expanded nodes come first after nothing: they were asked for right now.
    for node in store.get_many(extra_ids or []):
        if node.id not in ids_seen and consider(node):
            ids_seen.add(node.id)

    for row in cur:
        node_id, est = row[0], row[1]
        if node_id in ids_seen:
            continue
        # len(content) >= 4 * token_estimate: a node that cannot fit is counted, not loaded.
        if full or tokens + est > budget or (max_chars is not None
                                             and used_chars + 4 * est > max_chars):
            left_out += 1
            left_out_tokens += est
            continue
        node = store.get_many([node_id])[0]
        if not consider(node):
            left_out += 1
            left_out_tokens += est
            if max_chars is not None and used_chars > max_chars - 40:
                full = True  # nothing more fits; count the rest without loading them
        ids_seen.add(node_id)

    chosen_ids = [n.id for n in chosen]
    edges = [e for e in store.edges(chosen_ids, types=("DEPENDS_ON", "DERIVED_FROM"))
             if e.from_id in ids_seen] if chosen_ids else []
    comp = Composition(
        nodes=chosen, edges=edges, short_ids=short_ids(store, chosen_ids + [e.to_id for e in edges]),
        budget=budget, query=q, view=view, token_count=tokens, left_out=left_out,
        left_out_tokens=left_out_tokens,
        fetch_hint=f'<ctx:recall query="{_hint_query(q)}"/>',
        project=scope.project_name if scope is not None and not scope.all_projects else None,
    )
    if max_chars is not None:
        # The estimate above is close; make the rendering fit exactly, dropping from the end.
        while comp.nodes and len(render_markdown(comp)) > max_chars:
            dropped = comp.nodes.pop()
            comp.token_count -= dropped.token_estimate
            comp.left_out += 1
            comp.left_out_tokens += dropped.token_estimate
    return comp


def _hint_query(q: str) -> str:
    return q.replace('"', "'")


# ---------------------------------------------------------------------------- markdown

def _section_key(node: Node) -> str:
    origin = trust.origin_of(node)
    if origin is not None:
        return f"foreign:{origin}"
    tier = node.tier
    if tier == "pinned":
        return "pinned"
    if tier == "reference":
        return f"reference:{node.type}"
    if tier == "working":
        return "working"
    return "other"


def _section_heading(key: str) -> str:
    if key.startswith("foreign:"):
        return f"## {trust.SECTIONS[key[8:]]}\n\n{trust.SECTION_NOTE}"
    if key == "pinned":
        return "## Pinned"
    if key == "working":
        return "## Working Context"
    if key == "other":
        return "## Other"
    return "### " + dict(TYPE_SECTIONS).get(key.split(":", 1)[1], key)




def _has_edge_lines(node: Node) -> bool:
    return node.type == "decision" or node.type == "summary"


def _render_node(node: Node, sid: str, edge_lines: dict[str, list[str]], *,
                 with_tags: bool = False) -> str:
    if trust.origin_of(node) is not None:
        # memory from others: one quoted line, no tags or rationale of theirs (STYLE 22)
        line = trust.foreign_line(node.to_dict(), sid)
        for label in ("Depends on", "Derived from"):
            if edge_lines.get(label):
                line += f"\n  - {label}: [{', '.join(edge_lines[label])}]"
        return line
    lines = [f"- [{node.type}:{sid}] {indent(node.content)}"]
    if with_tags and node.tags:
        lines.append(f"  - Tags: {', '.join(node.tags)}")
    rationale = node.metadata.get("rationale") if isinstance(node.metadata, dict) else None
    if node.type == "decision" and rationale:
        lines.append(f"  - Rationale: {indent(str(rationale))}")
    for label in ("Depends on", "Derived from"):
        if edge_lines.get(label):
            lines.append(f"  - {label}: [{', '.join(edge_lines[label])}]")
    return "\n".join(lines)


def render_markdown(comp: Composition, *, rendered_at: str | None = None) -> str:
    """Seed §13 markdown. Hooks pass no `rendered_at`, so identical stores render identically."""
    sid = comp.short_ids
    edge_lines: dict[str, dict[str, list[str]]] = {}
    for e in comp.edges:
        label = "Depends on" if e.type == "DEPENDS_ON" else "Derived from"
        edge_lines.setdefault(e.from_id, {}).setdefault(label, []).append(sid.get(e.to_id, e.to_id[:8]))

    header = f"<!-- ctx: {len(comp.nodes)} nodes, {comp.token_count} tokens"
    if comp.project:
        header += f", project {comp.project} + global"
    header += f", rendered at {rendered_at} -->" if rendered_at else " -->"
    out = [header]

    groups: dict[str, list[Node]] = {}
    for node in comp.nodes:
        groups.setdefault(_section_key(node), []).append(node)

    def block(nodes: list[Node], *, with_tags: bool = False) -> str:
        return "\n".join(_render_node(n, sid.get(n.id, n.id[:8]), edge_lines.get(n.id, {}),
                                      with_tags=with_tags) for n in nodes)

    if "pinned" in groups:
        out += ["## Pinned", block(groups["pinned"], with_tags=True)]
    ref_keys = [f"reference:{t}" for t, _ in TYPE_SECTIONS if f"reference:{t}" in groups]
    if ref_keys:
        out.append("## Reference")
        for key in ref_keys:
            out += [_section_heading(key), block(groups[key])]
    if "working" in groups:
        out += ["## Working Context", block(groups["working"])]
    if "other" in groups:
        out += ["## Other", block(groups["other"])]
    for origin in trust.ORDER:  # last, each under its own label: data, not instructions
        if f"foreign:{origin}" in groups:
            out += [_section_heading(f"foreign:{origin}"), block(groups[f"foreign:{origin}"])]
    if comp.left_out:
        out.append(
            f"_{comp.left_out} more matching node{'s' if comp.left_out != 1 else ''} "
            f"(~{comp.left_out_tokens:,} tokens) left out to fit the limit. "
            f"Fetch them with {comp.fetch_hint} or run `ctx compose`._"
        )
    out.append("<!-- ctx:end -->")
    return "\n\n".join(out) + "\n"


def render_json(comp: Composition, *, rendered_at: str | None = None) -> dict:
    deps: dict[str, dict[str, list[str]]] = {}
    for e in comp.edges:
        key = "depends_on" if e.type == "DEPENDS_ON" else "derived_from"
        deps.setdefault(e.from_id, {}).setdefault(key, []).append(e.to_id)
    return {
        "meta": {
            "node_count": len(comp.nodes),
            "token_count": comp.token_count,
            "rendered_at": rendered_at,
            "budget": comp.budget,
            "query": comp.query,
            "view": comp.view,
            "left_out": comp.left_out,
            "project": comp.project,
        },
        "nodes": [
            {
                "id": n.id,
                "type": n.type,
                "content": n.content,
                "tags": list(n.tags),
                "token_estimate": n.token_estimate,
                "created_at": n.created_at,
                "origin": trust.origin_of(n),
                "edges": {
                    "depends_on": deps.get(n.id, {}).get("depends_on", []),
                    "derived_from": deps.get(n.id, {}).get("derived_from", []),
                },
            }
            for n in comp.nodes
        ],
    }
