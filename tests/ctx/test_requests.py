"""Include modes, sessions and per-request records (SPEC §3), against a real store and model."""
from __future__ import annotations

import pytest

from ctx.claude import request_view, requests, sessions
from ctx.core import db
from ctx.core.errors import NotFoundError
from ctx.core.store import Store
from ctx.semantic.select import SelectOptions

CAP = 9500


@pytest.fixture(autouse=True)
def patient(monkeypatch):
    """These tests check what is selected, not how fast (that is `make bench`): a cold model
    on a busy test machine must not push them onto the keyword path."""
    monkeypatch.setenv("CTX_SEMANTIC_DEADLINE", "60")


@pytest.fixture
def store(tmp_path):
    conn = db.connect(tmp_path / "s.db")
    yield Store(conn)
    conn.close()


@pytest.fixture
def memory(store):
    ids = {
        "pinned": store.add("Answer in English; keep replies short.", type="pattern",
                            tags=["tier:pinned"]).id,
        "ref": store.add("The product is called Orbit.", tags=["tier:reference"]).id,
        "retry": store.add("The billing worker retries a declined charge three times, waiting 1, 3 "
                           "and 7 days, before marking the invoice uncollectible.", type="pattern").id,
        "wal": store.add("SQLite runs in WAL mode so readers never block the single writer.",
                         type="decision").id,
        "manual": store.add("Mina owns the billing service.", tags=["include:manual"]).id,
        "lunch": store.add("Team lunch is on the first Wednesday of the month.").id,
    }
    sessions.start_session(store.conn, "S1", "startup", [ids["pinned"], ids["ref"]])
    return ids


def items(record, **where):
    return [i for i in record.items if all(getattr(i, k) == v for k, v in where.items())]


def test_include_modes_follow_tiers_and_explicit_tags():
    assert sessions.include_mode(["tier:pinned"]) == "always"
    assert sessions.include_mode(["tier:working", "x"]) == "always"
    assert sessions.include_mode(["tier:off-context"]) == "agent"
    assert sessions.include_mode([]) == "agent"
    assert sessions.include_mode(["include:manual", "tier:pinned"]) == "manual"
    assert sessions.include_mode(["tier:reference", "include:agent"]) == "agent"
    assert sessions.include_mode(["include:always"]) == "always"


def test_prompt_injects_the_relevant_agent_memory_once(store, memory):
    built = requests.build_request(store.conn, "S1", "what does billing do when a customer's card "
                             "charge is declined?", max_chars=CAP)
    rec = built.record
    assert rec.path == "semantic" and rec.fallback_reason is None
    assert "## Relevant Memory" in built.text and "retries a declined charge" in built.text
    agent = items(rec, include_mode="agent", included=True)
    assert [i.node_id for i in agent] == [memory["retry"]]
    assert agent[0].injected == "now" and agent[0].score > 0.35
    # session items are part of every request, sent at session start
    always = items(rec, include_mode="always")
    assert {i.node_id for i in always} == {memory["pinned"], memory["ref"]}
    assert all(i.injected == "earlier" and i.included for i in always)
    # the unrelated ones are recorded as excluded, with the reason
    excluded = items(rec, included=False)
    assert excluded and all(i.reason == "below threshold" for i in excluded)
    assert memory["manual"] not in {i.node_id for i in rec.items}  # manual: never picked
    assert rec.injected_chars == len(built.text)

    again = requests.build_request(store.conn, "S1", "and how many times does it retry a declined "
                             "card?", max_chars=CAP)
    assert again.text == ""
    (item,) = items(again.record, node_id=memory["retry"])
    assert item.included and item.injected == "earlier"


def test_an_edited_memory_is_sent_again(store, memory):
    prompt = "what does billing do when a card charge is declined?"
    requests.build_request(store.conn, "S1", prompt, max_chars=CAP)
    store.update(memory["retry"], content="The billing worker retries a declined charge five times.")
    built = requests.build_request(store.conn, "S1", prompt, max_chars=CAP)
    assert "five times" in built.text


def test_session_items_are_not_selected_again_and_removed_ones_say_so(store, memory):
    sessions.session_remove(store.conn, "S1", memory["retry"])
    built = requests.build_request(store.conn, "S1", "what happens when a card is declined?", max_chars=CAP)
    assert built.text == ""
    (item,) = items(built.record, node_id=memory["retry"])
    assert not item.included and item.reason == "removed by the user" and item.score > 0.3


def test_a_manually_added_item_is_sent_at_the_next_prompt(store, memory):
    sessions.session_add(store.conn, "S1", memory["manual"])
    built = requests.build_request(store.conn, "S1", "hello there", max_chars=CAP)
    assert "Mina owns the billing service." in built.text
    (item,) = items(built.record, node_id=memory["manual"])
    assert item.include_mode == "manual" and item.injected == "now"
    later = requests.build_request(store.conn, "S1", "hello again", max_chars=CAP)
    assert items(later.record, node_id=memory["manual"])[0].injected == "earlier"
    assert "Mina" not in later.text


def test_the_character_cap_is_kept_and_the_rest_recorded(store, memory):
    big = store.add("Declined card charges: " + "the retry schedule is documented here. " * 60).id
    built = requests.build_request(store.conn, "S1", "what happens when a card charge is declined?",
                             max_chars=600)
    assert 0 < len(built.text) <= 600
    (item,) = items(built.record, node_id=big)
    assert not item.included and item.reason == "over the character cap"
    assert items(built.record, node_id=memory["retry"])[0].injected == "now"


def test_no_room_injects_nothing_but_still_records(store, memory):
    built = requests.build_request(store.conn, "S1", "what happens when a card is declined?", max_chars=0)
    assert built.text == ""
    assert items(built.record, node_id=memory["retry"])[0].reason == "over the character cap"
    assert requests.get_request(store.conn).id == built.record.id


def test_missing_model_falls_back_to_keywords_and_says_so(store, memory, monkeypatch, tmp_path):
    monkeypatch.setenv("CTX_MODEL_DIR", str(tmp_path / "no-model"))
    built = requests.build_request(store.conn, "S1", "when is the team lunch?", max_chars=CAP)
    rec = built.record
    assert rec.path == "keyword" and "make model" in rec.fallback_reason
    assert "first Wednesday" in built.text
    assert items(rec, node_id=memory["lunch"])[0].injected == "now"


def test_a_slow_model_falls_back_within_the_deadline(store, memory):
    opts = SelectOptions(deadline_s=0.001)
    built = requests.build_request(store.conn, "S1", "when is the team lunch?", max_chars=CAP, options=opts)
    assert built.record.path == "keyword"
    assert "longer than 0.001 s" in built.record.fallback_reason


def test_semantic_can_be_switched_off(store, memory, monkeypatch):
    monkeypatch.setenv("CTX_SEMANTIC", "0")
    rec = requests.build_request(store.conn, "S1", "lunch", max_chars=CAP).record
    assert rec.path == "keyword" and "CTX_SEMANTIC=0" in rec.fallback_reason


def test_a_prompt_without_words_selects_nothing(store, memory):
    rec = requests.build_request(store.conn, "S1", "?!", max_chars=CAP).record
    assert rec.path == "none" and not items(rec, include_mode="agent")


def test_session_start_resets_on_clear_and_keeps_on_resume(store, memory):
    sessions.session_add(store.conn, "S1", memory["manual"])
    sessions.session_remove(store.conn, "S1", memory["wal"])
    sessions.start_session(store.conn, "S1", "resume", [memory["pinned"], memory["ref"]])
    states = {i.node_id: (i.include_mode, i.state) for i in sessions.session_items(store.conn, "S1")}
    assert states[memory["manual"]] == ("manual", "active")
    assert states[memory["wal"]] == ("manual", "removed")
    sessions.start_session(store.conn, "S1", "clear", [memory["pinned"]])
    after = sessions.session_items(store.conn, "S1")
    assert [(i.node_id, i.include_mode, i.injected) for i in after] == [(memory["pinned"], "always", True)]
    assert sessions.get_session(store.conn, "S1").source == "clear"


def test_always_items_cut_at_session_start_compete_per_prompt(store, memory):
    """Issue 22: a tiered memory the session-start view had no room for is a candidate for
    every prompt — recorded with the prompt's verdict, sent when the prompt is about it."""
    sessions.start_session(store.conn, "S2", "startup", [memory["pinned"], memory["ref"]],
                     injected=[memory["pinned"]])
    rec = requests.build_request(store.conn, "S2", "hello", max_chars=CAP).record
    (ref,) = items(rec, node_id=memory["ref"])
    assert ref.include_mode == "always" and not ref.included and ref.reason == "below threshold"
    (pinned,) = items(rec, node_id=memory["pinned"])
    assert pinned.included and pinned.injected == "earlier"
    built = requests.build_request(store.conn, "S2", "what is the name of our product?", max_chars=CAP)
    (ref,) = items(built.record, node_id=memory["ref"])
    assert ref.included and ref.injected == "now" and "Orbit" in built.text


def test_an_unknown_session_is_started_on_its_first_prompt(store, memory):
    rec = requests.build_request(store.conn, "NEW", "when is the team lunch?", max_chars=CAP).record
    assert sessions.get_session(store.conn, "NEW").source is None
    assert items(rec, node_id=memory["lunch"])[0].injected == "now"


def test_requests_are_listed_shown_and_viewed(store, memory):
    first = requests.build_request(store.conn, "S1", "what happens when a card is declined?", max_chars=CAP)
    second = requests.build_request(store.conn, "S1", "when is the team lunch?", max_chars=CAP)
    listed = requests.list_requests(store.conn, session_id="S1")
    assert [r["id"] for r in listed] == [second.record.id, first.record.id]
    assert listed[1]["agent"] == 1 and listed[1]["injected_now"] == 1
    assert requests.get_request(store.conn).id == second.record.id
    assert requests.get_request(store.conn, first.record.id[:12].lower()).id == first.record.id
    with pytest.raises(NotFoundError):
        requests.get_request(store.conn, "ZZZZZZZZ")
    view = request_view.request_view(store.conn, first.record)
    included = [r for r in view["items"] if r["included"]]
    # the seed's order: priority (pinned 1, reference 2, …), then name
    assert [r["priority"] for r in included] == sorted(r["priority"] for r in included)
    assert included[0]["node_id"] == memory["pinned"] and included[0]["name"].startswith("Answer")
    store.delete(memory["retry"])
    view = request_view.request_view(store.conn, requests.get_request(store.conn, first.record.id))
    gone = [r for r in view["items"] if r["node_id"] == memory["retry"]]
    assert gone[0]["deleted"] and gone[0]["name"] == "(deleted)"


def test_resolve_session_by_prefix_or_latest(store, memory):
    sessions.start_session(store.conn, "abc-123", "startup", [], now="2099-01-01T00:00:00.000Z")
    assert sessions.resolve_session(store.conn, None) == "abc-123"
    assert sessions.resolve_session(store.conn, "abc") == "abc-123"
    assert sessions.resolve_session(store.conn, "S1") == "S1"
    with pytest.raises(NotFoundError):
        sessions.resolve_session(store.conn, "zzz")


def test_a_store_without_agent_memories_never_loads_the_model(store):
    import subprocess
    import sys

    pinned = store.add("Answer in English.", tags=["tier:pinned"]).id
    store.add("Mina owns billing.", tags=["include:manual"])
    sessions.start_session(store.conn, "S", "startup", [pinned])
    rec = requests.build_request(store.conn, "S", "who owns billing?", max_chars=CAP).record
    assert rec.path == "none" and "no agent-mode memories" in rec.fallback_reason
    path = store.conn.execute("PRAGMA database_list").fetchone()[2]
    probe = ("import sys; from ctx.core import db; from ctx.claude import requests; "
             "c = db.connect(sys.argv[1]); "
             "r = requests.build_request(c, 'S', 'who owns billing?', max_chars=9500).record; "
             "print(r.path, sorted(m for m in ('numpy', 'onnxruntime', 'tokenizers') "
             "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", probe, path], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "none []"
    store.add("The billing worker retries declined charges.")  # now there is something to pick
    out = subprocess.run([sys.executable, "-c", probe, path], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip().startswith("semantic ['numpy', 'onnxruntime'")
