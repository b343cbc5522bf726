"""`search`: modes, filters before ranking, the seed's grouping rules, keyword queries."""
from __future__ import annotations

import pytest

from ctx.core import db
from ctx.core.errors import CtxError, QuerySyntaxError
from ctx.core.store import Store
from ctx.semantic.search import SearchOptions, keyword_query, search, select

RUNBOOK = (
    ("Runbook for database incidents, for whoever is on call this week and has never handled "
     "one of these before."),
    ("If the disk on the primary is more than 90 percent full, drop the oldest partition of "
     "the audit_log table; it is archived every week anyway. Never delete WAL files by hand."),
    "When everything is stable again, write a note in the incident channel with the timeline.",
)
NOTES = {
    "wal": ("decision", "SQLite runs in WAL mode so readers never block the single writer."),
    "retry": ("pattern", "The billing worker retries a declined charge three times before giving up."),
    "ctxdb": ("fact", "CTX_DB points ctx at another database file; the default is ~/.ctx/store.db."),
    "e1023": ("fact", "Error E1023 means the token budget was exceeded while composing a view."),
    "trial": ("decision", "Free trials last 14 days and do not ask for a card up front."),
    "ko": ("fact", "고객 데이터는 서울 리전에만 저장한다."),
    "long": ("source", "\n\n".join(RUNBOOK)),
}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    conn = db.connect(tmp_path_factory.mktemp("s") / "s.db")
    store = Store(conn)
    ids = {k: store.add(c, type=t).id for k, (t, c) in NOTES.items()}
    yield conn, ids
    conn.close()


def ranked(res, ids):
    by_id = {v: k for k, v in ids.items()}
    return [by_id[h.node_id] for h in res.candidates]


@pytest.mark.parametrize("mode", ["semantic", "hybrid"])
def test_a_paraphrase_finds_its_note_without_shared_words(corpus, mode):
    conn, ids = corpus
    res = search(conn, "what happens when a customer's card gets rejected repeatedly?",
                 SearchOptions(mode=mode))
    assert ranked(res, ids)[0] == "retry"
    assert res.candidates[0].similarity > 0.1  # centred scale (ctx.semantic.centering)


def test_keyword_mode_finds_identifiers_and_nothing_for_paraphrases(corpus):
    conn, ids = corpus
    res = search(conn, "CTX_DB", SearchOptions(mode="keyword"))
    assert ranked(res, ids) == ["ctxdb"] and res.candidates[0].bm25 > 0
    assert res.candidates[0].similarity is None
    assert search(conn, "repeatedly rejected payments", SearchOptions(mode="keyword")).candidates == []


def test_hybrid_gives_every_candidate_a_similarity_and_a_fused_score(corpus):
    conn, ids = corpus
    res = search(conn, "E1023 budget", SearchOptions(mode="hybrid"))
    assert ranked(res, ids)[0] == "e1023"
    top = res.candidates[0]
    assert top.keyword_rank == 1 and top.semantic_rank == 1
    assert top.fused > top.similarity  # the keyword bonus
    assert all(h.similarity is not None for h in res.candidates)
    fused = [h.fused for h in res.candidates]
    assert fused == sorted(fused, reverse=True)


def test_the_matched_chunk_is_the_paragraph_with_the_answer(corpus):
    conn, ids = corpus
    res = search(conn, "the primary's disk is nearly full", SearchOptions(mode="semantic"))
    hit = res.candidates[0]
    assert ranked(res, ids)[0] == "long"
    text = NOTES["long"][1][hit.chunk_start:hit.chunk_end]
    assert text.startswith("If the disk on the primary")


def test_filter_applies_before_ranking(corpus):
    conn, ids = corpus
    # the best match overall is a pattern; filtered to decisions, the top-k is still full
    res = search(conn, "declined charge retries", SearchOptions(mode="hybrid", filter="type:decision",
                                                                 top_k=1, top_n=1))
    assert ranked(res, ids) and set(ranked(res, ids)) <= {"wal", "trial"}
    assert len(res.hits) == 1
    kw = search(conn, "WAL", SearchOptions(mode="keyword", filter="type:source"))
    assert ranked(kw, ids) == ["long"]
    with pytest.raises(QuerySyntaxError):
        search(conn, "x", SearchOptions(filter="type:"))


def test_seed_rules_top_n_and_include_score(corpus):
    conn, _ = corpus
    res = search(conn, "database", SearchOptions(mode="semantic", top_n=2, include_score=0.99))
    assert len(res.hits) == 2 and all(h.selected_by == "rank" for h in res.hits)
    assert len(res.candidates) > 2
    # every candidate at or above includeScore is kept, even past topN
    low = search(conn, "database", SearchOptions(mode="semantic", top_n=1, include_score=0.0))
    assert len(low.hits) == sum(h.similarity >= 0 for h in low.candidates) > 1
    assert all(h.selected_by == "score" for h in low.hits)


def test_select_marks_score_and_rank():
    from ctx.semantic.search import Hit

    ranked_hits = [Hit("a", 1, similarity=0.9), Hit("b", 2, similarity=0.5), Hit("c", 3, similarity=0.8),
                   Hit("d", 4, similarity=0.4)]
    chosen = select(ranked_hits, SearchOptions(top_n=2, include_score=0.7))
    assert [(h.node_id, h.selected_by) for h in chosen] == [("a", "score"), ("b", "rank"), ("c", "score")]


def test_top_k_limits_the_chunks_considered(corpus):
    conn, _ = corpus
    res = search(conn, "database", SearchOptions(mode="semantic", top_k=2, top_n=5))
    assert len(res.candidates) <= 2


def test_korean_note_is_found_in_korean(corpus):
    conn, ids = corpus
    for mode in ("semantic", "keyword"):
        res = search(conn, "고객 데이터를 어디에 저장해요?", SearchOptions(mode=mode))
        assert ranked(res, ids)[0] == "ko", mode


def test_keyword_query_keeps_identifiers_whole_and_drops_stop_words():
    assert keyword_query("what is CTX_DB for?") == '"CTX_DB"'
    assert keyword_query("the E1023 error") == '"E1023" OR "error"*'  # a word: its other forms too
    assert keyword_query("when do we deploy?") == '"deploy"*'
    assert keyword_query('say "hi"') == '"say" OR "hi"'
    assert keyword_query("데이터를 저장") == '"데이터"* OR "저장"*'
    assert keyword_query("the of") == '"the" OR "of"'  # only stop words: keep them
    assert keyword_query("!!! ...") is None


def test_bad_options_and_empty_text_are_errors(corpus):
    conn, _ = corpus
    with pytest.raises(CtxError, match="unknown search mode"):
        search(conn, "x", SearchOptions(mode="fuzzy"))
    with pytest.raises(CtxError, match="empty"):
        search(conn, "   ")
    with pytest.raises(CtxError, match="include-score"):
        search(conn, "x", SearchOptions(include_score=1.5))


def test_an_empty_store_returns_nothing(tmp_path):
    conn = db.connect(tmp_path / "empty.db")
    for mode in ("semantic", "keyword", "hybrid"):
        res = search(conn, "anything at all", SearchOptions(mode=mode))
        assert res.hits == [] and res.candidates == []
    conn.close()


def test_identifiers_match_the_way_developers_type_them(tmp_path):
    """Issue 22, item 3: parts of SCREAMING/snake/camel case, paths, error codes, versions."""
    from ctx.semantic.search import identifier_parts, term_coverage

    conn = db.connect(tmp_path / "ids.db")
    store = Store(conn)
    notes = {
        "cap": store.add("Hooks cap what they inject at CTX_HOOK_MAX_CHARS characters.").id,
        "invoice": store.add("Invoice generation lives in billing/invoice.py.").id,
        "pylint": store.add("CI failed with error E1102 from pylint: not callable.").id,
        "finalize": store.add("finalize_invoice() raises when the invoice is already final.").id,
        "psycopg": store.add("We moved to psycopg 3 in release v2.14.0.").id,
        "other": store.add("The office is on the fourth floor.").id,
    }
    for query, key in [("hook_max_chars", "cap"), ("invoice.py", "invoice"), ("E1102", "pylint"),
                       ("finalizeInvoice", "finalize"), ("v2.14.0", "psycopg")]:
        res = search(conn, query, SearchOptions(mode="keyword"))
        assert res.candidates and res.candidates[0].node_id == notes[key], query
    assert identifier_parts("getInitialURL") == ["get", "initial", "url"]
    assert term_coverage("what is hook_max_chars", "caps at CTX_HOOK_MAX_CHARS") == (1, 1)
    assert term_coverage("hook_max_chars", "the hook has max chars") == (0, 1)  # parts in a row only
    conn.close()


def test_document_bonus_orders_long_documents_by_their_words_and_leaves_notes_alone():
    from ctx.semantic.search import DOCUMENT_WEIGHT, Hit, document_bonus

    long_doc = "\n\n".join(f"Paragraph {i}: " + "words about the trip to Paris and the museum " * 5
                           for i in range(6))
    hits = [Hit("long", 1, similarity=0.3, bm25=4.0), Hit("note", 2, similarity=0.3, bm25=8.0),
            Hit("sem", 3, similarity=0.5)]
    bonus = document_bonus(hits, {"long": long_doc, "note": "Paris trip in May", "sem": "x"})
    assert set(bonus) == {"long"}  # a one-chunk note and a semantic-only hit gain nothing
    assert 0 < bonus["long"] < DOCUMENT_WEIGHT * 4.0 / 8.0 + 1e-9  # relative to the best BM25
    assert document_bonus([Hit("a", 1, similarity=0.2)], {"a": long_doc}) == {}
