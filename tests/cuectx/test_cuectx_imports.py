"""cuectx is shared by both programs and imports neither; what the hook path uses from it
stays stdlib-only (checked in a fresh interpreter, as click's test_imports does)."""
from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HOOK_SAFE = ("cuectx.exits", "cuectx.errors", "cuectx.sqlite", "cuectx.migrations",
             "cuectx.output", "cuectx.secrets")
HEAVY = ("typer", "click", "rich", "numpy", "onnxruntime", "presidio_analyzer", "anthropic",
         "llama_cpp", "ctx", "cue")


def imported_top_levels(package: str) -> dict[str, set[str]]:
    out = {}
    for path in (ROOT / package).rglob("*.py"):
        names = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names.add(node.module.split(".")[0])
        out[str(path.relative_to(ROOT))] = names
    return out


def test_cuectx_imports_neither_program_and_they_never_import_each_other():
    for path, names in imported_top_levels("cuectx").items():
        assert not names & {"ctx", "cue"}, path
    for path, names in imported_top_levels("ctx").items():
        assert "cue" not in names, path
    for path, names in imported_top_levels("cue").items():
        assert "ctx" not in names, path


def test_hook_safe_modules_load_nothing_heavy():
    code = (f"import importlib, json, sys\nfor m in {HOOK_SAFE!r}: importlib.import_module(m)\n"
            "print(json.dumps(sorted(sys.modules)))")
    loaded = json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True,
                                       text=True, check=True, cwd=ROOT).stdout)
    assert not [m for m in loaded if m.split(".")[0] in HEAVY]
