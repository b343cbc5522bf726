"""`ctx sync` (issue 24): your own memory on two machines through a git remote you control —
here a bare repository on this disk, two ctx homes, the system git, the real `ctx` command."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from test_share import git


class Machine:
    def __init__(self, root: Path, remote: Path, ctx_bin: str):
        self.root, self.remote, self.ctx_bin = root, remote, ctx_bin
        self.home = root / "ctx-home"
        self.home.mkdir(parents=True)
        # the same repository, cloned somewhere else on each machine: same origin, same project
        self.app = root / "src" / "app"
        self.app.mkdir(parents=True)
        git(self.app, "init", "-q")
        git(self.app, "remote", "add", "origin", "git@github.com:acme/app.git")

    def ctx(self, *args: str, cwd: Path | None = None, check: bool = True) -> subprocess.CompletedProcess:
        env = {k: v for k, v in os.environ.items() if not k.startswith("CTX_")}
        env.update(CTX_HOME=str(self.home), CTX_DB=str(self.home / "store.db"),
                   GIT_AUTHOR_NAME="Me", GIT_AUTHOR_EMAIL="me@example.com")
        proc = subprocess.run([self.ctx_bin, *args], check=False, env=env, capture_output=True, text=True,
                              timeout=120, cwd=cwd or self.root)
        if check:
            assert proc.returncode == 0, proc.stderr
        return proc

    def add(self, content: str, *tags: str, cwd: Path | None = None) -> str:
        args = [a for t in tags for a in ("--tag", t)]
        return self.ctx("add", *args, content, cwd=cwd).stdout.strip()

    def sync(self, *extra: str) -> dict:
        return json.loads(self.ctx("sync", "--remote", str(self.remote), "--format", "json", *extra).stdout)

    def nodes(self) -> dict[str, tuple]:
        out = self.ctx("--all-projects", "list", "--include-superseded", "--format", "json").stdout
        return {n["id"]: (n["content"], n["superseded_by"], tuple(sorted(n["tags"])), n["project"])
                for n in json.loads(out)}


@pytest.fixture
def machines(tmp_path, ctx_bin):
    remote = tmp_path / "usb" / "ctx.git"
    remote.parent.mkdir()
    git(tmp_path, "init", "-q", "--bare", str(remote))
    return Machine(tmp_path / "laptop", remote, ctx_bin), Machine(tmp_path / "desktop", remote, ctx_bin)


def test_every_project_and_tier_reaches_the_other_machine(machines):
    laptop, desktop = machines
    laptop.add("Prefer short commit subjects", "tier:pinned")               # global
    proj = laptop.add("Staging DB listens on port 6543", "tier:reference", cwd=laptop.app)
    laptop.add("Half-done idea: cache the index", "tier:working", cwd=laptop.app)
    laptop.add("My review notes", "tier:off-context", "private", cwd=laptop.app)
    newer = laptop.add("Staging DB listens on port 7000", "tier:reference", cwd=laptop.app)
    laptop.ctx("supersede", proj, newer)
    first = laptop.sync()
    assert first["pushed"] and first["ahead"] == 0 and first["exported_nodes"] == 5
    got = desktop.sync()
    assert got["imported"]["added"] == 5, got
    assert desktop.nodes() == laptop.nodes()
    assert desktop.nodes()[proj][1] == newer  # the supersede link came along
    # the desktop's session in its own clone of the repository sees the project's memory
    listed = desktop.ctx("list", "--format", "ids", cwd=desktop.app).stdout.split()
    assert newer in listed and proj not in listed
    status = json.loads(desktop.ctx("sync", "--status", "--format", "json").stdout)
    assert status["ahead"] == 0 and status["behind"] == 0 and not status["unexported_changes"]
    # the clone is yours only
    assert oct(os.stat(desktop.home / "sync").st_mode & 0o777) == "0o700"


def test_both_machines_edit_the_same_node_and_converge(machines):
    laptop, desktop = machines
    node = laptop.add("Deploy with make deploy", "tier:reference", cwd=laptop.app)
    laptop.sync()
    desktop.sync()
    laptop.ctx("update", node, "Deploy with make deploy ENV=staging")
    desktop.ctx("update", node, "Deploy with make release")  # later: wins
    laptop.sync()
    merged = desktop.sync()
    assert merged["imported"]["conflicts"] == 1
    laptop.sync()
    assert laptop.nodes() == desktop.nodes()
    live = {k: v for k, v in laptop.nodes().items() if v[1] is None}
    assert live[node][0] == "Deploy with make release"
    assert any(v == ("Deploy with make deploy ENV=staging", node) for v in
               ((c, s) for c, s, _, _ in laptop.nodes().values()))


def test_offline_rounds_queue_and_catch_up(machines):
    laptop, desktop = machines
    laptop.add("first", "tier:reference")
    laptop.sync()
    away = laptop.remote.with_name("unplugged.git")
    shutil.move(laptop.remote, away)  # the USB disk is unplugged
    laptop.add("written offline", "tier:reference")
    # not the network: a path that is not there is an error (exit 1, git's own reason), and
    # the round's commit still waits in the clone (issue 34)
    offline = laptop.ctx("sync", "--remote", str(laptop.remote), check=False)
    assert offline.returncode == 1 and "does not appear to be a git repository" in offline.stderr
    assert "1 commit queued" in offline.stderr
    status = json.loads(laptop.ctx("sync", "--status", "--format", "json").stdout)
    assert status["ahead"] == 1 and not status["reachable"]
    shutil.move(away, laptop.remote)
    back = laptop.sync()
    assert back["pushed"] and back["ahead"] == 0
    desktop.sync()
    assert "written offline" in {c for c, *_ in desktop.nodes().values()}


def test_a_deletion_travels_between_machines(machines):
    laptop, desktop = machines
    gone = laptop.add("obsolete", "tier:reference")
    laptop.sync()
    desktop.sync()
    assert gone in desktop.nodes()
    laptop.ctx("rm", gone)
    laptop.sync()
    got = desktop.sync()
    assert got["imported"]["deleted"] == 1
    # hidden, not hard-deleted: superseded by a marker saying where the deletion came from
    content, marker, *_ = desktop.nodes()[gone]
    assert content == "obsolete" and desktop.nodes()[marker][0].startswith("Deleted through sync:")
    assert gone not in json.loads(desktop.ctx("--all-projects", "list", "--format", "json").stdout)


def test_sync_without_a_remote_says_how_to_start(machines):
    laptop, _ = machines
    run = laptop.ctx("sync", check=False)
    assert run.returncode == 1 and "ctx sync --remote URL" in run.stderr
    assert "not set up" in laptop.ctx("sync", "--status").stderr


def test_a_node_moved_to_global_memory_moves_on_the_other_machine(machines):
    laptop, desktop = machines
    node = laptop.add("Use ruff for linting", "tier:pinned", cwd=laptop.app)
    laptop.sync()
    desktop.sync()
    assert desktop.nodes()[node][3] == "app"
    laptop.ctx("project", "move", node, "--to", "global", cwd=laptop.app)
    laptop.sync()
    desktop.sync()
    assert desktop.nodes()[node][3] is None
