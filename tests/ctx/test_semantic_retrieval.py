"""Our retrieval set is what the README says it is, and hybrid search beats both halves on it."""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from bench import retrieval_eval as ev
from ctx.core import db

DATA = Path(__file__).parent / "data" / "retrieval.json"


@pytest.fixture(scope="module")
def data():
    return ev.load_set(DATA)


def test_the_set_has_the_promised_shape(data):
    keys = [n["key"] for n in data["nodes"]]
    assert len(keys) == len(set(keys)) >= 150
    labelled = [q for q in data["queries"] if q["labels"]]
    assert len(labelled) >= 40
    kinds = Counter(q["kind"] for q in data["queries"])
    assert kinds["paraphrase"] >= 10 and kinds["identifier"] >= 10 and kinds["middle"] >= 5
    assert kinds["korean"] >= 3 and kinds["negative"] >= 10
    for q in labelled:
        assert set(q["labels"]) <= set(keys), q["query"]
        assert set(q["labels"].values()) <= {1, 2} and 2 in q["labels"].values(), q["query"]
    long_notes = [n for n in data["nodes"] if n["content"].count("\n\n") >= 2]
    assert len(long_notes) >= 5 and all(len(n["content"]) > 450 for n in long_notes)


def test_paraphrases_share_no_word_with_their_answer(data):
    content = {n["key"]: n["content"] for n in data["nodes"]}
    for q in data["queries"]:
        if q["kind"] != "paraphrase":
            continue
        for key, grade in q["labels"].items():
            if grade == 2:
                assert not ev.shared_words(q["query"], content[key]), (q["query"], key)


def test_answers_in_the_middle_really_are_in_the_middle(data):
    content = {n["key"]: n["content"] for n in data["nodes"]}
    for q in data["queries"]:
        if q["kind"] == "middle":
            (key,) = [k for k, g in q["labels"].items() if g == 2]
            paragraphs = content[key].split("\n\n")
            assert len(paragraphs) >= 3, key
            # the words of the question point at an inner paragraph, not the first one
            stems = {w[:5] for w in ev.content_words(q["query"])}
            inner = [stems & {w[:5] for w in ev.content_words(p)} for p in paragraphs]
            assert max(range(len(inner)), key=lambda i: len(inner[i])) > 0, (q["query"], key)


@pytest.mark.slow
def test_hybrid_beats_keyword_and_semantic_and_the_floor_is_calibrated(data, tmp_path):
    from ctx.semantic import index
    from ctx.semantic.embed import get_embedder
    from ctx.semantic.select import FLOOR

    conn = db.connect(tmp_path / "r.db")
    ids = ev.populate(conn, data)
    index.ensure(conn, get_embedder(bulk=True))
    s = ev.score_modes(conn, data, ids)
    for metric in ("recall_at_5", "mrr_at_10", "ndcg_at_10"):
        hybrid = getattr(s["hybrid"], metric)
        assert hybrid > getattr(s["semantic"], metric), metric
        assert hybrid > getattr(s["keyword"], metric), metric
    assert s["keyword"].by_kind["paraphrase"] < 0.1  # no shared words: keywords can't find them
    cal = ev.calibrate(conn, data, ids)
    assert ev.injected_share(cal.negatives_top, FLOOR) <= 0.10
    assert ev.injected_share(cal.answers_top, FLOOR) >= 0.70
    assert abs(cal.floor - FLOOR) <= 0.05
    conn.close()
