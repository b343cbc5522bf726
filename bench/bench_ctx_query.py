"""ctx query engine: time of each query shape on the 100k-node store, inside one process
(no interpreter start-up), so a slow shape shows up on its own; and the compile cost."""
from __future__ import annotations

import statistics
import time

from bench import WORK, Bench
from bench.bench_ctx_core import build_store

SHAPES = {
    "one tier tag": "tag:tier:pinned",
    "default view (3 tiers ORed)": "tag:tier:pinned OR tag:tier:reference OR tag:tier:working",
    "type + tag + NOT tag": "type:decision AND tag:project:api AND NOT tag:tier:off-context",
    "broad tag first, then narrow": "tag:tier:off-context tag:project:api type:task",
    "two words": "rollback flaky",
    "prefix word OR word": "roll* OR flaky",
    "words + tag + NOT word": "cache latency tag:project:web -retry",
    "date range + type": "created:>=2020-01-01 created:<2021 type:fact",
    "only a negation": "NOT tag:tier:off-context",
}


def _median_ms(fn, runs: int = 5) -> float:
    fn()  # warm the page cache
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def run(bench: Bench) -> None:
    from ctx.core import db
    from ctx.core.store import Store
    from ctx.query import compile_query

    path = WORK / "ctx-100k.db"
    build_store(path, 100_000)
    with db.opened(path, readonly=True) as conn:
        store = Store(conn)
        for name, q in SHAPES.items():
            cq = compile_query(q)
            ms = _median_ms(lambda cq=cq: store.select(cq.where, cq.params, ids_only=True))
            bench.report(f"query engine, 100k nodes: {name}", ms, None)
    q = "type:decision (tag:tier:pinned OR tag:tier:reference) created:>7d -oauth \"a b\""
    n = 2000
    t0 = time.perf_counter()
    for _ in range(n):
        compile_query(q)
    bench.report("query compile (parse + SQL), 9 terms", (time.perf_counter() - t0) / n * 1e6,
                 1000, "µs")
