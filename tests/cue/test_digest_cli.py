"""`cue digest`, `cue digests` and the pipe into ctx, as a person or cron runs them."""
from __future__ import annotations

import json
import os
import subprocess

import pytest
from stubs import AnthropicStub

from bench.sessions import make_activity
from cue.core import paths

START = 1_763_766_000.0


@pytest.fixture(scope="module")
def activity(tmp_path_factory):
    return make_activity(tmp_path_factory.mktemp("activity"), start=START, interval=15.0)


@pytest.fixture
def env(activity):
    e = dict(os.environ)
    e.update(CUE_DIGEST_KEYFRAMES=str(activity.keyframes_dir),
             CUE_DIGEST_EVENTS=str(activity.events_dir),
             ANTHROPIC_API_KEY="sk-test-not-real", CUE_CLOUD_SEND_IMAGES="true")
    return e


def cue(cue_bin, env, *args, stdin=None):
    return subprocess.run([cue_bin, *args], capture_output=True, text=True, env=env,
                          input=stdin, check=False)


def test_dry_run_shows_frames_bytes_and_timeline_and_calls_nothing(cue_bin, env, activity):
    with AnthropicStub() as stub:
        env["CUE_CLOUD_BASE_URL"] = stub.url
        proc = cue(cue_bin, env, "digest", "--end", str(activity.end), "--dry-run")
        js = cue(cue_bin, env, "digest", "--end", str(activity.end), "--dry-run",
                 "--format", "json")
        assert stub.count == 0
    assert proc.returncode == 0, proc.stderr
    assert "dry run: nothing sent, no digest written" in proc.stdout
    assert "bytes of JPEG" in proc.stdout and "Timeline of a 15-minute window" in proc.stdout
    plan = json.loads(js.stdout)
    assert plan["dry_run"] and 3 <= len(plan["frames"]) <= 10
    assert plan["image_bytes"] == sum(f["bytes"] for f in plan["frames"]) > 0
    assert all(f["file"].startswith(str(activity.keyframes_dir)) for f in plan["frames"])
    assert str(activity.keyframes_dir) not in plan["prompt"]
    assert not paths.digest_md().exists()
    assert not paths.privacy_log().exists()


def test_digest_json_piped_into_ctx_add_becomes_an_observation(cue_bin, ctx_bin, env,
                                                               activity):
    with AnthropicStub(reply="Worked on main.py, then read design.pdf.") as stub:
        env["CUE_CLOUD_BASE_URL"] = stub.url
        pipe = subprocess.run(
            f"'{cue_bin}' digest --since 15m --end {activity.end} --format json "
            f"| '{ctx_bin}' add --json -", shell=True, capture_output=True, text=True, env=env,
            check=False)
        assert stub.count == 1
    assert pipe.returncode == 0, pipe.stderr
    exported = subprocess.run([ctx_bin, "export"], capture_output=True, text=True, env=env,
                              check=False)
    nodes = [json.loads(line) for line in exported.stdout.splitlines()]
    nodes = [n for n in nodes if n.get("content") == "Worked on main.py, then read design.pdf."]
    assert len(nodes) == 1, exported.stdout
    node = nodes[0]
    assert node["type"] == "observation"
    assert {"source:cue", "cue:digest"} <= set(node["tags"])
    assert node["metadata"]["backend"] == "cloud" and node["metadata"]["frames"] >= 3
    assert node["metadata"]["window_end"].startswith("2025-11-21T23:15:00")


def test_skipped_digest_names_the_missing_file_exits_5_and_prints_nothing(cue_bin, env,
                                                                          activity):
    env.update(CUE_DIGEST_BACKEND="local", CUE_LOCAL_MODEL="/nonexistent/model.gguf")
    with AnthropicStub() as stub:
        env["CUE_CLOUD_BASE_URL"] = stub.url
        proc = cue(cue_bin, env, "digest", "--end", str(activity.end), "--format", "json")
        assert stub.count == 0
    assert proc.returncode == 5  # ExitCode.BACKEND
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        "Error: digest skipped: model file model.gguf (local.model) does not exist: download it "
        "or fix the path with `cue config set local.model PATH`")
    md = paths.digest_md().read_text()
    assert "skipped: local vision model unavailable" in md  # the category, not the sentence
    assert "model.gguf" not in md
    assert "[no recent activity]" not in md  # there was activity
    assert "/nonexistent" not in proc.stderr and "/nonexistent" not in md  # the folder: log only


def test_no_api_key_names_the_variable(cue_bin, env, activity):
    del env["ANTHROPIC_API_KEY"]
    proc = cue(cue_bin, env, "digest", "--end", str(activity.end))
    assert proc.returncode == 5 and proc.stdout == ""
    assert proc.stderr.startswith("Error: digest skipped: no Anthropic API key: set "
                                  "ANTHROPIC_API_KEY")
    assert "skipped: cloud API key missing" in paths.digest_md().read_text()


def test_a_server_that_is_down_names_the_url_and_what_happened(cue_bin, env, activity):
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env.update(CUE_DIGEST_BACKEND="server", CUE_SERVER_URL=f"http://127.0.0.1:{port}/v1")
    proc = cue(cue_bin, env, "digest", "--end", str(activity.end))
    assert proc.returncode == 5 and proc.stdout == ""
    assert proc.stderr.startswith(f"Error: digest skipped: server http://127.0.0.1:{port}/v1 "
                                  "unreachable: connection refused (ConnectionRefusedError)"), proc.stderr


def test_garbage_from_the_model_is_a_failed_digest_and_never_reaches_ctx(cue_bin, env,
                                                                        activity):
    from stubs import OpenAIStub

    garbage = "R:}\nR:}\nm rqvR:} titlehp ! !PI|s 7Q<a$,Rj:} titleh||`||= j ahh_7|`I|yI|y theQ"
    with OpenAIStub(reply=garbage) as server:
        env.update(CUE_DIGEST_BACKEND="server", CUE_SERVER_URL=server.url + "/v1")
        proc = cue(cue_bin, env, "digest", "--end", str(activity.end), "--format", "json")
        assert server.count == 1
    assert proc.returncode == 5 and proc.stdout == ""  # nothing to pipe into ctx
    assert proc.stderr.startswith("Error: digest failed: the server model (local) answered "
                                  "something that is not a plausible narrative")
    md = paths.digest_md().read_text()
    assert "failed: model answer was not a plausible narrative" in md and "titleh" not in md
    listed = json.loads(cue(cue_bin, env, "digests", "list", "--format", "json").stdout)
    assert listed[0]["status"] == "failed" and "titleh" not in json.dumps(listed)
    assert "not a plausible narrative" in listed[0]["reason"]


def test_help_and_readme_agree_with_the_exit_table(cue_bin, env):
    from pathlib import Path

    from cuectx.exits import ExitCode

    help_text = " ".join(cue(cue_bin, env, "digest", "--help").stdout.split())
    assert f"the exit status is {int(ExitCode.BACKEND)}" in help_text
    assert "exit status 4" not in help_text
    root = Path(__file__).resolve().parents[2]
    readme = (root / "README.md").read_text()
    assert f"| {int(ExitCode.BACKEND)} | a model/backend was skipped or failed" in readme
    digest_page = " ".join((root / "docs" / "cue-digest.md").read_text().split())
    assert "`5` the digest was **skipped**" in digest_page


def test_bad_input_is_one_error_line(cue_bin, env):
    for args, code in ((["digest", "--since", "soon"], 1), (["digest", "--end", "yesterday-ish"], 1),
                       (["digest", "--backend", "gpt"], 1), (["digests", "show", "99"], 3),
                       (["digests", "show", "latest"], 3), (["digests", "show", "abc"], 1),
                       (["digests", "list", "--status", "nope"], 1)):
        proc = cue(cue_bin, env, *args)
        assert proc.returncode == code, (args, proc.stderr)  # 3: not found (cuectx.exits)
        assert proc.stdout == ""
        assert proc.stderr.startswith("Error: ") and proc.stderr.count("\n") == 1, proc.stderr


def test_digests_list_and_show(cue_bin, env):
    from cue.core.db import connect
    from cue.digest import Digest, store_digest

    conn = connect()
    common = {"id": None, "created_at": START + 1000, "window_start": START, "model": None,
              "fell_back": False, "frame_count": 8, "event_count": 120}
    store_digest(conn, Digest(window_end=START + 900, status="ok", backend="cloud",
                              summary="First digest.", timings={"model_ms": 1800.0}, **common))
    store_digest(conn, Digest(window_end=START + 1800, status="skipped", backend="local",
                              summary="[skipped: local vision model unavailable]", **common))
    conn.close()
    listing = json.loads(cue(cue_bin, env, "digests", "list", "--format", "json").stdout)
    assert [d["status"] for d in listing] == ["skipped", "ok"]  # newest first
    table = cue(cue_bin, env, "digests", "list", "-f", "table").stdout  # piped: auto = ndjson
    assert "First digest." in table and "skipped" in table and "1.8" in table
    shown = cue(cue_bin, env, "digests", "show", str(listing[1]["id"])).stdout
    assert "First digest." in shown and "backend cloud" in shown and "model 1800 ms" in shown
    latest = json.loads(cue(cue_bin, env, "digests", "show", "latest", "-f", "json").stdout)
    assert latest["summary"] == "[skipped: local vision model unavailable]"
    ndjson = cue(cue_bin, env, "digests", "list", "-n", "1", "-f", "ndjson").stdout
    assert len(ndjson.splitlines()) == 1
    skipped = json.loads(cue(cue_bin, env, "digests", "list", "--status", "skipped",
                             "-f", "json").stdout)
    assert [d["backend"] for d in skipped] == ["local"]
    # `cue digests` is `cue digests list`, options included (README)
    bare = cue(cue_bin, env, "digests", "-f", "table", "-n", "1")
    assert bare.returncode == 0 and "skipped" in bare.stdout and "First digest." not in bare.stdout
    assert json.loads(cue(cue_bin, env, "digests", "--status", "ok", "-f", "json").stdout) \
        == [listing[1]]


def test_an_empty_window_with_no_model_ready_says_so(cue_bin, env, activity):
    env.update(CUE_DIGEST_BACKEND="local", CUE_LOCAL_MODEL="")
    proc = cue(cue_bin, env, "digest", "--end", str(activity.end + 7200))
    assert proc.returncode == 0, proc.stderr
    assert "no activity in this window" in proc.stderr
    assert "no model is ready to write a digest" in proc.stderr and "cue doctor" in proc.stderr
    env.update(CUE_DIGEST_BACKEND="cloud")  # key and consent given: a model is ready
    proc = cue(cue_bin, env, "digest", "--end", str(activity.end + 7200))
    assert proc.returncode == 0 and "no model is ready" not in proc.stderr
