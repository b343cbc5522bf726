"""PII and secret scrubbing: `scrub(text)` replaces what identifies a person or opens a door.

Everything cue stores or logs about a summary, prompt or payload passes through `scrub`.
The recognizers run inside Presidio's `AnalyzerEngine` (see `cue.pii.engine`), which is
built explicitly so it works offline with no spaCy model. Presidio's import (which imports
spaCy) costs most of a second, so nothing here imports it until the first `analyze`/`scrub`
call (cue.pii.load).

Contract:
- Only the entity is replaced; the rest of the sentence is kept byte for byte.
- Each entity becomes a fixed token (`[EMAIL]`, `[API_KEY]`, …) that no recognizer matches.
- `scrub(scrub(x)) == scrub(x)`: scrub runs analyze → replace until nothing is found.
"""
from __future__ import annotations

import re

from cue.pii.entities import Entity

# Bump when recognizers change in a way that should re-scrub stored text
# (cue.digest.backfill.ensure_scrubbed runs once per bump).
SCRUB_VERSION: int = 5

# Entity type → replacement token. Tokens are bracketed upper-case words, which no
# recognizer matches (none accepts '[' or ']' and none matches bare capitals).
TOKENS: dict[str, str] = {
    "EMAIL_ADDRESS": "[EMAIL]",
    "PHONE_NUMBER": "[PHONE]",
    "CREDIT_CARD": "[CREDIT_CARD]",
    "IBAN_CODE": "[IBAN]",
    "IP_ADDRESS": "[IP]",
    "US_SSN": "[SSN]",
    "KR_RRN": "[KR_RRN]",
    "API_KEY": "[API_KEY]",
    "SECRET": "[SECRET]",
    "PRIVATE_KEY": "[PRIVATE_KEY]",
    "DB_URL": "[DB_URL]",
    "USER_PATH": "[USER]",
    "MEETING_URL": "[MEETING_URL]",
    "PERSON": "[PERSON]",
    "ADDRESS": "[ADDRESS]",
    "CAPABILITY_URL": "[CAPABILITY_URL]",
    "MEETING_CODE": "[MEETING_CODE]",
    "PASSPORT": "[PASSPORT]",
    "CARD_CVV": "[CVV]",
    "DATE_OF_BIRTH": "[DATE_OF_BIRTH]",
}

_TOKEN_RE = re.compile("|".join(re.escape(t) for t in TOKENS.values()))
_MAX_PASSES = 4


def analyze(text: str) -> list[Entity]:
    """Find entities in `text`: sorted, non-overlapping spans (overlaps are merged).

    Findings that touch a replacement token are dropped, so no recognizer (a spaCy
    model's NER included) can re-scrub `[PERSON]` into `[[PERSON]]`.
    """
    if not text:
        return []
    from cue.pii import worker

    found = worker.find(text) if worker.running() else None
    if found is None:
        from cue.pii.engine import find

        found = find(text)
    if "[" in text:
        tokens = [m.span() for m in _TOKEN_RE.finditer(text)]
        found = [e for e in found if not any(s < e.end and e.start < t for s, t in tokens)]
    return _merge(found)


def prewarm() -> bool:
    """Start building the scrubber in a child process (cue.pii.worker), for a caller with
    other work to do first (a digest: selecting and preparing frames, asking the model).
    Presidio's import and the engine's build take ~0.5 s of one core; until they are done
    the first `scrub` waits for the child. A child that fails to build, dies or hangs is
    dropped and that scrub builds in this process instead, raising the error where it can
    be shown. Returns whether a child is building (False: this process has built its own
    already, or the platform cannot run one)."""
    from cue.pii import engine, worker

    if engine.built():
        return False
    return worker.start()


def scrub(text: str) -> str:
    """Return `text` with every entity replaced by its token. Idempotent."""
    for _ in range(_MAX_PASSES):
        entities = analyze(text)
        if not entities:
            return text
        text = replace(text, entities)
    return text


def scrub_report(text: str) -> tuple[str, list[Entity]]:
    """`scrub(text)` plus the entities found in the original text (for `cue scrub --format json`)."""
    entities = analyze(text)
    if not entities:
        return text, []
    return scrub(replace(text, entities)), entities


def replace(text: str, entities: list[Entity]) -> str:
    """Replace each (sorted, non-overlapping) entity span with its token."""
    out, pos = [], 0
    for e in entities:
        out.append(text[pos:e.start])
        out.append(TOKENS.get(e.type, f"[{e.type}]"))
        pos = e.end
    out.append(text[pos:])
    return "".join(out)


def _merge(found: list[Entity]) -> list[Entity]:
    """Union overlapping spans so nothing partly covered leaks; the widest member names it."""
    merged: list[list[Entity]] = []
    for e in sorted(found, key=lambda e: (e.start, -e.end)):
        if merged and e.start < max(m.end for m in merged[-1]):
            merged[-1].append(e)
        else:
            merged.append([e])
    out = []
    for group in merged:
        lead = max(group, key=lambda e: (e.end - e.start, e.score))
        start = min(e.start for e in group)
        end = max(e.end for e in group)
        out.append(Entity(lead.type, start, end, round(max(e.score for e in group), 4)))
    return out
