"""`ctx hook …` as Claude Code runs it: a subprocess, JSON on stdin, one JSON object on stdout."""
from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time

import pytest

from ctx.core import db
from ctx.core.store import Store

FORBIDDEN = ("typer", "rich", "click", "numpy", "onnxruntime", "presidio_analyzer", "anthropic",
             "llama_cpp", "ulid")


def hook(ctx_bin, event, payload=None, *, raw=None, args=(), env=None, timeout=30):
    data = raw if raw is not None else (json.dumps(payload).encode() if payload is not None else b"")
    proc = subprocess.run([ctx_bin, "hook", event, *args], check=False, input=data, capture_output=True,
                          timeout=timeout, env={**os.environ, **(env or {})})
    assert proc.returncode != 2, "a hook must never exit 2"
    out = json.loads(proc.stdout)  # always exactly one JSON object
    assert isinstance(out, dict) and proc.stdout.count(b"\n") == 1
    return proc, out


def context(out, event):
    assert set(out) == {"hookSpecificOutput"}
    assert set(out["hookSpecificOutput"]) == {"hookEventName", "additionalContext"}
    assert out["hookSpecificOutput"]["hookEventName"] == event
    return out["hookSpecificOutput"]["additionalContext"]


def utf16_len(text):
    return len(text.encode("utf-16-le")) // 2


def stderr_lines(proc):
    return [line for line in proc.stderr.decode().splitlines() if line.strip()]


@pytest.fixture
def store():
    conn = db.connect()
    yield Store(conn)
    conn.close()


def start(session_id="s1", **extra):
    return {"session_id": session_id, "hook_event_name": "SessionStart", "source": "startup",
            "cwd": "/tmp", "transcript_path": "/nonexistent/t.jsonl", **extra}


def prompt(text="hello", session_id="s1"):
    return {"session_id": session_id, "hook_event_name": "UserPromptSubmit", "prompt": text,
            "prompt_id": "p1", "permission_mode": "default"}


def stop(message=None, *, session_id="s1", transcript=None, prompt_id="p1"):
    payload = {"session_id": session_id, "hook_event_name": "Stop", "stop_hook_active": False,
               "prompt_id": prompt_id, "effort": {"level": "high"}, "background_tasks": []}
    if message is not None:
        payload["last_assistant_message"] = message
    if transcript is not None:
        payload["transcript_path"] = str(transcript)
    return payload


def transcript_lines(prompt_id, *blocks_per_message):
    """A turn as Claude Code 2.1.330 writes it: user line, then one line per assistant block."""
    lines = [{"type": "user", "promptId": prompt_id, "message": {"role": "user", "content": "go"}}]
    for i, blocks in enumerate(blocks_per_message):
        for block in blocks:
            if block == "TOOL_RESULT":
                lines.append({"type": "user", "promptId": prompt_id, "message": {"content": [
                    {"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]}})
                continue
            lines.append({"type": "assistant", "message": {"id": f"msg_{prompt_id}_{i}",
                                                           "role": "assistant", "content": [block]}})
        lines.append({"type": "attachment", "attachment": {"type": "hook_success"}})
    return "".join(json.dumps(line) + "\n" for line in lines)


REMEMBER = '<ctx:remember type="fact" tags="tier:reference">{}</ctx:remember>'


# ---------------------------------------------------------------- envelope and the cap

def test_session_start_injects_the_default_view_in_the_envelope(ctx_bin, store):
    store.add("Staging DB is on port 6543", tags=["tier:reference"])
    store.add("Always run make lint", type="pattern", tags=["tier:pinned"])
    store.add("archived", tags=["tier:off-context"])
    proc, out = hook(ctx_bin, "session-start", start())
    text = context(out, "SessionStart")
    assert proc.returncode == 0 and proc.stderr == b""
    assert text.index("Always run make lint") < text.index("Staging DB is on port 6543")
    assert "archived" not in text and "rendered at" not in text


def test_empty_store_gives_empty_output(ctx_bin):
    from ctx.claude.hooks.session_start import HOW_TO_REMEMBER

    proc, out = hook(ctx_bin, "session-start", start())  # only how to remember (issue 38)
    assert context(out, "SessionStart") == HOW_TO_REMEMBER and proc.stderr == b""
    proc, out = hook(ctx_bin, "prompt-submit", prompt())
    assert out == {} and proc.returncode == 0 and proc.stderr == b""


def test_output_is_byte_identical_for_an_identical_store(ctx_bin, store):
    for i in range(30):
        store.add(f"fact number {i} ✓", tags=["tier:reference" if i % 2 else "tier:working"])
    first = hook(ctx_bin, "session-start", start("a"))[0].stdout
    time.sleep(1.1)  # a rendered time of day, even to the second, would show
    again = hook(ctx_bin, "session-start", start("b", source="resume"))[0].stdout
    assert first == again


def test_300_reference_nodes_stay_under_the_cap_with_a_left_out_line(ctx_bin, store):
    store.add_many([{"content": f"Reference note {i:03d}: " + "lorem ipsum dolor sit amet " * 14,
                     "tags": ["tier:reference"]} for i in range(300)])
    _, out = hook(ctx_bin, "session-start", start())
    text = context(out, "SessionStart")
    assert 8000 < utf16_len(text) <= 9500
    assert "Reference note 000" in text  # highest priority (oldest reference) first
    last_lines = text.rstrip().splitlines()[-3:]
    assert any("left out" in line and "<ctx:recall" in line and "ctx compose" in line
               for line in last_lines)
    shown = text.count("- [fact:")
    assert f"{300 - shown} more matching nodes" in text


def test_the_cap_is_configurable_and_counts_utf16_units(ctx_bin, store):
    store.add_many([{"content": "😀" * 300, "tags": ["tier:reference"]} for _ in range(20)])
    _, out = hook(ctx_bin, "session-start", start(), env={"CTX_HOOK_MAX_CHARS": "3000"})
    text = context(out, "SessionStart")
    assert utf16_len(text) <= 3000 and len(text) < 3000 // 2 + 300
    _, out = hook(ctx_bin, "session-start", start(), args=("--max-chars", "2000"))
    assert utf16_len(context(out, "SessionStart")) <= 2000


def test_recall_results_are_capped_too(ctx_bin, store):
    store.add_many([{"content": f"auth note {i} " + "x" * 500, "tags": ["tier:off-context"]}
                    for i in range(60)])
    hook(ctx_bin, "stop", stop('<ctx:recall query="auth" limit="60"/>'))
    _, out = hook(ctx_bin, "prompt-submit", prompt())
    text = context(out, "UserPromptSubmit")
    assert utf16_len(text) <= 9500 and text.startswith("## Recall Results")
    assert "more items left out" in text.splitlines()[-1]


# ---------------------------------------------------------------- stop → prompt-submit hand-off

def test_stop_runs_commands_and_returns_empty(ctx_bin, store):
    reply = ("Noted. " + REMEMBER.format("Staging DB is on port 6543")
             + ' <ctx:recall query="type:fact"/> <ctx:status/>')
    proc, out = hook(ctx_bin, "stop", stop(reply))
    assert out == {} and proc.returncode == 0 and proc.stderr == b""
    assert [n.content for n in store.list_nodes()] == ["Staging DB is on port 6543"]
    _, out = hook(ctx_bin, "prompt-submit", prompt())
    text = context(out, "UserPromptSubmit")
    assert text.startswith("## Recall Results\n\nQuery: `type:fact`\n\nFound 1 node:\n\n- [fact:")
    assert "Staging DB is on port 6543\n  - Tags: tier:reference" in text
    assert "## ctx Status" in text and "1 live nodes" in text
    _, again = hook(ctx_bin, "prompt-submit", prompt())
    assert again == {}  # injected exactly once


def test_recall_with_no_match_says_so(ctx_bin):
    hook(ctx_bin, "stop", stop('<ctx:recall query="type:decision AND tag:nothing"/>'))
    text = context(hook(ctx_bin, "prompt-submit", prompt())[1], "UserPromptSubmit")
    assert text == ("## Recall Results\n\nQuery: `type:decision AND tag:nothing`\n\n"
                    "No matching nodes found.\n\n---")


def test_recall_results_go_to_the_session_that_asked(ctx_bin):
    hook(ctx_bin, "stop", stop('<ctx:recall query="type:fact"/>', session_id="A"))
    assert hook(ctx_bin, "prompt-submit", prompt(session_id="B"))[1] == {}
    assert hook(ctx_bin, "prompt-submit", prompt(session_id="A"))[1] != {}


def test_stop_reads_every_message_of_the_turn_from_the_transcript(ctx_bin, store, tmp_path):
    t = tmp_path / "t.jsonl"
    t.write_text(transcript_lines(
        "p1",
        [{"type": "text", "text": "First " + REMEMBER.format("from the first message")},
         {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}],
        ["TOOL_RESULT"],
        [{"type": "text", "text": "Done."}]))
    proc, out = hook(ctx_bin, "stop", stop("Done.", transcript=t))
    assert out == {} and proc.stderr == b""
    assert [n.content for n in store.list_nodes() if "capture:session" not in n.tags] == [
        "from the first message"]  # (the session's record, ctx.claude.capture, aside)


def test_stop_twice_and_later_turns_run_each_command_once(ctx_bin, store, tmp_path):
    t = tmp_path / "t.jsonl"
    t.write_text(transcript_lines("p1", [{"type": "text", "text": REMEMBER.format("one")}]))
    hook(ctx_bin, "stop", stop(REMEMBER.format("one"), transcript=t))
    hook(ctx_bin, "stop", stop(REMEMBER.format("one"), transcript=t))
    with open(t, "a") as f:
        f.write(transcript_lines("p2", [{"type": "text", "text": '<ctx:task name="x" action="start"/>'}]))
    hook(ctx_bin, "stop", stop('<ctx:task name="x" action="start"/>', transcript=t, prompt_id="p2"))
    hook(ctx_bin, "stop", stop('<ctx:task name="x" action="start"/>', transcript=t, prompt_id="p2"))
    assert [n.content for n in store.list_nodes() if "capture:session" not in n.tags] == ["one"]
    assert store.get_pending("current_task") == "x"
    assert json.loads(store.get_pending("cursor:s1"))["offset"] == t.stat().st_size


def test_last_assistant_message_is_the_fallback_once(ctx_bin, store):
    reply = REMEMBER.format("from the fallback") + '<ctx:recall query="type:fact"/>'
    proc, _ = hook(ctx_bin, "stop", stop(reply, transcript="/nonexistent/t.jsonl"))
    assert len(stderr_lines(proc)) == 1 and "does not exist" in proc.stderr.decode()
    hook(ctx_bin, "stop", stop(reply, transcript="/nonexistent/t.jsonl"))  # Stop ran twice
    assert [n.content for n in store.list_nodes()] == ["from the fallback"]
    assert len(json.loads(store.get_pending("recall_results:s1"))) == 1


def test_response_flag_overrides_transcript_and_message(ctx_bin, store, tmp_path):
    t = tmp_path / "t.jsonl"
    t.write_text(transcript_lines("p1", [{"type": "text", "text": REMEMBER.format("transcript")}]))
    proc, out = hook(ctx_bin, "stop", stop(REMEMBER.format("message"), transcript=t),
                     args=("--response", REMEMBER.format("flag")))
    assert out == {} and proc.returncode == 0
    assert [n.content for n in store.list_nodes()] == ["flag"]
    proc, _ = hook(ctx_bin, "stop", None, args=("--response", REMEMBER.format("no stdin"), "-v"))
    assert proc.returncode == 0 and "remembered fact" in proc.stderr.decode()


def test_malformed_commands_warn_and_the_rest_still_run(ctx_bin, store):
    reply = ('<ctx:remember type="fact"></ctx:remember> <ctx:bogus/> '
             '<ctx:supersede old="NOPE1234" new="NOPE5678"/> `<ctx:status/>` '
             + REMEMBER.format("kept"))
    proc, out = hook(ctx_bin, "stop", stop(reply))
    assert out == {} and proc.returncode == 0
    assert len(stderr_lines(proc)) == 3
    assert [n.content for n in store.list_nodes()] == ["kept"]
    assert store.get_pending("status_output:s1") is None  # the one in inline code was ignored


def test_expand_reaches_the_next_session_start_once(ctx_bin, store):
    a = store.add("detailed source", tags=["tier:off-context"])
    s = store.add("the summary", type="summary", tags=["tier:reference"])
    store.link(s.id, a.id, "DERIVED_FROM")
    hook(ctx_bin, "stop", stop(f'<ctx:expand node="{s.id}"/>', session_id=None))
    first = context(hook(ctx_bin, "session-start", start())[1], "SessionStart")
    assert "detailed source" in first
    second = context(hook(ctx_bin, "session-start", start())[1], "SessionStart")
    assert "detailed source" not in second and "the summary" in second


def test_expand_reaches_the_next_prompt(ctx_bin, store):
    a = store.add("detailed source", tags=["tier:off-context"])
    s = store.add("the summary", type="summary", tags=["tier:reference"])
    store.link(s.id, a.id, "DERIVED_FROM")
    hook(ctx_bin, "stop", stop(f'<ctx:expand node="{s.id}"/>'))
    text = context(hook(ctx_bin, "prompt-submit", prompt())[1], "UserPromptSubmit")
    assert "## Expanded Nodes" in text and "detailed source" in text


# ---------------------------------------------------------------- never break Claude Code

BAD_INPUTS = {
    "empty": b"",
    "not json": b"hello {",
    "json array": b"[1, 2]",
    "empty object": b"{}",
    "5 MB of junk": b"x" * (5 * 1024 * 1024),
}


@pytest.mark.parametrize("event", ["session-start", "prompt-submit", "stop"])
@pytest.mark.parametrize("name", list(BAD_INPUTS))
def test_bad_input_gives_empty_output_and_one_stderr_line(ctx_bin, store, event, name):
    store.add("something", tags=["tier:reference"])
    proc, out = hook(ctx_bin, event, raw=BAD_INPUTS[name])
    assert (proc.returncode, out) == (0, {})
    assert len(stderr_lines(proc)) == 1


def test_wrong_field_types_are_ignored_with_one_line(ctx_bin, store):
    bad = {"session_id": 5, "hook_event_name": "Stop", "transcript_path": ["x"],
           "last_assistant_message": {"a": 1}, "prompt_id": None, "stop_hook_active": "yes"}
    proc, out = hook(ctx_bin, "stop", bad)
    assert (proc.returncode, out) == (0, {}) and len(stderr_lines(proc)) == 1
    assert "session_id (int)" in proc.stderr.decode()


def test_a_5_mb_prompt_is_handled(ctx_bin):
    proc, out = hook(ctx_bin, "prompt-submit", prompt("y" * 5 * 1024 * 1024))
    assert (proc.returncode, out) == (0, {})


def test_half_written_transcript(ctx_bin, store, tmp_path):
    t = tmp_path / "t.jsonl"
    t.write_text(transcript_lines("p1", [{"type": "text", "text": REMEMBER.format("whole")}])
                 + '{"type": "assistant", "message": {"content": [{"type": "te')
    proc, out = hook(ctx_bin, "stop", stop(None, transcript=t))
    assert (proc.returncode, out) == (0, {}) and len(stderr_lines(proc)) == 1
    assert [n.content for n in store.list_nodes()] == ["whole"]


def test_mismatched_event_name_does_nothing(ctx_bin, store):
    store.add("x", tags=["tier:reference"])
    proc, out = hook(ctx_bin, "session-start", {**start(), "hook_event_name": "UserPromptSubmit"})
    assert out == {} and "check the hooks in settings.json" in proc.stderr.decode()


def test_locked_database(ctx_bin, store, tmp_path):
    store.add("visible", tags=["tier:reference"])
    t = tmp_path / "t.jsonl"
    t.write_text(transcript_lines("p1", [{"type": "text", "text": REMEMBER.format("later")}]))
    locker = sqlite3.connect(os.environ["CTX_DB"], isolation_level=None)
    locker.execute("BEGIN EXCLUSIVE")
    try:
        env = {"CTX_HOOK_BUSY_TIMEOUT_MS": "200"}
        proc, out = hook(ctx_bin, "stop", stop(None, transcript=t), env=env)
        assert (proc.returncode, out) == (0, {}) and len(stderr_lines(proc)) == 1
        assert "locked" in proc.stderr.decode()
        # Readers are not blocked by a writer (WAL): session-start still injects.
        _, out = hook(ctx_bin, "session-start", start(), env=env)
        assert "visible" in context(out, "SessionStart")
    finally:
        locker.execute("ROLLBACK")
        locker.close()
    hook(ctx_bin, "stop", stop(None, transcript=t))  # the next Stop picks the turn up
    assert [n.content for n in store.list_nodes()] == ["visible", "later"]


def test_corrupt_database_is_the_only_exit_1(ctx_bin, tmp_path):
    bad = tmp_path / "corrupt.db"
    bad.write_bytes(b"this is not a sqlite database at all" * 200)
    for event, payload in (("session-start", start()), ("stop", stop(REMEMBER.format("x")))):
        proc, out = hook(ctx_bin, event, payload, env={"CTX_DB": str(bad)})
        assert (proc.returncode, out) == (1, {})
        assert len(stderr_lines(proc)) == 1 and "Error:" in proc.stderr.decode()


def test_missing_database_folder_is_reported_not_fatal(ctx_bin, tmp_path):
    proc, out = hook(ctx_bin, "session-start", start(),
                     env={"CTX_DB": str(tmp_path / "no" / "such" / "store.db")})
    assert (proc.returncode, out) == (0, {}) and len(stderr_lines(proc)) == 1


def test_usage_and_unknown_hooks(ctx_bin):
    proc = subprocess.run([ctx_bin, "hook"], check=False, capture_output=True)
    assert proc.returncode == 0 and b"session-start" in proc.stdout
    proc, out = hook(ctx_bin, "pre-tool-use", start())
    assert proc.returncode == 1 and out == {} and "unknown hook" in proc.stderr.decode()


# ---------------------------------------------------------------- start-up cost

SEMANTIC = ("numpy", "onnxruntime")  # prompt-submit's semantic selection needs them (SPEC §3)


@pytest.mark.parametrize("event,payload,allowed", [
    ("session-start", start(), ()),
    ("stop", stop(REMEMBER.format("a") + '<ctx:recall query="type:fact"/><ctx:status/>'), ()),
    ("prompt-submit", prompt(), SEMANTIC),
])
def test_hooks_do_not_import_heavy_modules(ctx_bin, store, event, payload, allowed):
    store.add("something", tags=["tier:reference"])
    proc = subprocess.run([sys.executable, "-X", "importtime", ctx_bin, "hook", event],
                          input=json.dumps(payload).encode(), capture_output=True, timeout=30,
                          check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    imported = {line.rsplit("|", 1)[-1].strip().split(".")[0]
                for line in proc.stderr.decode().splitlines() if line.startswith("import time:")}
    assert "ctx" in imported and "sqlite3" in imported  # the probe works
    forbidden = set(FORBIDDEN) - set(allowed)
    assert imported.isdisjoint(forbidden), imported & forbidden


# What a hook's own work needs is json, sqlite3 and re: bare Python costs about a third of a
# prompt-submit. These cost more than the work does (SPEC §6 budgets are ratios to bare), so
# ctx's hook path does without them (cuectx/value.py says how): dataclasses and typing (with
# inspect, ast, dis, tokenize), pathlib, threading, and OpenSSL's hashlib where nothing is
# hashed. A reply that remembers and recalls loads the query language and the guard, still
# none of these.
HOOK_PATH_FORBIDDEN = ("dataclasses", "typing", "inspect", "ast", "tokenize", "pathlib",
                       "threading")


HOOK_PATH_CASES = [
    ("session-start", start(), ()),
    ("session-start", start(session_id="s2"), ()),  # the store unchanged: the cached answer
    ("stop", stop(REMEMBER.format("a new fact, 한국어 포함") + '<ctx:recall query="type:fact AND '
                  'created:>2026-01-01"/><ctx:status/>'), ()),
    ("prompt-submit", prompt(), ("hashlib",)),  # nothing pending, semantic selection off
    ("prompt-submit", prompt("recall it"), ()),  # the recall above pending: rendered
]


def imported_by_hook(ctx_bin, store, event, payload) -> set[str]:
    """Every module a hook imports in process (`-X importtime` keeps the server out)."""
    store.add("something to compose, 한국어 and an emoji 🎉", tags=["tier:reference"])
    imported = set()
    for e, p in (("stop", stop(REMEMBER.format("warm the store"))), (event, payload)):
        proc = subprocess.run([sys.executable, "-X", "importtime", ctx_bin, "hook", e],
                              input=json.dumps(p).encode(), capture_output=True, timeout=30,
                              check=False, env={**os.environ, "CTX_SEMANTIC": "0"})
        assert proc.returncode == 0 and json.loads(proc.stdout) is not None, proc.stderr[-2000:]
        imported = {line.rsplit("|", 1)[-1].strip()
                    for line in proc.stderr.decode().splitlines() if line.startswith("import time:")}
    assert "ctx.claude.hooks.entry" in imported and "sqlite3" in imported  # the probe works
    return imported


@pytest.mark.parametrize("event,payload,also", HOOK_PATH_CASES)
def test_hook_path_loads_only_what_its_work_needs(ctx_bin, store, event, payload, also):
    imported = imported_by_hook(ctx_bin, store, event, payload)
    assert imported.isdisjoint(HOOK_PATH_FORBIDDEN + also), \
        sorted(imported & set(HOOK_PATH_FORBIDDEN + also))


@pytest.mark.parametrize("event,payload,also", HOOK_PATH_CASES)
def test_the_hook_server_has_loaded_what_a_hook_loads(ctx_bin, store, event, payload, also):
    """ctx/claude/hooks/server.py PRELOAD: a module it misses still works (the child imports
    it) but costs every served hook its import."""
    imported = imported_by_hook(ctx_bin, store, event, payload)
    script = "import sys\nfrom ctx.claude.hooks import server\nserver.preload()\nprint(*sys.modules)"
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, check=True,
                          text=True)
    # (importtime's header line, site's optional modules that no Python here has, and the
    # entry point that runs in the hook process, not in the server's child)
    missing = imported - set(proc.stdout.split()) - {"imported package", "sitecustomize",
                                                      "usercustomize", "ctx.__main__"}
    assert not missing, sorted(missing)


def test_db_option_before_or_after_the_event(ctx_bin, tmp_path):
    other = tmp_path / "other.db"
    conn = db.connect(other)
    Store(conn).add("from the other database", tags=["tier:pinned"])
    conn.close()
    for argv in (["--db", str(other), "hook", "session-start"], [f"--db={other}", "hook", "session-start"],
                 ["hook", "session-start", "--db", str(other)]):
        proc = subprocess.run([ctx_bin, *argv], input=json.dumps(start()).encode(),
                              capture_output=True, check=False)
        assert "from the other database" in context(json.loads(proc.stdout), "SessionStart"), argv
