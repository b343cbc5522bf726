"""Score the scrubber against a labelled set (JSON lines), for tests and `make bench`.

Each line: {"kind": "positive"|"decoy", "lang": "en"|"ko", "text": …,
            "entities": [{"type": "EMAIL_ADDRESS", "value": "jane@example.com"}, …]}
A labelled entity is recalled when `analyze` returns a span of its type covering the
value (its first occurrence in the text). A decoy is a false positive when `scrub`
changes it at all.
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

    def recall(self, entity_type: str) -> float:
        return self.found[entity_type] / self.total[entity_type]

    @property
    def positives(self) -> int:
        return sum(self.total.values())

    @property
    def overall_recall(self) -> float:
        return sum(self.found.values()) / self.positives

    @property
    def decoy_fp_rate(self) -> float:
        return len(self.false_positives) / self.decoys if self.decoys else 0.0


def load(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def evaluate(records: list[dict]) -> Evaluation:
    ev = Evaluation()
    for rec in records:
        text = rec["text"]
        if rec["kind"] == "decoy":
            ev.decoys += 1
            out = scrub(text)
            if out != text:
                ev.false_positives.append((text, out))
            continue
        spans = analyze(text)
        for ent in rec["entities"]:
            start = text.index(ent["value"])
            end = start + len(ent["value"])
            ev.total[ent["type"]] += 1
            if any(s.type == ent["type"] and s.start <= start and s.end >= end for s in spans):
                ev.found[ent["type"]] += 1
            else:
                ev.misses.append((ent["type"], ent["value"], text))
    return ev
