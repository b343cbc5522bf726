"""ctx core: `ctx query` over 100k nodes, `ctx compose` of the default view on 10k nodes."""
from __future__ import annotations

import random
import sqlite3

from bench import ROOT, WORK, Bench, median_wall_ms

WORDS = ["auth", "token", "cache", "schema", "migration", "index", "port", "deploy", "staging", "rollback", "queue", "worker", "latency", "budget", "hook", "session", "prompt", "memory", "vector", "search", "refactor", "bug", "test", "flaky", "race", "lock", "timeout", "retry", "config", "secret", "build", "release"]
TYPES = ("fact", "decision", "pattern", "observation", "hypothesis", "task", "summary")
TIERS = ("tier:pinned", "tier:reference", "tier:working", "tier:off-context", None)


def build_store(path, n: int, *, seed: int = 7) -> None:
    """A realistic store: mixed types, tiers, project tags, ~60–400 char contents."""
    if path.exists():
        return
    from ctx import db
    from ctx.ids import new_ulid
    from ctx.store import Store

    rng = random.Random(seed)
    conn = db.connect(path)
    store = Store(conn)
    batch = []
    for i in range(n):
        words = rng.choices(WORDS, k=rng.randint(10, 60))
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


def run(bench: Bench) -> None:
    ctx = str(ROOT / ".venv" / "bin" / "ctx")
    big = WORK / "ctx-100k.db"
    small = WORK / "ctx-10k.db"
    build_store(big, 100_000)
    build_store(small, 10_000)
    q = "type:decision AND tag:project:api AND NOT tag:tier:off-context"
    bench.report("ctx query (100k nodes, type+tag+NOT)",
                 median_wall_ms([ctx, "--db", str(big), "query", q, "--format", "ids"]), 150)
    bench.report("ctx query (100k nodes, full-text word)",
                 median_wall_ms([ctx, "--db", str(big), "query", "rollback AND flaky", "--limit", "50",
                                 "--format", "ids"]), 150)
    bench.report("ctx compose default view (10k nodes)",
                 median_wall_ms([ctx, "--db", str(small), "compose"]), None)
    sqlite3.connect(big).close()
