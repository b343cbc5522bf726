"""Memory without a tier (issue 40): `ctx status` counts it, in the scope it reports."""
from __future__ import annotations

import json

from ctx_runner import add, ok


def test_status_counts_memories_without_a_tier():
    add("Deploys go out on Tuesdays only", "--type", "decision")
    add("Staging DB listens on port 6543", "--tag", "tier:reference")
    old = add("Releases are cut on Fridays", "--type", "decision")
    new = add("Releases are cut on Mondays", "--type", "decision")
    ok("supersede", old, new)
    info = json.loads(ok("status", "-f", "json"))
    assert info["untiered"] == 2  # the superseded one no longer counts
    assert "no tier 2" in ok("status", "-f", "table")
    add("Parked idea", "--tag", "tier:off-context")
    assert json.loads(ok("status", "-f", "json"))["untiered"] == 2  # off-context is a tier


def _inject(tmp_path, notes: list[str], prompt: str) -> list[str]:
    """What prompt-submit's own call (build_request) injects for `prompt` over a store of
    `notes` (untiered, as `ctx add` and <ctx:remember> leave them) — the real model."""
    import pytest

    from ctx.claude.requests import build_request
    from ctx.core import db
    from ctx.core.store import Store
    from ctx.semantic import index
    from ctx.semantic.embed import get_embedder
    from ctx.semantic.model import locate
    from ctx.semantic.select import SelectOptions

    if locate() is None:
        pytest.skip("the embedding model is not built")
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = str(tmp_path / "s.db")
    conn = db.connect(path)
    nodes = Store(conn).add_many({"content": c, "type": "decision"} for c in notes)
    index.ensure(conn, get_embedder())
    conn.commit()
    built = build_request(conn, "s1", prompt, max_chars=9500, db_path=path,
                          options=SelectOptions(deadline_s=60))
    by_id = {n.id: n.content for n in nodes}
    conn.close()
    return [by_id[i.node_id] for i in built.record.items if i.injected == "now"]


def test_a_short_untiered_note_reaches_claude_when_the_prompt_is_about_it(tmp_path):
    assert _inject(tmp_path, ["Deploys go out on Tuesdays only"], "When do we deploy?") \
        == ["Deploys go out on Tuesdays only"]


def test_a_short_note_among_others_and_an_unrelated_prompt(tmp_path):
    notes = ["Deploys go out on Tuesdays only", "Staging Postgres listens on port 6544",
             "The nightly backup of the staging database runs at 02:00 UTC",
             "Feature flags live in config/flags.yaml and are read at start-up",
             "The billing service times out when the invoice list has more than 500 rows"]
    assert "Deploys go out on Tuesdays only" in _inject(tmp_path, notes, "When do we deploy?")
    assert _inject(tmp_path / "b", notes, "What's a good recipe for banana bread?") == []


def test_korean_one_line_facts_and_decisions_reach_claude(tmp_path):
    notes = ["배포는 화요일에만 나갑니다", "스테이징 DB는 6543 포트를 씁니다",
             "결제 API 타임아웃은 30초로 정했다"]
    assert _inject(tmp_path / "a", notes[:1], "배포는 언제 해?") == notes[:1]
    assert "스테이징 DB는 6543 포트를 씁니다" in _inject(tmp_path / "b", notes,
                                                      "스테이징 데이터베이스 포트가 뭐였지?")
    assert "결제 API 타임아웃은 30초로 정했다" in _inject(tmp_path / "c", notes,
                                                     "결제 타임아웃 얼마로 했지?")
    assert _inject(tmp_path / "d", notes, "바나나 빵 레시피 알려줘") == []


def test_make_demos_two_question_prompt_injects_the_decision_it_just_remembered(tmp_path):
    """scripts/demo.sh's api project (its untiered notes) and the showcase prompt: the whole
    prompt's embedding sits between the two topics, each question alone finds its note."""
    notes = ["The nightly backup of the staging database runs at 02:00 UTC",
             "Deploys need a green CI run on main and a second reviewer",
             "The billing service times out when the invoice list has more than 500 rows",
             "Feature flags live in config/flags.yaml and are read at start-up",
             "Deploys go out on Tuesdays only"]
    got = _inject(tmp_path, notes, "which port is the staging database on, and when do we deploy?")
    assert "Deploys go out on Tuesdays only" in got
    assert "Feature flags live in config/flags.yaml and are read at start-up" not in got


def test_a_prompt_is_split_into_its_questions_only_when_it_asks_several():
    from ctx.semantic.select import clauses

    assert clauses("which port is the staging database on, and when do we deploy?") \
        == ["which port is the staging database on", "when do we deploy"]
    assert clauses("배포는 언제 해? 스테이징 포트는?") == ["배포는 언제 해", "스테이징 포트는"]
    assert clauses("When do we deploy?") == []
    assert clauses("Why is checkout slow? Is it?") == []  # "is it": nothing to search for
