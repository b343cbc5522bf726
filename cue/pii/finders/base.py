"""What every regex finder shares: the characters that end a run, line windows behind a
cheap trigger, `SpanRecognizer` (one compiled regex as a Presidio recognizer; a group named
`v` is the entity, so `/Users/alice/src` loses only `alice`), and the Hangul mask that lets
Presidio's `\\b` patterns see numbers with a Korean particle attached. Imports Presidio."""
from __future__ import annotations

import re
from collections.abc import Callable
from functools import cached_property, lru_cache

from presidio_analyzer import LocalRecognizer, RecognizerResult

from cue.pii.finders.lazy import lazy_re

# Characters that end a URL-ish or token-ish run.
_STOP = r"\s'\"<>`\[\]{}()|\\"
# Korean particles attach straight to a URL or value ("…/j/123에", "hunter22로"), so a
# URL host/path or a secret value never takes Hangul.
_HANGUL = "가-힣ㄱ-ㆎ"
# A URL may not end in sentence punctuation.
_URL_TAIL = rf"[^{_STOP}{_HANGUL}]*[^{_STOP}{_HANGUL}.,;:!?]"


def line_windows(text: str, trigger: re.Pattern) -> list[tuple[int, int]]:
    """The lines of `text` holding a `trigger` match, as (start, end) offsets.

    A cheap trigger (a literal like "@" or "://") narrows an expensive pattern to the few
    lines that can hold a match; findings never cross a line for these recognizers.
    """
    windows = []
    m = trigger.search(text)
    while m:
        start = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.end())
        end = len(text) if end == -1 else end
        windows.append((start, end))
        m = trigger.search(text, end)
    return windows


def windowed(analyze: Callable[[str], list], text: str, trigger: re.Pattern | None) -> list:
    """Run `analyze` on each triggered line and shift its results back into `text`."""
    if trigger is None:
        return analyze(text)
    results = []
    for start, end in line_windows(text, trigger):
        for r in analyze(text[start:end]):
            r.start += start
            r.end += start
            results.append(r)
    return results


def result(recognizer: LocalRecognizer, entity: str, start: int, end: int,
           score: float) -> RecognizerResult:
    """One finding of `recognizer`, named in its metadata as Presidio's own recognizers do."""
    return RecognizerResult(entity_type=entity, start=start, end=end, score=score,
                            recognition_metadata={
                                RecognizerResult.RECOGNIZER_NAME_KEY: recognizer.name,
                                RecognizerResult.RECOGNIZER_IDENTIFIER_KEY: recognizer.id,
                            })


class SpanRecognizer(LocalRecognizer):
    """A regex recognizer whose entity is the whole match or its group `v` (or `v2`).

    `trigger`, when given, is a cheap pattern that every match's line must contain.
    """

    def __init__(self, name: str, entity: str, pattern: str, score: float,
                 flags: int = 0, check: Callable[[re.Match], bool] | None = None,
                 trigger: str | None = None, language: str = "en"):
        self.regex = lazy_re(pattern, flags)
        self.trigger = lazy_re(trigger) if trigger else None
        self.score = score
        self.check = check
        super().__init__(supported_entities=[entity], supported_language=language, name=name)

    def load(self) -> None:
        pass

    @cached_property
    def groups(self) -> list[str]:
        return [g for g in ("v", "v2") if g in self.regex.groupindex]

    def analyze(self, text, entities, nlp_artifacts=None):
        return windowed(self._analyze, text, self.trigger)

    def _analyze(self, text: str) -> list[RecognizerResult]:
        out = []
        for m in self.regex.finditer(text):
            if self.check is not None and not self.check(m):
                continue
            group = next((g for g in self.groups if m[g] is not None), 0)
            start, end = m.span(group)
            if start == end:
                continue
            out.append(result(self, self.supported_entities[0], start, end, self.score))
        return out



_HANGUL_RUN = lazy_re(f"[{_HANGUL}]")


@lru_cache(maxsize=4)
def mask_hangul(text: str) -> str:
    """`text` with each Hangul character replaced by a space (same length, same offsets).

    Presidio's patterns use `\\b`, and Hangul counts as a word character, so a particle
    attached to a number or address ("4111 1111 1111 1111로", "10.0.0.1에서",
    "kim@naver.com으로") would hide it. Its recognizers see this masked copy.
    """
    return _HANGUL_RUN.sub(" ", text)


class HangulBoundary:
    """Mixin for Presidio recognizers: analyze the Hangul-masked text."""

    def analyze(self, text, entities, nlp_artifacts=None, *args, **kwargs):
        return super().analyze(mask_hangul(text), entities, nlp_artifacts, *args, **kwargs)


