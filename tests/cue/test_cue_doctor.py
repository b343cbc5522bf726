"""`cue doctor` and `cue digest --check` as a new user runs them: each backend, ready or not.
Real parts: the tiny generated GGUF pair, a stub OpenAI-compatible server on 127.0.0.1 that
lists its models, the real recorder lock."""
from __future__ import annotations

import json
import os
import socket
import subprocess

import pytest
from stubs import OpenAIStub


@pytest.fixture
def env():
    return dict(os.environ)


def cue(cue_bin, env, *args):
    return subprocess.run([cue_bin, *args], capture_output=True, text=True, env=env,
                          check=False, timeout=60)


def checks(proc) -> dict:
    return {c["name"]: c for c in json.loads(proc.stdout)["checks"]}


def test_cloud_without_a_key_is_exit_5_and_says_which_variable(cue_bin, env):
    proc = cue(cue_bin, env, "doctor")
    assert proc.returncode == 5, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("ok   backend") and "screenshots leave this machine" in lines[0]
    assert any(line.startswith("fix  cloud key") for line in lines)
    assert any("export ANTHROPIC_API_KEY=" in line for line in lines)


def test_cloud_with_a_key_passes_the_digest_check_and_never_shows_the_key(cue_bin, env):
    env["ANTHROPIC_API_KEY"] = "sk-ant-test-0123456789abcdef"
    env["CUE_CLOUD_SEND_IMAGES"] = "true"  # the user's yes to the cloud
    proc = cue(cue_bin, env, "digest", "--check", "--format", "json")
    assert proc.returncode == 0, proc.stdout
    found = checks(proc)
    assert found["cloud key"]["ok"] and "env ANTHROPIC_API_KEY" in found["cloud key"]["detail"]
    assert "sk-ant-test" not in proc.stdout
    assert "recorder" not in found  # --check is about the digest only


def test_server_reachable_and_serving_the_model(cue_bin, env):
    with OpenAIStub(models=("gemma3:4b", "llama3.2:3b")) as server:
        env.update(CUE_DIGEST_BACKEND="server", CUE_SERVER_URL=server.url + "/v1",
                   CUE_SERVER_MODEL="gemma3:4b")
        ok = cue(cue_bin, env, "digest", "--check", "--format", "json")
        env["CUE_SERVER_MODEL"] = "gemma3:12b"
        wrong = cue(cue_bin, env, "digest", "--check")
        env["CUE_SERVER_MODEL"] = ""
        unset = cue(cue_bin, env, "digest", "--check", "--format", "json")
        # one request to the model list per run, and no chat request at all
        assert [r["path"] for r in server.requests] == ["/v1/models"] * 3
    assert ok.returncode == 0, ok.stdout
    assert checks(ok)["server"]["detail"] == (f"{server.url}/v1 reachable, serving gemma3:4b, "
                                              "llama3.2:3b")
    assert checks(ok)["server model"]["ok"]
    assert wrong.returncode == 5
    assert "fix  server model  server.model 'gemma3:12b' is not served" in wrong.stdout
    assert "cue config set server.model gemma3:4b" in wrong.stdout
    assert unset.returncode == 5 and not checks(unset)["server model"]["ok"]
    # the policy line says a failure would not go to the cloud
    assert "cloud blocked by policy" in checks(ok)["backend"]["detail"]


def test_server_down_names_the_url(cue_bin, env):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env.update(CUE_DIGEST_BACKEND="server", CUE_SERVER_URL=f"http://127.0.0.1:{port}/v1")
    proc = cue(cue_bin, env, "digest", "--check")
    assert proc.returncode == 5
    assert (f"fix  server   http://127.0.0.1:{port}/v1 unreachable: connection refused "
            "(ConnectionRefusedError)") in proc.stdout
    assert "ollama serve" in proc.stdout


def test_local_with_the_tiny_gguf_pair(cue_bin, env, tiny_model, tmp_path):
    model, mmproj = tiny_model
    env.update(CUE_DIGEST_BACKEND="local", CUE_LOCAL_MODEL=model, CUE_LOCAL_MMPROJ=mmproj)
    proc = cue(cue_bin, env, "digest", "--check", "--format", "json")
    assert proc.returncode == 0, proc.stdout
    found = checks(proc)
    assert found["llama-cpp-python"]["ok"]
    assert found["model file"]["detail"].startswith("tiny-gemma3.gguf (local.model): GGUF, gemma3")
    assert found["projector file"]["detail"].startswith(
        "tiny-gemma3-mmproj.gguf (local.mmproj): GGUF, clip")
    assert str(tmp_path.parent) not in proc.stdout  # file names, not folders

    env["CUE_LOCAL_MMPROJ"] = model  # the text model where the projector belongs
    swapped = cue(cue_bin, env, "digest", "--check")
    assert swapped.returncode == 5
    assert "tiny-gemma3.gguf (local.mmproj) is a gemma3 model, not a vision projector" in \
        swapped.stdout

    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"not a gguf at all")
    env.update(CUE_LOCAL_MODEL=str(broken), CUE_LOCAL_MMPROJ=str(tmp_path / "mmproj-x.gguf"))
    bad = cue(cue_bin, env, "digest", "--check", "--format", "json")
    assert bad.returncode == 5
    found = checks(bad)
    assert found["model file"]["detail"] == ("broken.gguf (local.model) is not loadable: not a "
                                             "GGUF file (wrong magic)")
    assert found["projector file"]["detail"] == ("projector file mmproj-x.gguf (local.mmproj) "
                                                 "does not exist")


def test_doctor_exit_1_when_only_the_recorder_needs_a_fix(cue_bin, env):
    env["ANTHROPIC_API_KEY"] = "sk-ant-test-0123456789abcdef"
    env["CUE_CLOUD_SEND_IMAGES"] = "true"  # the user's yes to the cloud
    proc = cue(cue_bin, env, "doctor", "--format", "json")
    assert proc.returncode == 1
    found = checks(proc)
    assert not found["recorder"]["ok"] and "cue record" in found["recorder"]["fix"]
    assert found["disk"]["ok"] and found["cloud key"]["ok"]


def test_doctor_sees_a_running_recorder(cue_bin, env):
    from cue.core import paths
    from cue.record.writer import RecorderLock

    env["ANTHROPIC_API_KEY"] = "sk-ant-test-0123456789abcdef"
    env["CUE_CLOUD_SEND_IMAGES"] = "true"  # the user's yes to the cloud
    paths.home().mkdir(parents=True, exist_ok=True)
    lock = RecorderLock(paths.home())
    lock.acquire()
    try:
        proc = cue(cue_bin, env, "doctor")
    finally:
        lock.release()
    assert proc.returncode == 0, proc.stdout
    line = next(x for x in proc.stdout.splitlines() if x.startswith("ok   recorder "))
    assert f"cue record is running (pid {os.getpid()})" in line



def test_doctor_says_whether_screenshots_would_leave(cue_bin, env):
    env.update(ANTHROPIC_API_KEY="sk-ant-test-0123456789abcdef", CUE_DIGEST_BACKEND="cloud")
    env.pop("CUE_CLOUD_SEND_IMAGES", None)
    proc = cue(cue_bin, env, "digest", "--check", "--format", "json")
    assert proc.returncode == 5  # no consent yet: the cloud digest would be skipped
    consent = checks(proc)["cloud consent"]
    assert not consent["ok"] and consent["detail"].startswith("no screenshot leaves this machine")
    assert "cloud.send_images true" in consent["fix"] and "digest.backend local" in consent["fix"]
    env["CUE_CLOUD_SEND_IMAGES"] = "true"
    proc = cue(cue_bin, env, "digest", "--check", "--format", "json")
    assert proc.returncode == 0, proc.stdout
    consent = checks(proc)["cloud consent"]
    assert consent["ok"] and consent["detail"].startswith("screenshots WILL leave this machine")
    env["CUE_DIGEST_BACKEND"] = "server"  # nothing goes to the cloud: no consent line at all
    env["CUE_SERVER_URL"] = "http://127.0.0.1:9/v1"
    proc = cue(cue_bin, env, "digest", "--check", "--format", "json")
    assert "cloud consent" not in checks(proc)
