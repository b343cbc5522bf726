"""Per-prompt semantic selection, driven by the REAL Claude Code CLI (see test_claude_code.py).

With ~30 untiered memories stored, a prompt about one of them in other words gets that memory
into the request Claude Code sends to the model, and the request is recorded.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from e2e_harness import harness

from ctx.claude import requests
from ctx.core import db
from ctx.core.store import Store

pytestmark = pytest.mark.e2e
DATA = Path(__file__).resolve().parents[1] / "ctx" / "data" / "retrieval.json"


def test_a_paraphrased_prompt_gets_its_memory_injected(claude_bin, ctx_bin, tmp_path):
    notes = json.loads(DATA.read_text())["nodes"][:30]  # untiered: include mode agent
    conn = db.connect()
    store = Store(conn)
    ids = {n["key"]: store.add(n["content"], type=n["type"]).id for n in notes}
    conn.close()
    target = next(n["content"] for n in notes if n["key"] == "pay-retry")
    prompt = "A customer's card was refused again, what happens to their bill?"

    run = harness(claude_bin, ctx_bin, tmp_path / "semantic", prompt, reply_text="It is retried.",
                  extra=["--env", "CTX_SEMANTIC_DEADLINE=60"])  # a cold model on a busy CI box
    run.assert_hooks_healthy()
    [injected] = run.contexts("UserPromptSubmit")
    assert injected.startswith("## Relevant Memory") and target in injected
    unrelated = next(n["content"] for n in notes if n["key"] == "db-wal")
    assert unrelated not in injected
    first = run.request_text(0)
    assert "UserPromptSubmit hook additional context: ## Relevant Memory" in first
    assert target in first  # in the request the model is sent

    conn = db.connect()
    try:
        rec = requests.get_request(conn)
        assert rec.path == "semantic" and rec.prompt == prompt
        (item,) = [i for i in rec.items if i.node_id == ids["pay-retry"]]
        assert item.include_mode == "agent" and item.injected == "now" and item.score >= 0.27  # the floor
    finally:
        conn.close()
