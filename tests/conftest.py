"""Every test gets its own HOME, ctx database and cue home (no user state is touched)."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
VENV_BIN = Path(sys.executable).parent


@pytest.fixture(autouse=True)
def isolated_home(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    (tmp_path / "ctx").mkdir()
    monkeypatch.setenv("CTX_DB", str(tmp_path / "ctx" / "store.db"))
    monkeypatch.setenv("CUE_HOME", str(tmp_path / "cue"))
    monkeypatch.delenv("CTX_DEFAULT_BUDGET", raising=False)
    monkeypatch.delenv("CTX_PROJECT", raising=False)  # the project comes from the folder
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    # The model cache lives outside HOME (see ctx.semantic.model); keep finding it.
    for name in ("CTX_MODEL_DIR", "XDG_CACHE_HOME"):
        if name in os.environ:
            monkeypatch.setenv(name, os.environ[name])
    return home


@pytest.fixture
def ctx_bin() -> str:
    """The installed `ctx` console script, for subprocess tests."""
    return str(VENV_BIN / "ctx")


@pytest.fixture
def cue_bin() -> str:
    return str(VENV_BIN / "cue")
