"""Per-prompt selection: which `agent` memories are relevant enough to inject, and why not
the others — inside a deadline, with a keyword fallback.

Calibration (SPEC §3 "Calibrate before injecting"): scores are on ctx.semantic.centering's
scale (language-centred cosine + the hybrid keyword bonus). On the dev set
(tests/ctx/data/devset.json, 431 nodes, 36 prompts with nothing relevant; `make bench`
prints it), with multilingual-e5-small: at 0.27 for English prompts 95 % of the unrelated
ones inject nothing and 86 % of the answerable ones inject their answer; at 0.28 for Korean
prompts 93 % and 85 % (a mixed prompt's floor is mixed by its Hangul share). So on top of
the seed's rules (≥ includeScore always; fill to topN) a candidate must reach the floor.
CTX_SEMANTIC_FLOOR overrides it (raise it when unrelated memories show up, lower it when
answers are missed). A candidate just under the floor is still taken when it is the
keyword search's best match for an identifier in the prompt (CTX_DB, E1023) — see
`_keyword_vouches`. `ctx search` shows everything; the floor is for injection only.

Paths (recorded on every request): "semantic" (hybrid ranking with vectors), "keyword"
(the model is missing, broken or slower than the deadline: FTS5 only), "none" (nothing
to search for). The semantic work runs in a worker thread with its own connection; when
the deadline passes, the prompt is answered by keyword selection and the worker is left
to finish (or die with the process).
"""
from __future__ import annotations

import re
import sqlite3
import time

from ctx.core.store import Store
from ctx.semantic.search import (
    STOPWORDS,
    Eligibility,
    Hit,
    SearchOptions,
    SearchResult,
    keyword_query,
    search,
    search_many,
    term_coverage,
)
from cuectx.value import Value

# minimum score to inject, per model (calibrated on tests/ctx/data/devset.json; module doc)
# (English prompt, Korean prompt); a mixed prompt gets the mix by its Hangul share
FLOORS = {"multilingual-e5-small": (0.27, 0.28), "all-MiniLM-L6-v2": (0.30, 0.30)}
FLOOR = FLOORS["multilingual-e5-small"][0]
IDENTIFIER_FLOOR = 0.15     # …for a node the keyword half ranks first on an identifier
KEYWORD_MIN_COVERAGE = 0.5  # keyword fallback: share of the prompt's words a memory must hold
DEADLINE_S = 1.5
JIT_MAX_CHUNKS = 32         # at most this many chunks embedded inside a prompt (committed in
                            # batches; the deadline stops between them: ctx.semantic.index)
_IDENTIFIER = re.compile(r"\b(?=[A-Za-z0-9_.-]*[_0-9])(?=[A-Za-z0-9_.-]*[A-Za-z])[A-Za-z0-9][A-Za-z0-9_.-]{2,}\b"
                         r"|\b[A-Z]{2,}[A-Z0-9]*\b")

BELOW_THRESHOLD = "below threshold"
OVER_TOP_N = "over topN"
OVER_CHAR_CAP = "over the character cap"
REMOVED_BY_USER = "removed by the user"


class SelectOptions(Value):
    __slots__ = ("deadline_s", "floor", "include_score", "max_excluded", "top_k", "top_n")

    def __init__(self, top_k: int = 20, top_n: int = 5, include_score: float = 0.7,
                 floor: float | None = None, deadline_s: float = DEADLINE_S,
                 max_excluded: int = 5) -> None:
        self.top_k = top_k
        self.top_n = top_n
        self.include_score = include_score
        self.floor = floor  # None: the model's (FLOORS)
        self.deadline_s = deadline_s
        self.max_excluded = max_excluded  # best excluded candidates kept in the record

    @classmethod
    def from_env(cls) -> SelectOptions:
        from ctx.core.settings import semantic_number

        def num(name, default, cast=float):
            value = semantic_number(name)
            return default if value is None else max(cast(value), 1) if cast is int else value
        return cls(top_k=num("CTX_SEMANTIC_TOP_K", 20, int), top_n=num("CTX_SEMANTIC_TOP_N", 5, int),
                   include_score=num("CTX_SEMANTIC_INCLUDE_SCORE", 0.7),
                   floor=num("CTX_SEMANTIC_FLOOR", None),
                   deadline_s=num("CTX_SEMANTIC_DEADLINE", DEADLINE_S))

    def floor_for(self, model_id: str | None, prompt: str = "") -> float:
        """CTX_SEMANTIC_FLOOR, else the model's floor for the prompt's language."""
        if self.floor is not None:
            return self.floor
        from ctx.semantic.centering import hangul_share

        en, ko = FLOORS.get((model_id or "").split("/", 1)[0], (FLOOR, FLOOR))
        w = hangul_share(prompt) if prompt else 0.0
        return round(en + (ko - en) * w, 4)

    def to_dict(self) -> dict:
        return {"top_k": self.top_k, "top_n": self.top_n, "include_score": self.include_score,
                "floor": self.floor if self.floor is not None else self.floor_for(_current_model_id()),
                "deadline_s": self.deadline_s}


def _current_model_id() -> str | None:
    try:
        from ctx.semantic.model import MODELS, current_name

        return MODELS[current_name()].model_id
    except Exception:  # noqa: BLE001 — an unknown CTX_MODEL is reported where the model loads
        return None


class Candidate(Value):
    __slots__ = ("hit", "reason")

    def __init__(self, hit: Hit, reason: str | None = None) -> None:
        self.hit = hit
        self.reason = reason  # None: selected

    @property
    def node_id(self) -> str:
        return self.hit.node_id


class Selection(Value):
    __slots__ = ("excluded", "fallback_reason", "path", "selected", "timings")

    def __init__(self, path: str, fallback_reason: str | None = None,
                 selected: list[Candidate] | None = None, excluded: list[Candidate] | None = None,
                 timings: dict | None = None) -> None:
        self.path = path  # semantic | keyword | none
        self.fallback_reason = fallback_reason
        self.selected = [] if selected is None else selected
        self.excluded = [] if excluded is None else excluded
        self.timings = {} if timings is None else timings


def choose(ranked: list[Hit], options: SelectOptions, *, path: str, prompt: str,
           contents: dict[str, str] | None = None,
           model_id: str | None = None) -> tuple[list[Candidate], list[Candidate]]:
    """Seed rules + the floor. Returns (selected, excluded-with-reason), best first.

    Semantic path: similarity ≥ floor (or an identifier's best keyword match). Keyword
    path (no model): the memory holds half the prompt's words, or three of them, or an
    identifier from it — BM25 alone can't say "relevant" (it grows with the store)."""
    identifiers = set(_IDENTIFIER.findall(prompt))
    floor = options.floor_for(model_id or _current_model_id(), prompt)
    selected, excluded = [], []
    for h in ranked:
        if path == "keyword" or h.similarity is None:  # (not embedded yet: judged by words)
            content = (contents or {}).get(h.node_id, "")
            found, total = term_coverage(prompt, content)
            ok = bool(total) and (found / total >= KEYWORD_MIN_COVERAGE or found >= 3
                                  or any(i in content for i in identifiers))
        else:
            sim = h.score if h.similarity is not None else -1.0
            ok = (sim >= floor or _keyword_vouches(h, bool(identifiers))
                  or _words_vouch(h, prompt, (contents or {}).get(h.node_id)))
            if sim >= options.include_score:
                selected.append(Candidate(h))
                continue
        if not ok:
            excluded.append(Candidate(h, BELOW_THRESHOLD))
        elif len(selected) >= options.top_n:
            excluded.append(Candidate(h, OVER_TOP_N))
        else:
            selected.append(Candidate(h))
    return selected, excluded


def _words_vouch(h: Hit, prompt: str, content: str | None) -> bool:
    """A memory that holds every meaningful word of the prompt (in some form: deploy in
    "Deploys go out on Tuesdays only") is taken from a lower score, IDENTIFIER_FLOOR: a short
    question about a short note shares little meaning the model can see but all its words.
    (On the dev set's unrelated prompts this never fires: none holds all their words.)"""
    if not content or h.bm25 is None or h.score < IDENTIFIER_FLOOR:
        return False
    found, total = term_coverage(prompt, content)
    return total > 0 and found == total


def _keyword_vouches(h: Hit, identifiers: bool) -> bool:
    return (identifiers and h.keyword_rank == 1 and h.similarity is not None
            and h.similarity >= IDENTIFIER_FLOOR)


def select_for_prompt(conn: sqlite3.Connection, prompt: str, *, eligibility: Eligibility,
                      options: SelectOptions | None = None, db_path: str | None = None) -> Selection:
    """Prompt-submit's selection: the prompt and its questions (`prompt_texts`) go through
    the search pipeline once (ctx.semantic.search.search_many, on a worker thread inside the
    deadline), then `choose_for_prompt`; without the model, or past the deadline, a keyword
    search and `choose` on the keyword path."""
    options = options or SelectOptions()
    t0 = time.monotonic()
    if keyword_query(prompt) is None:
        return Selection("none", "the prompt has no words to search for")
    if not _has_candidates(conn, eligibility):
        # nothing to choose from: don't pay for loading the model
        return Selection("none", "no agent-mode memories to choose from")
    search_opts = SearchOptions(top_k=options.top_k, top_n=options.top_n,
                                include_score=options.include_score)
    reason = _semantic_unavailable()
    if reason is None:
        texts = prompt_texts(prompt)
        outcome = _run_with_deadline(db_path or _db_file(conn), texts, search_opts, eligibility,
                                     t0 + options.deadline_s)
        if isinstance(outcome, Exception):
            reason = f"semantic search failed ({type(outcome).__name__}: {outcome})"
        elif outcome is None:
            reason = f"semantic search took longer than {options.deadline_s:g} s"
        else:
            selected, excluded = choose_for_prompt(conn, outcome, options)
            return Selection("semantic", None, selected, excluded, outcome[0].timings)
    kw = search(conn, prompt, SearchOptions(mode="keyword", top_k=options.top_k,
                                            top_n=options.top_n), eligibility=eligibility)
    selected, excluded = choose(kw.candidates, options, path="keyword", prompt=prompt,
                                contents=_contents(conn, kw.candidates))
    return Selection("keyword", reason, selected, excluded, kw.timings)


def prompt_texts(prompt: str) -> list[str]:
    """What a prompt is searched as: the whole prompt, then each of its questions (at most
    MAX_CLAUSES; `clauses`). One batched search ranks them all (search_many)."""
    return [prompt, *clauses(prompt)[:MAX_CLAUSES]]


def choose_for_prompt(conn: sqlite3.Connection, results: list[SearchResult],
                      options: SelectOptions) -> tuple[list[Candidate], list[Candidate]]:
    """The prompt's choice (the pipeline's last stage on the hook path): `choose` over the
    whole prompt's ranking (results[0]); for a prompt that asks several things, each
    question's chosen candidates added (`_union`: at most top_n, best first by `length_fair`,
    so a long document's best chunk does not crowd a one-line answer out) and each
    question's best pick kept (`_guarantee`). The candidates' text comes from the search
    (SearchResult.contents); only what it did not read is read here."""
    def chosen(found: SearchResult):
        need = [h for h in found.candidates if h.similarity is None or h.bm25 is not None]
        contents = found.contents
        missing = [h for h in need if h.node_id not in contents]
        if missing:
            contents = {**contents, **_contents(conn, missing)}
        return choose(found.candidates, options, path="semantic", prompt=found.query,
                      contents=contents, model_id=found.model_id)

    whole, *parts = results
    selected, excluded = chosen(whole)
    if not parts:
        return selected, excluded
    fair: dict[str, float] = {}

    def judged(found: SearchResult, cands: list[Candidate]) -> list[Candidate]:
        texts = {**found.contents, **_contents(conn, [c.hit for c in cands
                                                      if c.node_id not in found.contents])}
        for c in cands:
            fair.setdefault(c.node_id, length_fair(c.hit.score, texts.get(c.node_id, ""),
                                                   found.spread))
        return cands

    judged(whole, selected)
    best: list[Candidate] = []
    for found in parts:
        more = judged(found, chosen(found)[0])
        if more:
            best.append(max(more, key=lambda c: fair[c.node_id]))
        selected, excluded = _union(selected, excluded, more, options.top_n, fair)
    return _guarantee(selected, excluded, best, fair)


def _guarantee(selected: list[Candidate], excluded: list[Candidate], best: list[Candidate],
               fair: dict[str, float]) -> tuple[list[Candidate], list[Candidate]]:
    """Each question's best (length-fair) pick is in the choice: one left out takes the place
    of the lowest chosen candidate that is no question's best."""
    keep = {c.node_id for c in best}
    for b in best:
        if b.node_id in {c.node_id for c in selected}:
            continue
        out = [c for c in selected if c.node_id not in keep]
        if not out:
            continue
        drop = min(out, key=lambda c: fair.get(c.node_id, c.hit.score))
        selected = sorted([c for c in selected if c is not drop] + [b],
                          key=lambda c: -fair.get(c.node_id, c.hit.score))
        excluded = [c for c in excluded if c.node_id != b.node_id] + [Candidate(drop.hit, OVER_TOP_N)]
    return selected, excluded


def length_fair(score: float, content: str, spread: float) -> float:
    """A candidate's score made fair between a one-line note and a long document when a
    prompt's questions compete for its slots: a document is scored by its best chunk, and
    the best of n chunks is expected to beat one chunk by `spread` × E[max of n standard
    normals] (the query's scores over every eligible chunk have that spread) — so that much
    is taken off. No constant is tuned: the spread is the query's own, the expectation is
    the normal order statistic (0 for one chunk, 0.56 for 2, 1.27 for 6)."""
    from ctx.semantic.chunk import MAX_CHARS, chunk_text

    n = 1 if len(content) <= MAX_CHARS else len(chunk_text(content))
    return score - spread * expected_max(n)


def expected_max(n: int) -> float:
    """E[max of n independent standard normal draws] (0 for n ≤ 1), by numeric integration
    of x·n·φ(x)·Φ(x)^(n−1) — cached per n."""
    if n <= 1:
        return 0.0
    if n not in _EXPECTED_MAX:
        import math

        step, total = 0.005, 0.0
        for k in range(-2000, 2001):
            x = k * step
            phi = math.exp(-x * x / 2) / math.sqrt(2 * math.pi)
            total += x * n * phi * (0.5 * (1 + math.erf(x / math.sqrt(2)))) ** (n - 1) * step
        _EXPECTED_MAX[n] = total
    return _EXPECTED_MAX[n]


_EXPECTED_MAX: dict[int, float] = {}


MAX_CLAUSES = 3
_CLAUSE_BREAK = re.compile(r"[?!;]+\s*|,\s*(?:and|or|also|plus)\s+|\s+그리고\s+", re.IGNORECASE)


def clauses(prompt: str) -> list[str]:
    """A prompt that asks two things ("which port is staging on, and when do we deploy?"),
    split into its questions — [] when it asks one. The whole prompt's embedding sits between
    the topics and reaches neither note; each question alone does. A part needs a word
    that is not a stop word."""
    parts = [p.strip() for p in _CLAUSE_BREAK.split(prompt)]
    parts = [p for p in parts if any(w.lower() not in STOPWORDS for w in p.split())]
    return parts if len(parts) >= 2 else []


def _union(selected: list[Candidate], excluded: list[Candidate], more: list[Candidate],
           top_n: int, fair: dict[str, float]) -> tuple[list[Candidate], list[Candidate]]:
    """The whole prompt's choice plus one question's, at most top_n, best first by the
    length-fair score (`fair`: node id → `length_fair`)."""
    have = {c.node_id for c in selected}
    extra = [c for c in more if c.node_id not in have]
    if not extra:
        return selected, excluded
    chosen = sorted(selected + extra, key=lambda c: -fair[c.node_id])
    keep, over = chosen[:top_n], chosen[top_n:]
    ids = {c.node_id for c in keep}
    rest = [c for c in excluded if c.node_id not in ids]
    return keep, rest + [Candidate(c.hit, OVER_TOP_N) for c in over]


def _has_candidates(conn: sqlite3.Connection, eligibility: Eligibility) -> bool:
    where = [f"n.id NOT IN ({eligibility.exclude})"] if eligibility.exclude else []
    where += [eligibility.where] if eligibility.where else []
    return Store(conn).any_live(" AND ".join(where) or "1",
                                [*eligibility.params, *eligibility.where_params])


def _contents(conn: sqlite3.Connection, hits: list[Hit]) -> dict[str, str]:
    return Store(conn).contents(h.node_id for h in hits) if hits else {}


def _semantic_unavailable() -> str | None:
    from ctx.core.settings import semantic_enabled

    if not semantic_enabled():
        return "semantic selection is off (CTX_SEMANTIC=0)"
    from ctx.semantic.model import locate, missing_message

    if locate() is None:
        return missing_message()
    return None


def _db_file(conn: sqlite3.Connection) -> str:
    for row in conn.execute("PRAGMA database_list"):
        if row[1] == "main":
            return row[2]
    raise RuntimeError("no main database")


def _run_with_deadline(path: str, texts: list[str], opts: SearchOptions, elig: Eligibility,
                       deadline: float):
    """The search results (one per text: ctx.semantic.search.search_many, which embeds them
    in one batch and reads the vectors once), an Exception, or None when the deadline passed
    first."""
    box: dict = {}

    def work():
        from ctx.core import db

        try:
            conn = db.connect(path)
            try:
                box["result"] = search_many(conn, texts, opts, eligibility=elig,
                                            index_deadline=deadline - 0.3,
                                            index_max_chunks=JIT_MAX_CHUNKS)
            finally:
                conn.close()
        except Exception as exc:  # noqa: BLE001 — reported as the fallback reason
            box["result"] = exc

    import threading  # here, not at the top: a prompt without semantic search never loads it

    worker = threading.Thread(target=work, name="ctx-semantic", daemon=True)
    worker.start()
    worker.join(max(deadline - time.monotonic(), 0.0))
    return box.get("result")
