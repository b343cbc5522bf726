"""Independent red-team probe set for `cue scrub` (tests/cue/data/pii_probe.jsonl).

Written before reading the recognizers, to check that they generalise beyond the dev set
they were built with: recall >= 0.9 for every case, decoy false positives <= 2 %.
"""
from pathlib import Path

import pytest

from bench.pii_eval import evaluate, load

DATA = Path(__file__).parent / "data" / "pii_probe.jsonl"


@pytest.fixture(scope="module")
def ev():
    return evaluate(load(DATA))


def test_the_probe_set_meets_the_targets(ev):
    assert ev.decoys >= 50 and len(ev.case_total) >= 10
    for case in ev.case_total:
        assert ev.case_recall(case) >= 0.9, (case, ev.misses)
    assert ev.overall_recall >= 0.97, ev.misses
    assert len(ev.false_positives) <= 0.02 * ev.decoys, ev.false_positives
