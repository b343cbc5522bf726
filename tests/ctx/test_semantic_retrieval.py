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
def test_hybrid_is_never_worse_than_its_halves_and_the_floor_holds(data, tmp_path):
    """The old (English, MiniLM-era) set stays as a guard: fusion never loses to the better
    half (issue 22, item 5), and the floor keeps unrelated prompts out."""
    from ctx.semantic import index
    from ctx.semantic.embed import get_embedder
    from ctx.semantic.select import FLOOR

    conn = db.connect(tmp_path / "r.db")
    ids = ev.populate(conn, data)
    index.ensure(conn, get_embedder(bulk=True))
    s = ev.score_modes(conn, data, ids)
    for metric in ("recall_at_5", "mrr_at_10", "ndcg_at_10"):
        hybrid = getattr(s["hybrid"], metric)
        assert hybrid >= max(getattr(s["semantic"], metric), getattr(s["keyword"], metric)) - 0.005, metric
    assert s["hybrid"].recall_at_5 >= 0.75
    assert s["keyword"].by_kind["paraphrase"] < 0.1  # no shared words: keywords can't find them
    cal = ev.calibrate(conn, data, ids)
    assert ev.injected_share(cal.negatives_top, FLOOR) <= 0.10
    assert ev.injected_share(cal.answers_top, FLOOR) >= 0.65
    conn.close()


DEVSET = Path(__file__).parent / "data" / "devset.json"


def test_the_dev_set_has_the_promised_shape():
    dev = ev.load_set(DEVSET)
    nodes, queries = dev["nodes"], dev["queries"]
    assert len(nodes) >= 400 and len({n["key"] for n in nodes}) == len(nodes)
    assert len(dev["projects"]) == 3 and any(n["project"] is None for n in nodes)
    assert sum(n["lang"] == "ko" for n in nodes) >= len(nodes) // 4
    kinds = Counter(q["kind"] for q in queries)
    assert len(queries) >= 200 and kinds["negative"] >= 30
    assert all(kinds[k] >= 15 for k in ev.DEVSET_CLASSES), kinds
    assert sum(1 for q in queries if q["kind"] == "negative" and q["lang"] == "ko") >= 10
    keys = {n["key"] for n in nodes}
    for q in queries:
        assert set(q["labels"]) <= keys and (not q["labels"] or 2 in q["labels"].values()), q["query"]


@pytest.mark.slow
def test_the_dev_set_meets_the_goals(tmp_path):
    """Issue 22's goals on our own dev set, through search (hybrid, each query from its
    project) and the per-prompt floor."""
    from ctx.semantic import index
    from ctx.semantic.embed import get_embedder

    dev = ev.load_set(DEVSET)
    conn = db.connect(tmp_path / "d.db")
    ids, scope_of = ev.populate_devset(conn, dev)
    index.ensure(conn, get_embedder(bulk=True))
    r = ev.score_devset(conn, dev, ids, scope_of, mode="hybrid")
    assert r.overall.recall_at_5 >= 0.85 and r.overall.mrr_at_10 >= 0.85
    for kind, score in r.by_class.items():
        assert score.recall_at_5 >= (0.65 if kind == "paraphrase" else 0.75), (kind, score)
    assert min(r.clean_negatives.values()) >= 0.9, r.clean_negatives
    assert min(r.injected_answers.values()) >= 0.8, r.injected_answers
    conn.close()


def test_the_hard_tune_file_asks_over_the_dev_sets_notes_what_it_claims():
    """devset_hard.json: its answers are devset.json's notes, its paraphrases share no content
    word with their English answer, and its negatives (no answer) are a third of it."""
    hard = ev.load_set(DEVSET.parent / "devset_hard.json")
    dev = ev.load_set(DEVSET)
    assert hard["nodes"] == dev["nodes"] and hard["projects"] == dev["projects"]
    content = {n["key"]: n["content"] for n in hard["nodes"]}
    kinds = Counter(q["kind"] for q in hard["queries"])
    assert kinds["paraphrase"] >= 30 and kinds["negative"] >= 20, kinds
    assert sum(q["kind"] == "negative" and q["lang"] == "ko" for q in hard["queries"]) >= 8
    for q in hard["queries"]:
        assert set(q["labels"]) <= set(content), q["query"]
        if q["kind"] == "paraphrase":
            english = [k for k in q["labels"] if not k.startswith("ko-")]
            assert english and not any(ev.shared_words(q["query"], content[k]) for k in english), q["query"]
