"""Memory that travels with the repository, with the REAL Claude Code (issue 24): Ann's
Claude remembers a fact in her clone, `ctx project share` writes it to .ctx/memory.jsonl,
git carries it (a bare origin, two clones), and Bob's next Claude Code session — his own
ctx database, which never saw the fact — starts with it in the model's first request."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from e2e_harness import harness

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(1200)]

FACT = "The billing service's staging database listens on port 6543"


def git(cwd: Path, *args: str, who: str = "Ann") -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": who, "GIT_AUTHOR_EMAIL": f"{who.lower()}@example.com",
           "GIT_COMMITTER_NAME": who, "GIT_COMMITTER_EMAIL": f"{who.lower()}@example.com"}
    subprocess.run(["git", "-c", "init.defaultBranch=main", *args], cwd=cwd, env=env, check=True,
                   capture_output=True)


def test_memory_shared_by_ann_reaches_bobs_claude_code_session(claude_bin, ctx_bin, tmp_path,
                                                                monkeypatch):
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", str(origin))
    ann_clone, bob_clone = tmp_path / "ann" / "billing", tmp_path / "bob" / "billing"
    git(tmp_path, "clone", "-q", str(origin), str(ann_clone))
    (ann_clone / "README.md").write_text("# billing\n")
    git(ann_clone, "add", "README.md")
    git(ann_clone, "commit", "-qm", "init")
    git(ann_clone, "push", "-q", "origin", "main")
    git(tmp_path, "clone", "-q", str(origin), str(bob_clone), who="Bob")
    ann_db, bob_db = tmp_path / "ann.db", tmp_path / "bob.db"

    # Ann: her Claude remembers the fact (Stop hook), she shares it and pushes
    monkeypatch.setenv("CTX_DB", str(ann_db))
    ann = harness(claude_bin, ctx_bin, tmp_path / "ann-run", "Remember the staging port",
                  reply_text=f'Noted. <ctx:remember type="fact" tags="tier:reference">{FACT}'
                             f'</ctx:remember>', extra=["--project-dir", str(ann_clone)])
    ann.assert_hooks_healthy()
    env = {**os.environ, "CTX_DB": str(ann_db), "GIT_AUTHOR_NAME": "Ann",
           "GIT_AUTHOR_EMAIL": "ann@example.com"}
    shared = subprocess.run([ctx_bin, "project", "share", "--format", "json"], cwd=ann_clone, env=env,
                            capture_output=True, text=True, check=False)
    assert shared.returncode == 0, shared.stderr
    assert json.loads(shared.stdout)["nodes"] == 1
    git(ann_clone, "add", ".ctx")
    git(ann_clone, "commit", "-qm", "Share ctx memory")
    git(ann_clone, "push", "-q", "origin", "main")

    # Bob: pulls, and his next Claude Code session starts with Ann's fact
    git(bob_clone, "pull", "-q", "origin", "main", who="Bob")
    monkeypatch.setenv("CTX_DB", str(bob_db))
    bob = harness(claude_bin, ctx_bin, tmp_path / "bob-run", "Which port is staging on?",
                  reply_text="6543.", extra=["--project-dir", str(bob_clone)])
    bob.assert_hooks_healthy()
    [context] = bob.contexts("SessionStart")
    assert FACT in context and "project billing + global" in context
    assert FACT in bob.request_text(0)  # in the model's FIRST request
    listed = subprocess.run([ctx_bin, "list", "--format", "json"], cwd=bob_clone,
                            env={**os.environ, "CTX_DB": str(bob_db)}, capture_output=True, text=True,
                            check=True)
    [node] = json.loads(listed.stdout)
    assert node["metadata"]["shared_by"] == "Ann <ann@example.com>"
