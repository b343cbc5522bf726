"""Projects with the REAL Claude Code (SPEC §2.8, issue 12): one database, sessions in two git
repositories and a linked worktree. A fact remembered in repo A reaches the next session in A
and in A's worktree, never a session in repo B; a global pinned node reaches all of them."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from e2e_harness import harness

from ctx.core import db
from ctx.core.store import Store

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(1200)]

FACT = "Alpha staging Postgres listens on port 6543"
GLOBAL = "Always write commit messages in the imperative mood"


def git(cwd: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    subprocess.run(["git", "-c", "init.defaultBranch=main", *args], cwd=cwd, env=env, check=True,
                   capture_output=True)


def repo(path: Path) -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q")
    (path / "README.md").write_text(f"# {path.name}\n")
    git(path, "add", "README.md")
    git(path, "commit", "-qm", "init")
    return path


@pytest.fixture
def store():
    conn = db.connect()
    yield Store(conn)
    conn.close()


def session(claude_bin, ctx_bin, out: Path, folder: Path, prompt: str, reply_text: str):
    run = harness(claude_bin, ctx_bin, out, prompt, reply_text=reply_text,
                  extra=["--project-dir", str(folder)])
    run.assert_hooks_healthy()
    for call in run.hooks:
        assert call["cwd"] == str(folder) or Path(call["cwd"]).resolve() == folder.resolve()
    return run


def test_memory_follows_the_repository(claude_bin, ctx_bin, tmp_path, store):
    alpha = repo(tmp_path / "repos" / "alpha")
    beta = repo(tmp_path / "repos" / "beta")
    worktree = tmp_path / "repos" / "alpha-feature"
    git(alpha, "worktree", "add", "-q", str(worktree))
    store.add(GLOBAL, "pattern", ["tier:pinned"])  # global: every project sees it

    first = session(claude_bin, ctx_bin, tmp_path / "a1", alpha, "Remember the staging port",
                    f'Noted. <ctx:remember type="fact" tags="tier:reference">{FACT}</ctx:remember>')
    [node] = [n for n in store.list_nodes() if n.content == FACT]
    assert node.project == "alpha"
    assert GLOBAL in first.contexts("SessionStart")[0]

    again = session(claude_bin, ctx_bin, tmp_path / "a2", alpha, "Which port is staging on?", "6543.")
    in_wt = session(claude_bin, ctx_bin, tmp_path / "w1", worktree, "Which port is staging on?", "6543.")
    in_beta = session(claude_bin, ctx_bin, tmp_path / "b1", beta, "Which port is staging on?",
                      "I don't know.")
    for run in (again, in_wt):
        [context] = run.contexts("SessionStart")
        assert FACT in context and GLOBAL in context and "project alpha + global" in context
        body = json.dumps(run.main[0]["body"], ensure_ascii=False)
        assert FACT in body and GLOBAL in body  # in the session's FIRST model request
    [context] = in_beta.contexts("SessionStart")
    assert FACT not in context and GLOBAL in context and "project beta + global" in context
    assert FACT not in json.dumps([r["body"] for r in in_beta.main], ensure_ascii=False)
    assert GLOBAL in json.dumps(in_beta.main[0]["body"], ensure_ascii=False)
    projects = dict(store.conn.execute("SELECT name, root FROM projects").fetchall())
    assert projects == {"alpha": str(alpha.resolve()), "beta": str(beta.resolve())}
