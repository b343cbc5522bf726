"""SPEC §2.8 + §6: the hooks on a 10k-node store spread over 20 projects, and what project
resolution itself costs.

The store (.bench/ctx_projects/store.db) holds 10,000 nodes: 5% global, the rest spread over
20 projects, each a real git repository under .bench/ctx_projects/repos (one with a linked
worktree, some with an origin remote). Hooks run as Claude Code runs them, from a subfolder of
one repository; resolution is timed in-process (it runs inside the hook) from a deep subfolder,
a linked worktree and a folder outside any repository.
"""
from __future__ import annotations

import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench import WORK, Bench, median_cpu_ms, median_wall_ms

N_NODES = 10_000
N_PROJECTS = 20
DIR = WORK / "ctx_projects"
STORE = DIR / "store.db"
REPOS = DIR / "repos"
CTX = str(Path(sys.executable).parent / "ctx")
TIERS = ["tier:pinned"] * 2 + ["tier:reference"] * 30 + ["tier:working"] * 20 + \
    ["tier:off-context"] * 148
TYPES = ["fact", "decision", "pattern", "observation", "summary"]
WORDS = ["memory", "sqlite", "hook", "budget", "composition", "tier", "token", "claude", "session",
         "summary"]


def _git(cwd: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@example.com",
           "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@example.com"}
    subprocess.run(["git", "-c", "init.defaultBranch=main", *args], cwd=cwd, env=env, check=True,
                   capture_output=True)


def build() -> None:
    if STORE.exists() and (REPOS / "p03-wt").exists():
        with sqlite3.connect(STORE) as conn:
            if conn.execute("SELECT count(*) FROM nodes").fetchone()[0] == N_NODES:
                return
    shutil.rmtree(DIR, ignore_errors=True)
    REPOS.mkdir(parents=True)
    from ctx.core import db
    from ctx.core import projects as scope
    from ctx.core import repo as projects
    from ctx.core.store import Store

    refs = []
    for p in range(N_PROJECTS):
        repo = REPOS / f"p{p:02d}"
        repo.mkdir()
        _git(repo, "init", "-q")
        if p % 2:
            _git(repo, "remote", "add", "origin", f"git@github.com:bench/p{p:02d}.git")
        (repo / "src" / "pkg" / "mod").mkdir(parents=True)
        refs.append(projects.resolve(repo, env={}))
    (REPOS / "p03" / "f").write_text("x\n")
    _git(REPOS / "p03", "add", "f")
    _git(REPOS / "p03", "commit", "-qm", "x")
    _git(REPOS / "p03", "worktree", "add", "-q", str(REPOS / "p03-wt"))
    (DIR / "outside" / "a" / "b").mkdir(parents=True)

    conn = db.connect(STORE)
    store = Store(conn)
    with store.transaction():
        ids = [scope.ensure(conn, ref).id for ref in refs]
        by_project: dict[int | None, list[dict]] = {}
        for i in range(N_NODES):
            pid = None if i % 20 == 0 else ids[i % N_PROJECTS]
            by_project.setdefault(pid, []).append({
                "content": f"Node {i}: " + " ".join(WORDS[(i + k) % len(WORDS)] for k in range(60)),
                "type": TYPES[i % len(TYPES)], "tags": [TIERS[(i // 3) % len(TIERS)]]})
        for pid, records in by_project.items():
            store.add_many(records, project_id=pid)
    conn.close()


def resolution_us(folder: Path, runs: int = 400) -> float:
    from ctx.core.repo import resolve

    resolve(folder, env={})
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        resolve(folder, env={})
        times.append((time.perf_counter() - t0) * 1e6)
    return statistics.median(times)


def run(bench: Bench) -> None:
    build()
    env = {**os.environ, "CTX_DB": str(STORE)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("CTX_PROJECT", None)
    cwd = REPOS / "p03" / "src" / "pkg"
    start = json.dumps({"session_id": "bench", "hook_event_name": "SessionStart", "source": "startup",
                        "cwd": str(cwd)}).encode()
    out = subprocess.run([CTX, "hook", "session-start"], input=start, env=env, capture_output=True,
                         check=True).stdout
    text = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert "project p03 + global" in text, text[:200]
    bench.report(f"ctx hook session-start, 10k nodes / 20 projects ({len(text)} chars)",
                 median_wall_ms([CTX, "hook", "session-start"], input=start, env=env, runs=9), 80, "ms")
    alone = {**env, "CTX_HOOK_SERVER": "0"}  # CPU of the whole hook: in its own process
    bench.report("  same, CPU time, in its own process (no hook server)",
                 median_cpu_ms([CTX, "hook", "session-start"], input=start, env=alone), None, "ms")

    reply = ('Noted. <ctx:remember type="fact" tags="tier:working">The bench reply remembers '
             'this.</ctx:remember> <ctx:recall query="type:decision AND tag:tier:reference"/> '
             '<ctx:status/>')
    stop = json.dumps({"session_id": "bench-stop", "hook_event_name": "Stop", "prompt_id": "p",
                       "cwd": str(cwd), "last_assistant_message": reply}).encode()
    stop_db = DIR / "stop.db"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{stop_db}{suffix}").unlink(missing_ok=True)
    shutil.copy(STORE, stop_db)
    bench.report("ctx hook stop, 3 commands, 10k nodes / 20 projects",
                 median_wall_ms([CTX, "hook", "stop", "--response", reply], input=stop,
                                env={**env, "CTX_DB": str(stop_db)}, runs=9), 80, "ms")
    bench.report("  same, CPU time, in its own process (no hook server)",
                 median_cpu_ms([CTX, "hook", "stop", "--response", reply], input=stop,
                               env={**alone, "CTX_DB": str(stop_db)}), None, "ms")

    bench.report("project resolution, deep subfolder of a repo", resolution_us(cwd / "mod"), 2000, "µs")
    bench.report("project resolution, linked worktree", resolution_us(REPOS / "p03-wt"), 2000, "µs")
    bench.report("project resolution, outside any repository",
                 resolution_us(DIR / "outside" / "a" / "b"), 2000, "µs")
    from ctx.core import db
    from ctx.core.store import current_scope

    conn = db.connect(STORE, readonly=True)
    times = []
    for _ in range(200):
        t0 = time.perf_counter()
        current_scope(conn, cwd, env={})
        times.append((time.perf_counter() - t0) * 1e6)
    conn.close()
    bench.report("current_scope (resolution + project lookup)", statistics.median(times), 2000, "µs")
