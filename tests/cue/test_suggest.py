"""cue suggest: suggestions from the memory and recent digests, against a Messages API stub
on 127.0.0.1 and the tiny Gemma GGUF; only scrubbed text in, only scrubbed text out."""
from __future__ import annotations

import json

from cue_runner import everything_written, run_cue

import cue.pii
from cue.core import paths
from cue.core.db import set_meta
from cue.digest.suggest import parse_suggestions

NOW = 1_763_766_000.0  # 2025-11-21 23:00 UTC
PLANTED = ["jane.doe@example.com", "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd",
           "hunter2", "jdoe"]
REPLY = """Here are some ideas:
- Finish the Atlas migration notes and send them to bob.smith@corp.example.com
- Rotate the key ghp_16C7e42F292c6912E7710c838347Ae178B4a you pasted earlier
- Call 415-555-0134 about the v2 release
- Re-run the flaky test in cue/memory.py
- Review PR 42
- Sixth idea that the limit cuts"""
REPLY_PII = ["bob.smith@corp.example.com", "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
             "415-555-0134"]






def plant_digest(conn, text: str, *, ended: float) -> None:
    conn.execute(
        "INSERT INTO digests (created_at, window_start, window_end, status, backend, summary, "
        "frame_count, event_count) VALUES (?, ?, ?, 'ok', 'cloud', ?, 3, 12)",
        (ended, ended - 900, ended, text))


def plant_memory(conn, content: str) -> None:
    conn.execute(
        "INSERT INTO memory (created_at, content, backend, model, digest_count, "
        "digests_from, digests_through) VALUES (?, ?, 'cloud', 'm', 1, ?, ?)",
        (NOW - 3600, content, NOW - 4000, NOW - 3600))






def test_suggest_sees_and_returns_only_scrubbed_text(conn, cloud, monkeypatch, capsysbinary):
    # memory and digests stored raw under the old scrub version, then the version is bumped
    plant_memory(conn, "## Open loops\n- Ask jane.doe@example.com about /Users/jdoe/plan.md")
    plant_digest(conn, "Pasted sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd into "
                 ".env and connected to postgres://admin:hunter2@db.internal:5432/prod",
                 ended=NOW - 1800)
    set_meta(conn, "scrub_version", str(cue.pii.SCRUB_VERSION))
    monkeypatch.setattr(cue.pii, "SCRUB_VERSION", cue.pii.SCRUB_VERSION + 1)

    code, out, err = run_cue(monkeypatch, capsysbinary, "suggest", "--format", "json")

    assert code == 0, err
    prompt = cloud.requests[0]["raw"].decode()
    for secret in PLANTED:
        assert secret not in prompt
    assert "Ask [EMAIL] about" in prompt and "[DB_URL]" in prompt
    result = json.loads(out)
    assert len(result["suggestions"]) == 5  # --limit default; the sixth is cut
    assert result["suggestions"][0] == "Finish the Atlas migration notes and send them to [EMAIL]"
    assert result["digests"] == 1 and result["backend"] == "cloud"
    for secret in PLANTED + REPLY_PII:
        assert secret not in out + err + everything_written()
    assert cloud.requests[0]["body"]["model"] == "claude-opus-4-5"  # memory.model


def test_text_output_and_limit(conn, cloud, monkeypatch, capsysbinary):
    plant_digest(conn, "Reviewed PR 42.", ended=NOW - 600)
    code, out, _ = run_cue(monkeypatch, capsysbinary, "suggest", "-n", "2")
    assert code == 0
    assert out == ("- Finish the Atlas migration notes and send them to [EMAIL]\n"
                   "- Rotate the key [API_KEY] you pasted earlier\n")
    assert "up to 2 concrete next steps" in cloud.requests[0]["body"]["messages"][0]["content"]


def test_only_recent_digests_are_read(conn, cloud, monkeypatch, capsysbinary):
    plant_digest(conn, "Old work on the billing service.", ended=NOW - 3 * 86_400)
    plant_digest(conn, "New work on the Atlas migration.", ended=NOW - 600)
    run_cue(monkeypatch, capsysbinary, "suggest", "--since", "6h")
    prompt = cloud.requests[0]["body"]["messages"][0]["content"]
    assert "Atlas migration" in prompt and "billing" not in prompt
    assert "(none yet)" in prompt  # no memory yet: said so, not left blank


def test_nothing_to_suggest_from_is_an_error_and_calls_nothing(conn, cloud, monkeypatch,
                                                              capsysbinary):
    code, out, err = run_cue(monkeypatch, capsysbinary, "suggest")
    assert (code, out, cloud.count) == (1, "", 0)
    assert err.startswith("Error: nothing to suggest from") and err.count("\n") == 1


def test_model_failure_is_one_error_line_and_nothing_on_stdout(conn, cloud, monkeypatch,
                                                              capsysbinary):
    plant_digest(conn, "Reviewed PR 42.", ended=NOW - 600)
    cloud.status = 529
    code, out, err = run_cue(monkeypatch, capsysbinary, "suggest", "-f", "json")
    assert code == 5 and out == ""
    assert err.startswith("Error: no suggestions: the cloud model could not answer")
    assert err.count("\n") == 1
    events = [json.loads(line)["event"] for line in paths.privacy_log().read_text().splitlines()]
    assert events[-1] == "suggest_failed"


def test_parse_suggestions():
    assert parse_suggestions("Ideas:\n1. a\n2) b\n* c\n- a", 5) == ["a", "b", "c"]
    assert parse_suggestions("Ideas:\nfirst thing\n\nsecond thing", 5) == [
        "first thing", "second thing"]
    assert parse_suggestions("- x\n- y\n- z", 2) == ["x", "y"]


def test_local_suggest_with_the_tiny_gemma(conn, cloud, monkeypatch, capsysbinary,
                                           tiny_model):
    monkeypatch.setenv("CUE_MEMORY_BACKEND", "local")
    monkeypatch.setenv("CUE_MEMORY_LOCAL_MODEL", tiny_model[0])
    monkeypatch.setenv("CUE_LOCAL_THREADS", "1")
    plant_digest(conn, "Reviewed PR 42.", ended=NOW - 600)
    code, out, err = run_cue(monkeypatch, capsysbinary, "suggest", "-f", "json")
    assert code == 0, err
    result = json.loads(out)
    assert result["backend"] == "local" and result["model"] == "tiny-gemma3.gguf"
    assert 1 <= len(result["suggestions"]) <= 5
    assert cloud.count == 0
