"""What a finder reports: one entity, a span of the text with its type and score."""
from __future__ import annotations

from cuectx.value import Value


class Entity(Value):
    """One finding: `text[start:end]` is an entity of `type`, with Presidio's score."""

    __slots__ = ("end", "score", "start", "type")

    def __init__(self, type: str, start: int, end: int, score: float) -> None:
        self.type = type
        self.start = start
        self.end = end
        self.score = score

    def to_dict(self) -> dict:
        return self.as_dict()
