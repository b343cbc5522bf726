"""Session capture (SPEC §2.12): a transcript in the real client's format → one record per
session, deterministic, scrubbed, capped, curated; through the real hooks."""
from __future__ import annotations

import json
import os
import random
import sqlite3
import subprocess
from datetime import UTC, datetime

import pytest

from bench.capture_sessions import Transcript
from ctx.claude import capture

START = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)


def session(cwd="/repo/app", sid="sess-0001-aaaa") -> Transcript:
    t = Transcript(sid, cwd, START, branch="fix-rounding", seed=1)
    t.prompt("Fix the rounding bug in invoice.py — totals are off by a cent")
    t.read("src/invoice.py")
    t.edit("src/invoice.py")
    t.edit("tests/test_invoice.py", "create")
    t.bash("python -m pytest tests/test_invoice.py -q", exit=1,
           output="F....\nFAILED tests/test_invoice.py::test_round - AssertionError: 10.01 != 10.0\n"
                  "1 failed, 4 passed in 0.12s")
    t.edit("src/invoice.py")
    t.bash("python -m pytest tests/test_invoice.py -q", output=".....\n5 passed in 0.10s")
    t.bash("git status")
    t.bash("git checkout -b fix-rounding", output="Switched to a new branch 'fix-rounding'")
    t.bash('git commit -am "Round half up in invoice totals"',
           output="[fix-rounding 3f2a9c1] Round half up in invoice totals\n 2 files changed")
    t.say('Fixed. <ctx:remember type="decision" tags="tier:reference">Invoice totals round half '
          'up</ctx:remember>')
    t.stop_summary()
    t.prompt("Also run the whole suite")
    t.bash("python -m pytest -q", output="....\n48 passed, 2 skipped in 3.1s")
    t.say("All green.")
    return t


def fold_all(text: str) -> dict:
    state = capture.new_state()
    for line in text.encode().splitlines():
        capture.fold(state, line)
    return state


def test_a_session_becomes_a_record_of_what_it_did():
    state = fold_all(session().text())
    assert capture.trivial(state) is None
    record = capture.render(state, "/repo/app")
    lines = record.splitlines()
    assert lines[0].startswith("Session 2026-11-20 ")
    assert "on branch fix-rounding: Fix the rounding bug in invoice.py" in lines[0]
    assert 'Then asked: "Also run the whole suite"' in record
    assert "Created: tests/test_invoice.py" in record
    assert "Edited: src/invoice.py" in record
    assert "/repo/app" not in record  # paths relative to the repository
    assert ("`python -m pytest tests/test_invoice.py -q` ×2 failed (1 failed, 4 passed) → "
            "passed (5 passed)") in record
    assert "passed (48 passed, 2 skipped)" in record
    assert 'committed 3f2a9c1 "Round half up in invoice totals" on fix-rounding' in record
    assert "AssertionError: 10.01 != 10.0 (resolved later)" in record
    assert 'Memories written: "Invoice totals round half up"' in record
    assert "(+1 read-only)" in record  # git status: counted, not listed
    assert "rm -rf /replayed" not in record  # replayed request lines are not activity
    assert "replayed" not in record


def test_same_transcript_same_record_however_many_stops_read_it():
    text = session().text().encode()
    whole = fold_all(text.decode())
    rng = random.Random(7)
    lines = text.splitlines(keepends=True)
    for _ in range(20):
        cuts = sorted(rng.sample(range(1, len(lines)), 4))
        state = capture.new_state()
        prev = 0
        for cut in [*cuts, len(lines)]:
            state = json.loads(json.dumps(state))  # saved in the store between Stops
            for line in lines[prev:cut]:
                capture.fold(state, line)
            prev = cut
        assert state == whole
        assert capture.render(state, "/repo/app") == capture.render(whole, "/repo/app")


def test_unresolved_errors_and_unknown_or_broken_lines():
    t = Transcript("s2", "/r", START, seed=2)
    t.prompt("why does the migration fail?")
    t.bash("python manage.py migrate", exit=1,
           output="Traceback (most recent call last):\n  ...\n"
                  "django.db.utils.OperationalError: no such column: invoices.currency")
    t.say("It fails on a missing column.")
    text = t.text() + "{not json\n" + '{"type":"brand-new-kind","x":1}\n' + '"a string"\n'
    state = fold_all(text)
    record = capture.render(state, "/r")
    assert "OperationalError: no such column: invoices.currency (not resolved)" in record
    assert "`python manage.py migrate` failed (exit 1)" in record


def test_trivial_sessions_are_not_kept():
    t = Transcript("s3", "/r", START, seed=3)
    t.prompt("what does HTTP 418 mean?")
    t.say("I'm a teapot.")
    assert capture.trivial(fold_all(t.text())) is not None
    t.prompt("and 419?")
    t.say("Not standard.")
    assert capture.trivial(fold_all(t.text())) is not None  # two questions: still a chat
    t.prompt("and which one should our API return for a stale CSRF token?")
    t.say("403.")
    assert capture.trivial(fold_all(t.text())) is None  # a conversation worth a line


def test_sidechain_meta_and_local_commands_are_not_the_users_words():
    t = Transcript("s4", "/r", START, seed=4)
    t.prompt("Add a healthcheck endpoint")
    t.edit("app/health.py", "create")
    t.lines.append({"type": "user", "isMeta": True, "message": {"role": "user", "content": "meta"}})
    t.lines.append({"type": "user", "message": {"role": "user", "content":
                    "<command-name>/compact</command-name>"}})
    t.lines.append({"type": "user", "isSidechain": True, "message": {"role": "user",
                    "content": "subagent task"}})
    state = fold_all(t.text())
    assert state["prompts"] == ["Add a healthcheck endpoint"]


def test_the_record_is_capped():
    t = Transcript("s5", "/r", START, seed=5)
    t.prompt("refactor everything " * 40)
    for i in range(60):
        t.edit(f"pkg/module_{i:02d}.py")
        t.bash(f"./check.sh step{i}", exit=i % 2, output=f"ValueError: step {i} broke " + "x" * 80)
    for i in range(10):
        t.prompt(f"next thing {i} " * 10)
    state = fold_all(t.text())
    record = capture.render(state, "/r", max_chars=1600)
    assert len(record) <= 1600
    assert "more)" in record
    small = capture.render(state, "/r", max_chars=500)
    assert len(small) <= 500 and small.startswith("Session ")


# -- through the hooks ------------------------------------------------------------------------

def write(tmp_path, t: Transcript, name="t.jsonl"):
    path = tmp_path / name
    path.write_text(t.text())
    return path


def run_hook(ctx_bin, event, payload, env=None):
    """The hook as Claude Code runs it; a served one updates the record once its answer is
    out (ctx.claude.hooks.AFTER_ANSWER), so wait until the capture read the whole file."""
    env = {**os.environ, **(env or {})}
    proc = subprocess.run([ctx_bin, "hook", event], input=json.dumps(payload).encode(),
                          capture_output=True, timeout=60, check=False, env=env)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {}
    if env.get("CTX_CAPTURE") != "off" and os.path.exists(payload["transcript_path"]):
        settle(payload["session_id"], payload["transcript_path"])
    return proc


def settle(session_id, path, timeout=20.0):
    import time

    size = os.path.getsize(path)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if os.path.exists(os.environ["CTX_DB"]):
            conn = sqlite3.connect(os.environ["CTX_DB"])
            try:
                row = conn.execute("SELECT value FROM pending WHERE key = ?",
                                   (f"capture:{session_id}",)).fetchone()
            except sqlite3.OperationalError:
                row = None
            finally:
                conn.close()
            if row and json.loads(row[0])["offset"] >= size - 64:
                return
        time.sleep(0.05)
    raise AssertionError(f"the capture of {session_id} did not finish")


def records(db=None):
    path = db or os.environ["CTX_DB"]
    if not os.path.exists(path):
        return []
    conn = sqlite3.connect(path)
    rows = conn.execute("SELECT n.id, n.type, n.content, n.metadata, n.created_at, n.superseded_by "
                        "FROM nodes n JOIN tags t ON t.node_id = n.id WHERE t.tag = "
                        "'capture:session' ORDER BY n.id").fetchall()
    conn.close()
    return rows


def stop_payload(path, sid, cwd):
    return {"session_id": sid, "transcript_path": str(path), "cwd": str(cwd),
            "hook_event_name": "Stop", "stop_hook_active": False, "prompt_id": "x",
            "last_assistant_message": "All green."}


def test_stop_keeps_one_record_per_session_updated_in_place(ctx_bin, tmp_path):
    repo = tmp_path / "app"
    (repo / ".git").mkdir(parents=True)
    t = session(cwd=str(repo), sid="sess-hook-1")
    full = t.text()
    lines = full.splitlines(keepends=True)
    half = "".join(lines[: len(lines) // 2])
    path = tmp_path / "t.jsonl"
    path.write_text(half)
    run_hook(ctx_bin, "stop", stop_payload(path, "sess-hook-1", repo))
    first = records()
    assert len(first) == 1
    path.write_text(full)
    run_hook(ctx_bin, "stop", stop_payload(path, "sess-hook-1", repo))
    run_hook(ctx_bin, "stop", stop_payload(path, "sess-hook-1", repo))  # nothing new: unchanged
    rows = records()
    assert len(rows) == 1 and rows[0][0] == first[0][0]
    node_id, node_type, content, meta, created_at, superseded = rows[0]
    assert node_type == "observation" and superseded is None
    assert content == capture.render(fold_all(full), str(repo))  # incremental == one pass
    assert created_at.startswith("2026-11-20T09:")  # when the session began, not now
    assert json.loads(meta)["capture"]["session"] == "sess-hook-1"
    conn = sqlite3.connect(os.environ["CTX_DB"])
    tags = {r[0] for r in conn.execute("SELECT tag FROM tags WHERE node_id = ?", (node_id,))}
    assert {"tier:off-context", "capture:session"} <= tags
    assert not any(t in tags for t in ("tier:pinned", "tier:reference", "tier:working"))


def test_pre_compact_and_session_end_capture_too_and_off_turns_it_off(ctx_bin, tmp_path):
    t = session(cwd=str(tmp_path), sid="sess-hook-2")
    path = write(tmp_path, t)
    payload = {"session_id": "sess-hook-2", "transcript_path": str(path), "cwd": str(tmp_path),
               "hook_event_name": "PreCompact", "trigger": "auto", "custom_instructions": None}
    run_hook(ctx_bin, "pre-compact", payload, env={"CTX_CAPTURE": "off"})
    assert records() == []
    run_hook(ctx_bin, "pre-compact", payload)
    assert len(records()) == 1
    payload.update(hook_event_name="SessionEnd", reason="other")
    run_hook(ctx_bin, "session-end", payload)
    assert len(records()) == 1


def test_trivial_session_leaves_no_record_and_malformed_lines_never_break_a_turn(ctx_bin, tmp_path):
    t = Transcript("sess-hook-3", str(tmp_path), START, seed=9)
    t.prompt("what time zone is the staging cluster in?")
    t.say("UTC.")
    path = write(tmp_path, t)
    path.write_text(path.read_text() + "{{{{ not json\n\x00\x01\n")
    proc = run_hook(ctx_bin, "stop", stop_payload(path, "sess-hook-3", tmp_path))
    assert records() == []
    assert proc.stderr == b""


def test_secrets_in_a_transcript_are_redacted_in_the_record(ctx_bin, tmp_path):
    t = Transcript("sess-hook-4", str(tmp_path), START, seed=10)
    t.prompt("deploy with AWS key AKIAQ3EGUZ7XJ2KLM4PB please")
    t.bash("STRIPE_KEY=sk_live_51HqLyjWDarjtT1zdp7dcXeKk ./deploy.sh", exit=1,
           output="Error: token ghp_16C7e42F292c6912E7710c838347Ae178B4a rejected")
    t.say("Failed.")
    path = write(tmp_path, t)
    run_hook(ctx_bin, "stop", stop_payload(path, "sess-hook-4", tmp_path),
             env={"CTX_SECRETS": "allow"})  # a transcript is scrubbed whatever the policy
    (row,) = records()
    content = row[2]
    assert "AKIAQ3EGUZ7XJ2KLM4PB" not in content
    assert "sk_live_51HqLyjWDarjtT1zdp7dcXeKk" not in content
    assert "ghp_16C7e42F292c6912E7710c838347Ae178B4a" not in content


@pytest.mark.parametrize("event", ["pre-compact", "session-end"])
def test_new_events_with_bad_input_still_answer_empty(ctx_bin, event):
    proc = subprocess.run([ctx_bin, "hook", event], input=b"nonsense", capture_output=True,
                          timeout=30, check=False)
    assert proc.returncode == 0 and json.loads(proc.stdout) == {}


# -- ctx capture list|show|fold ---------------------------------------------------------------

def test_capture_show_says_what_was_kept_and_why_and_fold_digests_old_records(ctx_bin, tmp_path):
    from ctx_runner import ctx, ok

    repo = tmp_path / "app"
    (repo / ".git").mkdir(parents=True)
    path = write(tmp_path, session(cwd=str(repo), sid="sess-cli-1"), "a.jsonl")
    run_hook(ctx_bin, "stop", stop_payload(path, "sess-cli-1", repo))
    chat = Transcript("sess-cli-2", str(repo), START, seed=11)
    chat.prompt("what is a monad?")
    chat.say("A monoid in the category of endofunctors.")
    run_hook(ctx_bin, "stop", stop_payload(write(tmp_path, chat, "b.jsonl"), "sess-cli-2", repo))

    shown = json.loads(ok("capture", "show", "sess-cli-1", "--format", "json"))
    assert shown["kept"] is True and shown["why"].startswith("kept: 2 prompts")
    assert shown["counts"]["files"] == 2 and shown["counts"]["read_only_commands"] == 1
    assert "Edited: src/invoice.py" in shown["content"]
    dropped = json.loads(ok("capture", "show", "sess-cli-2", "--format", "json"))
    assert dropped["kept"] is False and dropped["record"] is None
    assert dropped["why"] == "not kept: no tool use and at most two prompts"
    listed = [json.loads(line) for line in ok("capture", "list", "--format", "ndjson").splitlines()]
    assert {r["session"] for r in listed} == {"sess-cli-1", "sess-cli-2"}
    assert ctx("capture", "show", "nope").exit_code == 3

    # the session ended 2026-11-20: folded when older than a day, kept when it is not
    assert "would fold 1" in ctx("capture", "fold", "--older-than", "1", "--dry-run").stderr
    assert len(records()) == 1 and records()[0][5] is None
    ok("capture", "fold", "--older-than", "1")
    (row,) = records()
    assert row[5] is not None  # superseded by the digest, not deleted
    digest = ok("show", row[5], "--format", "json")
    assert "Earlier sessions in this project" in digest and "src/invoice.py" in digest
    assert "2026-11-20" in digest
    # the session goes on after its record was folded: it stays folded, no second record
    run_hook(ctx_bin, "stop", stop_payload(path, "sess-cli-1", repo))
    assert len(records()) == 1


def test_a_stop_that_beats_the_transcript_write_waits_for_the_turns_last_text(tmp_path):
    """Claude Code appends to the transcript from a queue: at Stop the last command's result
    and the final text can still be on their way (CI, under load, recorded the failing run
    and not the passing one). The capture waits, briefly, for the last text it was told of."""
    import threading
    import time

    from ctx.claude import capture_hook
    from ctx.claude.hooks.call import HookCall
    from ctx.claude.hooks.store_access import open_store

    repo = tmp_path / "app"
    (repo / ".git").mkdir(parents=True)
    t = session(cwd=str(repo), sid="sess-late-1")
    lines = t.text().splitlines(keepends=True)
    path = tmp_path / "t.jsonl"
    cut = next(i for i, line in enumerate(lines) if "48 passed" in line)
    path.write_text("".join(lines[:cut]))
    late = threading.Timer(0.1, lambda: path.open("a").write("".join(lines[cut:])))
    call = HookCall("stop", stop_payload(path, "sess-late-1", repo), db=os.environ["CTX_DB"])
    late.start()
    try:
        with open_store(call) as store:
            capture_hook.after_stop(call, store)
    finally:
        late.join()
    (row,) = records()
    assert "passed (48 passed, 2 skipped)" in row[2]  # the lines that came late are in
    assert not call.warnings

    # A last text that never comes: the wait is bounded and the record has what was there.
    other = tmp_path / "u.jsonl"
    other.write_text("".join(lines[:cut]))
    started = time.monotonic()
    assert capture_hook.settle(str(other), "All green.", 0.2) is False
    assert 0.2 <= time.monotonic() - started < 2
    assert capture_hook.settle(str(path), "All green.", 0.2) is True
    assert capture_hook.settle(str(path), "", 5) is True  # nothing to wait for
    assert capture_hook.settle(str(tmp_path / "gone.jsonl"), "x", 5) is False


def test_settle_finds_a_last_message_of_several_lines_and_markup(tmp_path):
    """The text Claude Code writes is JSON-escaped in the transcript; a several-line message
    is found by its last line, quotes, backslashes and Korean as the real client writes them."""
    from ctx.claude import capture_hook

    text = 'Done:\n- fixed `a\\b` in "x.py"\n\n모두 통과했습니다 — <b>ok</b>\t✓'
    line = {"type": "assistant", "message": {"content": [{"type": "text", "text": text}]}}
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n")
    assert capture_hook.settle(str(path), text, 0.0) is True
    assert capture_hook.settle(str(path), text + " and more", 0.0) is False
