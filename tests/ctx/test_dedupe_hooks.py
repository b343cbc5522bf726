"""The write-time duplicate check where Claude writes: the Stop hook's <ctx:remember> (Claude
hears about it at the next prompt) and the MCP remember tool (issue 23)."""
from __future__ import annotations

import json

import pytest
from ctx_runner import ok

from ctx.claude import actions
from ctx.claude.tags import parse
from ctx.core import db
from ctx.core.store import Store
from ctx.mcp import tools
from tests.ctx.test_hooks import context, hook, prompt, stop


@pytest.fixture
def store():
    conn = db.connect()
    yield Store(conn)
    conn.close()


def test_a_repeated_remember_is_not_stored_and_claude_is_told_the_id(ctx_bin):
    first = ok("add", "--global", "--tag", "tier:reference", "The staging DB listens on port 6543").strip()
    reply = ('Noted. <ctx:remember type="fact" tags="tier:reference">Staging database listens on '
             'port 6543.</ctx:remember>')
    proc, out = hook(ctx_bin, "stop", stop(reply), env={"CTX_SEMANTIC": "off"})
    assert out == {} and proc.returncode == 0
    assert ok("list", "-f", "ids").split() == [first]
    _, out = hook(ctx_bin, "prompt-submit", prompt("next"), env={"CTX_SEMANTIC": "off"})
    text = context(out, "UserPromptSubmit")
    assert "## Already Remembered" in text and first[:8] in text and "port 6543" in text


def test_a_likely_duplicate_follows_the_policy_and_dedupe_keep(store, monkeypatch):
    store.add("The auth service listens on port 8080")
    restated = "<ctx:remember>The auth service runs on port 8080</ctx:remember>"
    (o,) = actions.execute(store, parse(restated).commands, session_id="s2")
    assert o.status is actions.Status.LIKELY and store.count() == 1
    assert 'dedupe="keep"' in o.message
    (note,) = actions.take_pending(store, "s2").duplicates
    assert note["id"] == o.node_ids[0]
    monkeypatch.setenv("CTX_DEDUPE", "keep")
    (o,) = actions.execute(store, parse(restated).commands, session_id="s2")
    assert o.status is actions.Status.DONE and "likely a duplicate" in o.message and store.count() == 2
    monkeypatch.delenv("CTX_DEDUPE")
    forced = '<ctx:remember dedupe="keep">The auth service is reachable on port 8080</ctx:remember>'
    (o,) = actions.execute(store, parse(forced).commands)
    assert o.status is actions.Status.DONE and store.count() == 3
    (o,) = actions.execute(store, parse('<ctx:remember dedupe="maybe">x y z</ctx:remember>').commands)
    assert not o.ok and "skip, keep or ask" in o.message


def test_mcp_remember_names_the_existing_node(store):
    first = tools.remember(store, "Use uv for Python dependencies")
    again = tools.remember(store, "use uv for python dependencies!")
    assert again["status"] == "already remembered" and again["node"]["id"] == first["node"]["id"]
    close = tools.remember(store, "Use uv for all the Python dependencies of the team")
    assert close["status"] == "likely duplicate, not stored"
    kept = tools.remember(store, "Use uv for all the Python dependencies of the team", dedupe="keep")
    assert kept["status"] == "remembered"
    assert json.loads(json.dumps(kept))["node"]["id"] != first["node"]["id"]
