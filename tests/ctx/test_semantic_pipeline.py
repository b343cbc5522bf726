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


# ------------------------------------------------------------------ each stage alone

def _ids(store):
    return dict(store.execute("SELECT content, id FROM nodes"))


def _pool(store, texts, **kw):
    from ctx.semantic.search import SearchOptions, gather

    return gather(store, texts, SearchOptions(**kw))


def test_gather_finds_candidates_by_meaning_and_by_words_and_never_an_excluded_node(store):
    from ctx.semantic.search import Eligibility, SearchOptions, gather

    ids = _ids(store)
    tuesday, port = ids["Deploys go out on Tuesdays only"], ids["Staging Postgres listens on port 6544"]
    pool = _pool(store, ["when do we deploy", "6544"])
    # by meaning: the deploy note is the first text's best; by words: "6544" only matches one note
    assert pool.semantic[0][0].node_id in (tuesday, ids["배포는 화요일에만 나갑니다"])
    assert pool.semantic[0][0].similarity is not None
    assert [h.node_id for h in pool.keyword[1]] == [port] and pool.keyword[1][0].bm25 > 0
    assert pool.keyword[0] and tuesday in {h.node_id for h in pool.keyword[0]}  # "deploy" in Deploys
    assert pool.eligible_chunks[0] == len(NOTES)
    # every chunk has a score per text; an excluded node's chunks score -inf and it is in no list
    alone = gather(store, ["when do we deploy"], SearchOptions(),
                   eligibility=Eligibility("?", (tuesday,)))
    assert tuesday not in {h.node_id for h in alone.semantic[0] + alone.keyword[0]}
    assert alone.eligible_chunks[0] == len(NOTES) - 1
    assert int((alone.scores[0] == -np.inf).sum()) == 1
    # keyword mode: words only, no vectors read, no model needed
    kw = _pool(store, ["6544"], mode="keyword")
    assert kw.vectors is None and kw.semantic == [[]] and [h.node_id for h in kw.keyword[0]] == [port]


def test_merge_is_one_new_hit_per_node_with_both_lists_fields():
    from ctx.semantic.search import Hit, merge

    sem = [Hit("a", 1, similarity=0.5, semantic_rank=1, chunk_start=0, chunk_end=9),
           Hit("b", 2, similarity=0.3, semantic_rank=2)]
    kw = [Hit("b", 1, bm25=4.0, keyword_rank=1), Hit("c", 2, bm25=2.0, keyword_rank=2)]
    out = merge(sem, kw)
    assert [h.node_id for h in out] == ["a", "b", "c"]
    a, b, c = out
    assert (a.similarity, a.chunk_end, a.bm25) == (0.5, 9, None)
    assert (b.similarity, b.semantic_rank, b.bm25, b.keyword_rank) == (0.3, 2, 4.0, 1)
    assert (c.similarity, c.bm25, c.keyword_rank) == (None, 2.0, 2)
    assert sem[1].bm25 is None and all(h not in sem + kw for h in out)  # the inputs untouched


def test_score_gives_a_word_only_candidate_its_similarity_and_every_one_its_fused_score(store):
    from ctx.semantic.search import Hit, keyword_bonus, score

    ids = _ids(store)
    text = "6544"
    pool = _pool(store, [text])
    port = ids["Staging Postgres listens on port 6544"]
    korean = ids["스테이징 DB는 6543 포트를 씁니다"]

    def e5_best(node):  # its best chunk's score, from the text's scores of every chunk
        pos = pool.vectors.positions([r[0] for r in store.execute(
            "SELECT id FROM chunks WHERE node_id = ? AND model = ?", (node, pool.model_id))])
        return float(pool.scores[0][pos].max())

    hits = [Hit(port, 0, bm25=3.0, keyword_rank=1)]  # as if only the keyword list had it
    contents = score(store, hits, text, pool.vectors, pool.scores[0])  # e5 alone
    h = hits[0]
    assert h.similarity == pytest.approx(e5_best(port), abs=1e-6)
    # English fusion: an English note's similarity is blended with MiniLM's, a Korean one's is e5's
    if pool.second[0] is not None:
        both = [Hit(port, 0, bm25=3.0), Hit(korean, 0, bm25=1.0)]
        score(store, both, text, pool.vectors, pool.scores[0], pool.second[0])
        assert abs(both[0].similarity - e5_best(port)) > 1e-4
        assert both[1].similarity == pytest.approx(e5_best(korean), abs=1e-6)
    assert contents[port] == "Staging Postgres listens on port 6544"
    assert h.fused == pytest.approx(h.similarity + keyword_bonus(text, contents[port], h), abs=1e-6)
    assert keyword_bonus(text, contents[port], h) > 0  # it holds the prompt's one word
    # a candidate no word matched gains no bonus: fused is its similarity
    other = Hit(ids["Deploys go out on Tuesdays only"], 0, similarity=0.2)
    score(store, [other], text, pool.vectors, pool.scores[0])
    assert other.fused == 0.2


def test_rank_orders_by_fused_score_then_similarity_then_id_and_lifts_long_documents():
    from ctx.semantic.search import Hit, rank

    hits = [Hit("b", 0, similarity=0.3, fused=0.4), Hit("a", 0, similarity=0.3, fused=0.4),
            Hit("c", 0, similarity=0.35, fused=0.4), Hit("d", 0, similarity=0.6, fused=0.6)]
    assert [h.node_id for h in rank(hits, {})] == ["d", "c", "a", "b"]
    long_doc = "\n\n".join(f"Paragraph {i}: " + "the deploy window and the release train " * 6
                           for i in range(6))
    hits = [Hit("note", 0, similarity=0.5, fused=0.5, bm25=2.0),
            Hit("doc", 0, similarity=0.45, fused=0.45, bm25=8.0)]
    assert [h.node_id for h in rank(hits, {"note": "deploy", "doc": long_doc})] == ["doc", "note"]
    assert [h.fused for h in hits] == [0.5, 0.45]  # the order moved, not the scores


def test_search_many_is_the_stages_in_a_row(store):
    from ctx.semantic.search import SearchOptions, merge, rank, score, search_many, select

    options = SearchOptions(top_n=2)
    pool = _pool(store, TEXTS, top_n=2)
    for i, res in enumerate(search_many(store, TEXTS, options)):
        hits = merge(pool.semantic[i], pool.keyword[i])
        ranked = rank(hits, score(store, hits, TEXTS[i], pool.vectors, pool.scores[i],
                                  pool.second[i]))
        assert [h.node_id for h in res.candidates] == [h.node_id for h in ranked]
        assert [h.fused for h in res.candidates] == pytest.approx([h.fused for h in ranked], abs=1e-6)
        assert [h.node_id for h in res.hits] == [h.node_id for h in select(ranked, options)]
        assert [h.rank for h in res.candidates] == list(range(1, len(ranked) + 1))


def test_choose_for_prompt_adds_each_questions_choice_to_the_whole_prompts(store):
    from ctx.semantic.search import Hit, SearchOptions, SearchResult
    from ctx.semantic.select import OVER_TOP_N, SelectOptions, choose_for_prompt

    opts = SelectOptions(top_n=2, floor=0.3)
    o = SearchOptions()

    def result(query, *hits):
        return SearchResult(query, o, [], list(hits), model_id="multilingual-e5-small/q4/b2")

    whole = result("port and deploy", Hit("p1", 1, similarity=0.5), Hit("p2", 2, similarity=0.45),
                   Hit("t", 3, similarity=0.2))
    port = result("port", Hit("p1", 1, similarity=0.6))
    deploy = result("deploy", Hit("t", 1, similarity=0.48), Hit("p2", 2, similarity=0.1))
    selected, excluded = choose_for_prompt(store, [whole, port, deploy], opts)
    # the deploy question's pick "t" joins (its score 0.48 beats p2's 0.45 in the whole prompt)
    assert [c.node_id for c in selected] == ["p1", "t"]
    assert {c.node_id: c.reason for c in excluded}["p2"] == OVER_TOP_N
    # one text: the whole prompt's choice alone ("t" is under the floor there)
    selected, _ = choose_for_prompt(store, [whole], opts)
    assert [c.node_id for c in selected] == ["p1", "p2"]


def test_every_caller_ranks_through_the_one_pipeline(store, monkeypatch):
    """`ctx search`, MCP recall, the viewer's search, the Stop hook's recall and
    prompt-submit all rank with search_many's stages (a spy on `gather`, the first)."""
    from ctx_runner import ok
    from starlette.testclient import TestClient

    from ctx.claude import actions
    from ctx.core.store import Store
    from ctx.mcp import tools
    from ctx.semantic import search as search_mod
    from ctx.semantic import select
    from ctx.semantic.search import Eligibility
    from ctx.web.app import create_app

    seen = []
    real = search_mod.gather

    def spy(conn, texts, *a, **kw):
        seen.append(list(texts))
        return real(conn, texts, *a, **kw)

    monkeypatch.setattr(search_mod, "gather", spy)
    path = store.execute("PRAGMA database_list").fetchone()[2]
    monkeypatch.setenv("CTX_DB", path)
    assert "Tuesdays" in ok("search", "when do we deploy", "--all-projects")
    app = create_app(token="t" * 32, port=8765, db_path=path)
    with TestClient(app, base_url="http://127.0.0.1:8765", follow_redirects=False) as client:
        client.get("/?token=" + "t" * 32)
        page = client.get("/?q=when+do+we+deploy")
        assert page.status_code == 200 and "Tuesdays" in page.text
    tools.recall(Store(store), "when do we deploy", mode="hybrid")
    actions.search_plain(Store(store), "when do we deploy", 3)
    select.select_for_prompt(store, "when do we deploy?", eligibility=Eligibility(), db_path=path,
                             options=select.SelectOptions(deadline_s=60))
    assert seen == [["when do we deploy"]] * 4 + [["when do we deploy?"]]


def test_length_fair_takes_off_what_the_best_of_n_chunks_is_expected_to_gain():
    from ctx.semantic.chunk import chunk_text
    from ctx.semantic.select import expected_max, length_fair

    # E[max of n standard normals]: the textbook values (0, 1/sqrt(pi), 1.0294 for 4, 1.5388 for 10)
    assert expected_max(1) == 0.0
    assert expected_max(2) == pytest.approx(1 / np.sqrt(np.pi), abs=1e-4)
    assert expected_max(4) == pytest.approx(1.0294, abs=1e-3)
    assert expected_max(10) == pytest.approx(1.5388, abs=1e-3)
    doc = "\n\n".join(f"Section {i}: " + "how the deploy pipeline promotes a build " * 8 for i in range(6))
    n = len(chunk_text(doc))
    assert n > 3
    assert length_fair(0.47, doc, 0.087) == pytest.approx(0.47 - 0.087 * expected_max(n))
    assert length_fair(0.41, "Deploys go out on Tuesdays only", 0.087) == 0.41  # one chunk
    # a query whose scores do not spread says nothing about chance: nothing is taken off
    assert length_fair(0.47, doc, 0.0) == 0.47


def test_a_questions_short_answer_is_not_crowded_out_by_long_documents(store):
    """make demo's two-question prompt, in miniature: the long documents' best chunks outscore
    the one-line answer, which still gets a slot — length-fair ordering and each question's
    best pick kept."""
    from ctx.semantic.search import Hit, SearchOptions, SearchResult
    from ctx.semantic.select import SelectOptions, choose_for_prompt

    o, model = SearchOptions(), "multilingual-e5-small/q4/b2"
    doc = "\n\n".join(f"Part {i}: " + "staging, deploys and the onboarding steps " * 8 for i in range(6))
    long_ids = ["d1", "d2", "d3"]
    contents = {i: doc for i in long_ids} | {"tue": "Deploys go out on Tuesdays only",
                                             "port": "Staging Postgres listens on port 6544"}

    def result(query, *scored):
        return SearchResult(query, o, [], [Hit(i, r, similarity=s) for r, (i, s) in enumerate(scored, 1)],
                            model_id=model, contents=contents, spread=0.087)

    whole = result("which port is staging on, and when do we deploy?",
                   ("d1", 0.55), ("d2", 0.50), ("d3", 0.48), ("port", 0.46), ("tue", 0.30))
    port = result("which port is staging on", ("port", 0.52), ("d1", 0.45))
    deploy = result("when do we deploy", ("d2", 0.47), ("d3", 0.45), ("tue", 0.41))
    opts = SelectOptions(top_n=4, floor=0.27)
    selected, _ = choose_for_prompt(store, [whole, port, deploy], opts)
    assert "tue" in [c.node_id for c in selected] and "port" in [c.node_id for c in selected]
    assert len(selected) == 4
    # by raw score alone, the three documents and the port note would have taken the four slots
    alone, _ = choose_for_prompt(store, [whole], opts)
    assert [c.node_id for c in alone] == ["d1", "d2", "d3", "port"]


def test_each_questions_best_pick_is_kept_when_slots_run_out(store):
    from ctx.semantic.search import Hit, SearchOptions, SearchResult
    from ctx.semantic.select import OVER_TOP_N, SelectOptions, choose_for_prompt

    o, model = SearchOptions(), "multilingual-e5-small/q4/b2"

    def result(query, *scored):
        return SearchResult(query, o, [], [Hit(i, r, similarity=s) for r, (i, s) in enumerate(scored, 1)],
                            model_id=model)

    whole = result("a and b", ("w1", 0.60), ("w2", 0.58))
    qa = result("a", ("a1", 0.50))
    qb = result("b", ("b1", 0.40))  # lower than everything: the plain union leaves it out
    selected, excluded = choose_for_prompt(store, [whole, qa, qb], SelectOptions(top_n=2, floor=0.27))
    assert [c.node_id for c in selected] == ["a1", "b1"]
    assert {c.node_id: c.reason for c in excluded} == {"w1": OVER_TOP_N, "w2": OVER_TOP_N}
