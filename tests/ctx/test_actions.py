"""Carrying out <ctx:…> commands against a real store (seed §6, §7, §8, §17)."""
from __future__ import annotations

import json

import pytest

from ctx.claude import actions
from ctx.claude.tags import parse
from ctx.core import db
from ctx.core.store import Store


@pytest.fixture
def store():
    conn = db.connect()
    yield Store(conn)
    conn.close()


def run(store, text, session_id="s1"):
    parsed = parse(text)
    assert parsed.warnings == []
    return actions.execute(store, parsed.commands, session_id=session_id)


def test_remember_stores_type_tags_and_rationale(store):
    [o] = run(store, '<ctx:remember type="decision" tags="tier:reference,project:api" '
                     'rationale="pooling in pgbouncer">No ORM pool.</ctx:remember>')
    assert o.ok
    node = store.get(o.node_ids[0])
    assert (node.type, node.content, node.tier) == ("decision", "No ORM pool.", "reference")
    assert "project:api" in node.tags and node.metadata == {"rationale": "pooling in pgbouncer"}


def test_remember_the_same_thing_twice_keeps_one_node(store):
    run(store, '<ctx:remember type="fact" tags="tier:reference">Port 6543</ctx:remember>')
    [o] = run(store, '<ctx:remember type="fact" tags="project:db">Port 6543</ctx:remember>')
    assert "already remembered" in o.message
    [node] = store.list_nodes()
    assert set(node.tags) == {"tier:reference", "project:db"}


def test_a_failing_command_is_rolled_back_and_the_others_still_run(store):
    outcomes = run(store, '<ctx:remember type="nonsense" tags="tier:reference">x</ctx:remember>'
                          '<ctx:remember type="fact" tags="tier:bogus">y</ctx:remember>'
                          '<ctx:supersede old="ZZZZZZZZ" new="YYYYYYYY"/>'
                          '<ctx:remember type="fact" tags="tier:working">z</ctx:remember>')
    assert [o.ok for o in outcomes] == [False, False, False, True]
    assert "unknown node type" in outcomes[0].message
    assert [n.content for n in store.list_nodes()] == ["z"]


def test_remember_with_supersedes_replaces_the_old_fact(store):
    [old] = run(store, '<ctx:remember type="fact" tags="tier:reference">Port 6543</ctx:remember>')
    [new] = run(store, f'<ctx:remember type="fact" tags="tier:reference" '
                       f'supersedes="{old.node_ids[0][:10]}">Port 7000</ctx:remember>')
    assert store.get(old.node_ids[0]).superseded_by == new.node_ids[0]
    assert [n.content for n in store.list_nodes()] == ["Port 7000"]


def test_supersede_marks_old_and_links_new_to_old(store):
    a = store.add("old", tags=["tier:reference"])
    b = store.add("new", tags=["tier:reference"])
    [o] = run(store, f'<ctx:supersede old="{a.id}" new="{b.id}"/>')
    assert o.ok and store.get(a.id).superseded_by == b.id
    assert [(e.from_id, e.to_id, e.type) for e in store.edges([a.id])] == [(b.id, a.id, "SUPERSEDES")]


def test_task_lifecycle(store):
    before = store.add("earlier working note", tags=["tier:working"])
    run(store, '<ctx:task name="auth" action="start"/>')
    assert store.get_pending(actions.CURRENT_TASK) == "auth"
    assert "task:auth" in store.get(before.id).tags
    [o] = run(store, '<ctx:remember type="observation" tags="tier:working">retries=3</ctx:remember>')
    assert "task:auth" in store.get(o.node_ids[0]).tags
    [ref] = run(store, '<ctx:remember type="fact" tags="tier:reference">durable</ctx:remember>')
    assert "task:auth" not in store.get(ref.node_ids[0]).tags
    [end] = run(store, '<ctx:task name="auth" action="end" summarize="true"/>')
    assert end.ok and len(end.node_ids) == 2
    assert store.get_pending(actions.CURRENT_TASK) is None
    assert all(store.get(i).tier == "off-context" for i in end.node_ids)
    notes = json.loads(store.get_pending("task_notes:s1"))
    assert notes[0]["task"] == "auth" and len(notes[0]["nodes"]) == 2


def test_summarize_creates_a_summary_with_edges_and_archives(store):
    a = store.add("a", tags=["tier:working"])
    b = store.add("b", tags=["tier:reference"])
    [o] = run(store, f'<ctx:summarize nodes="{a.id},{b.id}" archive="true">a and b</ctx:summarize>')
    summary = store.get(o.node_ids[0])
    assert summary.type == "summary" and summary.tier == "reference"  # best tier of its sources
    derived = {(e.from_id, e.to_id, e.type) for e in store.edges([summary.id])}
    assert derived == {(summary.id, a.id, "DERIVED_FROM"), (summary.id, b.id, "DERIVED_FROM")}
    assert store.get(a.id).tier == store.get(b.id).tier == "off-context"


def test_summarize_of_an_unknown_node_creates_nothing(store):
    [o] = run(store, '<ctx:summarize nodes="01ZZZZZZZZ">text</ctx:summarize>')
    assert not o.ok and store.list_nodes() == []


def test_expand_queues_the_sources_of_a_summary(store):
    a = store.add("a", tags=["tier:off-context"])
    s = store.add("sum", type="summary", tags=["tier:reference"])
    store.link(s.id, a.id, "DERIVED_FROM")
    [o] = run(store, f'<ctx:expand node="{s.id}"/>')
    assert o.ok and json.loads(store.get_pending("expand_nodes:s1")) == [a.id]
    [bad] = run(store, f'<ctx:expand node="{a.id}"/>')
    assert not bad.ok and "not a summary" in bad.message


def test_link_defaults_to_relates_to(store):
    a, b = store.add("a"), store.add("b")
    [o] = run(store, f'<ctx:link from="{a.id}" to="{b.id}"/>')
    assert store.edges([a.id])[0].type == "RELATES_TO" and o.ok


def test_recall_with_the_query_language_and_with_plain_words(store, monkeypatch):
    monkeypatch.setenv("CTX_SEMANTIC", "0")  # keyword search; the hybrid path is tested below
    store.add("OAuth with PKCE for public clients", tags=["tier:reference", "project:auth"])
    store.add("Refresh tokens stay server-side", tags=["tier:reference", "project:auth"])
    store.add("Unrelated build note", tags=["tier:reference"])
    run(store, '<ctx:recall query="tag:project:auth"/><ctx:recall query="where do refresh tokens live"/>')
    entries = json.loads(store.get_pending("recall_results:s1"))
    assert [e["mode"] for e in entries] == ["query", "keyword"]
    assert entries[0]["total"] == 2
    assert entries[1]["nodes"][0]["content"] == "Refresh tokens stay server-side"


def test_take_pending_hands_over_once_and_includes_session_less_entries(store):
    run(store, "<ctx:status/>", session_id=None)
    run(store, '<ctx:recall query="type:fact"/>', session_id="s1")
    other = actions.take_pending(store, "s2")
    assert other.status and not other.recalls  # the session-less status reaches any session
    mine = actions.take_pending(store, "s1")
    assert mine.recalls and not mine.status
    assert not actions.take_pending(store, "s1")


def test_plain_recall_uses_hybrid_search_with_the_real_model(store):
    from ctx.semantic.model import locate

    if locate() is None:
        pytest.skip("the MiniLM model is not built (make model)")
    store.add("Refresh tokens are kept on the server, never in the browser", tags=["tier:reference"])
    store.add("The CI pipeline caches wheels between runs", tags=["tier:reference"])
    from ctx.semantic import index
    from ctx.semantic.embed import get_embedder

    index.ensure(store.conn, get_embedder())
    # No word in common with the right node: only the vectors can find it.
    run(store, '<ctx:recall query="session renewal credentials storage location"/>')
    [entry] = json.loads(store.get_pending("recall_results:s1"))
    assert entry["mode"] == "hybrid"
    assert entry["nodes"][0]["content"].startswith("Refresh tokens are kept on the server")


def test_recall_of_only_stopwords_finds_nothing_without_error(store):
    [o] = run(store, '<ctx:recall query="what is the"/>')
    assert o.ok and json.loads(store.get_pending("recall_results:s1"))[0]["total"] == 0
