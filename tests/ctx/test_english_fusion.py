"""CTX_ENGLISH_FUSION (issue 40 item 3): an English query's similarity blends e5 with the
English MiniLM for English notes; Korean notes and Korean queries keep e5's alone. Real weights."""
from __future__ import annotations

import pytest

NOTES = ["Deploys go out on Tuesdays only",
         "Lighthouse performance score dropped to 71 on the checkout page",
         "The nightly backup of the staging database runs at 02:00 UTC",
         "배포는 화요일에만 나갑니다"]


def _store(tmp_path):
    from ctx.core import db
    from ctx.core.store import Store
    from ctx.semantic import index
    from ctx.semantic.embed import get_embedder
    from ctx.semantic.model import MINILM, locate, model_dir

    if locate() is None or locate(model_dir(MINILM)) is None:
        pytest.skip("the embedding models are not built")
    conn = db.connect(str(tmp_path / "s.db"))
    nodes = Store(conn).add_many({"content": c, "type": "decision"} for c in NOTES)
    index.ensure(conn, get_embedder())
    conn.commit()
    return conn, {n.id: n.content for n in nodes}


def _sims(conn, by_id, query):
    from ctx.semantic.search import SearchOptions, search

    r = search(conn, query, SearchOptions(top_k=10))
    return {by_id[h.node_id]: h.similarity for h in r.candidates}


def test_fusion_blends_english_notes_only_and_only_for_english_queries(tmp_path, monkeypatch):
    conn, by_id = _store(tmp_path)
    monkeypatch.delenv("CTX_ENGLISH_FUSION", raising=False)
    plain = _sims(conn, by_id, "Why is checkout slow?")
    plain_ko = _sims(conn, by_id, "배포는 언제 하나요?")
    monkeypatch.setenv("CTX_ENGLISH_FUSION", "1")
    fused = _sims(conn, by_id, "Why is checkout slow?")
    assert fused[NOTES[3]] == plain[NOTES[3]]  # a Korean note keeps e5's score
    assert fused[NOTES[1]] != plain[NOTES[1]]  # an English note's is blended
    assert max(fused, key=fused.get) == NOTES[1]  # and the checkout note still leads
    assert _sims(conn, by_id, "배포는 언제 하나요?") == plain_ko  # a Korean query: e5 alone
    monkeypatch.setenv("CTX_ENGLISH_FUSION", "0")
    assert _sims(conn, by_id, "Why is checkout slow?") == plain
