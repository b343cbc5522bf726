"""SPEC §6 and issue 4: retrieval quality per search mode, embedding throughput, prompt-submit
with semantic selection on a 10k-node indexed store, and `ctx search` cold with 100k chunks.

Quality runs the real model over tests/ctx/data/retrieval.json (178 nodes, 81 queries).
The two scale stores are built once under .bench/ and reused. Their vectors are random
unit vectors written through the index's own layout (embedding 100k chunks for real would
take ~30 minutes on this machine, and timing does not depend on the vectors' values);
the query is still embedded by the real model, and everything else — loading segments,
brute-force cosine, FTS5, grouping, the request record — is the production path.
"""
from __future__ import annotations

import json
import os
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench import ROOT, WORK, Bench, median_cpu_ms, median_wall_ms

CTX = str(Path(sys.executable).parent / "ctx")
DIR = WORK / "ctx_semantic"
VERSION = "8"  # bump when the stores' shape changes (8: the English companion's vectors too)
WORDS = [
    "memory", "sqlite", "hook", "budget", "composition", "tier", "token", "claude", "session",
    "summary", "deploy", "billing", "invoice", "retry", "worker", "cache", "index", "vector",
    "search", "prompt", "review", "release", "canary", "rollback", "migration", "schema", "replica",
    "backup", "alert", "pager", "incident", "latency", "throughput", "tracing", "logging",
    "metrics", "dashboard", "queue", "broker", "webhook", "signature", "refund", "trial",
    "checkout", "cart", "payment", "card", "customer", "account", "workspace", "member", "invite",
    "role", "policy",
]


def _load() -> str:
    return f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)"


def _env() -> dict:
    env = {**os.environ}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed ctx has its .pyc files
    return env


def run(bench: Bench) -> None:
    from ctx.semantic.model import locate

    if locate() is None:
        print("  (skipped: the model is not built; run `make model`)")
        return
    DIR.mkdir(parents=True, exist_ok=True)
    only = set(filter(None, os.environ.get("CTX_BENCH_ONLY", "").split(",")))
    for part in (quality, throughput, prompt_submit, search_cold):
        if not only or part.__name__ in only:
            part(bench)


# ------------------------------------------------------------------------------ quality

def quality(bench: Bench) -> None:
    devset(bench)
    print("  the old (English) retrieval set, kept as a guard:")
    old_set(bench)


def devset(bench: Bench) -> None:
    """Issue 22's dev set: per class, each query asked from its project, and the floor."""
    from bench import retrieval_eval as ev
    from ctx.core import db
    from ctx.semantic import index
    from ctx.semantic.embed import get_embedder
    from ctx.semantic.model import require

    data = ev.load_set(ROOT / "tests" / "ctx" / "data" / "devset.json")
    with tempfile.TemporaryDirectory() as tmp:
        conn = db.connect(Path(tmp) / "d.db")
        ids, scope_of = ev.populate_devset(conn, data)
        index.ensure(conn, get_embedder(bulk=True))
        reports = {m: ev.score_devset(conn, data, ids, scope_of, mode=m)
                   for m in ("keyword", "semantic", "hybrid")}
        conn.close()
    labelled = sum(1 for q in data["queries"] if q["labels"])
    print(f"  dev set ({require().model_id}): {len(data['nodes'])} nodes in {len(data['projects'])} "
          f"projects + global, {labelled} answerable queries, {len(data['queries']) - labelled} with "
          f"nothing relevant")
    print("    recall@5 / MRR@10 " + " ".join(f"{k:>10s}" for k in ("overall", *ev.DEVSET_CLASSES)))
    for mode, r in reports.items():
        cells = [r.overall, *(r.by_class.get(k) for k in ev.DEVSET_CLASSES)]
        print(f"    {mode:17s} " + " ".join(f"{c.recall_at_5:.2f}/{c.mrr_at_10:.2f}" if c else "       -  "
                                             for c in cells))
    h = reports["hybrid"]
    bench.report("dev set hybrid recall@5", h.overall.recall_at_5, 0.85, "", "higher")
    bench.report("dev set hybrid MRR@10", h.overall.mrr_at_10, 0.90, "", "higher")
    bench.report("dev set worst class recall@5", min(c.recall_at_5 for c in h.by_class.values()), 0.75,
                 "", "higher")
    worst = min(h.by_class[k].recall_at_5 - max(reports["semantic"].by_class[k].recall_at_5,
                                                 reports["keyword"].by_class[k].recall_at_5)
                for k in h.by_class)
    bench.report("dev set: hybrid minus the better half, worst class", worst, -0.0001, "", "higher")
    for lang in sorted(h.clean_negatives):
        bench.report(f"dev set unrelated {lang} prompts that inject nothing", h.clean_negatives[lang], 0.90,
                     "", "higher")
    for lang in sorted(h.injected_answers):
        bench.report(f"dev set answerable {lang} prompts whose answer is injected", h.injected_answers[lang],
                     0.85, "", "higher")


def old_set(bench: Bench) -> None:
    from bench import retrieval_eval as ev
    from ctx.core import db
    from ctx.semantic import index
    from ctx.semantic.embed import get_embedder
    from ctx.semantic.select import FLOOR

    data = ev.load_set(ROOT / "tests" / "ctx" / "data" / "retrieval.json")
    with tempfile.TemporaryDirectory() as tmp:
        conn = db.connect(Path(tmp) / "r.db")
        ids = ev.populate(conn, data)
        index.ensure(conn, get_embedder(bulk=True))
        scores = ev.score_modes(conn, data, ids)
        cal = ev.calibrate(conn, data, ids)
        conn.close()
    labelled = sum(1 for q in data["queries"] if q["labels"])
    print(f"  retrieval set: {len(data['nodes'])} nodes, {labelled} labelled queries, "
          f"{len(data['queries']) - labelled} with nothing relevant")
    for mode in ("keyword", "semantic", "hybrid"):
        s = scores[mode]
        bench.report(f"{mode}: recall@5", s.recall_at_5, None, "", "higher")
        bench.report(f"{mode}: MRR@10", s.mrr_at_10, None, "", "higher")
        print(f"    answer@5 {s.answer_at_5:.3f}  nDCG@10 {s.ndcg_at_10:.3f}  recall@5 by kind "
              + ", ".join(f"{k} {v:.2f}" for k, v in s.by_kind.items()))
    h = scores["hybrid"]
    best_other = max(scores["keyword"].recall_at_5, scores["semantic"].recall_at_5)
    bench.report("hybrid recall@5 minus the better of the others", h.recall_at_5 - best_other, -0.0001,
                 "", "higher")
    best_other = max(scores["keyword"].mrr_at_10, scores["semantic"].mrr_at_10)
    bench.report("hybrid MRR@10 minus the better of the others", h.mrr_at_10 - best_other, -0.0001,
                 "", "higher")
    neg = sorted(cal.negatives_top)
    print(f"  calibration: unrelated prompts' best similarity median {statistics.median(neg):.2f}, "
          f"max {neg[-1]:.2f}; answers' median {statistics.median(cal.answers_top):.2f}")
    print(f"    suggested floor (≤ 10% of unrelated prompts inject) {cal.floor:.2f}; in use {FLOOR:.2f}: "
          f"{ev.injected_share(cal.answers_top, FLOOR):.0%} of answers and "
          f"{ev.injected_share(cal.negatives_top, FLOOR):.0%} of unrelated prompts pass it")


# ------------------------------------------------------------------------------ throughput

def throughput(bench: Bench) -> None:
    from ctx.semantic.embed import make_embedder
    from ctx.semantic.model import require

    rng = random.Random(7)
    chunks = []
    for _ in range(96):
        words = []
        while len(" ".join(words)) < 500:
            words.append(rng.choice(WORDS))
        chunks.append(" ".join(words)[:500])
    emb = make_embedder(require(), bulk=True)
    emb.embed(chunks[:16])  # (e5: loads tokenizer.json for bulk work)
    emb.embed(chunks[:8])  # warm-up
    rates, cpu_rates = [], []
    for _ in range(3):
        t0, c0 = time.perf_counter(), time.process_time()
        emb.embed(chunks)
        rates.append(len(chunks) / (time.perf_counter() - t0))
        cpu_rates.append(len(chunks) / (time.process_time() - c0))
    bench.report(f"embedding throughput, {emb.model_id}, 500-char chunks", statistics.median(rates), 40,
                 "ch/s", "higher")
    bench.report("  same, per CPU-second (×cores on an idle machine) " + _load(),
                 statistics.median(cpu_rates), None, "ch/s", "higher")


# ------------------------------------------------------------------------------ scale stores

def _vocabulary(rng: random.Random) -> tuple[list[str], list[float]]:
    """A Zipf-distributed vocabulary: 20k made-up words plus the domain words above at
    random ranks, so a query word matches a realistic share of notes, not all of them."""
    syll = ["ka", "to", "ri", "mon", "sel", "ta", "vin", "lo", "pra", "dex", "qu", "ber", "ni", "sa"]
    words = list({"".join(rng.choice(syll) for _ in range(rng.randint(2, 4))) for _ in range(30000)})
    words = words[:20000]
    for w in WORDS:
        words.insert(rng.randint(50, 3000), w)
    weights = [1.0 / (rank + 10) for rank in range(len(words))]
    return words, weights


def _text(rng: random.Random, vocab, i: int, paragraphs: int) -> str:
    words, weights = vocab
    paras = []
    for p in range(paragraphs):
        n = rng.randint(18, 40)
        paras.append(f"Note {i}.{p}: " + " ".join(rng.choices(words, weights, k=n)) + ".")
    return "\n\n".join(paras)


def build_store(path: Path, n_nodes: int, paragraphs: int) -> Path:
    """n_nodes agent-mode nodes (plus a few tiered ones), every chunk with a random vector."""
    stamp = path.with_suffix(".version")
    if path.exists() and stamp.exists() and stamp.read_text() == VERSION:
        return path
    for p in path.parent.glob(path.name + "*"):
        p.unlink()
    import numpy as np

    from ctx.core import db
    from ctx.core.db import transaction
    from ctx.core.store import Store
    from ctx.semantic import index
    from ctx.semantic.chunk import chunk_text, content_hash
    from ctx.semantic.model import DIM, MINILM, MODELS, require

    # e5's vectors, and MiniLM's beside them (English fusion, on by default: every note here
    # is English), as `ctx index` leaves a store
    model_ids = [require().model_id, MODELS[MINILM].model_id]
    rng = random.Random(n_nodes)
    vocab = _vocabulary(rng)
    conn = db.connect(path)
    store = Store(conn)
    batch = 5000
    for start in range(0, n_nodes, batch):
        store.add_many({"content": _text(rng, vocab, i, paragraphs), "type": "fact",
                        "tags": (["tier:reference"] if i % 500 == 0 else [f"project:p{i % 7}"])}
                       for i in range(start, min(start + batch, n_nodes)))
    vec_rng = np.random.default_rng(0)
    rows = conn.execute("SELECT id, content FROM nodes ORDER BY seq").fetchall()
    for model_id in model_ids:
        with transaction(conn):
            ids, now = [], "2026-01-01T00:00:00.000Z"
            for node_id, content in rows:
                chunks = chunk_text(content)
                for c in chunks:
                    cur = conn.execute("INSERT INTO chunks (node_id, model, idx, start, end) "
                                       "VALUES (?, ?, ?, ?, ?)", (node_id, model_id, c.idx, c.start, c.end))
                    ids.append(cur.lastrowid)
                conn.execute("INSERT INTO embedded_nodes (model, node_id, content_hash, chunk_count, "
                             "embedded_at) VALUES (?, ?, ?, ?, ?)",
                             (model_id, node_id, content_hash(content), len(chunks), now))
            ids = np.array(ids, dtype=np.int64)
            for s in range(0, len(ids), index.SEGMENT_ROWS):
                part = ids[s:s + index.SEGMENT_ROWS]
                vecs = vec_rng.standard_normal((len(part), DIM), dtype=np.float32)
                vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
                attrs = np.tile(np.array([0.0, 300.0], dtype="<f4"), (len(part), 1))
                index._write_segment(conn, model_id, part, vecs, attrs)
    conn.close()
    stamp.write_text(VERSION)
    return path


def _model_id() -> str:
    from ctx.semantic.model import require

    return require().model_id  # the main model's chunks (MiniLM's are the same chunks again)


def prompt_submit(bench: Bench) -> None:
    path = build_store(DIR / "store10k.db", 10_000, 1)
    # measure the semantic path itself: on a loaded machine the 1.5 s deadline would switch
    # to the keyword fallback and time that instead
    env = {**_env(), "CTX_DB": str(path), "CTX_SEMANTIC_DEADLINE": "60"}
    with sqlite3.connect(path) as conn:
        chunks = conn.execute("SELECT count(*) FROM chunks WHERE model = ?", (_model_id(),)).fetchone()[0]
    print(f"  store: 10,000 nodes, {chunks:,} chunks indexed")
    payload = json.dumps({"session_id": "bench-semantic", "hook_event_name": "UserPromptSubmit",
                          "prompt": "how does the billing worker retry a declined card payment?"}
                         ).encode()
    ms = median_wall_ms([CTX, "hook", "prompt-submit"], input=payload, env=env, runs=9, warmup=2)
    with sqlite3.connect(path) as conn:
        paths = [r[0] for r in conn.execute("SELECT path FROM requests ORDER BY seq DESC LIMIT 9")]
    if set(paths) != {"semantic"}:
        raise RuntimeError(f"prompt-submit did not take the semantic path: {paths}")
    bench.report("ctx hook prompt-submit, semantic selection, 10k nodes", ms, 150, "ms")
    bench.report("  same, CPU time, in its own process (no hook server) " + _load(),
                 median_cpu_ms([CTX, "hook", "prompt-submit"], input=payload,
                               env={**env, "CTX_HOOK_SERVER": "0"}, runs=5, warmup=0), None, "ms")


def search_cold(bench: Bench) -> None:
    path = build_store(DIR / "store100k.db", 50_000, 2)
    with sqlite3.connect(path) as conn:
        chunks = conn.execute("SELECT count(*) FROM chunks WHERE model = ?", (_model_id(),)).fetchone()[0]
    print(f"  store: 50,000 nodes, {chunks:,} chunks indexed")
    env = {**_env(), "CTX_DB": str(path)}
    cmd = [CTX, "search", "how does the billing worker retry a declined card payment?",
           "--format", "json"]
    ms = median_wall_ms(cmd, env=env, runs=7, warmup=2)
    bench.report(f"ctx search cold CLI, hybrid, {chunks // 1000}k chunks", ms, 500, "ms")
    bench.report("  same, CPU time (user+sys) " + _load(), median_cpu_ms(cmd, env=env, runs=5, warmup=0), None, "ms")
    ms = median_wall_ms(cmd + ["--mode", "semantic"], env=env, runs=5, warmup=1)
    bench.report("  same, --mode semantic", ms, 500, "ms")


if __name__ == "__main__":
    b = Bench()
    run(b)
    shutil.rmtree(DIR / "tmp", ignore_errors=True)
