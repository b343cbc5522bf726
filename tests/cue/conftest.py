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
    from cue.db import connect

    c = connect()
    yield c
    c.close()
