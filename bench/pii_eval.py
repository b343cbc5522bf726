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
from pathlib import Path

from cue.pii import analyze, scrub
from cuectx.value import Value


class Evaluation(Value):
    __slots__ = ("case_found", "case_total", "decoys", "false_positives", "found", "misses",
                 "overreach", "total")

    def __init__(self, found: dict[str, int] | None = None, total: dict[str, int] | None = None,
                 misses: list[tuple[str, str, str]] | None = None, decoys: int = 0,
                 false_positives: list[tuple[str, str]] | None = None,
                 case_found: dict[str, int] | None = None, case_total: dict[str, int] | None = None,
                 overreach: list[tuple[str, str]] | None = None) -> None:
        self.found = defaultdict(int) if found is None else found
        self.total = defaultdict(int) if total is None else total
        self.misses = [] if misses is None else misses  # (type, value, text)
        self.decoys = decoys
        self.false_positives = [] if false_positives is None else false_positives  # (text, scrubbed)
        self.case_found = defaultdict(int) if case_found is None else case_found
        self.case_total = defaultdict(int) if case_total is None else case_total
        self.overreach = [] if overreach is None else overreach  # (kept part, scrubbed)

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
