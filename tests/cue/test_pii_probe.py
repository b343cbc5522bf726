"""Independent red-team probe set for `cue scrub` (tests/cue/data/pii_probe.jsonl).

Written before reading the recognizers.  The targets (recall >= 0.9 per case,
decoy false positives <= 2 %) are not met yet: they are xfail until the gaps
are closed.  The floor test guards against regressions from today's numbers.
"""
from pathlib import Path

import pytest

from cue.pii.evaluate import evaluate, load

DATA = Path(__file__).parent / "data" / "pii_probe.jsonl"


@pytest.fixture(scope="module")
def ev():
    return evaluate(load(DATA))


def test_probe_floor(ev):
    assert ev.overall_recall >= 0.93
    assert len(ev.false_positives) <= 2
    for case in ev.case_total:
        assert ev.case_recall(case) >= 0.66, case


@pytest.mark.xfail(reason="open gaps: base64 cookies, chat-header names, "
                          "line-broken card/AKIA, decoy FPs", strict=False)
def test_probe_targets(ev):
    for case in ev.case_total:
        assert ev.case_recall(case) >= 0.9, (case, ev.misses)
    assert len(ev.false_positives) <= 0.02 * ev.decoys, ev.false_positives
