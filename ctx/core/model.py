"""ctx's vocabulary: node types, tiers, edge types, and the Node record."""
from __future__ import annotations

from dataclasses import dataclass, field

from ctx.core.stamps import now_iso  # noqa: F401 (the clock every record uses)

NODE_TYPES = (
    "fact", "decision", "pattern", "observation", "hypothesis",
    "task", "summary", "source", "open-question",
)
EDGE_TYPES = ("DEPENDS_ON", "DERIVED_FROM", "SUPERSEDES", "RELATES_TO")
# Tiers are tags. Order = composition priority: the tiers in context, by rank (0 first),
# then off-context (and no tier) after them.
TIERS = ("pinned", "reference", "working", "off-context")
TIER_RANK = {"pinned": 0, "reference": 1, "working": 2}
TIER_PRIORITY = {f"tier:{tier}": rank for tier, rank in TIER_RANK.items()}
CONTEXT_TIER_TAGS = tuple(TIER_PRIORITY)  # the tier tags whose nodes are in context
# Section titles, in the order memory is shown (compose, the viewer, request records).
TYPE_TITLES = {
    "fact": "Facts", "decision": "Decisions", "pattern": "Patterns",
    "observation": "Observations", "hypothesis": "Hypotheses", "task": "Tasks",
    "summary": "Summaries", "source": "Sources", "open-question": "Open Questions",
}
LARGE_CONTENT_CHARS = 50_000  # seed §11: a memory longer than this is warned about, never refused
DEFAULT_VIEW_QUERY = "tag:tier:pinned OR tag:tier:reference OR tag:tier:working"
DEFAULT_BUDGET = 50_000


def tier_rank(tier: str | None) -> int:
    """A tier's place in composition order (no tier or off-context: after the others)."""
    return TIER_RANK.get(tier or "", len(TIER_RANK))


def token_estimate(content: str) -> int:
    return len(content) // 4


@dataclass(frozen=True)
class Node:
    id: str
    type: str
    content: str
    metadata: dict = field(default_factory=dict)
    tags: tuple[str, ...] = ()
    token_estimate: int = 0
    created_at: str = ""
    updated_at: str = ""
    superseded_by: str | None = None
    project: str | None = None  # the project's name; None = global memory

    @property
    def tier(self) -> str | None:
        for tag in self.tags:
            if tag.startswith("tier:"):
                return tag[5:]
        return None

    def to_dict(self) -> dict:
        return {
            "id": self.id,
            "type": self.type,
            "content": self.content,
            "tags": list(self.tags),
            "metadata": self.metadata,
            "token_estimate": self.token_estimate,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "superseded_by": self.superseded_by,
            "project": self.project,
        }


@dataclass(frozen=True)
class Edge:
    from_id: str
    to_id: str
    type: str
    created_at: str = ""

    def to_dict(self) -> dict:
        return {"from": self.from_id, "to": self.to_id, "type": self.type,
                "created_at": self.created_at}


@dataclass(frozen=True)
class View:
    name: str
    query: str
    budget: int
    created_at: str = ""
    updated_at: str = ""

    def to_dict(self) -> dict:
        return {"name": self.name, "query": self.query, "budget": self.budget,
                "created_at": self.created_at, "updated_at": self.updated_at}
