"""Fixtures shared by cue's tests (the autouse isolation is in tests/conftest.py)."""
from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory):
    """A tiny random-weight Gemma GGUF and vision projector, generated once per run."""
    from tiny_gguf import make

    return make(tmp_path_factory.mktemp("tiny-gguf"))


@pytest.fixture
def conn():
    """The cue database in this test's CUE_HOME."""
    from cue.core.db import connect

    c = connect()
    yield c
    c.close()


@pytest.fixture
def cloud(monkeypatch, request):
    """An Anthropic stub the cloud backend is pointed at (with a test key); it answers the
    test module's REPLY."""
    from stubs import AnthropicStub

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    monkeypatch.setenv("CUE_CLOUD_SEND_IMAGES", "true")  # the user's yes to the cloud
    with AnthropicStub(reply=request.module.REPLY) as stub:
        monkeypatch.setenv("CUE_CLOUD_BASE_URL", stub.url)
        yield stub


@pytest.fixture(autouse=True)
def _no_scrub_child_left():
    """A test that digests may leave its scrubbing child (cue.pii.worker) running; the next
    test scrubs in this process, with its own environment."""
    yield
    import sys

    worker = sys.modules.get("cue.pii.worker")
    if worker is not None:
        worker.stop()
