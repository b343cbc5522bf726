"""Retrieval quality over a labelled set: recall@5, MRR@10 and nDCG@10 per search mode, and
the similarity floor for per-prompt injection (SPEC §3 "Calibrate before injecting").

The set (tests/ctx/data/retrieval.json) is nodes with keys, and queries with graded labels
{key: 2 (the answer) | 1 (also relevant)}; queries of kind "negative" have no label and
measure what an unrelated prompt scores. Used by tests/ctx/test_semantic_retrieval.py and
`make bench` (bench/bench_ctx_semantic.py).
"""
from __future__ import annotations

import json
import math
import re
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from ctx.semantic.search import STOPWORDS, SearchOptions, search


@dataclass
class ModeScore:
    mode: str
    recall_at_5: float        # relevant items (grade ≥ 1) in the top 5, averaged over queries
    answer_at_5: float        # queries whose answer (grade 2) is in the top 5
    mrr_at_10: float
    ndcg_at_10: float
    by_kind: dict = field(default_factory=dict)   # kind → recall@5


@dataclass
class Calibration:
    negatives_top: list[float]      # best similarity per negative query
    answers_top: list[float]        # similarity of the answer, per labelled query
    floor: float                    # suggested: the best separating value


def load_set(path: str | Path) -> dict:
    return json.loads(Path(path).read_text())


def populate(conn: sqlite3.Connection, data: dict) -> dict[str, str]:
    """Add the set's nodes to a (fresh) store; returns key → node id."""
    from ctx.core.store import Store

    store = Store(conn)
    nodes = store.add_many([{"content": n["content"], "type": n["type"]} for n in data["nodes"]])
    return {n["key"]: node.id for n, node in zip(data["nodes"], nodes)}


def content_words(text: str) -> set[str]:
    words = {w.lower() for w in re.findall(r"\w+", text)}
    return {w for w in words if w not in STOPWORDS and len(w) > 2}


def shared_words(query: str, content: str) -> set[str]:
    """Words (or 5-letter stems) a paraphrase query shares with its target."""
    q, c = content_words(query), content_words(content)
    stems = {w[:5] for w in c}
    return {w for w in q if w in c or w[:5] in stems}


def ranked_keys(conn, text: str, mode: str, ids_to_keys: dict[str, str], *, embedder=None,
                depth: int = 10) -> tuple[list[str], list]:
    res = search(conn, text, SearchOptions(mode=mode, top_k=max(20, depth), top_n=depth),
                 embedder=embedder)
    return [ids_to_keys[h.node_id] for h in res.candidates[:depth]], res.candidates[:depth]


def score_modes(conn, data: dict, key_to_id: dict[str, str], *, embedder=None,
                modes=("keyword", "semantic", "hybrid")) -> dict[str, ModeScore]:
    ids_to_keys = {v: k for k, v in key_to_id.items()}
    labelled = [q for q in data["queries"] if q["labels"]]
    out = {}
    for mode in modes:
        recall, answer, rr, ndcg = [], [], [], []
        kinds: dict[str, list[float]] = {}
        for q in labelled:
            keys, _ = ranked_keys(conn, q["query"], mode, ids_to_keys, embedder=embedder)
            answers = {k for k, g in q["labels"].items() if g >= 2}
            r5 = len(set(q["labels"]) & set(keys[:5])) / len(q["labels"])
            recall.append(r5)
            answer.append(len(answers & set(keys[:5])) / len(answers))
            kinds.setdefault(q["kind"], []).append(r5)
            first = next((i for i, k in enumerate(keys[:10], 1) if k in answers), None)
            rr.append(1.0 / first if first else 0.0)
            ndcg.append(_ndcg(keys[:10], q["labels"]))
        out[mode] = ModeScore(mode, _mean(recall), _mean(answer), _mean(rr), _mean(ndcg),
                              {k: round(_mean(v), 3) for k, v in kinds.items()})
    return out


def calibrate(conn, data: dict, key_to_id: dict[str, str], *, embedder=None,
              max_false_rate: float = 0.10) -> Calibration:
    """Top similarity of unrelated prompts vs the answers' similarity. The suggested floor
    is the lowest (to 0.01) at which at most `max_false_rate` of the unrelated prompts
    would still inject something: missing a memory costs a recall; injecting an unrelated
    one costs every prompt's attention."""
    ids_to_keys = {v: k for k, v in key_to_id.items()}
    neg, pos = [], []
    for q in data["queries"]:
        _, hits = ranked_keys(conn, q["query"], "semantic", ids_to_keys, embedder=embedder)
        if not q["labels"]:
            neg.append(max((h.similarity or 0.0) for h in hits) if hits else 0.0)
            continue
        answers = {key_to_id[k] for k, g in q["labels"].items() if g >= 2}
        sims = [h.similarity for h in hits if h.node_id in answers and h.similarity is not None]
        pos.append(max(sims) if sims else 0.0)
    allowed = int(max_false_rate * len(neg))
    floor = 0.0
    for cand in (x / 100 for x in range(101)):
        if sum(1 for x in neg if x >= cand) <= allowed:
            floor = cand
            break
    return Calibration(neg, pos, round(floor, 2))


def injected_share(values: list[float], floor: float) -> float:
    return sum(1 for x in values if x >= floor) / len(values) if values else 0.0


def _ndcg(keys: list[str], labels: dict[str, int]) -> float:
    dcg = sum((2 ** labels.get(k, 0) - 1) / math.log2(i + 2) for i, k in enumerate(keys))
    ideal = sorted(labels.values(), reverse=True)[:len(keys) or 10]
    idcg = sum((2 ** g - 1) / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def _mean(values) -> float:
    values = list(values)
    return sum(values) / len(values) if values else 0.0
