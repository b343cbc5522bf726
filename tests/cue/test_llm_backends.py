"""Each backend for real: llama-cpp-python on a generated tiny Gemma GGUF, httpx against an
OpenAI-compatible stub, the anthropic SDK against a Messages API stub."""
from __future__ import annotations

import base64
import io
import os
import time
from pathlib import Path

import pytest
from PIL import Image
from stubs import AnthropicStub, OpenAIStub

from cue.core import config as cue_config
from cue.llm.cloud import CloudVisionBackend
from cue.llm.errors import CloudUnavailable, LocalTimeout, LocalUnavailable
from cue.llm.local import WORKER, LocalVisionBackend
from cue.llm.request import FrameImage, digest_parts
from cue.llm.server import ServerVisionBackend


def jpeg(color=(200, 30, 30), size=(64, 48)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, color).save(buf, "JPEG")
    return buf.getvalue()


def frames(n=2):
    return [FrameImage(index=i + 1, offset_secs=i * 60.0, jpeg=jpeg((40 * i, 90, 160)))
            for i in range(n)]


def sent_key(headers: dict) -> str | None:
    """The API key as the SDK sent it (x-api-key, or a bearer token in newer SDKs)."""
    return headers.get("x-api-key") or headers.get("authorization", "").removeprefix("Bearer ")


def cfg(**changes):
    return cue_config.load(env={}).replace(**changes)


# ------------------------------------------------------------------ local (llama-cpp-python)
def test_local_answers_an_image_chat_with_the_tiny_gemma(tiny_model, capfd):
    model, mmproj = tiny_model
    backend = LocalVisionBackend(cfg(local__model=model, local__mmproj=mmproj,
                                     local__threads=1, local__max_tokens=24, local__n_ctx=1024))
    reply = backend.complete(digest_parts("Describe the activity.", frames(2), "+0s editor"))
    assert reply.backend == "local"
    assert reply.text  # random weights: gibberish, but not nothing
    assert 0 < reply.output_tokens <= 24  # the cap holds
    assert reply.input_tokens > 8  # the prompt and two images' tokens went in
    assert reply.tokens_per_sec and reply.tokens_per_sec > 0
    err = capfd.readouterr().err
    assert "clip_encode" not in err and "add_text" not in err  # vision logs silenced


def test_local_text_only_needs_no_projector(tiny_model):
    model, _ = tiny_model
    backend = LocalVisionBackend(cfg(local__model=model, local__threads=1,
                                     local__max_tokens=8, local__n_ctx=512))
    reply = backend.complete(["Summarise my day in one line."])
    assert reply.text and reply.output_tokens <= 8


def test_local_missing_model_or_projector_is_unavailable(tiny_model, tmp_path):
    model, _ = tiny_model
    with pytest.raises(LocalUnavailable, match="local.model is not set"):
        LocalVisionBackend(cfg()).complete(["hi"])
    with pytest.raises(LocalUnavailable, match="does not exist"):
        LocalVisionBackend(cfg(local__model=str(tmp_path / "nope.gguf"))).complete(["hi"])
    with pytest.raises(LocalUnavailable, match="mmproj"):
        LocalVisionBackend(cfg(local__model=model)).complete(digest_parts("x", frames(1), ""))


def test_local_corrupt_model_is_unavailable_not_a_crash(tmp_path):
    bad = tmp_path / "model.gguf"
    bad.write_bytes(b"GGUF" + os.urandom(2000))
    with pytest.raises(LocalUnavailable, match="local model"):
        LocalVisionBackend(cfg(local__model=str(bad), local__timeout=30)).complete(["hi"])


def test_a_hanging_local_model_is_abandoned_within_timeout_plus_2s(tmp_path):
    # A FIFO with no writer: llama.cpp's open() blocks forever inside native code.
    fifo = tmp_path / "model.gguf"
    os.mkfifo(fifo)
    backend = LocalVisionBackend(cfg(local__model=str(fifo), local__timeout=1.5))
    t0 = time.monotonic()
    with pytest.raises(LocalTimeout, match="within 1.5s"):
        backend.complete(["hi"])
    assert time.monotonic() - t0 < 1.5 + 2


# ------------------------------------------------------------------ server (httpx, OpenAI API)
def test_server_sends_images_as_data_urls_and_reads_the_reply():
    with OpenAIStub(reply="  Edited tests in the editor.  ") as stub:
        backend = ServerVisionBackend(cfg(server__url=stub.url + "/v1", server__model="gemma",
                                          server__max_tokens=77))
        reply = backend.complete(digest_parts("Describe.", frames(2), "+0s editor"))
        assert stub.count == 1
        body = stub.requests[0]["body"]
    assert reply.text == "Edited tests in the editor."
    assert reply.backend == "server" and reply.output_tokens == 5
    assert body["model"] == "gemma" and body["max_tokens"] == 77 and body["stream"] is False
    content = body["messages"][0]["content"]
    images = [c["image_url"]["url"] for c in content if c["type"] == "image_url"]
    texts = [c["text"] for c in content if c["type"] == "text"]
    assert len(images) == 2
    assert base64.b64decode(images[0].removeprefix("data:image/jpeg;base64,")) == frames(2)[0].jpeg
    assert texts[1:] == ["Frame 1 (+0s):", "Frame 2 (+60s):"]


def test_server_errors_are_local_unavailable():
    with OpenAIStub(status=500) as stub, pytest.raises(LocalUnavailable, match="HTTP 500"):
        ServerVisionBackend(cfg(server__url=stub.url + "/v1")).complete(["hi"])
    with OpenAIStub() as stub:
        url = stub.url
    with pytest.raises(LocalUnavailable, match="unreachable"):  # nothing listens there now
        ServerVisionBackend(cfg(server__url=url + "/v1", server__timeout=5)).complete(["hi"])


def test_a_stalled_server_is_abandoned_within_timeout_plus_2s():
    with OpenAIStub(delay=8) as stub:
        backend = ServerVisionBackend(cfg(server__url=stub.url + "/v1", server__timeout=1))
        t0 = time.monotonic()
        with pytest.raises(LocalTimeout):
            backend.complete(["hi"])
        assert time.monotonic() - t0 < 1 + 2


# ------------------------------------------------------------------ cloud (anthropic SDK)
def test_cloud_sends_image_blocks_to_haiku_with_the_real_sdk(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-key")
    with AnthropicStub(reply="Reviewed a pull request.") as stub:
        reply = CloudVisionBackend(cfg(cloud__base_url=stub.url)).complete(
            digest_parts("Describe.", frames(3), "+0s browser"))
        assert stub.count == 1
        req = stub.requests[0]
    assert reply.text == "Reviewed a pull request." and reply.backend == "cloud"
    assert sent_key(req["headers"]) == "sk-ant-test-key"
    body = req["body"]
    assert body["model"] == "claude-haiku-4-5" and body["max_tokens"] == 400
    blocks = body["messages"][0]["content"]
    images = [b for b in blocks if b["type"] == "image"]
    assert [b["source"]["media_type"] for b in images] == ["image/jpeg"] * 3
    assert base64.b64decode(images[2]["source"]["data"]) == frames(3)[2].jpeg


def test_cloud_model_is_configurable_and_text_only_is_a_string(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    with AnthropicStub(reply="ok") as stub:
        CloudVisionBackend(cfg(cloud__base_url=stub.url, cloud__model="claude-opus-4-1-custom")
                           ).complete(["plain text"])
        body = stub.requests[0]["body"]
    assert body["model"] == "claude-opus-4-1-custom"
    assert body["messages"][0]["content"] == "plain text"


def test_cloud_without_a_key_sends_nothing():
    with AnthropicStub() as stub:
        with pytest.raises(CloudUnavailable, match="no Anthropic API key"):
            CloudVisionBackend(cfg(cloud__base_url=stub.url)).complete(["hi"])
        assert stub.count == 0


def test_cloud_api_error_is_cloud_unavailable(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    with AnthropicStub(status=400) as stub, pytest.raises(CloudUnavailable, match="HTTP 400"):
        CloudVisionBackend(cfg(cloud__base_url=stub.url)).complete(["hi"])


def test_cloud_key_from_a_private_file(tmp_path):
    keyfile = tmp_path / "key"
    keyfile.write_text("sk-from-file\n")
    keyfile.chmod(0o600)
    with AnthropicStub() as stub:
        CloudVisionBackend(cfg(cloud__base_url=stub.url, cloud__api_key_file=str(keyfile))
                           ).complete(["hi"])
        assert sent_key(stub.requests[0]["headers"]) == "sk-from-file"


def test_the_worker_does_not_outlive_a_killed_cue(tmp_path):
    # cue (here: a small parent process) starts a worker on a hanging model and is then
    # killed -9; the worker notices within a second or two and exits by itself.
    import signal
    import subprocess
    import sys

    fifo = tmp_path / "model.gguf"
    os.mkfifo(fifo)
    pidfile = tmp_path / "worker.pid"
    parent_code = f"""
import subprocess, sys, json
p = subprocess.Popen([sys.executable, {str(WORKER)!r}],
                     stdin=subprocess.PIPE, start_new_session=True)
open({str(pidfile)!r}, 'w').write(str(p.pid))
p.stdin.write(json.dumps({{"model": {str(fifo)!r}, "mmproj": "", "n_ctx": 256, "n_threads": 1,
    "n_threads_batch": 1, "gpu_layers": 0, "max_tokens": 4,
    "messages": [{{"role": "user", "content": "hi"}}]}}).encode())
p.stdin.close()
import time; time.sleep(60)
"""
    parent = subprocess.Popen([sys.executable, "-c", parent_code])
    deadline = time.monotonic() + 20
    while not pidfile.exists() or not pidfile.read_text():
        assert time.monotonic() < deadline
        time.sleep(0.05)
    worker = int(pidfile.read_text())
    time.sleep(0.5)
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait()
    t0 = time.monotonic()
    while time.monotonic() - t0 < 5:
        try:
            os.kill(worker, 0)
        except ProcessLookupError:
            break
        # a zombie (exited, not yet reaped by init) counts as gone
        stat = Path(f"/proc/{worker}/stat").read_text().split()
        if stat[2] == "Z":
            break
        time.sleep(0.1)
    else:
        os.kill(worker, signal.SIGKILL)
        pytest.fail("the worker kept running after its parent was killed")


def test_a_server_model_path_is_kept_as_its_file_name_only():
    with OpenAIStub(reply="ok") as stub:  # llama-server answers with the model's path
        reply = ServerVisionBackend(cfg(server__url=stub.url + "/v1",
                                        server__model="/home/alice/models/gemma-e2b.gguf")
                                    ).complete(["hi"])
    assert reply.model == "gemma-e2b.gguf"
