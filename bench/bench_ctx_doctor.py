"""ctx doctor (issues 23, 36): the hand-written curation sets' precision/recall per kind
(bench/curation_eval.py: the two tune halves and the two held-out confirm halves, imported into a fresh
store with no index and checked by `ctx --all-projects doctor` as a user would; and with
`--review` against a local stub that answers from the labels — the ceiling of settling by
review under the default token cap), the
synthetic dev set's precision/recall per kind, `ctx doctor` on 10k nodes
(≤ 5 s), the write-time duplicate check at 10k nodes (≤ 10 ms), and what `--review` would
send for the dev set (tokens; nothing is sent)."""
from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import time

from bench import WORK, Bench

BUDGET_DOCTOR_MS = 5000
BUDGET_CHECK_MS = 10


def _store(path):
    from ctx.core import db
    from ctx.core.store import Store

    if path.exists():
        path.unlink()
    conn = db.connect(str(path))
    return Store(conn)


def _fill(store, total: int) -> None:
    """The dev set, then distinct facts up to `total` nodes (one transaction)."""
    from bench.doctor_devset import SERVICES

    n = store.count()
    words = ["cache", "queue", "index", "bucket", "topic", "schema", "token", "lease", "shard",
             "replica", "quota", "budget", "rollout", "canary", "backfill", "snapshot"]
    records = []
    for i in range(total - n):
        svc, word = SERVICES[i % len(SERVICES)], words[(i // len(SERVICES)) % len(words)]
        records.append({"content": f"{svc.title()} {word} {i}: keep the {word} for {svc} under "
                                   f"{100 + i % 900} entries (ticket OPS-{i})",
                        "tags": ["tier:reference"] if i % 10 == 0 else []})
    with store.transaction():
        for start in range(0, len(records), 1000):
            store.add_many(records[start:start + 1000])


def run(bench: Bench) -> None:
    from bench.doctor_devset import NOW, build, evaluate
    from ctx.core import dedupe
    from ctx.doctor import review
    from ctx.doctor.findings import Options, diagnose

    WORK.mkdir(exist_ok=True)
    _curation(bench)
    print("ctx doctor (dev set: bench/doctor_devset.py)")
    store = _store(WORK / "doctor-dev.db")
    gold = build(store)
    store.conn.commit()
    found = diagnose(store, Options(now=NOW, vectors=False))
    for kind, score in evaluate(found, gold).items():
        bench.report(f"doctor dev set {kind} precision ({gold.nodes} nodes)", score.precision,
                     0.90, "", better="higher")
        bench.report(f"doctor dev set {kind} recall", score.recall, 0.80, "", better="higher")
    contents = {n.id: n.content for n in store.get_many([i for f in found for i in f.ids])}
    plan = review.plan(found, contents, cap=10**9)
    bench.report(f"doctor --review on the dev set: {len(plan.pairs)} pairs, tokens", plan.total,
                 None, "tok")
    store.conn.close()

    path = WORK / "doctor-10k.db"
    store = _store(path)
    build(store)
    _fill(store, 10_000)
    store.conn.commit()
    texts = ["The billing service listens on port 7007",          # a duplicate in the set
             "A brand new fact nobody stored about the ledger",   # nothing like it
             "Search cache 37: keep the cache for search under 137 entries (ticket OPS-37)"]
    worst = 0.0
    for t in texts:  # the slowest of: an exact duplicate, a new fact, a templated near-miss
        times = []
        for _ in range(30):
            t0 = time.perf_counter()
            dedupe.check(store, t, None)
            times.append((time.perf_counter() - t0) * 1000)
        worst = max(worst, statistics.median(times))
    bench.report("write-time duplicate check, 10k nodes (slowest case, in process)", worst,
                 BUDGET_CHECK_MS)
    store.conn.close()

    walls, cpus = _doctor_runs(path, "--no-vectors")
    bench.report("ctx doctor --no-vectors, 10k nodes (whole process, wall)",
                 statistics.median(walls), BUDGET_DOCTOR_MS)
    bench.report("ctx doctor --no-vectors, 10k nodes (CPU)", statistics.median(cpus),
                 BUDGET_DOCTOR_MS)
    _with_vectors(bench, path)


def _doctor_runs(db, *options: str, runs: int = 3) -> tuple[list[float], list[float]]:
    """`ctx doctor -f json` on `db` in its own process, `runs` times: wall and CPU in ms."""
    env = {**os.environ, "CTX_DB": str(db)}
    cmd = [sys.executable, "-m", "ctx", "doctor", *options, "-f", "json"]
    walls, cpus = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run(cmd, env=env, capture_output=True, check=False)
        walls.append((time.perf_counter() - t0) * 1000)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
    return walls, cpus


def _with_vectors(bench: Bench, path) -> None:
    """`ctx doctor` (vectors by default) on the same 10k nodes with every vector present.
    The index is built once by the real model (`ctx index`, minutes on two cores) and kept
    in .bench/ for the next run."""
    import shutil

    from ctx.semantic.model import locate

    if locate() is None:
        print("  (no embedding model built: the 10k run with vectors is skipped)")
        return
    vec = WORK / "doctor-10k-vectors.db"
    if not vec.exists():
        print("  building the 10k index once (kept in .bench/doctor-10k-vectors.db) …", flush=True)
        tmp = WORK / "doctor-10k-vectors.tmp.db"
        shutil.copy(path, tmp)
        subprocess.run([sys.executable, "-m", "ctx", "index"], env={**os.environ, "CTX_DB": str(tmp)},
                       capture_output=True, check=True)
        tmp.rename(vec)
    walls, cpus = _doctor_runs(vec)
    bench.report("ctx doctor, 10k nodes, vectors present (whole process, wall)",
                 statistics.median(walls), BUDGET_DOCTOR_MS)
    bench.report("ctx doctor, 10k nodes, vectors present (CPU)", statistics.median(cpus),
                 BUDGET_DOCTOR_MS)
    _check_by_meaning(bench, vec)


def _check_by_meaning(bench: Bench, vec) -> None:
    """`_check_times` in a process set up as the hook server is (ctx.semantic.search: one
    BLAS thread, before numpy loads — this process has loaded numpy already)."""
    import json

    code = ("import json; from bench.bench_ctx_doctor import _check_times; "
            f"print(json.dumps(_check_times({str(vec)!r})))")
    out = subprocess.run([sys.executable, "-c", code], env={**os.environ, "OPENBLAS_NUM_THREADS": "1"},
                         capture_output=True, text=True, check=True).stdout
    worst, own = json.loads(out.strip().splitlines()[-1])
    bench.report("write-time check by meaning, 10k nodes, model warm, embedding the new text "
                 "(slowest case)", worst, None)
    bench.report("write-time check by meaning, 10k nodes, the new text's vector known "
                 "(the index reuses it; slowest case)", own, BUDGET_CHECK_MS)


def _check_times(vec: str) -> tuple[float, float]:
    """The write-time check with the embedder warm (as in the hook server): the word check,
    then the new text's vector against the index's 10k. Two rows: with the new text's
    embedding in the check (one e5 forward pass, most of the time), and without it — the
    vector the check computes is the one the index then stores for the new node
    (ctx.semantic.embed keeps the last few passages), so the write path embeds it once
    either way and only the rest is the check's own cost (the budget row)."""
    from functools import partial

    from ctx.core import db, dedupe
    from ctx.core.store import Store
    from ctx.doctor.paraphrase import paraphrase_of
    from ctx.semantic import embed

    store = Store(db.connect(vec, readonly=True))
    meaning = partial(paraphrase_of, load=True)
    texts = ["A brand new fact nobody stored about the ledger",
             "For search, the cache should stay below 137 entries (OPS-37)"]
    dedupe.check(store, texts[0], None, meaning=meaning)  # loads the model and the index once
    worst, own = 0.0, 0.0
    for t in texts:
        times, known = [], []
        for _ in range(10):
            embed._recent.clear()
            t0 = time.perf_counter()
            dedupe.check(store, t, None, meaning=meaning)
            times.append((time.perf_counter() - t0) * 1000)
            t0 = time.perf_counter()  # the same text again: its vector is known
            dedupe.check(store, t, None, meaning=meaning)
            known.append((time.perf_counter() - t0) * 1000)
        worst, own = max(worst, statistics.median(times)), max(own, statistics.median(known))
    store.conn.close()
    return worst, own


def _curation(bench: Bench) -> None:
    from bench.curation_eval import HALVES, run_set

    for name, path in HALVES:
        if not path.exists():
            print(f"  (no {path.relative_to(path.parents[2])}: the {name} half is skipped)")
            continue
        r = run_set(path)
        for kind, score in (("duplicate", r.duplicate), ("contradiction", r.contradiction)):
            bench.report(f"curation {name} half: {kind} precision ({score.found} found)",
                         score.precision, 0.90, "", better="higher")
            bench.report(f"curation {name} half: {kind} recall ({score.gold} labelled)",
                         score.recall, 0.80, "", better="higher")
        bench.report(f"curation {name} half: contradictions keeping the newer",
                     r.newer_kept / max(1, r.contradiction.right), 1.0, "", better="higher")
        bench.report(f"curation {name} half: look-alike traps flagged (of {r.traps})",
                     r.traps_flagged, None, "")
        # the first check of a store just imported embeds all of it (a one-time cost)
        bench.report(f"curation {name} half: first ctx doctor after import, embedding all (wall)",
                     r.seconds * 1000, None)
        # --review's plumbing against a local stub answering from the labels (a perfect
        # reviewer): what reaches the model under the default cap, and what it costs
        r = run_set(path, oracle=True)
        for kind, score in (("duplicate", r.duplicate), ("contradiction", r.contradiction)):
            bench.report(f"curation {name} half, --review with an oracle stub: {kind} precision",
                         score.precision, None, "")
            bench.report(f"curation {name} half, --review with an oracle stub: {kind} recall "
                         f"(the ceiling)", score.recall, None, "")
        bench.report(f"curation {name} half, --review with an oracle stub: {r.review['pairs']} "
                     f"pairs sent, tokens (cap 20k)", r.review["tokens"], 20_000, "tok")
