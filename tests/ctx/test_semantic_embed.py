"""The MiniLM ONNX model we build embeds like sentence-transformers, and is found or reported.
(multilingual-e5-small, the default, is checked in test_semantic_e5.py.)"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ctx.semantic import build as build_mod
from ctx.semantic import model as model_mod
from ctx.semantic.embed import Embedder

DATA = Path(__file__).parent / "data"


MINILM_DIR = model_mod.model_dir(model_mod.MINILM)


@pytest.fixture(scope="module")
def embedder():
    return Embedder(model_mod.require(MINILM_DIR))


def test_embeddings_match_sentence_transformers(embedder):
    ref = json.loads((DATA / "reference_vectors.json").read_text())
    assert ref["max_seq_length"] == model_mod.MAX_TOKENS
    assert len(ref["sentences"]) >= 5
    got = embedder.embed(ref["sentences"])
    want = np.array(ref["vectors"], dtype=np.float32)
    want /= np.linalg.norm(want, axis=1, keepdims=True)
    cos = (got * want).sum(axis=1)
    for sentence, c in zip(ref["sentences"], cos):
        assert c >= 0.9999, f"cosine {c:.6f} for {sentence[:40]!r}"
    # the long sentence is over 256 word pieces: truncation is exercised
    assert max(len(embedder.tokenizer.encode(s).ids) for s in ref["sentences"]) == 256


def test_batching_and_order_do_not_change_vectors(embedder):
    texts = ["short", "a somewhat longer sentence about SQLite WAL mode and readers",
             "짧은 문장", "x " * 400]
    together = embedder.embed(texts, batch_size=2)
    alone = np.stack([embedder.embed_one(t) for t in texts])
    assert np.allclose(together, alone, atol=1e-5)
    assert np.allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)
    assert embedder.embed([]).shape == (0, model_mod.DIM)


def test_bulk_session_gives_the_same_vectors(embedder):
    bulk = Embedder(model_mod.require(MINILM_DIR), bulk=True)
    text = ["The hook must answer within 300 ms."]
    assert np.allclose(bulk.embed(text), embedder.embed(text), atol=1e-5)


def test_build_is_idempotent_and_fast_when_current():
    before = model_mod.require()
    result = build_mod.build(check=False)
    assert result.built is False
    assert result.seconds < 1.0
    assert result.files == before


def test_missing_model_is_one_actionable_sentence(tmp_path, monkeypatch):
    monkeypatch.setenv("CTX_MODEL_DIR", str(tmp_path / "nowhere"))
    assert model_mod.locate() is None
    with pytest.raises(model_mod.ModelMissingError, match="make model"):
        model_mod.require()
    proc = subprocess.run([sys.executable, "-m", "ctx.semantic.model", "path"],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 1
    assert proc.stderr.startswith("Error: the embedding model is not built")
    assert proc.stderr.count("\n") == 1


def test_a_half_written_build_is_not_found(tmp_path, monkeypatch):
    where = tmp_path / "m"
    where.mkdir()
    (where / "manifest.json").write_text(json.dumps(
        {"model_id": model_mod.MODEL_ID, "builder_version": model_mod.BUILDER_VERSION}))
    (where / "model.onnx").write_bytes(b"")
    assert model_mod.locate(where) is None  # no tokenizer, no weights file


def test_default_location_does_not_depend_on_home(monkeypatch, tmp_path):
    monkeypatch.delenv("CTX_MODEL_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "elsewhere"))
    assert str(model_mod.model_dir()).startswith(sys.prefix)


def test_a_fresh_build_matches_the_installed_one(tmp_path, embedder):
    """The whole build path (onnx graph, aligned external weights, manifest), into a new folder."""
    where = tmp_path / "model"
    result = build_mod.build(where, name=model_mod.MINILM)
    assert result.built and (where / "model.onnx.data").stat().st_size > 80_000_000
    assert json.loads((where / "manifest.json").read_text())["model_id"] == model_mod.MODEL_ID
    again = build_mod.build(where, name=model_mod.MINILM)
    assert not again.built
    fresh = Embedder(model_mod.require(where))
    text = ["Refunds over 500 dollars need a second approver."]
    assert np.allclose(fresh.embed(text), embedder.embed(text), atol=1e-6)
    forced = build_mod.build(where, force=True, name=model_mod.MINILM)
    assert forced.built and not list(tmp_path.glob("model.old-*")) and not list(tmp_path.glob(".build-*"))
