"""`choose`: the seed's rules plus the calibrated floor, and the keyword fallback's test."""
from __future__ import annotations

from ctx.semantic.search import Hit
from ctx.semantic.select import (
    BELOW_THRESHOLD,
    FLOOR,
    IDENTIFIER_FLOOR,
    OVER_TOP_N,
    SelectOptions,
    choose,
)

OPTS = SelectOptions(top_n=2, include_score=0.7, floor=FLOOR)


def ids(cands):
    return [c.node_id for c in cands]


def reasons(cands):
    return {c.node_id: c.reason for c in cands}


def test_floor_top_n_and_include_score():
    ranked = [Hit("a", 1, similarity=0.9), Hit("b", 2, similarity=0.5), Hit("c", 3, similarity=0.45),
              Hit("d", 4, similarity=0.8), Hit("e", 5, similarity=FLOOR - 0.01)]
    selected, excluded = choose(ranked, OPTS, path="semantic", prompt="anything")
    # a (≥ 0.7) and b fill topN=2; c is over topN; d ≥ 0.7 is kept past topN; e is under the floor
    assert ids(selected) == ["a", "b", "d"]
    assert reasons(excluded) == {"c": OVER_TOP_N, "e": BELOW_THRESHOLD}


def test_an_identifier_match_may_sit_just_under_the_floor():
    ranked = [Hit("x", 1, similarity=IDENTIFIER_FLOOR + 0.02, bm25=4.0, keyword_rank=1),
              Hit("y", 2, similarity=IDENTIFIER_FLOOR + 0.02, bm25=1.0, keyword_rank=2)]
    selected, excluded = choose(ranked, OPTS, path="semantic", prompt="what sets CTX_DB?")
    assert ids(selected) == ["x"] and reasons(excluded) == {"y": BELOW_THRESHOLD}
    # without an identifier in the prompt the floor holds
    selected, _ = choose(ranked, OPTS, path="semantic", prompt="what sets the database path?")
    assert selected == []


def test_keyword_path_judges_by_the_prompts_words():
    ranked = [Hit("lunch", 1, bm25=0.3, keyword_rank=1), Hit("team", 2, bm25=0.2, keyword_rank=2),
              Hit("code", 3, bm25=0.1, keyword_rank=3)]
    contents = {"lunch": "Team lunch is on the first Wednesday.",
                "team": "The team retro is on Thursday.",
                "code": "Error E4041 means the invite expired."}
    selected, excluded = choose(ranked, OPTS, path="keyword", prompt="when is the team lunch?",
                                contents=contents)
    # "team lunch" both found; "team" alone is half the words: enough; E4041 not asked about
    assert ids(selected) == ["lunch", "team"] and reasons(excluded) == {"code": BELOW_THRESHOLD}
    selected, _ = choose(ranked, OPTS, path="keyword", prompt="got E4041 again", contents=contents)
    assert ids(selected) == ["code"]


def test_a_node_without_vectors_yet_is_judged_by_words():
    ranked = [Hit("new", 1, similarity=None, bm25=3.0, keyword_rank=1)]
    selected, _ = choose(ranked, OPTS, path="semantic", prompt="orbit-guest wifi password",
                         contents={"new": "The guest wifi is orbit-guest; the password changes monthly."})
    assert ids(selected) == ["new"]
    selected, _ = choose(ranked, OPTS, path="semantic", prompt="orbit-guest wifi password",
                         contents={"new": "Something else entirely."})
    assert selected == []
