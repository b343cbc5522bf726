"""A first session that teaches (issue 38): on an empty or small store, session start gives
Claude two lines on how to remember — within the cap, the same bytes every time, through the
served, cached and in-process paths alike; a store with real memory does without them."""
from __future__ import annotations

import json
import os
import subprocess

import pytest

from ctx.claude.hooks.session_start import HOW_TO_REMEMBER, SMALL_STORE
from ctx.claude.tags import parse
from ctx.core import db
from ctx.core.store import Store


def session_start(ctx_bin, session_id="s1", *, env=None, args=()):
    payload = {"session_id": session_id, "hook_event_name": "SessionStart", "source": "startup",
               "cwd": "/tmp", "transcript_path": "/nonexistent/t.jsonl"}
    proc = subprocess.run([ctx_bin, "hook", "session-start", *args], input=json.dumps(payload).encode(),
                          capture_output=True, check=False, timeout=30,
                          env={**os.environ, **(env or {})})
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    return out.get("hookSpecificOutput", {}).get("additionalContext")


@pytest.fixture
def store():
    conn = db.connect()
    yield Store(conn)
    conn.close()


def test_the_lines_are_two_and_their_examples_are_commands_the_stop_hook_runs():
    assert HOW_TO_REMEMBER.count("\n") == 2 and HOW_TO_REMEMBER.endswith("\n")
    commands = parse(HOW_TO_REMEMBER).commands
    assert [c.name for c in commands] == ["remember", "recall"]
    assert commands[0].attrs == {"type": "decision", "tags": "tier:reference"}


@pytest.mark.parametrize("server", ["1", "0"])
def test_a_small_store_gets_them_after_its_memory_byte_stable(ctx_bin, store, server):
    store.add("Deploys go out on Tuesdays only", type="decision", tags=["tier:reference"])
    env = {"CTX_HOOK_SERVER": server}
    first = session_start(ctx_bin, "a", env=env)
    assert first.index("Deploys go out on Tuesdays") < first.index(HOW_TO_REMEMBER)
    assert first.endswith(HOW_TO_REMEMBER)
    # cached (the store unchanged), in process and served: the same bytes
    assert session_start(ctx_bin, "b", env=env) == first
    assert session_start(ctx_bin, "c", env={"CTX_HOOK_SERVER": "0"}) == first


def test_a_store_with_memory_does_without_them(ctx_bin, store):
    for i in range(SMALL_STORE):
        store.add(f"reference fact number {i}", tags=["tier:reference"])
    assert HOW_TO_REMEMBER not in session_start(ctx_bin)


def test_they_never_push_memory_out_of_the_cap(ctx_bin, store):
    store.add("x" * 150, tags=["tier:reference"])
    small = session_start(ctx_bin, args=("--max-chars", "600"))
    assert "x" * 150 in small and HOW_TO_REMEMBER not in small  # memory first
    assert session_start(ctx_bin, "big").endswith(HOW_TO_REMEMBER)
