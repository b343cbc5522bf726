"""Issue 24: memory through git. What it costs where it matters:

- `ctx hook session-start` in a repository whose `.ctx/memory.jsonl` is unchanged, against
  the same hook in a repository without one (the budget: ≤ 2 ms more, and the hook stays
  ≤ 2.5× bare python); 10k nodes in the store, 200 in the shared file.
- importing a 5,000-node shared file into an empty project (what a new teammate's first
  session start does).
- a `ctx sync` round with 10k nodes: the first (export everything, commit, push) and one
  after a single change, both through a bare repository on this disk.
- issue 34: `ctx hook session-start` in a repository whose `.ctx/memory.jsonl` is a new
  100,000-line (27 MB) file (SPEC §6: ≤ 2 s) — the hook defers it and says so — and what
  `ctx project sync` then takes to import it.
"""
from __future__ import annotations

import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench import WORK, Bench, median_cpu_ms, median_wall_ms

DIR = WORK / "ctx_share"
CTX = str(Path(sys.executable).parent / "ctx")
WORDS = ["memory", "sqlite", "hook", "budget", "composition", "tier", "token", "claude",
         "session", "summary", "deploy", "staging"]
TIERS = ["tier:pinned"] * 2 + ["tier:reference"] * 30 + ["tier:working"] * 20 + \
    ["tier:off-context"] * 148


def git(cwd: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "b@example.com",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "b@example.com"}
    subprocess.run(["git", "-c", "init.defaultBranch=main", *args], cwd=cwd, env=env, check=True,
                   capture_output=True)


def records(n: int, offset: int = 0) -> list[dict]:
    return [{"content": f"Node {i}: " + " ".join(WORDS[(i + k) % len(WORDS)] for k in range(40)),
             "type": ("fact", "decision", "pattern")[i % 3], "tags": [TIERS[i % len(TIERS)]]}
            for i in range(offset, offset + n)]


def repo(path: Path) -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q")
    git(path, "remote", "add", "origin", f"git@example.com:bench/{path.name}.git")
    return path


def build() -> tuple[Path, Path, Path]:
    """(store with 10k nodes whose shared project file is read, repo with the file, repo without)."""
    from ctx.core import db, share
    from ctx.core.store import Store, current_scope

    if DIR.exists():
        shutil.rmtree(DIR)
    shared, plain = repo(DIR / "shared"), repo(DIR / "plain")
    dbfile = DIR / "store.db"
    conn = db.connect(dbfile)
    store = Store(conn)
    store.add_many(records(9_800))
    for folder in (shared, plain):
        scope = current_scope(conn, folder)
        store.add_many(records(100, 20_000), project_id=scope.write_project_id(conn))
        conn.commit()
    # the shared file: 200 nodes (the project's 100 pinned/reference/… + 100 more)
    scope = current_scope(conn, shared)
    store.add_many([{**r, "tags": ["tier:reference"]} for r in records(100, 30_000)],
                   project_id=scope.project.id)
    share.share_project(store, scope, share.Selection(tiers=("pinned", "reference", "working",
                                                             "off-context")), by="bench")
    conn.close()
    return dbfile, shared, plain


def cpu_ms(fn) -> tuple[float, float]:
    t0, c0 = time.perf_counter(), time.process_time()
    fn()
    return (time.perf_counter() - t0) * 1000, (time.process_time() - c0) * 1000


def run(bench: Bench) -> None:
    from ctx.core import db, share
    from ctx.core.store import Store, current_scope

    dbfile, shared, plain = build()
    # CPU time of the whole hook: in its own process (a served hook works in the server's child)
    env = {**os.environ, "CTX_DB": str(dbfile), "CTX_HOOK_SERVER": "0"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)

    def start(folder: Path) -> bytes:
        return json.dumps({"session_id": "bench", "hook_event_name": "SessionStart",
                           "source": "startup", "cwd": str(folder)}).encode()

    cmd = [CTX, "hook", "session-start"]
    bare = median_cpu_ms([sys.executable, "-c", "pass"], input=b"", env=env, runs=15)
    without = median_cpu_ms(cmd, input=start(plain), env=env, runs=15)
    with_file = median_cpu_ms(cmd, input=start(shared), env=env, runs=15)
    bench.report("ctx hook session-start, repo without a shared file (CPU)", without, None, "ms")
    bench.report("ctx hook session-start, unchanged .ctx/memory.jsonl (CPU)", with_file,
                 round(2.5 * bare, 1), "ms")
    bench.report("  difference: the shared-file check", with_file - without, 2, "ms")
    bench.report("  same hook, wall time", median_wall_ms(cmd, input=start(shared), env=env, runs=9),
                 None, "ms")

    # import of a 5,000-node shared file into a fresh project
    src_db, dst_db = DIR / "export.db", DIR / "import.db"
    team = repo(DIR / "team")
    conn = db.connect(src_db)
    store = Store(conn)
    scope = current_scope(conn, team)
    store.add_many([{**r, "tags": ["tier:reference"]} for r in records(5_000)],
                   project_id=scope.write_project_id(conn))
    conn.commit()
    wall, cpu = cpu_ms(lambda: share.share_project(store, current_scope(conn, team), by="bench"))
    conn.close()
    bench.report("ctx project share: write a 5,000-node file (wall)", wall, None, "ms")
    bench.report("  same, CPU", cpu, None, "ms")
    conn = db.connect(dst_db)
    store = Store(conn)
    report = None

    def do_import():  # what `ctx project sync` does (a session start defers a file this big)
        nonlocal report
        report = share.sync_project(store, current_scope(conn, team))

    wall, cpu = cpu_ms(do_import)
    assert report is not None and len(report.added) == 5_000, report and report.counts()
    conn.close()
    bench.report("import a 5,000-node .ctx/memory.jsonl (ctx project sync, wall)", wall, None, "ms")
    bench.report("  same, CPU", cpu, None, "ms")
    hook_env = {**env, "CTX_DB": str(DIR / "hook-import.db")}
    t0 = time.perf_counter()
    subprocess.run(cmd, input=start(team), env=hook_env, capture_output=True, check=True)
    bench.report("  the same file at a first `ctx hook session-start`: deferred (wall)",
                 (time.perf_counter() - t0) * 1000, None, "ms")

    # a `ctx sync` round with 10k nodes, through a bare repository
    remote = DIR / "remote.git"
    git(DIR, "init", "-q", "--bare", str(remote))
    home = DIR / "sync-home"
    home.mkdir()
    shutil.copy(dbfile, home / "store.db")
    sync_env = {**env, "CTX_HOME": str(home), "CTX_DB": str(home / "store.db"),
                "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "b@example.com"}

    def round_ms(*args: str) -> tuple[float, float]:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run([CTX, "sync", *args], env=sync_env, capture_output=True, check=True)
        wall = (time.perf_counter() - t0) * 1000
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return wall, (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000

    first = round_ms("--remote", str(remote))
    bench.report("ctx sync, first round, 10k nodes (wall)", first[0], None, "ms")
    bench.report("  same, CPU (ctx + git)", first[1], None, "ms")
    later = []
    for i in range(3):
        subprocess.run([CTX, "add", "--tag", "tier:reference", f"sync bench change {i}"],
                       env=sync_env, capture_output=True, check=True)
        later.append(round_ms())
    bench.report("ctx sync, a round after one change, 10k nodes (wall)",
                 statistics.median(w for w, _ in later), None, "ms")
    bench.report("  same, CPU (ctx + git)", statistics.median(c for _, c in later), None, "ms")

    huge_session_start(bench, dbfile, env, start, cmd)


def huge_session_start(bench: Bench, dbfile: Path, env: dict, start, cmd: list[str]) -> None:
    """A teammate (or an attacker) commits a 100,000-line shared file: session start must still
    answer within 2 s, with the user's own memory, and never roll it back."""
    huge = repo(DIR / "huge")
    lines = [json.dumps({"kind": "ctx-share", "version": 1})]
    filler = " ".join(WORDS[k % len(WORDS)] for k in range(24))
    for i in range(100_000):
        lines.append(json.dumps({"kind": "node", "id": f"01J{i:023d}", "type": "fact",
                                 "content": f"Shared {i}: {filler}", "tags": ["tier:reference"],
                                 "metadata": {}, "created_at": "2026-01-01T00:00:00Z",
                                 "updated_at": "2026-01-01T00:00:00Z", "by": "bench <b@example.com>"},
                                separators=(",", ":"), sort_keys=True))
    (huge / ".ctx").mkdir()
    path = huge / ".ctx" / "memory.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    size_mb = path.stat().st_size / 1e6
    huge_db = DIR / "huge.db"
    shutil.copy(dbfile, huge_db)
    hook_env = {**env, "CTX_DB": str(huge_db)}
    proc = subprocess.run(cmd, input=start(huge), env=hook_env, capture_output=True, check=True)
    assert b"ctx project sync" in proc.stderr, proc.stderr  # deferred, and it says so
    assert json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    wall = median_wall_ms(cmd, input=start(huge), env=hook_env, runs=5)
    bench.report(f"ctx hook session-start, a new 100k-line ({size_mb:.0f} MB) .ctx/memory.jsonl (wall)",
                 wall, 2000, "ms")
    t0 = time.perf_counter()
    subprocess.run([CTX, "project", "sync"], env=hook_env, capture_output=True, cwd=huge, check=True)
    bench.report("  then `ctx project sync` imports it (wall; no budget)",
                 (time.perf_counter() - t0) * 1000, None, "ms")
