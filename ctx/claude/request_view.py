"""How a request record is shown (`ctx requests show`, the web viewer's View Context):
names, tier priorities, short ids, grouped items. Pure: returns dicts."""
from __future__ import annotations

import sqlite3

from ctx.claude.requests import RequestRecord
from ctx.core.model import CONTEXT_TIER_TAGS

SHORT = 8

def tier_priority(tags) -> int:
    for i, tier in enumerate(CONTEXT_TIER_TAGS, 1):
        if tier in tags:
            return i
    return 4


def item_name(content: str, width: int = 60) -> str:
    first = next((line.strip() for line in content.splitlines() if line.strip()), "")
    first = first.lstrip("#").strip()
    if len(first) <= width:
        return first
    cut = first[: width - 1]
    if " " in cut[width // 2:]:  # end on a whole word when one ends in the second half
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(" ,;:-—") + "…"


def request_view(conn: sqlite3.Connection, record: RequestRecord) -> dict:
    """The record with each item's node details, in the seed's order (priority, then name)."""
    from ctx.core.ids import short_ids
    from ctx.core.store import Store

    store = Store(conn)
    nodes = {n.id: n for n in store.get_many([i.node_id for i in record.items])}
    sid = short_ids(store, list(nodes))
    rows = []
    for item in record.items:
        node = nodes.get(item.node_id)
        meta_p = node.metadata.get("priority") if node else None
        priority = meta_p if isinstance(meta_p, int) and not isinstance(meta_p, bool) \
            else tier_priority(node.tags if node else ())
        rows.append({
            **item.as_dict(),
            "short_id": sid.get(item.node_id, item.node_id[:SHORT]),
            "type": node.type if node else None,
            "name": item_name(node.content) if node else "(deleted)",
            "tier": node.tier if node else None,
            "priority": priority,
            "deleted": node is None,
        })
    # included: the seed's order (priority, then name); the rest: by the rank that left them out
    included = sorted((r for r in rows if r["included"]),
                      key=lambda r: (r["priority"], r["name"].lower(), r["node_id"]))
    excluded = sorted((r for r in rows if not r["included"]),
                      key=lambda r: (r["rank"] is None, r["rank"] or 0,
                                     -(r["score"] or 0.0), r["node_id"]))
    rows = included + excluded
    out = record.to_dict()
    out["items"] = rows
    return out


def sent_counts(view: dict) -> dict:
    """How many of a request's included items were sent now, were already in the context
    (sent earlier in the session), or were not sent — the headline of a request."""
    included = [i for i in view["items"] if i["included"]]
    return {"now": sum(i["injected"] == "now" for i in included),
            "earlier": sum(i["injected"] == "earlier" for i in included),
            "unsent": sum(i["injected"] not in ("now", "earlier") for i in included)}
