"""The digest pipeline end to end, with the fail-closed policy and the privacy invariants.

Real parts throughout: synthetic keyframes + MCAP log (bench/sessions.py, the fixed script), real frame
selection, real Presidio scrub, real SQLite, llama-cpp-python on a generated tiny Gemma,
the anthropic SDK and httpx against stub servers on 127.0.0.1.
"""
from __future__ import annotations

import base64
import json
import os
import sqlite3
import time

import pytest
from stubs import AnthropicStub, OpenAIStub

from bench.sessions import make_activity
from cue.core import config as cue_config
from cue.core import paths
from cue.core.db import connect
from cue.digest import NO_ACTIVITY, get_digest, list_digests, plan_digest, run_digest
from cue.digest.run import FAILED_TOMBSTONE
from cue.llm import CLOUD_TOMBSTONE, LOCAL_TOMBSTONE, summarize_digest_with_policy
from cue.llm.errors import (
    CATEGORIES,
    CLOUD_KEY_MISSING,
    CLOUD_NOT_ALLOWED,
    CLOUD_UNAVAILABLE,
    LOCAL_TIMEOUT,
    LOCAL_UNAVAILABLE,
)
from cue.llm.request import FrameImage

START = 1_763_766_000.0
PII_REPLY = ("The user emailed jane.doe@example.com about /Users/alice/payroll.xlsx, pasted "
             "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789 and called 010-1234-5678.")
PII = ["jane.doe@example.com", "alice", "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789",
       "010-1234-5678"]


@pytest.fixture(scope="module")
def activity(tmp_path_factory):
    return make_activity(tmp_path_factory.mktemp("activity"), start=START, interval=15.0)




@pytest.fixture
def api_key(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-not-a-real-key")


def cfg(**changes):
    """The defaults, plus the user's yes to sending screenshots to the (stub) cloud; the
    consent tests take it back with cloud__send_images=False."""
    return cue_config.load(env={}).replace(**{"cloud__send_images": True, **changes})


def digest(conn, config, activity, **kw):
    kw.setdefault("end", activity.end)
    return run_digest(conn, config, window_secs=activity.window_secs,
                      keyframe_dir=activity.keyframes_dir, events_dir=activity.events_dir, **kw)


def privacy_log_text() -> str:
    p = paths.privacy_log()
    return p.read_text() if p.exists() else ""


def db_text(conn) -> str:
    return "\n".join(conn.iterdump())


def digest_md() -> str:
    return paths.digest_md().read_text()


# ------------------------------------------------------------------ the happy paths
def test_cloud_digest_end_to_end(conn, activity, api_key):
    with AnthropicStub(reply="Worked on main.py in Code, then read design.pdf.") as stub:
        d = digest(conn, cfg(cloud__base_url=stub.url), activity)
        assert stub.count == 1
        body = stub.requests[0]["body"]
    assert d.status == "ok" and d.backend == "cloud" and not d.fell_back
    assert d.summary == "Worked on main.py in Code, then read design.pdf."
    assert 3 <= d.frame_count <= 10 and d.event_count > 100
    blocks = body["messages"][0]["content"]
    assert sum(b["type"] == "image" for b in blocks) == d.frame_count
    labels = [b["text"] for b in blocks if b["type"] == "text"][1:]
    assert all(label.startswith("Frame ") and label.endswith("s):") for label in labels)
    # the row and digest.md
    row = get_digest(conn, d.id)
    assert row.summary == d.summary and row.status == "ok" and row.image_bytes > 0
    assert row.window_start == START and row.window_end == activity.end
    assert set(row.timings) >= {"select_ms", "prepare_ms", "model_ms", "scrub_ms", "total_ms"}
    assert all(v is not None and v >= 0 for v in row.timings.values())
    assert d.summary in digest_md()
    assert oct(paths.digest_md().stat().st_mode & 0o777) == "0o600"


def test_local_digest_with_the_tiny_gemma_runs_and_its_gibberish_is_a_failed_digest(
        conn, activity, tiny_model):
    model, mmproj = tiny_model
    config = cfg(digest__backend="local", local__model=model, local__mmproj=mmproj,
                 local__threads=1, local__max_tokens=32, local__n_ctx=2048)
    d = digest(conn, config, activity)
    # the whole local route ran: every image's tokens went in, an answer came out …
    assert d.backend == "local" and d.output_tokens and d.output_tokens <= 32, privacy_log_text()
    assert d.input_tokens > d.frame_count * 4
    assert d.timings["model_ms"] > 0
    assert d.model == os.path.basename(model)
    # … and a random-weight model's answer is no narrative: stored as failed, with the reason
    assert d.status == "failed" and d.summary == FAILED_TOMBSTONE
    assert d.reason == "model answer was not a plausible narrative"  # a fixed category
    assert "tiny-gemma3.gguf" in d.detail  # the sentence names the model, for the terminal
    assert get_digest(conn, d.id).reason == d.reason
    assert "failed: model answer was not a plausible narrative" in digest_md()
    assert '"event": "digest_rejected"' in privacy_log_text()


def test_server_digest(conn, activity):
    with OpenAIStub(reply="Reviewed a billing dashboard in Firefox.") as stub:
        d = digest(conn, cfg(digest__backend="server", server__url=stub.url + "/v1"), activity)
        assert stub.count == 1
        content = stub.requests[0]["body"]["messages"][0]["content"]
    assert d.status == "ok" and d.backend == "server"
    assert sum(c["type"] == "image_url" for c in content) == d.frame_count


def test_seed_call_site_returns_raw_text_or_none(api_key):
    frames = [FrameImage(0, 0.0, b"\xff\xd8fake")]
    with AnthropicStub(reply="raw text") as stub:
        assert summarize_digest_with_policy("p", frames, "t",
                                            config=cfg(cloud__base_url=stub.url)) == "raw text"
        assert summarize_digest_with_policy(
            "p", frames, "t", config=cfg(digest__backend="local",
                                         cloud__base_url=stub.url)) is None
        assert stub.count == 1


# ------------------------------------------------------------------ fail closed
def test_local_unavailable_without_fallback_sends_nothing_and_leaves_a_tombstone(
        conn, activity, api_key, tmp_path):
    with AnthropicStub(reply="An earlier digest about the billing service.") as stub:
        first = digest(conn, cfg(cloud__base_url=stub.url), activity)
        assert first.status == "ok" and "An earlier digest about the billing service." in digest_md()
        missing = str(tmp_path / "models" / "gemma-e2b.gguf")
        config = cfg(digest__backend="local", local__model=missing,
                     digest__allow_cloud_fallback=False, cloud__base_url=stub.url)
        d = digest(conn, config, activity)
        assert stub.count == 1  # ZERO requests beyond the first, ok, cloud digest
    assert d.status == "skipped" and d.summary == LOCAL_TOMBSTONE == \
        "[skipped: local vision model unavailable]"
    assert d.backend == "local" and d.model is None and d.timings["model_ms"] is None
    assert get_digest(conn, d.id).summary == LOCAL_TOMBSTONE
    md = digest_md()
    assert "billing service" not in md and NO_ACTIVITY not in md  # there WAS activity
    # stored and written: only the fixed category (the seed's tombstone); the sentence that
    # names the file and the setting is for the terminal's Error: line, never stored
    assert d.reason == LOCAL_UNAVAILABLE
    assert d.detail == ("model file gemma-e2b.gguf (local.model) does not exist: download it or "
                        "fix the path with `cue config set local.model PATH`")
    assert f"skipped: {LOCAL_UNAVAILABLE}" in md and get_digest(conn, d.id).reason == d.reason
    assert "gemma-e2b" not in md and "gemma-e2b" not in db_text(conn)
    # its folder (a person's home) is in neither; the details are in privacy.log, scrubbed
    folder = str(tmp_path)
    assert folder not in md and folder not in db_text(conn)
    log = privacy_log_text()
    records = [json.loads(line) for line in log.splitlines()]
    failed = [r for r in records if r["event"] == "digest_local_failed"]
    assert failed and failed[0]["error"] == "LocalUnavailable"
    assert "does not exist" in failed[0]["detail"]
    assert any(r["event"] == "digest_skipped" for r in records)


def test_local_unavailable_with_fallback_goes_to_the_cloud(conn, activity, api_key):
    with AnthropicStub(reply="Fell back to the cloud for this one.") as stub:
        config = cfg(digest__backend="local", local__model="",
                     digest__allow_cloud_fallback=True, cloud__base_url=stub.url)
        d = digest(conn, config, activity)
        assert stub.count == 1
    assert d.status == "ok" and d.backend == "cloud" and d.fell_back
    assert d.summary == "Fell back to the cloud for this one."
    assert get_digest(conn, d.id).fell_back


def test_a_hanging_local_model_is_abandoned_and_fails_closed(conn, activity, api_key, tmp_path,
                                                             tiny_model):
    fifo = tmp_path / "hang.gguf"
    os.mkfifo(fifo)  # llama.cpp blocks forever opening it
    with AnthropicStub() as stub:
        config = cfg(digest__backend="local", local__model=str(fifo),
                     local__mmproj=tiny_model[1], local__timeout=2.0, cloud__base_url=stub.url)
        t0 = time.monotonic()
        d = digest(conn, config, activity)
        elapsed = time.monotonic() - t0
        assert stub.count == 0
    assert d.status == "skipped" and d.summary == LOCAL_TOMBSTONE
    assert d.reason == LOCAL_TIMEOUT
    assert d.detail.startswith("local model hang.gguf gave no answer within 2s and was stopped")
    assert elapsed < 2.0 + 2 + d.timings["select_ms"] / 1000 + d.timings["prepare_ms"] / 1000
    assert '"error": "LocalTimeout"' in privacy_log_text()


def test_a_failing_server_fails_closed_too(conn, activity, api_key):
    with OpenAIStub(status=503) as server, AnthropicStub() as cloud:
        config = cfg(digest__backend="server", server__url=server.url + "/v1",
                     cloud__base_url=cloud.url)
        d = digest(conn, config, activity)
        assert server.count == 1 and cloud.count == 0
    assert d.status == "skipped" and d.summary == LOCAL_TOMBSTONE
    assert d.reason == LOCAL_UNAVAILABLE
    assert d.detail.startswith(f"server {server.url}/v1 answered HTTP 503")
    assert server.url not in db_text(conn) and server.url not in digest_md()


def test_cloud_failure_is_a_cloud_tombstone(conn, activity, api_key):
    with AnthropicStub(status=400) as stub:
        d = digest(conn, cfg(cloud__base_url=stub.url), activity)
        assert stub.count == 1
    assert d.status == "skipped" and d.summary == CLOUD_TOMBSTONE
    assert d.reason == CLOUD_UNAVAILABLE
    assert d.detail == f"cloud API at {stub.url} answered HTTP 400 (BadRequestError)"
    assert f"skipped: {CLOUD_UNAVAILABLE}" in digest_md()
    assert stub.url not in digest_md() and stub.url not in db_text(conn)
    assert "digest_cloud_failed" in privacy_log_text()


def test_no_api_key_is_a_cloud_tombstone_without_a_request(conn, activity):
    with AnthropicStub() as stub:
        d = digest(conn, cfg(cloud__base_url=stub.url), activity)
        assert stub.count == 0
    assert d.summary == CLOUD_TOMBSTONE
    assert d.reason == CLOUD_KEY_MISSING
    assert d.detail.startswith("no Anthropic API key: set ANTHROPIC_API_KEY")
    assert f"skipped: {CLOUD_KEY_MISSING}" in digest_md()


def test_an_empty_window_calls_no_model(conn, activity, api_key):
    with AnthropicStub() as stub:
        d = digest(conn, cfg(cloud__base_url=stub.url), activity, end=START - 3600)
        assert stub.count == 0
    assert d.status == "empty" and d.summary == NO_ACTIVITY and d.frame_count == 0
    assert NO_ACTIVITY in digest_md()


def test_a_fully_paused_window_sends_nothing(conn, activity, api_key):
    # 520–600 s is paused in the synthetic log; a window inside it has frames on disk.
    with AnthropicStub() as stub:
        d = run_digest(conn, cfg(cloud__base_url=stub.url), window_secs=60,
                       end=START + 590, keyframe_dir=activity.keyframes_dir,
                       events_dir=activity.events_dir)
        assert stub.count == 0
    assert d.status == "empty" and d.frame_count == 0


# ------------------------------------------------------------------ privacy invariants
def test_pii_in_a_model_reply_never_reaches_disk_db_or_logs(conn, activity, api_key):
    with AnthropicStub(reply=PII_REPLY) as stub:
        d = digest(conn, cfg(cloud__base_url=stub.url), activity)
    assert d.status == "ok"
    assert "[EMAIL]" in d.summary and "[API_KEY]" in d.summary
    # also make a failure so privacy.log has content to check
    digest(conn, cfg(digest__backend="local", local__model=""), activity)
    everything = [digest_md(), db_text(conn), privacy_log_text(), json.dumps(d.to_ctx_record())]
    everything += [p.read_text(errors="replace") for p in paths.home().rglob("*.log")]
    for secret in PII:
        for text in everything:
            assert secret not in text, secret


def test_keyframe_paths_never_in_prompt_log_or_database(conn, activity, api_key):
    with AnthropicStub(reply="The user worked on a summary in the editor.") as stub:
        digest(conn, cfg(cloud__base_url=stub.url), activity)
        digest(conn, cfg(digest__backend="local", local__model=""), activity)
        raw = stub.requests[0]["raw"].decode()
    names = [f.path.name for f in activity.frames] + [str(activity.keyframes_dir),
                                                      str(activity.root)]
    digests_dump = json.dumps([d.to_dict() for d in list_digests(conn)])
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    whole_db = b"".join(p.read_bytes() for p in paths.db_path().parent.glob("cue.db*"))
    for name in names:
        assert name.encode() not in whole_db  # the frame cache keys rows by a hash
        assert name not in raw
        assert name not in privacy_log_text()
        assert name not in digests_dump
        assert name not in digest_md()
    stem_ms = [f.path.stem for f in activity.frames]
    assert not any(stem in raw for stem in stem_ms)  # not even the capture timestamp


def test_image_bytes_never_in_the_database_or_logs(conn, activity, api_key):
    with AnthropicStub(reply="The user worked on a summary in the editor.") as stub:
        digest(conn, cfg(cloud__base_url=stub.url), activity)
        digest(conn, cfg(digest__backend="local", local__model=""), activity)
        sent = [b["source"]["data"] for b in stub.requests[0]["body"]["messages"][0]["content"]
                if b["type"] == "image"]
    assert sent
    db_file = paths.db_path()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    stored = db_file.read_bytes()
    log = privacy_log_text()
    for b64 in sent:
        jpeg = base64.b64decode(b64)
        assert jpeg[:64] not in stored and b64[:64].encode() not in stored
        assert b64[:64] not in log
    assert "/9j/" not in log and "\xff\xd8" not in log  # no JPEG, raw or base64


def test_dry_run_plan_calls_nothing_and_writes_nothing(conn, activity, api_key):
    with AnthropicStub() as stub:
        plan, images = plan_digest(conn, window_secs=activity.window_secs, end=activity.end,
                                   keyframe_dir=activity.keyframes_dir,
                                   events_dir=activity.events_dir)
        assert stub.count == 0
    assert len(images) == len(plan.frames) and plan.image_bytes == sum(len(i.jpeg) for i in images)
    assert "Timeline of a 15-minute window" in plan.prompt
    assert "Frame 0 (+" in plan.prompt and str(activity.keyframes_dir) not in plan.prompt
    assert not paths.digest_md().exists()
    assert conn.execute("SELECT count(*) FROM digests").fetchone()[0] == 0


def test_an_interrupted_write_leaves_no_row(conn, activity, api_key, monkeypatch):
    import cue.digest.run as digest_mod

    def boom(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(digest_mod, "write_digest_md", boom)
    with AnthropicStub(reply="never stored") as stub, pytest.raises(OSError):
        digest(conn, cfg(cloud__base_url=stub.url), activity)
    assert conn.execute("SELECT count(*) FROM digests").fetchone()[0] == 0


def test_concurrent_digests_do_not_lose_rows(activity, api_key):
    import threading

    errors = []

    def one():
        c = connect()
        try:
            with AnthropicStub(reply="Worked in parallel on three digests.") as stub:
                digest(c, cfg(cloud__base_url=stub.url), activity)
        except Exception as exc:  # noqa: BLE001 — collected for the assert below
            errors.append(exc)
        finally:
            c.close()

    threads = [threading.Thread(target=one) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    c = sqlite3.connect(paths.db_path())
    assert c.execute("SELECT count(*) FROM digests WHERE status = 'ok'").fetchone()[0] == 3
    c.close()


def test_a_frame_that_turned_unreadable_is_skipped_not_fatal(conn, activity, api_key,
                                                             monkeypatch):
    import cue.digest.image_preprocess as prep
    from cue.core.errors import CueError

    real = prep.prepare_for_digest
    calls = []

    def flaky(path, *a, **k):
        calls.append(path)
        if len(calls) == 2:
            raise CueError(f"keyframe {path.name} is corrupt or truncated")
        return real(path, *a, **k)

    monkeypatch.setattr(prep, "prepare_for_digest", flaky)
    with AnthropicStub(reply="The user worked on a summary in the editor.") as stub:
        d = digest(conn, cfg(cloud__base_url=stub.url), activity)
        blocks = stub.requests[0]["body"]["messages"][0]["content"]
    assert d.status == "ok" and d.frame_count == len(calls) - 1
    assert sum(b["type"] == "image" for b in blocks) == d.frame_count
    log = privacy_log_text()
    assert '"event": "digest_frame_skipped"' in log and calls[1].name not in log


def test_the_pipeline_modules_import_no_model_sdk():
    import subprocess
    import sys

    code = ("import sys, cue.digest, cue.llm, cue.digest.timeline, cue.core.config, cue.cli.digest; "
            "print(' '.join(m for m in ('anthropic', 'llama_cpp', 'presidio_analyzer', 'httpx')"
            " if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == ""


# ------------------------------------------------------------------ consent
def test_no_screenshot_leaves_without_consent(conn, activity, api_key):
    with AnthropicStub(reply="Should never be asked.") as stub:
        d = digest(conn, cfg(cloud__base_url=stub.url, cloud__send_images=False), activity)
        assert stub.count == 0  # nothing was sent: no request at all
    assert d.status == "skipped" and d.summary == CLOUD_TOMBSTONE
    assert d.reason == CLOUD_NOT_ALLOWED and get_digest(conn, d.id).reason == CLOUD_NOT_ALLOWED
    md = digest_md()
    assert f"skipped: {CLOUD_NOT_ALLOWED}" in md
    for choice in ("cloud.send_images true", "digest.backend local", "digest.backend server"):
        assert choice in md  # digest.md says how to choose
    # the terminal's sentence says how to choose: local, server or cloud
    for choice in ("cloud.send_images true", "digest.backend local", "`server`"):
        assert choice in d.detail
    assert "digest_cloud_failed" in privacy_log_text()


def test_a_local_failure_does_not_fall_back_to_the_cloud_without_consent(conn, activity,
                                                                          api_key):
    with AnthropicStub(reply="Should never be asked.") as stub:
        config = cfg(digest__backend="local", local__model="", cloud__send_images=False,
                     digest__allow_cloud_fallback=True, cloud__base_url=stub.url)
        d = digest(conn, config, activity)
        assert stub.count == 0
    assert d.status == "skipped" and d.reason == CLOUD_NOT_ALLOWED


def test_consent_given_the_request_is_made(conn, activity, api_key):
    with AnthropicStub(reply="Worked on the billing service.") as stub:
        d = digest(conn, cfg(cloud__base_url=stub.url, cloud__send_images=True), activity)
        assert stub.count == 1
        content = stub.requests[0]["body"]["messages"][0]["content"]
        assert any(part.get("type") == "image" for part in content)
    assert d.status == "ok" and d.backend == "cloud"


def _fail_local_missing(tmp_path, stub):
    return cfg(digest__backend="local", local__model=str(tmp_path / "secret" / "m.gguf"),
               cloud__base_url=stub.url)


def _fail_server_down(tmp_path, stub):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return cfg(digest__backend="server", server__url=f"http://127.0.0.1:{port}/v1",
               cloud__base_url=stub.url)


def _fail_cloud_http(tmp_path, stub):
    stub.status = 400
    return cfg(cloud__base_url=stub.url)


def _fail_no_key(tmp_path, stub):
    os.environ.pop("ANTHROPIC_API_KEY", None)
    return cfg(cloud__base_url=stub.url, cloud__api_key_file=str(tmp_path / "secret" / "k"))


def _fail_no_consent(tmp_path, stub):
    return cfg(cloud__base_url=stub.url, cloud__send_images=False)


@pytest.mark.parametrize("make_config", [_fail_local_missing, _fail_server_down,
                                          _fail_cloud_http, _fail_no_key, _fail_no_consent])
def test_the_stored_reason_is_a_category_never_a_path_port_or_host(conn, activity, api_key,
                                                                   tmp_path, make_config):
    with AnthropicStub() as stub:
        config = make_config(tmp_path, stub)
        d = digest(conn, config, activity)
    assert d.status == "skipped" and d.reason in CATEGORIES
    stored = get_digest(conn, d.id)
    assert stored.reason in CATEGORIES and stored.summary in (LOCAL_TOMBSTONE, CLOUD_TOMBSTONE)
    md, db = digest_md(), db_text(conn)
    for leak in (str(tmp_path), "secret", "127.0.0.1", "http://", ".gguf"):
        assert leak not in stored.reason and leak not in md and leak not in db, leak
    assert d.detail and d.detail not in db and d.detail not in md
