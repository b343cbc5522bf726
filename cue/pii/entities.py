"""What a finder reports: one entity, a span of the text with its type and score."""
from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Entity:
    """One finding: `text[start:end]` is an entity of `type`, with Presidio's score."""

    type: str
    start: int
    end: int
    score: float

    def to_dict(self) -> dict:
        return asdict(self)
