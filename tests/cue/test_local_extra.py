"""The local backend is an optional extra (cue-ctx[local]): without llama-cpp-python a digest
is skipped with a sentence that says how to get it, and `cue doctor` says the same."""
from __future__ import annotations

import pytest

from cue.core import config as cue_config
from cue.digest import preflight
from cue.llm import local
from cue.llm.errors import LocalUnavailable


def cfg(**changes):
    return cue_config.load(env={}).replace(**changes)


@pytest.fixture
def without_llama(monkeypatch):
    monkeypatch.setattr(local, "llama_installed", lambda: False)


def test_a_digest_without_the_extra_says_how_to_install_it(without_llama, tmp_path):
    model = tmp_path / "model.gguf"
    model.write_bytes(b"GGUF")
    backend = local.LocalVisionBackend(cfg(local__model=str(model)))
    with pytest.raises(LocalUnavailable) as caught:
        backend.complete(["hi"])
    message = str(caught.value)
    assert "llama-cpp-python is not installed" in message
    assert "cue-ctx[local]" in message and "make install EXTRAS=semantic,local" in message
    assert "digest.backend server" in message  # the route that needs no compiler


def test_doctor_names_the_extra(without_llama):
    checks = {c.name: c for c in preflight.local_checks(cfg(digest__backend="local"))}
    check = checks["llama-cpp-python"]
    assert not check.ok and check.fix == local.NOT_INSTALLED


def test_with_the_extra_the_check_passes_when_llama_is_importable(monkeypatch):
    monkeypatch.setattr(local, "llama_installed", lambda: True)
    checks = {c.name: c for c in preflight.local_checks(cfg(digest__backend="local"))}
    assert checks["llama-cpp-python"].ok
