"""Text → 384-d unit vectors with onnxruntime + tokenizers + numpy (no torch).

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


class Embedder:
    def __init__(self, files: ModelFiles, *, bulk: bool = False, threads: int | None = None):
        import onnxruntime as ort
        from tokenizers import Tokenizer

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
        self.files = files
        self.model_id = files.model_id
        self.session = ort.InferenceSession(str(files.onnx), so,
                                            providers=["CPUExecutionProvider"])
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


def _threads() -> int | None:
    from ctx.core.settings import embed_threads

    return embed_threads()


_lock = threading.Lock()


@lru_cache(maxsize=2)
def _cached(files: ModelFiles, bulk: bool) -> Embedder:
    return Embedder(files, bulk=bulk)


def get_embedder(*, bulk: bool = False) -> Embedder:
    """The process-wide embedder (raises ModelMissingError when the model is not built).
    Thread-safe: a warm-up thread and a search never open two sessions."""
    files = require()
    with _lock:
        return _cached(files, bulk)
