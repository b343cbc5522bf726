"""The labelled set (tests/cue/data/pii_labelled.jsonl): coverage, recall, decoys."""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from bench.pii_eval import evaluate, load
from cue.pii import TOKENS, analyze, scrub

DATA = Path(__file__).parent / "data" / "pii_labelled.jsonl"
# Types added since (scrub versions 2 and 5); the dev set (test_pii_devset.py) covers them.
NEW_IN_V2 = {"ADDRESS", "CAPABILITY_URL", "MEETING_CODE", "PASSPORT", "CARD_CVV", "DATE_OF_BIRTH"}
DECOY_KINDS = {"version", "git_sha", "uuid", "datetime", "port", "price", "order", "error_code"}


@pytest.fixture(scope="module")
def records():
    return load(DATA)


@pytest.fixture(scope="module")
def evaluation(records):
    return evaluate(records)


def test_the_set_is_big_enough_and_covers_every_type(records):
    positives = [r for r in records if r["kind"] == "positive"]
    decoys = [r for r in records if r["kind"] == "decoy"]
    types = Counter(e["type"] for r in positives for e in r["entities"])
    assert sum(types.values()) >= 100
    assert set(types) == set(TOKENS) - NEW_IN_V2
    assert len(decoys) >= 50
    assert DECOY_KINDS <= {r["decoy"] for r in decoys}
    for group in (positives, decoys):
        assert {r["lang"] for r in group} == {"en", "ko"}


def test_recall_per_type(evaluation):
    low = {t: round(evaluation.recall(t), 2) for t in evaluation.total if evaluation.recall(t) < 0.9}
    assert not low, f"recall below 0.9: {low}; misses: {evaluation.misses}"


def test_no_decoy_is_touched(evaluation):
    assert evaluation.decoys >= 50
    assert evaluation.false_positives == []


def test_positives_keep_the_rest_of_the_sentence(records):
    for rec in records:
        if rec["kind"] != "positive":
            continue
        text = rec["text"]
        found = analyze(text)
        expected = text
        for ent in rec["entities"]:
            if not any(f.type == ent["type"] for f in found):
                continue  # a miss is counted by test_recall_per_type
            expected = expected.replace(ent["value"], TOKENS[ent["type"]], 1)
        assert scrub(text) == expected, rec
