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
from contextlib import contextmanager
from pathlib import Path

from ctx.semantic.search import STOPWORDS, SearchOptions, search
from cuectx.value import Value


class ModeScore(Value):
    __slots__ = ("answer_at_5", "by_kind", "mode", "mrr_at_10", "ndcg_at_10", "recall_at_5")

    def __init__(self, mode: str, recall_at_5: float, answer_at_5: float, mrr_at_10: float,
                 ndcg_at_10: float, by_kind: dict | None = None) -> None:
        self.mode = mode
        self.recall_at_5 = recall_at_5  # relevant items (grade ≥ 1) in the top 5, averaged over queries
        self.answer_at_5 = answer_at_5  # queries whose answer (grade 2) is in the top 5
        self.mrr_at_10 = mrr_at_10
        self.ndcg_at_10 = ndcg_at_10
        self.by_kind = {} if by_kind is None else by_kind  # kind → recall@5


class Calibration(Value):
    __slots__ = ("answers_top", "floor", "negatives_top")

    def __init__(self, negatives_top: list[float], answers_top: list[float], floor: float) -> None:
        self.negatives_top = negatives_top  # best similarity per negative query
        self.answers_top = answers_top  # similarity of the answer, per labelled query
        self.floor = floor  # suggested: the best separating value


def load_set(path: str | Path) -> dict:
    """A dev-set file; one with "nodes_from" (a file beside it) asks its queries over that
    file's projects and nodes, plus its own (devset_hard.json over devset.json's notes)."""
    path = Path(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    base = data.get("nodes_from")
    if base:
        other = load_set(path.parent / base)
        data["projects"] = list(dict.fromkeys([*other["projects"], *data.get("projects", [])]))
        data["nodes"] = [*other["nodes"], *data.get("nodes", [])]
    return data


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


# ------------------------------------------------------------------------------ dev set

DEVSET_CLASSES = ("keyword", "paraphrase", "identifier", "middle", "ko_en", "en_ko", "ko_ko", "mixed")


class ClassScore(Value):
    __slots__ = ("mrr_at_10", "queries", "recall_at_5")

    def __init__(self, queries: int, recall_at_5: float, mrr_at_10: float) -> None:
        self.queries = queries
        self.recall_at_5 = recall_at_5  # the answers (grade 2) found in the top 5, averaged
        self.mrr_at_10 = mrr_at_10  # 1 / rank of the first answer


class DevsetReport(Value):
    __slots__ = ("by_class", "clean_negatives", "injected_answers", "mode", "overall")

    def __init__(self, mode: str, overall: ClassScore, by_class: dict[str, ClassScore],
                 injected_answers: dict[str, float] | None = None,
                 clean_negatives: dict[str, float] | None = None) -> None:
        self.mode = mode
        self.overall = overall
        self.by_class = by_class
        # per-prompt injection (the floor): answerable prompts whose answer passes, unrelated
        # prompts that inject nothing — per language of the prompt
        self.injected_answers = {} if injected_answers is None else injected_answers
        self.clean_negatives = {} if clean_negatives is None else clean_negatives


def populate_devset(conn: sqlite3.Connection, data: dict) -> tuple[dict[str, str], dict]:
    """The dev set's projects and nodes in a fresh store: (key → node id, project → Scope)."""
    from ctx.core import projects as scopes
    from ctx.core.repo import ProjectRef
    from ctx.core.store import Scope, Store

    store = Store(conn)
    found = {}
    for name in data["projects"]:
        found[name] = scopes.ensure(conn, ProjectRef(f"dev/{name}", name, None, None, "git"))
    conn.commit()
    ids: dict[str, str] = {}
    for name in [None, *data["projects"]]:
        group = [n for n in data["nodes"] if n["project"] == name]
        pid = found[name].id if name else None
        nodes = store.add_many([{"content": n["content"], "type": n["type"], "tags": n.get("tags", [])}
                                for n in group], project_id=pid)
        ids.update({n["key"]: node.id for n, node in zip(group, nodes)})
    scope_of = {name: Scope(project=p) for name, p in found.items()}
    scope_of[None] = Scope()
    return ids, scope_of


def score_devset(conn, data: dict, ids: dict[str, str], scope_of: dict, *, mode: str = "hybrid",
                 embedder=None, floor: float | None = None, select_options=None) -> DevsetReport:
    """Per-class recall@5 and MRR@10 of the answers, each query asked from its project; with
    `floor`/`select_options`, also what per-prompt selection (ctx.semantic.select.choose) would
    inject: the share of answerable prompts whose answer is injected, and of unrelated prompts
    that inject nothing, per prompt language."""
    from ctx.semantic.search import Eligibility
    from ctx.semantic.select import SelectOptions, choose

    opts = select_options or SelectOptions(**({"floor": floor} if floor is not None else {}))
    rows: dict[str, list[tuple[float, float]]] = {}
    inj: dict[str, list[bool]] = {}
    clean: dict[str, list[bool]] = {}
    for q in data["queries"]:
        elig = Eligibility.within(scope_of[q["project"]])
        res = search(conn, q["query"], SearchOptions(mode=mode, top_k=20, top_n=10),
                     eligibility=elig, embedder=embedder)
        ranked = [h.node_id for h in res.candidates[:10]]
        path = "keyword" if mode == "keyword" else "semantic"
        contents = dict(conn.execute(
            f"SELECT id, content FROM nodes WHERE id IN ({','.join('?' * len(res.candidates))})",
            [h.node_id for h in res.candidates]).fetchall()) if res.candidates else {}
        selected, _ = choose(res.candidates, opts, path=path, prompt=q["query"], contents=contents)
        chosen = {c.node_id for c in selected}
        if not q["labels"]:
            clean.setdefault(q["lang"], []).append(not chosen)
            continue
        answers = {ids[k] for k, g in q["labels"].items() if g >= 2}
        r5 = len(answers & set(ranked[:5])) / len(answers)
        first = next((i for i, n in enumerate(ranked, 1) if n in answers), None)
        rows.setdefault(q["kind"], []).append((r5, 1.0 / first if first else 0.0))
        inj.setdefault(q["lang"], []).append(bool(answers & chosen))
    every = [r for v in rows.values() for r in v]

    def score(v):
        return ClassScore(len(v), _mean(r for r, _ in v), _mean(m for _, m in v))

    return DevsetReport(mode, score(every), {k: score(rows[k]) for k in DEVSET_CLASSES if k in rows},
                        {k: _mean(v) for k, v in inj.items()}, {k: _mean(v) for k, v in clean.items()})


# ------------------------------------------------------------------------------ halves

class SetReport(Value):
    """One dev-set half through `ctx search` (hybrid ranks) and through the hooks."""
    __slots__ = ("by_kind", "clean", "name", "nodes", "overall", "reach", "reach_prompt",
                 "untiered_reach")

    def __init__(self, name: str, nodes: int, overall: ClassScore, by_kind: dict[str, ClassScore],
                 reach: dict[str, float] | None = None,
                 reach_prompt: dict[str, float] | None = None,
                 clean: dict[str, float] | None = None,
                 untiered_reach: float | None = None) -> None:
        self.name = name
        self.nodes = nodes
        self.overall = overall
        self.by_kind = by_kind
        # through the hooks: answerable prompts whose answer reached Claude (session start's view
        # or prompt-submit's injection), unrelated prompts that injected nothing — per language
        self.reach = {} if reach is None else reach
        self.reach_prompt = {} if reach_prompt is None else reach_prompt  # prompt-submit alone
        self.clean = {} if clean is None else clean
        self.untiered_reach = untiered_reach  # answerable prompts whose answer has no tier

    def row(self) -> dict:
        return {"name": self.name, "nodes": self.nodes,
                "overall": [self.overall.queries, round(self.overall.recall_at_5, 3),
                            round(self.overall.mrr_at_10, 3)],
                "by_kind": {k: [c.queries, round(c.recall_at_5, 3), round(c.mrr_at_10, 3)]
                            for k, c in self.by_kind.items()},
                "reach": _rounded(self.reach), "reach_prompt": _rounded(self.reach_prompt),
                "clean": _rounded(self.clean), "untiered_reach": self.untiered_reach}


def _rounded(d: dict) -> dict:
    return {k: round(v, 3) for k, v in d.items()}


def score_half(path: str | Path, name: str, *, hooks: bool = True, embedder=None) -> SetReport:
    """Load a dev-set file (devset.json's schema), build a fresh store of it, and score every
    query: recall@5 / MRR@10 of its answers (grade 2) in `ctx search`'s hybrid ranking, asked
    from its project; with `hooks`, what the session start's view and prompt-submit's
    injection (ctx.claude.requests.build_request, the hook's own call) deliver."""
    data = load_set(path)
    with indexed_store(data) as (conn, db_path, ids, scope_of):
        return _score_half(conn, db_path, data, ids, scope_of, name, hooks, embedder)


@contextmanager
def indexed_store(data: dict):
    """A fresh store of a dev set in a temporary folder, embedded as `ctx index` would:
    (connection, its path, set key → node id, project → scope); removed afterwards."""
    import tempfile

    from ctx.core import db
    from ctx.semantic import index
    from ctx.semantic.embed import get_embedder

    with tempfile.TemporaryDirectory() as tmp:
        db_path = str(Path(tmp) / "store.db")
        conn = db.connect(db_path)
        try:
            ids, scope_of = populate_devset(conn, data)
            index.ensure(conn, get_embedder(bulk=True))
            conn.commit()
            yield conn, db_path, ids, scope_of
        finally:
            conn.close()


def _score_half(conn, db_path, data, ids, scope_of, name, hooks, embedder) -> SetReport:
    from ctx.semantic.search import Eligibility

    rows: dict[str, list[tuple[float, float]]] = {}
    for q in data["queries"]:
        if not q["labels"]:
            continue
        res = search(conn, q["query"], SearchOptions(mode="hybrid", top_k=20, top_n=10),
                     eligibility=Eligibility.within(scope_of[q["project"]]), embedder=embedder)
        ranked = [h.node_id for h in res.candidates[:10]]
        answers = {ids[k] for k, g in q["labels"].items() if g >= 2}
        r5 = len(answers & set(ranked[:5])) / len(answers)
        first = next((i for i, n in enumerate(ranked, 1) if n in answers), None)
        rows.setdefault(q["kind"], []).append((r5, 1.0 / first if first else 0.0))

    def score(v):
        return ClassScore(len(v), _mean(r for r, _ in v), _mean(m for _, m in v))

    every = [r for v in rows.values() for r in v]
    report = SetReport(name, len(data["nodes"]), score(every), {k: score(v) for k, v in rows.items()})
    if hooks:
        _hook_reach(conn, db_path, data, ids, scope_of, report)
    return report


def _hook_reach(conn, db_path, data, ids, scope_of, report: SetReport) -> None:
    """Each prompt in a session of its own: the session start's view (compose under the hook
    cap, the scope's project + global) and what prompt-submit injects for the prompt."""
    from ctx.claude.requests import build_request
    from ctx.core.compose import compose
    from ctx.core.settings import hook_max_chars
    from ctx.core.store import Store
    from ctx.semantic.select import SelectOptions

    cap = hook_max_chars()
    store = Store(conn)
    view = {p: {n.id for n in compose(store, max_chars=cap, scope=s).nodes} for p, s in scope_of.items()}
    options = SelectOptions.from_env()
    options.deadline_s = 60.0  # the semantic path itself, not a loaded machine's fallback
    untiered = {ids[n["key"]] for n in data["nodes"]
                if not any(t.startswith("tier:") for t in n.get("tags") or [])}
    reach: dict[str, list[bool]] = {}
    prompt: dict[str, list[bool]] = {}
    clean: dict[str, list[bool]] = {}
    loose: list[bool] = []
    for i, q in enumerate(data["queries"]):
        built = build_request(conn, f"bench-half-{i}", q["query"], max_chars=cap, options=options,
                              db_path=db_path, scope=scope_of[q["project"]])
        injected = {it.node_id for it in built.record.items if it.injected == "now"}
        if not q["labels"]:
            clean.setdefault(q["lang"], []).append(not injected)
            continue
        answers = {ids[k] for k, g in q["labels"].items() if g >= 2}
        reached = bool(answers & (injected | view[q["project"]]))
        reach.setdefault(q["lang"], []).append(reached)
        prompt.setdefault(q["lang"], []).append(bool(answers & injected))
        if answers <= untiered:
            loose.append(reached)
    report.reach = {k: _mean(v) for k, v in reach.items()}
    report.reach_prompt = {k: _mean(v) for k, v in prompt.items()}
    report.clean = {k: _mean(v) for k, v in clean.items()}
    report.untiered_reach = round(_mean(loose), 3) if loose else None


def print_half(r: SetReport) -> None:
    print(f"  {r.name}: {r.nodes} nodes, {r.overall.queries} answerable queries "
          f"— hybrid recall@5 {r.overall.recall_at_5:.3f}, MRR@10 {r.overall.mrr_at_10:.3f}")
    print("    " + "  ".join(f"{k} {c.recall_at_5:.2f}/{c.mrr_at_10:.2f} ({c.queries})"
                            for k, c in sorted(r.by_kind.items())))
    if r.reach or r.clean:
        print("    through the hooks: reach " + ", ".join(f"{k} {v:.2f}" for k, v in sorted(r.reach.items()))
              + " (prompt-submit alone " + ", ".join(f"{k} {v:.2f}" for k, v in sorted(r.reach_prompt.items()))
              + "); clean " + ", ".join(f"{k} {v:.2f}" for k, v in sorted(r.clean.items()))
              + (f"; untiered answers reached {r.untiered_reach:.2f}" if r.untiered_reach is not None else ""))
