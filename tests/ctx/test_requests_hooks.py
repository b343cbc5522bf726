"""The hooks, run as Claude Code runs them, keep session and request records (SPEC §3)."""
from __future__ import annotations

import json
import subprocess

import pytest

from ctx.claude import requests, sessions
from ctx.core import db
from ctx.core.store import Store


@pytest.fixture(autouse=True)
def patient(monkeypatch):
    """These tests check what is selected, not how fast (that is `make bench`): a cold model
    on a busy test machine must not push them onto the keyword path."""
    monkeypatch.setenv("CTX_SEMANTIC_DEADLINE", "60")


@pytest.fixture
def store():
    conn = db.connect()
    yield Store(conn)
    conn.close()


def hook(ctx_bin, event, payload, env=None):
    import os

    proc = subprocess.run([ctx_bin, "hook", event], input=json.dumps(payload).encode(),
                          capture_output=True, timeout=60, env={**os.environ, **(env or {})}, check=False)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout), proc.stderr.decode()


def context(out):
    return (out.get("hookSpecificOutput") or {}).get("additionalContext", "")


def test_session_start_records_always_items_and_prompt_submit_selects(ctx_bin, store):
    pinned = store.add("Answer in English.", tags=["tier:pinned"]).id
    retry = store.add("The billing worker retries a declined charge three times, waiting 1, 3 "
                      "and 7 days.", type="pattern").id
    store.add("The guest wireless network is called orbit-guest.")
    out, _ = hook(ctx_bin, "session-start", {"session_id": "S", "hook_event_name": "SessionStart",
                                             "source": "startup"})
    assert "Answer in English." in context(out)
    assert [(i.node_id, i.include_mode, i.injected) for i in sessions.session_items(store.conn, "S")] == \
        [(pinned, "always", True)]

    payload = {"session_id": "S", "hook_event_name": "UserPromptSubmit",
               "prompt": "what does billing do when a customer's card charge is declined?"}
    out, _ = hook(ctx_bin, "prompt-submit", payload)
    text = context(out)
    assert out["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
    assert "## Relevant Memory" in text and "retries a declined charge" in text
    assert "orbit-guest" not in text and "Answer in English" not in text
    rec = requests.get_request(store.conn)
    assert rec.session_id == "S" and rec.path == "semantic"
    assert {(i.node_id, i.include_mode, i.injected) for i in rec.items if i.included} == \
        {(pinned, "always", "earlier"), (retry, "agent", "now")}

    out, _ = hook(ctx_bin, "prompt-submit", payload)  # already in the conversation
    assert out == {}
    assert requests.get_request(store.conn).items[0].injected == "earlier"

    out, _ = hook(ctx_bin, "session-start", {"session_id": "S", "hook_event_name": "SessionStart",
                                             "source": "clear"})
    out, _ = hook(ctx_bin, "prompt-submit", payload)  # /clear forgot it: sent again
    assert "retries a declined charge" in context(out)


def test_prompt_submit_without_the_model_still_answers_by_keyword(ctx_bin, store, tmp_path):
    store.add("Team lunch is on the first Wednesday of the month.")
    out, _ = hook(ctx_bin, "prompt-submit", {"session_id": "K", "hook_event_name": "UserPromptSubmit",
                                             "prompt": "when is the team lunch?"},
                  env={"CTX_MODEL_DIR": str(tmp_path / "none")})
    assert "first Wednesday" in context(out)
    rec = requests.get_request(store.conn)
    assert rec.path == "keyword" and "not built" in rec.fallback_reason


def test_prompt_submit_with_a_broken_model_falls_back(ctx_bin, store, tmp_path):
    import shutil

    from ctx.semantic.model import require

    built = require().dir
    broken = tmp_path / "broken"  # CTX_MODEL_DIR holds one folder per model
    shutil.copytree(built, broken / built.name, ignore=shutil.ignore_patterns("model.onnx.data"))
    (broken / built.name / "model.onnx.data").write_bytes(b"not weights")
    store.add("Team lunch is on the first Wednesday of the month.")
    out, _ = hook(ctx_bin, "prompt-submit", {"session_id": "B", "hook_event_name": "UserPromptSubmit",
                                               "prompt": "when is the team lunch?"},
                    env={"CTX_MODEL_DIR": str(broken)})
    assert "first Wednesday" in context(out)
    rec = requests.get_request(store.conn)
    assert rec.path == "keyword" and rec.fallback_reason.startswith("semantic search failed")
