"""ctx core: `ctx query` over 100k nodes, `ctx compose` of the default view on 10k nodes."""
from __future__ import annotations

import random
import sqlite3

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


def run(bench: Bench) -> None:
    ctx = str(ROOT / ".venv" / "bin" / "ctx")
    big = WORK / "ctx-100k.db"
    small = WORK / "ctx-10k.db"
    build_store(big, 100_000)
    build_store(small, 10_000)
    q = "type:decision AND tag:project:api AND NOT tag:tier:off-context"
    bench.report("ctx query (100k nodes, type+tag+NOT)",
                 median_wall_ms([ctx, "--db", str(big), "query", q, "--format", "ids"]), 150)
    bench.report("ctx query (100k nodes, two full-text words)",
                 median_wall_ms([ctx, "--db", str(big), "query", "rollback AND flaky", "--limit", "50",
                                 "--format", "ids"]), 150)
    bench.report("  the same, JSON output of whole nodes",
                 median_wall_ms([ctx, "--db", str(big), "query", "rollback AND flaky", "--limit", "50",
                                 "--format", "json"]), 150)
    bench.report("  words in ~every node (cache memory), as ids",
                 median_wall_ms([ctx, "--db", str(big), "query", "cache memory", "--limit", "50",
                                 "--format", "ids"]), None)
    bench.report("ctx compose default view (10k nodes)",
                 median_wall_ms([ctx, "--db", str(small), "compose"]), None)
    sqlite3.connect(big).close()
