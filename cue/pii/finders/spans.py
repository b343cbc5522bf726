"""A Presidio recognizer driven by a plain function that yields spans.

Some finders need more than one regex match per entity (a list of names after a role
word, a URL whose parameters decide whether it is a capability). `FunctionRecognizer`
wraps a function `find(text) -> iterable of (start, end)` or `(start, end, entity)`.
Imported only from cue.pii.engine's build (it imports Presidio).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable

from presidio_analyzer import LocalRecognizer, RecognizerResult

from cue.pii.finders.base import result, windowed
from cue.pii.finders.lazy import lazy_re

Finder = Callable[[str], Iterable[tuple]]


class FunctionRecognizer(LocalRecognizer):
    """Entities of `entity` at the spans `find(text)` yields (optionally with their own type).

    `trigger`, when given, is a cheap pattern: `find` only sees the lines that match it.
    """

    def __init__(self, name: str, entity: str, find: Finder, score: float,
                 trigger: str | None = None, language: str = "en",
                 entities: list[str] | None = None):
        self.find = find
        self.score = score
        self.entity = entity
        self.trigger = lazy_re(trigger) if trigger else None
        super().__init__(supported_entities=entities or [entity], supported_language=language,
                         name=name)

    def load(self) -> None:
        pass

    def analyze(self, text, entities, nlp_artifacts=None):
        return windowed(self._analyze, text, self.trigger)

    def _analyze(self, text: str) -> list[RecognizerResult]:
        out = []
        for span in self.find(text):
            start, end = span[0], span[1]
            if start >= end:
                continue
            out.append(result(self, span[2] if len(span) > 2 else self.entity, start, end,
                              self.score))
        return out
