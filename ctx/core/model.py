"""ctx's vocabulary: node types, tiers, edge types, and the Node record."""
from __future__ import annotations

from ctx.core.stamps import now_iso  # noqa: F401 (the clock every record uses)
from cuectx.value import Value

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


class Node(Value):
    """One memory. `project` is its project's name; None = global memory."""

    __slots__ = (
        "content",
        "created_at",
        "id",
        "metadata",
        "project",
        "superseded_by",
        "tags",
        "token_estimate",
        "type",
        "updated_at",
    )

    def __init__(self, id: str, type: str, content: str, metadata: dict | None = None,
                 tags: tuple[str, ...] = (), token_estimate: int = 0, created_at: str = "",
                 updated_at: str = "", superseded_by: str | None = None,
                 project: str | None = None) -> None:
        self.id = id
        self.type = type
        self.content = content
        self.metadata = {} if metadata is None else metadata
        self.tags = tags
        self.token_estimate = token_estimate
        self.created_at = created_at
        self.updated_at = updated_at
        self.superseded_by = superseded_by
        self.project = project

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


class Edge(Value):
    __slots__ = ("created_at", "from_id", "to_id", "type")

    def __init__(self, from_id: str, to_id: str, type: str, created_at: str = "") -> None:
        self.from_id = from_id
        self.to_id = to_id
        self.type = type
        self.created_at = created_at

    def to_dict(self) -> dict:
        return {"from": self.from_id, "to": self.to_id, "type": self.type,
                "created_at": self.created_at}


class View(Value):
    __slots__ = ("budget", "created_at", "name", "query", "updated_at")

    def __init__(self, name: str, query: str, budget: int, created_at: str = "",
                 updated_at: str = "") -> None:
        self.name = name
        self.query = query
        self.budget = budget
        self.created_at = created_at
        self.updated_at = updated_at

    def to_dict(self) -> dict:
        return {"name": self.name, "query": self.query, "budget": self.budget,
                "created_at": self.created_at, "updated_at": self.updated_at}
