"""Text → 384-d unit vectors with onnxruntime + tokenizers + numpy (no torch).

Two embedders, one per model kind (ctx.semantic.model): `E5Embedder` (multilingual-e5-small:
`query: `/`passage: ` prefixes, the token table memory-mapped and gathered in numpy, only
the transformer in onnxruntime) and `Embedder` (all-MiniLM-L6-v2, the whole graph in
onnxruntime). Both: `embed(texts)` for stored text (passages), `embed_query(text)` for
what is searched with.

Tokenizer traps (see ../shared/reference/embed_onnx.py): tokenizer.json ships
truncation=128 and fixed padding to 128, but sentence-transformers truncates at 256 and pads
per batch -- so we do the same, and sort each call's texts by length so batches pad little.

Two session flavours: a *query* session opens in ~25 ms (weights memory-mapped, no
pre-packing, one thread) for the one-prompt paths (hooks, `ctx search`); an *indexing*
session pre-packs the weights (~70 ms to open, ~1.6x faster per batch) and uses every
core, for bulk embedding. $CTX_EMBED_THREADS overrides the thread count of both.
"""
from __future__ import annotations

import threading
from functools import lru_cache

import numpy as np

from ctx.semantic.model import DIM, MAX_TOKENS, ModelFiles, require


def _session(path, *, bulk: bool, threads: int | None):
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.log_severity_level = 3
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    if not bulk:
        # one short text: no pre-packing, one thread (no pool to start), no spin-waiting
        # (on a busy two-core machine a spinning pool steals the CPU it waits for)
        so.add_session_config_entry("session.disable_prepacking", "1")
        so.add_session_config_entry("session.intra_op.allow_spinning", "0")
        threads = threads or _threads() or 1
    else:
        threads = threads or _threads()
    so.inter_op_num_threads = 1
    if threads:
        so.intra_op_num_threads = threads
    return ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])


class Embedder:
    def __init__(self, files: ModelFiles, *, bulk: bool = False, threads: int | None = None):
        from tokenizers import Tokenizer

        self.files = files
        self.model_id = files.model_id
        self.session = _session(files.onnx, bulk=bulk, threads=threads)
        self.input_names = {i.name for i in self.session.get_inputs()}
        self.tokenizer = Tokenizer.from_file(str(files.tokenizer))
        self.tokenizer.enable_truncation(max_length=MAX_TOKENS)
        self.tokenizer.no_padding()

    def embed(self, texts: list[str], *, batch_size: int = 16) -> np.ndarray:
        """Unit vectors, float32 [len(texts), 384], in the order given."""
        out = np.empty((len(texts), DIM), dtype=np.float32)
        if not texts:
            return out
        encodings = self.tokenizer.encode_batch(list(texts))
        order = np.argsort([-len(e.ids) for e in encodings], kind="stable")
        for start in range(0, len(texts), batch_size):
            idx = order[start:start + batch_size]
            out[idx] = self._run([encodings[i] for i in idx])
        return out

    def embed_one(self, text: str) -> np.ndarray:
        return self.embed([text])[0]

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed([text])[0]  # MiniLM has no query/passage convention

    def _run(self, encodings) -> np.ndarray:
        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(encodings), width), dtype=np.int64)
        mask = np.zeros((len(encodings), width), dtype=np.int64)
        for row, enc in enumerate(encodings):
            ids[row, :len(enc.ids)] = enc.ids
            mask[row, :len(enc.ids)] = 1
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self.input_names:
            feed["token_type_ids"] = np.zeros_like(ids)
        return self.session.run(["sentence_embedding"], feed)[0]


class E5Embedder:
    """multilingual-e5-small: tokenizer → rows of the memory-mapped 4-bit token table
    (dequantised in numpy) + position rows → onnxruntime (LayerNorm, 12 layers, mean pool,
    L2 norm). A query touches ~20 of the table's 250,037 rows, so a hook never reads 54 MB."""

    def __init__(self, files: ModelFiles, *, bulk: bool = False, threads: int | None = None):
        from ctx.semantic.e5_graph import Q4_BLOCK
        from ctx.semantic.e5_tokenizer import UnigramTokenizer

        spec = files.spec
        self.files = files
        self.model_id = files.model_id
        self.max_tokens = spec.max_tokens
        self.query_prefix, self.passage_prefix = spec.query_prefix, spec.passage_prefix
        self.bulk, self.threads = bulk, threads
        self._session = None
        self._tokenizer = None
        self._query_encoder = None
        self.fast = UnigramTokenizer(files.dir, self.max_tokens)
        words = files.dir / "word_q4.bin"
        rows = words.stat().st_size // (Q4_BLOCK.itemsize * (DIM // 32))
        self.words = np.memmap(words, dtype=Q4_BLOCK, mode="r", shape=(rows, DIM // 32))
        extra = np.load(files.dir / "embed_extra.npy", mmap_mode="r")
        self.positions, self.token_type = extra[:-1], np.asarray(extra[-1])

    def embed(self, texts: list[str], *, batch_size: int = 16, query: bool = False) -> np.ndarray:
        """Unit vectors, float32 [len(texts), 384], in the order given (passages by default)."""
        out = np.empty((len(texts), DIM), dtype=np.float32)
        if not texts:
            return out
        prefix = self.query_prefix if query else self.passage_prefix
        # A passage embedded a moment ago is not embedded again: the write-time duplicate
        # check (ctx/doctor/paraphrase.py) embeds a new memory, and the index then stores
        # that very text's vector (the hook server's next JIT pass).
        known = [(i, _recent.get((self.model_id, prefix + t))) for i, t in enumerate(texts)]
        todo = [i for i, v in known if v is None]
        for i, v in known:
            if v is not None:
                out[i] = v
        encodings = self.encode([prefix + texts[i] for i in todo])
        order = np.argsort([-len(e) for e in encodings], kind="stable")
        for start in range(0, len(todo), batch_size):
            idx = order[start:start + batch_size]
            out[[todo[i] for i in idx]] = self._run([encodings[i] for i in idx])
        if len(todo) <= RECENT and not query:  # a write's few texts, not a bulk index
            with _recent_lock:  # the hook server embeds from more than one thread
                for i in todo:
                    _recent[(self.model_id, prefix + texts[i])] = out[i].copy()
                while len(_recent) > RECENT:
                    _recent.pop(next(iter(_recent)))
        return out

    @property
    def session(self):
        """onnxruntime, opened on first use: passages only (a query runs in numpy)."""
        if self._session is None:
            self._session = _session(self.files.onnx, bulk=self.bulk, threads=self.threads)
        return self._session

    @property
    def tokenizer(self):
        """`tokenizers` over tokenizer.json: loaded on first use (~1 s), for bulk work."""
        if self._tokenizer is None:
            from tokenizers import Tokenizer

            tok = Tokenizer.from_file(str(self.files.tokenizer))
            tok.enable_truncation(max_length=self.max_tokens)
            tok.no_padding()
            self._tokenizer = tok
        return self._tokenizer

    def encode(self, texts: list[str]) -> list[list[int]]:
        """Token ids with <s>…</s>. A few texts: the memory-mapped tokenizer (no 17 MB load);
        many (bulk): `tokenizers`, faster per text once loaded. Both give the same ids."""
        if self.bulk and len(texts) > 8:
            return [e.ids for e in self.tokenizer.encode_batch(texts)]
        return [self.fast.encode_ids(t) for t in texts]

    def embed_one(self, text: str) -> np.ndarray:
        return self.embed([text])[0]

    def embed_query(self, text: str) -> np.ndarray:
        """One query: the same graph in numpy (ctx.semantic.e5_numpy) — no onnxruntime."""
        if self._query_encoder is None:
            from ctx.semantic.e5_numpy import QueryEncoder

            self._query_encoder = QueryEncoder(self.files.dir)
        ids = self.fast.encode_ids(self.query_prefix + text)
        return self._query_encoder.encode(self._embeds(np.array([ids], dtype=np.int64))[0])

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        """Several queries (a prompt's questions) in one numpy pass: [len(texts), 384]."""
        if self._query_encoder is None:
            from ctx.semantic.e5_numpy import QueryEncoder

            self._query_encoder = QueryEncoder(self.files.dir)
        return self._query_encoder.encode_many(
            [self._embeds(np.array([self.fast.encode_ids(self.query_prefix + t)], dtype=np.int64))[0]
             for t in texts])

    def _embeds(self, ids: np.ndarray) -> np.ndarray:
        """Input embeddings [batch, seq, H]: the token rows (only those used, dequantised
        from the memory-mapped 4-bit table) + position rows + the token-type row."""
        from ctx.semantic.e5_graph import dequantize

        unique, inverse = np.unique(ids, return_inverse=True)
        x = dequantize(np.asarray(self.words[unique]))[inverse.reshape(ids.shape)]
        x += self.positions[:ids.shape[1]][None, :, :]
        x += self.token_type
        return x

    def _run(self, encodings) -> np.ndarray:
        width = max(len(e) for e in encodings)
        ids = np.zeros((len(encodings), width), dtype=np.int64)
        mask = np.zeros((len(encodings), width), dtype=np.int64)
        for row, enc in enumerate(encodings):
            ids[row, :len(enc)] = enc
            mask[row, :len(enc)] = 1
        x = self._embeds(ids)
        return self.session.run(["sentence_embedding"],
                                {"inputs_embeds": x.astype(np.float32, copy=False),
                                 "attention_mask": mask})[0]


def make_embedder(files: ModelFiles, *, bulk: bool = False, threads: int | None = None):
    cls = E5Embedder if files.spec.kind == "e5" else Embedder
    return cls(files, bulk=bulk, threads=threads)


def _threads() -> int | None:
    from ctx.core.settings import embed_threads

    return embed_threads()


_lock = threading.Lock()
RECENT = 8
_recent_lock = threading.Lock()
_recent: dict[tuple[str, str], np.ndarray] = {}  # (model, passage) → vector, oldest first


@lru_cache(maxsize=2)
def _cached(files: ModelFiles, bulk: bool):
    return make_embedder(files, bulk=bulk)


def get_embedder(*, bulk: bool = False):
    """The process-wide embedder (raises ModelMissingError when the model is not built).
    Thread-safe: a warm-up thread and a search never open two sessions."""
    files = require()
    with _lock:
        return _cached(files, bulk)


# ------------------------------------------------------------------ the English companion

def _english(text: str) -> bool:
    """Text English fusion reads with MiniLM: no Hangul (MiniLM reads English only)."""
    return not any("\uac00" <= ch <= "\ud7a3" for ch in text)


class EnglishCompanion:
    """all-MiniLM-L6-v2 beside multilingual-e5 (English fusion, ctx.semantic.search): it
    indexes the store's English notes only (`wants`: ctx.semantic.index marks the others
    done with no chunks). Passages through onnxruntime (`bulk`: `ctx index`, `ctx search`),
    or — on the hooks' path, for the few new notes a prompt finds — one by one through the
    numpy encoder, which the hook server preloads (no onnxruntime import on a prompt)."""

    def __init__(self, files: ModelFiles, *, bulk: bool = False):
        self.files = files
        self.model_id = files.model_id
        self.bulk = bulk
        self._onnx = None
        self._numpy = None

    @staticmethod
    def wants(content: str) -> bool:
        return _english(content)

    @property
    def query(self):
        if self._numpy is None:
            from ctx.semantic.minilm_numpy import MiniLMQuery

            self._numpy = MiniLMQuery(self.files.dir, self.files.spec.max_tokens)
        return self._numpy

    def embed_query(self, text: str) -> np.ndarray:
        return self.query.embed_query(text)

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return self.query.embed_queries(texts)

    def embed(self, texts: list[str], *, batch_size: int = 16) -> np.ndarray:
        if not self.bulk:
            return self.query.embed_queries(texts)  # MiniLM: a passage is embedded as a query
        if self._onnx is None:
            self._onnx = Embedder(self.files, bulk=True)
        return self._onnx.embed(texts, batch_size=batch_size)


@lru_cache(maxsize=4)
def _companion(files: ModelFiles, bulk: bool) -> EnglishCompanion:
    return EnglishCompanion(files, bulk=bulk)


def english_companion(main_model_id: str, *, bulk: bool = False) -> EnglishCompanion | None:
    """The process-wide English companion for a store indexed by `main_model_id`, or None
    (fusion off, another main model, MiniLM not built: ctx.semantic.model.english_companion)."""
    from ctx.semantic.model import english_companion as files_for

    files = files_for(main_model_id)
    if files is None:
        return None
    with _lock:
        return _companion(files, bulk)
