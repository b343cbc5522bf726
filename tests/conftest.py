"""Every test gets its own HOME, ctx database and cue home (no user state is touched)."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
VENV_BIN = Path(sys.executable).parent
KEEP = ("CTX_MODEL_DIR",)  # environment a test may inherit (the model cache's location)


@pytest.fixture(scope="session")
def hook_run_dir(tmp_path_factory):
    """Where this run's hook servers listen (ctx/claude/hooks/client.py): hooks run by the
    tests are served as Claude Code's are, by servers that end with the run."""
    from ctx.claude.hooks import server

    path = tmp_path_factory.mktemp("run")
    path.chmod(0o700)
    yield path
    server.stop(str(path))


@pytest.fixture(autouse=True)
def isolated_home(tmp_path, monkeypatch, hook_run_dir):
    # A developer's shell (CTX_DEBUG=1, CTX_HOOK_MAX_CHARS=400, CUE_DIGEST_BACKEND=…) must
    # not change a test's outcome: every CTX_*/CUE_* variable goes, except where the built
    # model lives (outside HOME, see ctx.semantic.model), which tests still need to find.
    for name in list(os.environ):
        if name.startswith(("CTX_", "CUE_")) and name not in KEEP:
            monkeypatch.delenv(name)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    (tmp_path / "ctx").mkdir()
    monkeypatch.setenv("CTX_DB", str(tmp_path / "ctx" / "store.db"))
    monkeypatch.setenv("CUE_HOME", str(tmp_path / "cue"))
    monkeypatch.setenv("CTX_RUN_DIR", str(hook_run_dir))
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    return home


@pytest.fixture
def ctx_bin() -> str:
    """The installed `ctx` console script, for subprocess tests."""
    return str(VENV_BIN / "ctx")


@pytest.fixture
def cue_bin() -> str:
    return str(VENV_BIN / "cue")
