"""ctx core: `ctx query`, `list` and `show` over 100k nodes, `ctx --help`, `ctx query --help`
and a bare `ctx` — whole processes on the plain path (Typer; the hook server is the one speed
mechanism: SPEC §6 restated) — and `ctx compose` of the default view on 10k nodes. SPEC §6:
reads and help ≤ 150 ms; the bare interpreter is measured in the same run for scale."""
from __future__ import annotations

import random
import sqlite3
import statistics
import subprocess
import sys
import time

from bench import ROOT, WORK, Bench, median_wall_ms

WORDS = [
    "auth", "token", "cache", "schema", "migration", "index", "port", "deploy", "staging",
    "rollback", "queue", "worker", "latency", "budget", "hook", "session", "prompt", "memory",
    "vector", "search", "refactor", "bug", "test", "flaky", "race", "lock", "timeout", "retry",
    "config", "secret", "build", "release",
]
# Text with a natural (Zipf) word distribution: a few words are everywhere, most are rare —
# as in real notes. The 30 domain words above take the top ranks, then ~3,000 filler words.
_SYLLABLES = ["ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "be", "da", "fe", "gi", "ho", "ju", "ke", "la"]
FILLER = [a + b + c for a in _SYLLABLES for b in _SYLLABLES for c in _SYLLABLES[:12]]
VOCAB = list(WORDS) + FILLER
ZIPF = [1.0 / (rank + 1) for rank in range(len(VOCAB))]
TYPES = ("fact", "decision", "pattern", "observation", "hypothesis", "task", "summary")
READ_MS = 150  # SPEC §6: reads and --help on the plain path
TIERS = ("tier:pinned", "tier:reference", "tier:working", "tier:off-context", None)


def build_store(path, n: int, *, seed: int = 7) -> None:
    """A realistic store: mixed types, tiers, project tags, ~60–400 char contents."""
    if path.exists():
        return
    from ctx.core import db
    from ctx.core.ids import new_ulid
    from ctx.core.store import Store

    rng = random.Random(seed)
    conn = db.connect(path)
    store = Store(conn)
    batch = []
    for i in range(n):
        words = rng.choices(VOCAB, weights=ZIPF, k=rng.randint(10, 60))
        tier = rng.choices(TIERS, weights=(1, 20, 10, 30, 39))[0]
        tags = [f"project:{rng.choice(['api', 'web', 'ctx', 'cue', 'infra'])}"] + ([tier] if tier else [])
        batch.append({"id": new_ulid(), "content": f"note {i}: " + " ".join(words),
                      "type": rng.choice(TYPES), "tags": tags})
        if len(batch) == 5000:
            store.add_many(batch)
            batch = []
    if batch:
        store.add_many(batch)
    conn.execute("PRAGMA optimize")
    conn.close()


def compile_sources() -> None:
    """Byte-compile ctx and cuectx as an install does (pip writes .pyc files), so a shell with
    PYTHONDONTWRITEBYTECODE=1 does not make every run compile ctx from source (+30-40 ms)."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "ctx"), str(ROOT / "cuectx")],
                   check=True, capture_output=True)


def help_ms(ctx: str, args: tuple[str, ...] = ("--help",)) -> float:
    """`ctx ARGS` (a help request), median ms. A bare `ctx` prints the help on stderr with
    exit 2, as click does."""
    want = 2 if not args else 0
    times = []
    for _ in range(10):
        t0 = time.perf_counter()
        proc = subprocess.run([ctx, *args], capture_output=True, check=False)
        times.append((time.perf_counter() - t0) * 1000)
        if proc.returncode != want or b"Usage: ctx" not in proc.stdout + proc.stderr:
            raise RuntimeError(f"ctx {' '.join(args)} failed ({proc.returncode})")
    return statistics.median(times[1:])


def run(bench: Bench) -> None:
    ctx = str(ROOT / ".venv" / "bin" / "ctx")
    big = WORK / "ctx-100k.db"
    small = WORK / "ctx-10k.db"
    build_store(big, 100_000)
    build_store(small, 10_000)
    compile_sources()
    bench.report("bare `python -c pass`, for scale", median_wall_ms([sys.executable, "-c", "pass"], runs=9))
    q = "type:decision AND tag:project:api AND NOT tag:tier:off-context"
    bench.report("ctx query (100k nodes, type+tag+NOT)",
                 median_wall_ms([ctx, "--db", str(big), "query", q, "--format", "ids"]), READ_MS)
    bench.report("ctx query (100k nodes, two full-text words)",
                 median_wall_ms([ctx, "--db", str(big), "query", "rollback AND flaky", "--limit", "50",
                                 "--format", "ids"]), READ_MS)
    bench.report("  the same, JSON output of whole nodes",
                 median_wall_ms([ctx, "--db", str(big), "query", "rollback AND flaky", "--limit", "50",
                                 "--format", "json"]), READ_MS)
    bench.report("  words in ~every node (cache memory), as ids",
                 median_wall_ms([ctx, "--db", str(big), "query", "cache memory", "--limit", "50",
                                 "--format", "ids"]), None)
    bench.report("ctx list (100k nodes, type+tag, newest 50, JSON)",
                 median_wall_ms([ctx, "--db", str(big), "list", "--type", "decision", "--tag",
                                 "project:api", "--limit", "50", "--format", "json"]), READ_MS)
    conn = sqlite3.connect(big)
    some = conn.execute("SELECT id FROM nodes ORDER BY id LIMIT 1 OFFSET 50000").fetchone()[0]
    conn.close()
    bench.report("ctx show (100k nodes, one node, JSON)",
                 median_wall_ms([ctx, "--db", str(big), "show", some, "--format", "json"]), READ_MS)
    bench.report("ctx --help", help_ms(ctx), READ_MS)
    bench.report("  ctx query --help", help_ms(ctx, ("query", "--help")), READ_MS)
    bench.report("  a bare ctx (help on stderr, exit 2)", help_ms(ctx, ()), READ_MS)
    bench.report("ctx compose default view (10k nodes)",
                 median_wall_ms([ctx, "--db", str(small), "compose"]), None)
    sqlite3.connect(big).close()
