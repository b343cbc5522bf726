"""all-MiniLM-L6-v2 for one English query in numpy: its WordPiece tokenizer and forward pass.

Why: English fusion (ctx.semantic.search) scores an English prompt with MiniLM beside
multilingual-e5. Through onnxruntime that costs the hook its import and a session (~100 ms
of CPU, which the forking hook server cannot preload: onnxruntime starts threads), and
`tokenizers` another ~100 ms to import and parse tokenizer.json. MiniLM-L6 has e5-small's
shape (hidden 384, 12 heads, FF 1536, GELU, mean pooling, L2 norm; 6 layers instead of 12),
so the query runs through the same numpy encoder (ctx.semantic.e5_numpy.QueryEncoder) over
float32 weights memory-mapped from `query_f32.bin`, and the tokenizer is BERT's uncased
WordPiece over `vocab.txt` — both written at build time here, preloadable, no threads.

Files (under the MiniLM model folder): `query_f32.bin` + `query_f32.json` (layers),
`word_f32.npy` (the 30,522-row token table, memory-mapped: a query gathers ~15 rows),
`embed_extra.npy` (512 position rows + the token-type row), `vocab.txt`.
tests/ctx/test_semantic_minilm.py checks the ids against `tokenizers` and the vectors
against onnxruntime's build of the same model.
"""
from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import numpy as np

from ctx.semantic.model import MINILM_QUERY_FILES as FILES  # noqa: F401 — the files this reads

CLS, SEP, UNK = "[CLS]", "[SEP]", "[UNK]"
MAX_WORD_CHARS = 100


def write(src: Path, out_dir: Path) -> None:
    """Build time: MiniLM's safetensors → the numpy query files (e5_numpy's layout)."""
    from safetensors.numpy import load_file

    from ctx.semantic.e5_numpy import write_tensors

    cfg = json.loads((src / "config.json").read_text())
    w = load_file(str(src / "model.safetensors"))
    names = {"q": "attention.self.query", "k": "attention.self.key", "v": "attention.self.value",
             "ao": "attention.output.dense", "aln": "attention.output.LayerNorm",
             "fi": "intermediate.dense", "fo": "output.dense", "oln": "output.LayerNorm"}

    def tensors():
        yield "emb.ln.w", w["embeddings.LayerNorm.weight"]
        yield "emb.ln.b", w["embeddings.LayerNorm.bias"]
        for i in range(cfg["num_hidden_layers"]):
            for short, long_ in names.items():
                p = f"encoder.layer.{i}.{long_}"
                linear = not long_.endswith("LayerNorm")
                yield f"l{i}.{short}.w", w[p + ".weight"].T if linear else w[p + ".weight"]
                yield f"l{i}.{short}.b", w[p + ".bias"]

    write_tensors(out_dir, tensors(), layers=cfg["num_hidden_layers"],
                  heads=cfg["num_attention_heads"], eps=cfg["layer_norm_eps"])
    np.save(out_dir / "word_f32.npy", w["embeddings.word_embeddings.weight"].astype("<f4"))
    np.save(out_dir / "embed_extra.npy", np.concatenate([
        w["embeddings.position_embeddings.weight"],
        w["embeddings.token_type_embeddings.weight"][:1]]).astype("<f4"))
    vocab = json.loads((src / "tokenizer.json").read_text())["model"]["vocab"]
    (out_dir / "vocab.txt").write_text(
        "\n".join(t for t, _ in sorted(vocab.items(), key=lambda kv: kv[1])) + "\n", encoding="utf-8")


class WordPiece:
    """BERT's uncased tokenizer as tokenizer.json describes it (BertNormalizer with clean_text,
    Chinese characters split, accents stripped, lower case; BertPreTokenizer; WordPiece with
    `##` and [UNK]; [CLS] … [SEP], truncated to `max_tokens`)."""

    def __init__(self, vocab_file: Path, max_tokens: int = 256):
        self.vocab = {t: i for i, t in enumerate(vocab_file.read_text(encoding="utf-8").split("\n")) if t}
        self.max_tokens = max_tokens
        self.unk = self.vocab[UNK]

    def encode_ids(self, text: str) -> list[int]:
        ids = [self.vocab[CLS]]
        for word in _pre_tokenize(_normalize(text)):
            ids += self._word(word)
            if len(ids) >= self.max_tokens - 1:
                break
        return ids[:self.max_tokens - 1] + [self.vocab[SEP]]

    def _word(self, word: str) -> list[int]:
        if len(word) > MAX_WORD_CHARS:
            return [self.unk]
        out, start = [], 0
        while start < len(word):
            end = len(word)
            while end > start:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                if piece in self.vocab:
                    out.append(self.vocab[piece])
                    break
                end -= 1
            else:
                return [self.unk]
            start = end
        return out


def _is_control(ch: str) -> bool:
    return ch not in "\t\n\r" and unicodedata.category(ch).startswith("C")


def _is_chinese(cp: int) -> bool:
    return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0x20000 <= cp <= 0x2A6DF
            or 0x2A700 <= cp <= 0x2B73F or 0x2B740 <= cp <= 0x2B81F or 0x2B820 <= cp <= 0x2CEAF
            or 0xF900 <= cp <= 0xFAFF or 0x2F800 <= cp <= 0x2FA1F)


def _normalize(text: str) -> str:
    out = []
    for ch in text:
        if ch in "\0\ufffd" or _is_control(ch):
            continue
        if ch.isspace():
            out.append(" ")
        elif _is_chinese(ord(ch)):
            out += [" ", ch, " "]
        else:
            out.append(ch)
    text = unicodedata.normalize("NFD", "".join(out))
    return "".join(ch for ch in text if unicodedata.category(ch) != "Mn").lower()


def _is_punct(ch: str) -> bool:
    return (ch.isascii() and not ch.isalnum() and not ch.isspace() and ch.isprintable()) \
        or unicodedata.category(ch).startswith("P")


def _pre_tokenize(text: str) -> list[str]:
    words, cur = [], []
    for ch in text:
        if ch.isspace():
            if cur:
                words.append("".join(cur))
                cur = []
        elif _is_punct(ch):
            if cur:
                words.append("".join(cur))
                cur = []
            words.append(ch)
        else:
            cur.append(ch)
    if cur:
        words.append("".join(cur))
    return words


class MiniLMQuery:
    """embed_query(text) → MiniLM's unit vector, in numpy (no onnxruntime, no tokenizers)."""

    def __init__(self, where: Path, max_tokens: int = 256):
        from ctx.semantic.e5_numpy import QueryEncoder

        self.tokenizer = WordPiece(where / "vocab.txt", max_tokens)
        self.encoder = QueryEncoder(where)
        self.words = np.load(where / "word_f32.npy", mmap_mode="r")
        extra = np.load(where / "embed_extra.npy", mmap_mode="r")
        self.positions, self.token_type = extra[:-1], np.asarray(extra[-1])

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_queries([text])[0]

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        """Several texts in one pass (padded, masked): [len(texts), 384]."""
        if not texts:
            return np.empty((0, self.words.shape[1]), dtype=np.float32)
        embeds = [self._embeds(self.tokenizer.encode_ids(t)) for t in texts]
        return np.concatenate([self.encoder.encode_many(embeds[i:i + 8])
                               for i in range(0, len(embeds), 8)])

    def _embeds(self, ids: list[int]) -> np.ndarray:
        return np.asarray(self.words[ids], dtype=np.float32) + self.positions[:len(ids)] + self.token_type
