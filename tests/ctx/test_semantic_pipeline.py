"""A prompt and its questions are searched together (issue 40 item 8): the queries embedded in
one batch, the vectors read once — and each gets the ranking it would get alone. Real weights."""
from __future__ import annotations

import numpy as np
import pytest

NOTES = ["Deploys go out on Tuesdays only", "Staging Postgres listens on port 6544",
         "The nightly backup of the staging database runs at 02:00 UTC",
         "Feature flags live in config/flags.yaml and are read at start-up",
         "배포는 화요일에만 나갑니다", "스테이징 DB는 6543 포트를 씁니다"]
TEXTS = ["which port is the staging database on, and when do we deploy?",
         "which port is the staging database on", "when do we deploy", "배포는 언제 해"]


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    from ctx.core import db
    from ctx.core.store import Store
    from ctx.semantic import index
    from ctx.semantic.embed import english_companion, get_embedder
    from ctx.semantic.model import locate

    if locate() is None:
        pytest.skip("the embedding model is not built")
    conn = db.connect(str(tmp_path_factory.mktemp("p") / "s.db"))
    Store(conn).add_many({"content": c, "type": "decision"} for c in NOTES)
    e5 = get_embedder(bulk=True)
    index.update(conn, e5)
    companion = english_companion(e5.model_id, bulk=True)
    if companion is not None:
        index.update(conn, companion, keep=(e5.model_id,))
    conn.commit()
    yield conn
    conn.close()


def test_many_queries_rank_as_each_would_alone(store):
    from ctx.semantic.search import search, search_many

    together = search_many(store, TEXTS)
    assert [r.query for r in together] == TEXTS
    for text, r in zip(TEXTS, together):
        alone = search(store, text)
        assert [h.node_id for h in r.candidates] == [h.node_id for h in alone.candidates], text
        for a, b in zip(r.candidates, alone.candidates):
            assert a.fused == pytest.approx(b.fused, abs=1e-5), text


def test_a_batch_of_queries_embeds_as_each_alone():
    from ctx.semantic.embed import english_companion, get_embedder
    from ctx.semantic.model import locate

    if locate() is None:
        pytest.skip("the embedding model is not built")
    e5 = get_embedder()
    batch = e5.embed_queries(TEXTS)
    assert np.abs(batch - np.stack([e5.embed_query(t) for t in TEXTS])).max() < 1e-5
    companion = english_companion(e5.model_id)
    if companion is not None:
        batch = companion.embed_queries(TEXTS[:3])
        assert np.abs(batch - np.stack([companion.embed_query(t) for t in TEXTS[:3]])).max() < 1e-5


def test_the_showcase_prompt_is_one_search(store, monkeypatch):
    """select_for_prompt runs one batched search for the prompt and its two questions."""
    from ctx.semantic import search as search_mod
    from ctx.semantic import select
    from ctx.semantic.search import Eligibility

    calls = []
    real = search_mod.search_many

    def spy(conn, texts, *a, **kw):
        calls.append(list(texts))
        return real(conn, texts, *a, **kw)

    monkeypatch.setattr(select, "search_many", spy)
    path = store.execute("PRAGMA database_list").fetchone()[2]
    got = select.select_for_prompt(store, TEXTS[0], eligibility=Eligibility(), db_path=path,
                                   options=select.SelectOptions(deadline_s=60))
    assert calls == [TEXTS[:3]]
    chosen = {c.node_id for c in got.selected}
    by_content = dict(store.execute("SELECT content, id FROM nodes"))
    assert by_content["Deploys go out on Tuesdays only"] in chosen
