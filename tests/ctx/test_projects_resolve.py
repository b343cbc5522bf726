"""Project resolution from a folder (ctx/core/repo.py) against repositories made by the real git."""
from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from ctx.core import repo
from ctx.core.repo import normalise_remote, resolve

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_CONFIG_NOSYSTEM": "1"}


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV, "HOME": str(cwd)}
    return subprocess.run(["git", "-c", "protocol.file.allow=always", "-c", "init.defaultBranch=main",
                           *args], cwd=cwd, env=env, capture_output=True, text=True,
                          check=True).stdout


def make_repo(path: Path, remote: str | None = None) -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q")
    (path / "README").write_text("x\n")
    git(path, "add", "README")
    git(path, "commit", "-qm", "init")
    if remote:
        git(path, "remote", "add", "origin", remote)
    return path


@pytest.fixture(autouse=True)
def no_env(monkeypatch):
    monkeypatch.delenv("CTX_PROJECT", raising=False)


def test_main_worktree_and_any_subfolder_resolve_to_the_repository(tmp_path):
    repo = make_repo(tmp_path / "api")
    (repo / "src" / "deep").mkdir(parents=True)
    top, sub = resolve(repo), resolve(repo / "src" / "deep")
    assert top == sub
    assert top.root == os.path.realpath(repo) and top.key == top.root
    assert top.name == "api" and top.remote is None and top.source == "git"


def test_outside_any_repository_is_global(tmp_path):
    (tmp_path / "plain").mkdir()
    assert resolve(tmp_path / "plain") is None


def test_linked_worktree_resolves_to_its_main_worktree(tmp_path):
    repo = make_repo(tmp_path / "api")
    git(repo, "worktree", "add", "-q", str(tmp_path / "api-feature"))
    (tmp_path / "api-feature" / "pkg").mkdir()
    assert (tmp_path / "api-feature" / ".git").is_file()
    assert resolve(tmp_path / "api-feature" / "pkg") == resolve(repo)


def test_submodule_is_a_project_of_its_own(tmp_path):
    lib = make_repo(tmp_path / "lib", remote="git@github.com:acme/lib.git")
    app = make_repo(tmp_path / "app")
    git(app, "submodule", "add", "-q", str(lib), "vendor/lib")
    sub = resolve(app / "vendor" / "lib")
    assert (app / "vendor" / "lib" / ".git").is_file()
    assert sub.root == os.path.realpath(app / "vendor" / "lib")
    assert sub.key != resolve(app).key
    assert sub.name == "lib"


def test_bare_repository_and_its_worktree(tmp_path):
    src = make_repo(tmp_path / "src")
    git(tmp_path, "clone", "-q", "--bare", str(src), str(tmp_path / "store.git"))
    bare = resolve(tmp_path / "store.git")
    assert bare.root == os.path.realpath(tmp_path / "store.git") and bare.name == "store"
    git(tmp_path / "store.git", "worktree", "add", "-q", str(tmp_path / "wt"))
    assert resolve(tmp_path / "wt").key == bare.key


def test_origin_remote_identifies_a_moved_or_recloned_repository(tmp_path):
    a = make_repo(tmp_path / "one" / "api", remote="git@github.com:Acme/API.git")
    b = make_repo(tmp_path / "two" / "api-copy", remote="https://someone@github.com/acme/api")
    ra, rb = resolve(a), resolve(b)
    assert ra.key == rb.key == "github.com/acme/api"
    assert ra.remote == "git@github.com:Acme/API.git"
    assert ra.root != rb.root


def test_same_folder_name_different_repositories_are_different_projects(tmp_path):
    a = make_repo(tmp_path / "x" / "api")
    b = make_repo(tmp_path / "y" / "api")
    assert resolve(a).key != resolve(b).key
    assert resolve(a).name == resolve(b).name == "api"  # the store makes names unique


def test_other_remotes_do_not_count_only_origin(tmp_path):
    repo = make_repo(tmp_path / "api")
    git(repo, "remote", "add", "upstream", "git@github.com:up/api.git")
    assert resolve(repo).key == os.path.realpath(repo)
    git(repo, "remote", "add", "origin", "ssh://git@github.com:22/me/api.git/")
    assert resolve(repo).key == "github.com/me/api"


@pytest.mark.parametrize("url, key", [
    ("git@github.com:org/repo.git", "github.com/org/repo"),
    ("github.com:org/repo", "github.com/org/repo"),
    ("https://github.com/org/repo", "github.com/org/repo"),
    ("https://user:secret@GitHub.com/org/repo.git/", "github.com/org/repo"),
    ("ssh://git@github.com/org/repo.git", "github.com/org/repo"),
    ("ssh://git@github.com:2222/org/repo", "github.com/org/repo"),
    ("git://gitlab.example.org/group/sub/repo.git", "gitlab.example.org/group/sub/repo"),
    ("file:///srv/git/repo.git", "/srv/git/repo"),
    ("/srv/git/repo.git", "/srv/git/repo"),
    ("", None),
])
def test_normalise_remote(url, key):
    assert normalise_remote(url) == key


def test_ctx_project_overrides_everything(tmp_path):
    repo = make_repo(tmp_path / "api")
    forced = resolve(repo, env={"CTX_PROJECT": "scratch"})
    assert forced.source == "env" and forced.name == "scratch" and forced.root is None
    assert resolve(repo, env={"CTX_PROJECT": "global"}) is None
    assert resolve(repo, env={"CTX_PROJECT": ""}) == resolve(repo, env={})


def test_broken_git_file_is_not_a_repository(tmp_path):
    d = tmp_path / "odd"
    d.mkdir()
    (d / ".git").write_text("not a gitdir line\n")
    assert resolve(d) is None
    (d / ".git").write_text("gitdir: ../nowhere\n")
    assert resolve(d).root == os.path.realpath(d)  # a separate git dir: its folder is the project


def test_display_names_are_typeable():
    assert repo.display_name("/x/My Repo (old)") == "My-Repo-old"
    assert repo.display_name("/x/.hidden") == "hidden"
    assert repo.display_name("/x/日本") == "project"


def test_resolution_is_fast_and_spawns_nothing(tmp_path, monkeypatch):
    repo = make_repo(tmp_path / "api", remote="git@github.com:acme/api.git")
    git(repo, "worktree", "add", "-q", str(tmp_path / "wt"))
    deep = tmp_path / "wt" / "a" / "b" / "c" / "d"
    deep.mkdir(parents=True)

    def no_subprocess(*a, **k):
        raise AssertionError("project resolution must not spawn a process")

    monkeypatch.setattr(subprocess, "Popen", no_subprocess)
    monkeypatch.setattr(os, "system", no_subprocess)
    resolve(deep)
    t = time.process_time()  # CPU time: the suite shares two cores, so wall time measures neighbours
    for _ in range(50):
        ref = resolve(deep)
    per_call_ms = (time.process_time() - t) * 1000 / 50
    assert ref.key == "github.com/acme/api"
    assert per_call_ms < 2.0, per_call_ms  # SPEC §2.8 budget, with a wide margin
