"""Score the scrubber against a labelled set (JSON lines), for tests and `make bench`.

Each line: {"kind": "positive"|"decoy", "lang": "en"|"ko", "text": …,
            "entities": [{"type": "EMAIL_ADDRESS", "value": "jane@example.com"}, …]}
A labelled entity is recalled when `analyze` returns a span of its type covering the
value (its first occurrence in the text); API_KEY and SECRET count as one family (a
credential found as either is not leaked). A decoy (kind "decoy" or "negative") is a false
positive when `scrub` changes it at all. Optional per record: "case" (a finer kind, for per-case recall) and
"keep" (parts of a positive that must survive scrubbing — counted as `overreach`).
"""
from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from cue.pii import analyze, scrub


@dataclass
class Evaluation:
    found: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    total: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    misses: list[tuple[str, str, str]] = field(default_factory=list)  # (type, value, text)
    decoys: int = 0
    false_positives: list[tuple[str, str]] = field(default_factory=list)  # (text, scrubbed)
    case_found: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    case_total: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    overreach: list[tuple[str, str]] = field(default_factory=list)  # (kept part, scrubbed)

    def recall(self, entity_type: str) -> float:
        return self.found[entity_type] / self.total[entity_type]

    def case_recall(self, case: str) -> float:
        return self.case_found[case] / self.case_total[case]

    @property
    def positives(self) -> int:
        return sum(self.total.values())

    @property
    def overall_recall(self) -> float:
        return sum(self.found.values()) / self.positives

    @property
    def decoy_fp_rate(self) -> float:
        return len(self.false_positives) / self.decoys if self.decoys else 0.0


_FAMILIES = {"API_KEY": "credential", "SECRET": "credential"}


def _same_kind(found: str, labelled: str) -> bool:
    return found == labelled or _FAMILIES.get(found, found) == _FAMILIES.get(labelled, labelled)


def load(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def evaluate(records: list[dict]) -> Evaluation:
    ev = Evaluation()
    for rec in records:
        text = rec["text"]
        if rec["kind"] in ("decoy", "negative"):
            ev.decoys += 1
            out = scrub(text)
            if out != text:
                ev.false_positives.append((text, out))
            continue
        spans = analyze(text)
        case = rec.get("case", "")
        for ent in rec["entities"]:
            start = text.index(ent["value"])
            end = start + len(ent["value"])
            ev.total[ent["type"]] += 1
            ev.case_total[case] += 1
            if any(_same_kind(s.type, ent["type"]) and s.start <= start and s.end >= end
                   for s in spans):
                ev.found[ent["type"]] += 1
                ev.case_found[case] += 1
            else:
                ev.misses.append((ent["type"], ent["value"], text))
        if rec.get("keep"):
            out = scrub(text)
            ev.overreach += [(k, out) for k in rec["keep"] if k not in out]
    return ev
