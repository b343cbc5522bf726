"""Issue 40 item 6: LoCoMo retrieval under basic-memory's protocol, beside a stemmed BM25.

LoCoMo (Maharana et al., ACL 2024; snap-research/locomo `data/locomo10.json`, CC BY-NC 4.0)
is 10 long conversations, 272 sessions, 1,986 questions. The data is not in this repository
and must not be committed: get the file the Penfield audit pins (dial481/locomo-audit at
9493fb4b, `data/locomo10.json`, sha256 79fa87e9…) and its corrections (`audit/errors_conv_*.json`
in the same repository), e.g.

    git clone https://github.com/dial481/locomo-audit /work/data/locomo-audit
    .venv/bin/python -m bench.bench_ctx_locomo /work/data/locomo-audit/data/locomo10.json \
        --audit /work/data/locomo-audit          # or --audit a merged corrections .json
    CTX_BENCH_LOCOMO=/path/locomo10.json CTX_BENCH_LOCOMO_AUDIT=/path/locomo-audit make bench

Protocol (basic-memory-benchmarks, converters/locomo_to_corpus.py + scoring/retrieval.py):
one store of all 272 sessions, one document per session (a dated title and heading, then
`- **Speaker:** text` lines), the questions' evidence (`D<session>:<turn>`) mapped to session
documents, the audit's 156 corrections applied (question text cross-checked), top 10,
session-level recall@5/@10 (share of the question's sessions found) and MRR@10 (first one),
every question counted — also the 4 with no evidence, which score 0 for every system, as there.
Per category: 1 single-hop, 2 multi-hop, 3 temporal, 4 open-domain, 5 adversarial.

Systems, each over the same documents: ctx hybrid (what `ctx search` does), ctx semantic and
ctx keyword (its two halves), and a plain SQLite FTS5 BM25 with the Porter stemmer (query:
any non-stop word). Wall time per search is in-process (the store and model loaded); a
sample of cold `ctx search` runs gives the command's own time.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench import WORK, Bench

PINNED_SHA256 = "79fa87e90f04081343b8c8debecb80a9a6842b76a7aa537dc9fdf651ea698ff4"
WHERE = ("get it from https://github.com/dial481/locomo-audit (data/locomo10.json, pinned at "
         "9493fb4b; corrections in audit/) — CC BY-NC 4.0, never commit it")
CATEGORIES = {1: "single_hop", 2: "multi_hop", 3: "temporal", 4: "open_domain", 5: "adversarial"}
SYSTEMS = ("hybrid", "semantic", "keyword", "bm25")
DIR = WORK / "locomo"
VERSION = "1"


# ------------------------------------------------------------------------------ the corpus

def load(path: Path, audit: Path | None) -> tuple[list[dict], list[dict]]:
    """(documents, queries) as basic-memory's converter makes them."""
    convs = json.loads(path.read_text())
    if isinstance(convs, dict):
        convs = convs.get("data") or convs.get("conversations")
    corrections = _corrections(audit) if audit else {}
    docs, queries = [], []
    for ci, conv in enumerate(convs):
        blob = conv["conversation"]
        keys = sorted((k for k, v in blob.items() if re.match(r"^session_\d+$", k) and isinstance(v, list)),
                      key=lambda k: int(k.split("_")[1]))
        doc_of = {}
        for key in keys:
            num = int(key.split("_")[1])
            doc_id = f"locomo-c{ci:02d}-s{num:02d}"
            doc_of[num] = doc_id
            date = str(blob.get(f"{key}_date_time", "")).strip()
            lines = [f"{doc_id} ({date})" if date else doc_id, "",
                     f"# Chat session at {date}" if date else f"# {doc_id}", "", "## Conversation"]
            lines += [f"- **{t.get('speaker', 'unknown')}:** {str(t.get('text', '')).strip()}"
                      for t in blob[key] if str(t.get("text", "")).strip()]
            docs.append({"id": doc_id, "content": "\n".join(lines)})
        for qi, qa in enumerate(conv.get("qa", [])):
            evidence = qa.get("evidence") or []
            fix = corrections.get(f"locomo_{ci}_qa{qi}")
            if fix is not None:
                if str(fix.get("question", "")).strip() != str(qa.get("question", "")).strip():
                    raise SystemExit(f"audit correction locomo_{ci}_qa{qi} does not match the question")
                evidence = fix.get("correct_evidence") or evidence
            truth = set()
            for ev in evidence:
                m = re.match(r"^D(\d+):", ev) if isinstance(ev, str) else None
                if m and int(m.group(1)) in doc_of:
                    truth.add(doc_of[int(m.group(1))])
            cat = int(qa.get("category", 0))
            queries.append({"query": str(qa["question"]).strip(), "category": CATEGORIES.get(cat, f"cat_{cat}"),
                            "truth": sorted(truth), "corrected": fix is not None})
    return docs, queries


def _corrections(audit: Path) -> dict[str, dict]:
    if audit.is_dir():
        records = []
        for i in range(10):
            records += json.loads((audit / "audit" / f"errors_conv_{i}.json").read_text())
    else:
        records = json.loads(audit.read_text())
    return {str(r["question_id"]): r for r in records}


# ------------------------------------------------------------------------------ the stores

def ctx_store(docs: list[dict], digest: str) -> Path:
    """A ctx store of the documents, indexed with the current model (built once, reused)."""
    from ctx.core import db
    from ctx.semantic import index
    from ctx.semantic.embed import get_embedder
    from ctx.semantic.model import require

    DIR.mkdir(parents=True, exist_ok=True)
    model_id = require().model_id
    path = DIR / f"ctx-{digest[:12]}-{model_id.replace('/', '_')}.db"
    stamp = path.with_suffix(".version")
    if not (path.exists() and stamp.exists() and stamp.read_text() == VERSION):
        for p in DIR.glob(path.name + "*"):
            p.unlink()
        conn = db.connect(path)
        from ctx.core.store import Store

        Store(conn).add_many({"content": d["content"], "type": "observation"} for d in docs)
        conn.commit()
        t = time.perf_counter()
        index.ensure(conn, get_embedder(bulk=True))
        print(f"  indexed {len(docs)} sessions in {time.perf_counter() - t:.0f} s")
        conn.close()
        stamp.write_text(VERSION)
    conn = db.connect(path)
    from ctx.semantic.embed import english_companion

    companion = english_companion(model_id, bulk=True)  # English fusion (the default), as `ctx index`
    if companion is not None and index.missing_count(conn, companion.model_id):
        t = time.perf_counter()
        index.ensure(conn, companion)
        print(f"  indexed them for English fusion (MiniLM) in {time.perf_counter() - t:.0f} s")
    conn.close()
    return path


def bm25_store(docs: list[dict]) -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE d USING fts5(doc_id UNINDEXED, content, "
                 "tokenize='porter unicode61 remove_diacritics 2')")
    conn.executemany("INSERT INTO d (doc_id, content) VALUES (?, ?)",
                     [(d["id"], d["content"]) for d in docs])
    return conn


def bm25_search(conn: sqlite3.Connection, text: str, k: int = 10) -> list[str]:
    from ctx.semantic.search import STOPWORDS

    words = [w for w in re.findall(r"\w+", text.lower()) if w not in STOPWORDS and len(w) > 1]
    if not words:
        return []
    match = " OR ".join('"' + w.replace('"', '""') + '"' for w in dict.fromkeys(words))
    return [r[0] for r in conn.execute(
        "SELECT doc_id FROM d WHERE d MATCH ? ORDER BY bm25(d) LIMIT ?", (match, k))]


# ------------------------------------------------------------------------------ scoring

def evaluate(path: Path, audit: Path | None, *, cold_sample: int = 12) -> dict:
    from ctx.core import db
    from ctx.semantic.search import SearchOptions, search

    raw = path.read_bytes()
    digest = hashlib.sha256(raw).hexdigest()
    docs, queries = load(path, audit)
    store = ctx_store(docs, digest)
    conn = db.connect(store)
    doc_of = {nid: docs[i]["id"] for i, (nid,) in enumerate(
        conn.execute("SELECT id FROM nodes ORDER BY seq").fetchall())}
    bm = bm25_store(docs)
    per: dict[str, list[dict]] = {s: [] for s in SYSTEMS}
    for q in queries:
        truth = set(q["truth"])
        for system in SYSTEMS:
            t = time.perf_counter()
            if system == "bm25":
                ranked = bm25_search(bm, q["query"])
            else:
                res = search(conn, q["query"], SearchOptions(mode=system, top_k=20, top_n=10))
                ranked = [doc_of[h.node_id] for h in res.candidates[:10]]
            ms = (time.perf_counter() - t) * 1000
            per[system].append({"category": q["category"], "ms": ms, **_metrics(ranked, truth)})
    conn.close()
    out = {"sha256": digest, "pinned": digest == PINNED_SHA256, "sessions": len(docs),
           "questions": len(queries), "corrected": sum(q["corrected"] for q in queries),
           "no_evidence": sum(not q["truth"] for q in queries), "systems": {}}
    for system, rows in per.items():
        cats = {c: _agg([r for r in rows if r["category"] == c]) for c in CATEGORIES.values()}
        out["systems"][system] = {"all": _agg(rows), "by_category": cats,
                                  "headline": _agg([r for r in rows if r["category"] != "adversarial"])}
    out["cold_ctx_search_ms"] = _cold(store, [q["query"] for q in queries[::max(1, len(queries) // cold_sample)]])
    return out


def _metrics(ranked: list[str], truth: set[str]) -> dict:
    if not truth:
        return {"r5": 0.0, "r10": 0.0, "mrr": 0.0}
    first = next((i for i, d in enumerate(ranked[:10], 1) if d in truth), None)
    return {"r5": len(truth & set(ranked[:5])) / len(truth), "r10": len(truth & set(ranked[:10])) / len(truth),
            "mrr": 1.0 / first if first else 0.0}


def _agg(rows: list[dict]) -> dict:
    if not rows:
        return {}
    return {"n": len(rows), "recall@5": round(statistics.fmean(r["r5"] for r in rows), 4),
            "recall@10": round(statistics.fmean(r["r10"] for r in rows), 4),
            "mrr@10": round(statistics.fmean(r["mrr"] for r in rows), 4),
            "ms": round(statistics.fmean(r["ms"] for r in rows), 2)}


def _cold(store: Path, sample: list[str]) -> float | None:
    ctx = str(Path(sys.executable).parent / "ctx")
    if not os.path.exists(ctx):
        return None
    env = {**os.environ, "CTX_DB": str(store)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    times = []
    for text in sample:
        t = time.perf_counter()
        subprocess.run([ctx, "search", text, "--format", "json", "--top-n", "10"], env=env,
                       capture_output=True, check=True)
        times.append((time.perf_counter() - t) * 1000)
    return round(statistics.fmean(times), 1)


def print_table(out: dict) -> None:
    print(f"  LoCoMo: {out['sessions']} sessions, {out['questions']} questions "
          f"({out['corrected']} corrected by the audit, {out['no_evidence']} without evidence); "
          f"file {'is' if out['pinned'] else 'is NOT'} the pinned one")
    cats = list(CATEGORIES.values())
    print(f"    {'system':9s} {'R@5':>6s} {'R@10':>6s} {'MRR':>6s} {'ms':>6s}   "
          + "  ".join(f"{c[:11]:>11s}" for c in cats) + "   (R@5/MRR per category)")
    for system, s in out["systems"].items():
        a = s["all"]
        print(f"    {system:9s} {a['recall@5']:6.3f} {a['recall@10']:6.3f} {a['mrr@10']:6.3f} {a['ms']:6.1f}   "
              + "  ".join(f"{s['by_category'][c]['recall@5']:.3f}/{s['by_category'][c]['mrr@10']:.3f}"
                          for c in cats))
    if out.get("cold_ctx_search_ms") is not None:
        print(f"    cold `ctx search` (whole command, sample): {out['cold_ctx_search_ms']:.0f} ms mean")


def run(bench: Bench) -> None:
    from ctx.semantic.model import locate

    path = os.environ.get("CTX_BENCH_LOCOMO")
    if not path:
        print(f"  (skipped: set CTX_BENCH_LOCOMO to locomo10.json and CTX_BENCH_LOCOMO_AUDIT to the "
              f"audit; {WHERE})")
        return
    if locate() is None:
        print("  (skipped: the model is not built; run `make model`)")
        return
    audit = os.environ.get("CTX_BENCH_LOCOMO_AUDIT")
    out = evaluate(Path(path), Path(audit) if audit else None)
    print_table(out)
    h, s = out["systems"], out["systems"]["hybrid"]
    bench.report("LoCoMo hybrid recall@5", s["all"]["recall@5"], 0.90, "", "higher")
    bench.report("LoCoMo hybrid MRR@10", s["all"]["mrr@10"], 0.80, "", "higher")
    worst = min(s["by_category"][c]["recall@5"] - max(h[o]["by_category"][c]["recall@5"] for o in ("keyword", "bm25"))
                for c in CATEGORIES.values())
    bench.report("LoCoMo hybrid minus max(keyword, BM25) recall@5, worst category", worst, -0.0001, "", "higher")


def main(argv: list[str]) -> int:
    if not argv or argv[0].startswith("-"):
        print(f"usage: python -m bench.bench_ctx_locomo LOCOMO10.JSON [--audit DIR|FILE] [--json OUT]\n{WHERE}")
        return 2
    path = Path(argv[0])
    if not path.exists():
        print(f"{path}: no such file; {WHERE}")
        return 2
    audit = Path(argv[argv.index("--audit") + 1]) if "--audit" in argv else None
    out = evaluate(path, audit)
    print_table(out)
    if "--json" in argv:
        Path(argv[argv.index("--json") + 1]).write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
