"""The policy gate on its own, and text-only requests (what cue memory/suggest reuse)."""
from __future__ import annotations

import json

import pytest
from stubs import AnthropicStub, OpenAIStub
from tiny_gguf import make

from cue.core import config as cue_config
from cue.core import paths
from cue.llm import (
    CLOUD_TOMBSTONE,
    LOCAL_TOMBSTONE,
    BackendError,
    complete_text,
    complete_text_with_policy,
)
from cue.llm.policy import gate


def cfg(**changes):
    """The defaults, plus the user's yes to sending screenshots to the (stub) cloud; the
    consent tests take it back with cloud__send_images=False."""
    return cue_config.load(env={}).replace(**{"cloud__send_images": True, **changes})


def log_events() -> list[str]:
    p = paths.privacy_log()
    return [json.loads(line)["event"] for line in p.read_text().splitlines()] if p.exists() else []


@pytest.fixture
def api_key(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-not-real")


def test_server_success_never_touches_the_cloud(api_key):
    with OpenAIStub(reply="local answer") as server, AnthropicStub() as cloud:
        out = gate(["hi"], config=cfg(digest__backend="server", server__url=server.url + "/v1",
                                      digest__allow_cloud_fallback=True,
                                      cloud__base_url=cloud.url))
        assert (server.count, cloud.count) == (1, 0)
    assert out.text == "local answer" and out.backend == "server" and not out.fell_back
    assert out.tombstone is None and out.failures == ()


def test_an_empty_local_reply_counts_as_a_failure(api_key):
    with OpenAIStub(reply="   \n ") as server, AnthropicStub(reply="cloud answer") as cloud:
        base = cfg(digest__backend="server", server__url=server.url + "/v1",
                   cloud__base_url=cloud.url)
        closed = gate(["hi"], config=base)
        assert cloud.count == 0
        opened = gate(["hi"], config=base.replace(digest__allow_cloud_fallback=True))
        assert cloud.count == 1
    assert closed.text is None and closed.tombstone == LOCAL_TOMBSTONE
    assert closed.failures == ("LocalUnavailable",)
    assert opened.text == "cloud answer" and opened.fell_back and opened.backend == "cloud"


def test_fallback_that_also_fails_is_a_cloud_tombstone(api_key):
    with AnthropicStub(status=529) as cloud:
        out = gate(["hi"], config=cfg(digest__backend="local", digest__allow_cloud_fallback=True,
                                      cloud__base_url=cloud.url, cloud__max_retries=0))
        assert cloud.count == 1
    assert out.text is None and out.tombstone == CLOUD_TOMBSTONE
    assert out.failures == ("LocalUnavailable", "CloudUnavailable")
    assert log_events() == ["digest_local_failed", "digest_cloud_failed"]


def test_complete_text_through_each_backend(api_key, tmp_path):
    with AnthropicStub(reply="from claude") as cloud:
        assert complete_text("Summarise.", config=cfg(cloud__base_url=cloud.url)) == "from claude"
        assert cloud.requests[0]["body"]["messages"][0]["content"] == "Summarise."
    with OpenAIStub(reply="from server") as server:
        config = cfg(digest__backend="server", server__url=server.url + "/v1")
        assert complete_text("Summarise.", config=config) == "from server"
        assert server.requests[0]["body"]["messages"][0]["content"] == "Summarise."
    model, _ = make(tmp_path / "m")
    config = cfg(digest__backend="local", local__model=model, local__threads=1,
                 local__max_tokens=8, local__n_ctx=512)
    out = complete_text_with_policy("Summarise.", config=config, purpose="memory")
    assert out.backend == "local" and out.text and out.reply.output_tokens <= 8


def test_complete_text_raises_when_the_policy_skips(api_key):
    with AnthropicStub() as cloud:
        with pytest.raises(BackendError, match="no local model could answer \\(memory\\)"):
            complete_text("x", config=cfg(digest__backend="local", cloud__base_url=cloud.url),
                          purpose="memory")
        assert cloud.count == 0
    assert log_events() == ["memory_local_failed", "memory_skipped"]
