"""Session capture with the REAL Claude Code CLI (issue 39, SPEC §2.12).

Session 1: the scripted model creates a file, runs a check that fails, edits the file, runs
the check again and it passes — and writes no `<ctx:…>` tag at all. Its Stop hook keeps a
record of that from the transcript. Session 2, in the same repository, asks about the
change: the record is injected by prompt-submit and is in the model's first request.
"""
from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest
from e2e_harness import harness

from ctx.core import db
from ctx.core.store import Store

pytestmark = pytest.mark.e2e


def test_a_session_without_tags_is_remembered_and_reaches_the_next_one(claude_bin, ctx_bin,
                                                                        tmp_path):
    repo = tmp_path / "shop"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    calc = str(repo / "pricing.py")
    check_fail = "python3 -c 'import pricing; assert pricing.round_cents(2.675) == 2.68'"
    reply = [
        [{"type": "text", "text": "I'll add the rounding helper."},
         {"type": "tool_use", "id": "toolu_e2e_1", "name": "Write",
          "input": {"file_path": calc, "content": "def round_cents(x):\n    return round(x, 2)\n"}}],
        [{"type": "tool_use", "id": "toolu_e2e_2", "name": "Bash",
          "input": {"command": check_fail, "description": "check rounding"}}],
        [{"type": "tool_use", "id": "toolu_e2e_3", "name": "Edit",
          "input": {"file_path": calc, "old_string": "return round(x, 2)",
                    "new_string": "from decimal import Decimal, ROUND_HALF_UP\n    return float("
                                  "Decimal(str(x)).quantize(Decimal('0.01'), ROUND_HALF_UP))"}}],
        [{"type": "tool_use", "id": "toolu_e2e_4", "name": "Bash",
          "input": {"command": check_fail, "description": "check rounding"}}],
        "Done: round_cents in pricing.py now rounds half up and the check passes.",
    ]
    first = harness(claude_bin, ctx_bin, tmp_path / "s1",
                    "Add a round_cents helper to pricing.py that rounds money half up", reply=reply,
                    extra=["--project-dir", str(repo), "--claude-arg=--allowedTools",
                           "--claude-arg=Bash,Write,Edit"])
    first.assert_hooks_healthy()
    assert "<ctx:" not in json.dumps(first.main[-1]["body"]["messages"][-1])

    record = _captured(first)
    text = record.content
    assert text.startswith("Session ") and "Add a round_cents helper to pricing.py" in text
    assert "Created: pricing.py" in text and str(repo) not in text
    assert "failed (exit 1) → ok" in text  # the failing run, then the passing one
    assert "(resolved later)" in text
    assert record.type == "observation" and "tier:off-context" in record.tags

    second = harness(claude_bin, ctx_bin, tmp_path / "s2",
                     "What did we change in pricing.py last time, and did the rounding check pass?",
                     reply_text="We added round_cents.",
                     extra=["--project-dir", str(repo), "--env", "CTX_SEMANTIC_DEADLINE=60"])
    second.assert_hooks_healthy()
    (start,) = second.contexts("SessionStart")
    assert start is None or "Created: pricing.py" not in start  # not in session start's view
    (injected,) = second.contexts("UserPromptSubmit")
    assert injected and "Created: pricing.py" in injected
    assert "Created: pricing.py" in second.request_text(0)  # what the model is sent
    (example := tmp_path / "record.txt").write_text(text)  # for the report
    print(f"\nthe record:\n{text}\n")
    assert example.exists()


def _captured(run, timeout=20.0):
    """The session's record once the capture has read the whole transcript: a served Stop
    hook writes it after Claude Code has its answer, so it may land after `claude` exits."""
    (stop,) = run.calls("Stop")
    payload = json.loads(stop["stdin_raw"])
    path, key = payload["transcript_path"], f"capture:{payload['session_id']}"
    data = Path(path).read_bytes()  # claude has exited: the whole transcript is written
    last = json.dumps(payload["last_assistant_message"], ensure_ascii=False)[1:-1].encode()
    turn_end = data.index(b"\n", data.rindex(last)) + 1  # the end of the turn's last line
    deadline = time.monotonic() + timeout
    while True:
        conn = db.connect()
        try:
            store = Store(conn)
            raw = store.get_pending(key)
            records = store.query("tag:capture:session", scope=None)
        finally:
            conn.close()
        done = raw and json.loads(raw)["offset"] >= turn_end
        if (done and records) or time.monotonic() > deadline:
            (record,) = records
            return record
        time.sleep(0.1)
