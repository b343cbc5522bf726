"""Shared by the end-to-end tests: the real Claude Code binary, installed once from npm."""
from __future__ import annotations

import shutil
import subprocess

import pytest
from e2e_harness import INSTALL_DIR, TOOLS


@pytest.fixture(scope="session")
def claude_bin() -> str:
    binary = INSTALL_DIR / "node_modules" / ".bin" / "claude"
    if not (TOOLS / "harness.py").exists():
        pytest.skip(f"the Claude Code harness is not at {TOOLS} (CI keeps ../shared beside the repo)")
    if binary.exists():
        return str(binary)
    if not shutil.which("npm"):
        pytest.skip("npm is not installed: cannot install Claude Code for the end-to-end tests")
    proc = subprocess.run(["bash", str(TOOLS / "install.sh"), str(INSTALL_DIR)], capture_output=True,
                          text=True, timeout=900, check=False)
    if proc.returncode != 0 or not binary.exists():
        pytest.skip(f"installing Claude Code from npm failed: {proc.stderr.strip()[-400:]}")
    return str(binary)
