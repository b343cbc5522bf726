"""MiniLM's numpy query path (ctx.semantic.minilm_numpy), which English fusion runs on the
hooks' path: the same token ids as `tokenizers` and the same vectors as onnxruntime's build
of the model. Real weights."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

DATA = Path(__file__).parent / "data"
TRICKY = ["Café naïve résumé — über", "CTX_HOOK_MAX_CHARS=300; `finalizeInvoice()` v2.14.0 --dry-run",
          "漢字 and 한국어 mixed", "x" * 150, "tab\there\u200bzero\x07bell", "", "  ", "e.g. A/B (p<0.05)!"]


@pytest.fixture(scope="module")
def models():
    from ctx.semantic.embed import Embedder, EnglishCompanion
    from ctx.semantic.model import MINILM, locate, model_dir

    files = locate(model_dir(MINILM))
    if files is None:
        pytest.skip("all-MiniLM-L6-v2 is not built (make model)")
    return Embedder(files), EnglishCompanion(files)


def _texts() -> list[str]:
    d = json.loads((DATA / "devset.json").read_text())
    r = json.loads((DATA / "retrieval.json").read_text())
    texts = [n["content"] for n in d["nodes"]] + [q["query"] for q in d["queries"]]
    texts += [n["content"] for n in r["nodes"]] + [q["query"] for q in r["queries"]]
    return texts + TRICKY


def test_wordpiece_gives_the_ids_tokenizers_gives(models):
    onnx, comp = models
    texts = _texts()
    assert len(texts) > 900
    for t in texts:
        assert comp.query.tokenizer.encode_ids(t) == onnx.tokenizer.encode(t).ids, t


def test_numpy_query_equals_onnxruntime(models):
    onnx, comp = models
    texts = [t for t in _texts() if comp.wants(t) and t.strip()][::5]
    a = onnx.embed(texts)
    b = comp.embed_queries(texts)
    assert b.shape == a.shape
    assert np.abs(a - b).max() < 1e-5
    assert float((a * b).sum(1).min()) > 0.99999
    # and passages embedded on the hooks' path (numpy) equal the bulk ones
    assert np.abs(comp.embed(texts[:4]) - a[:4]).max() < 1e-5


def test_a_long_text_is_truncated_like_tokenizers(models):
    onnx, comp = models
    long_text = "deploy the billing service " * 200
    ids = comp.query.tokenizer.encode_ids(long_text)
    assert len(ids) == 256 and ids == onnx.tokenizer.encode(long_text).ids
    assert np.abs(comp.embed_query(long_text) - onnx.embed([long_text])[0]).max() < 1e-5
