"""Search nodes by meaning (e5 vectors), by words (FTS5 BM25), or both (hybrid).

    search(conn, "how do we keep writers from blocking readers?")        # hybrid, defaults
    search(conn, "CTX_DB", SearchOptions(mode="keyword"))
    search(conn, "retry policy", SearchOptions(filter="type:decision"))

The pipeline (seed "Search Implementation", SPEC §3), one public function per stage —
`search_many` runs them for `ctx search` (ctx.cli.reads), MCP recall (ctx.mcp.tools), the
viewer (ctx.web.app), the Stop hook's recall (ctx.claude.actions) and prompt-submit
(ctx.semantic.select.select_for_prompt, which adds the floor and a prompt's questions):
1. `gather` — candidates. Eligible nodes: live (not superseded, unless asked), matching
   `filter` (the query language) and `where` (e.g. "include mode is agent") — applied
   *before* ranking, so a filter never empties a top-k. Semantic: embed the query, cosine
   against every eligible chunk (one contiguous array, brute force), keep the best `top_k`
   chunks, group by node (best chunk wins); English text also MiniLM's (English fusion).
   Keyword: FTS5 MATCH over any of the query's words (identifiers such as CTX_DB or E1023
   kept whole as phrases), ordered by BM25, `top_k` nodes. Semantic scores are
   language-centred cosines (ctx.semantic.centering): one scale for Korean and English.
2. `merge` + `score` — hybrid: the union of both lists, every candidate with its
   similarity, scored `similarity + KEYWORD_WEIGHT * coverage**2` (`keyword_bonus`: the
   share of the prompt's terms the note holds). On our retrieval sets score fusion beat
   plain reciprocal rank fusion (RRF gives a chance word match at keyword rank 1 the same
   weight as an exact identifier), and coverage beat a BM25-based bonus, which lifted
   word-sharing notes over paraphrase answers. The seed's includeScore applies to that
   score (`Hit.score`).
3. `rank` — the fused order (a long document lifted by `document_bonus`).
4. `select` — seed grouping: always keep nodes scoring ≥ `include_score`; fill up to
   `top_n` in rank order (high scorers may exceed `top_n`). Everything ranked stays in
   `candidates` so callers can say why the rest were left out.

Missing or stale chunks are embedded first (JIT, `index.ensure`); hooks pass a deadline.
"""
from __future__ import annotations

import os
import re
import sqlite3
import time

from ctx.core.errors import CtxError
from cuectx.value import Value

# One query is a matrix-vector product (and a 20-token forward pass): OpenBLAS's thread pool,
# started when numpy loads, only burns CPU on a busy two-core machine. Set before numpy loads.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

MODES = ("hybrid", "semantic", "keyword")
KEYWORD_WEIGHT = 0.1
DOCUMENT_WEIGHT = 0.2  # a long document's relative BM25, in its order only (document_bonus)
BULK_FROM = 16  # nodes to embed before a search switches to the bulk session
_WORD = re.compile(r"[^\W_]+(?:[_\-.:/][^\W_]+)*|\w+", re.UNICODE)
STOPWORDS = frozenset([
    "a", "about", "above", "after", "again", "all", "am", "an", "and", "any", "are", "as", "at",
    "be", "because", "been", "before", "being", "below", "between", "both", "but", "by", "can",
    "could", "did", "do", "does", "doing", "done", "down", "during", "each", "few", "for", "from",
    "further", "get", "got", "had", "has", "have", "having", "he", "her", "here", "hers", "him",
    "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself", "just", "let", "like",
    "may", "me", "might", "more", "most", "must", "my", "no", "nor", "not", "now", "of", "off",
    "on", "once", "only", "or", "other", "our", "out", "over", "own", "please", "same", "shall",
    "she", "should", "so", "some", "such", "than", "that", "the", "their", "them", "then", "there",
    "these", "they", "this", "those", "through", "to", "too", "under", "until", "up", "us", "use",
    "used", "using", "very", "via", "want", "was", "we", "were", "what", "when", "where", "which",
    "while", "who", "whom", "why", "will", "with", "would", "you", "your", "yours",
])


class SearchOptions(Value):
    __slots__ = ("filter", "include_score", "include_superseded", "mode", "top_k", "top_n")

    def __init__(self, top_k: int = 20, top_n: int = 5, include_score: float = 0.7,
                 mode: str = "hybrid", filter: str | None = None,
                 include_superseded: bool = False) -> None:
        self.top_k = top_k  # chunk matches considered (seed topK)
        self.top_n = top_n  # nodes returned after grouping (seed topN)
        # always returned at or above this similarity (seed includeScore)
        self.include_score = include_score
        self.mode = mode
        self.filter = filter  # query-language expression, applied before ranking
        self.include_superseded = include_superseded

    def validate(self) -> SearchOptions:
        if self.mode not in MODES:
            raise CtxError(f"unknown search mode {self.mode!r}; use one of: {', '.join(MODES)}")
        if self.top_k < 1 or self.top_n < 1:
            raise CtxError("--top-k and --top-n must be at least 1")
        if not 0.0 <= self.include_score <= 1.0:
            raise CtxError("--include-score must be between 0 and 1")
        return self


class Hit(Value):
    __slots__ = ("bm25", "chunk_end", "chunk_start", "fused", "keyword_rank", "node_id", "rank",
                 "selected_by", "semantic_rank", "similarity")

    def __init__(self, node_id: str, rank: int, similarity: float | None = None,
                 bm25: float | None = None, fused: float | None = None,
                 semantic_rank: int | None = None, keyword_rank: int | None = None,
                 chunk_start: int | None = None, chunk_end: int | None = None,
                 selected_by: str | None = None) -> None:
        self.node_id = node_id
        self.rank = rank  # 1-based, in the mode's order
        self.similarity = similarity  # cosine of the best chunk (None: not embedded)
        self.bm25 = bm25  # FTS5 BM25, higher is better (None: no word matched)
        self.fused = fused  # hybrid: similarity + keyword bonus
        self.semantic_rank = semantic_rank
        self.keyword_rank = keyword_rank
        self.chunk_start = chunk_start
        self.chunk_end = chunk_end
        self.selected_by = selected_by  # "score" (≥ include_score) | "rank" (within top_n) | None

    @property
    def score(self) -> float:
        """The one score people see and the floor applies to (ctx.semantic.centering's scale:
        the language-centred cosine, plus the keyword bonus in hybrid mode); BM25 only in
        keyword mode, where there is no vector."""
        if self.fused is not None:
            return self.fused
        if self.similarity is not None:
            return self.similarity
        return self.bm25 or 0.0


class SearchResult(Value):
    __slots__ = ("candidates", "contents", "elapsed_ms", "eligible_chunks", "hits", "model_id",
                 "not_indexed", "options", "query", "spread", "timings")

    def __init__(self, query: str, options: SearchOptions, hits: list[Hit], candidates: list[Hit],
                 model_id: str | None = None, eligible_chunks: int = 0, not_indexed: int = 0,
                 elapsed_ms: float = 0.0, timings: dict | None = None,
                 contents: dict[str, str] | None = None, spread: float = 0.0) -> None:
        self.query = query
        self.options = options
        self.hits = hits  # selected by the seed's rules
        self.candidates = candidates  # everything ranked (hits included), best first
        self.model_id = model_id
        self.eligible_chunks = eligible_chunks
        self.not_indexed = not_indexed  # nodes without vectors (searched by keyword only)
        self.elapsed_ms = elapsed_ms
        self.timings = {} if timings is None else timings
        # {node id: text} of the candidates `score` read (hybrid): the prompt's choice reuses it
        self.contents = {} if contents is None else contents
        # the spread (standard deviation) of the query's scores over every eligible chunk:
        # what a best-of-n-chunks similarity is worth over one chunk (select.length_fair)
        self.spread = spread


class Eligibility(Value):
    """Nodes a caller does not want back (e.g. the session's items, always/manual ones), as
    SQL selecting their ids. An exclusion list because it is short: masking a few chunks
    is cheap, listing every allowed one is not (prompt-submit runs this on every prompt)."""

    __slots__ = ("exclude", "outside", "outside_params", "params", "where", "where_params")

    def __init__(self, exclude: str = "", params: tuple = (), where: str = "",
                 where_params: tuple = (), outside: str = "", outside_params: tuple = ()) -> None:
        self.exclude = exclude
        self.params = params
        # A condition over `nodes n` every result must meet (the project scope,
        # ctx.core.projects), and, when known, its complement in a form an index drives:
        # vectors are masked from whichever of the two lists fewer chunks (_ineligible).
        self.where = where
        self.where_params = where_params
        self.outside = outside
        self.outside_params = outside_params

    @classmethod
    def within(cls, scope, exclude: str = "", params: tuple = ()) -> Eligibility:
        """`exclude`/`params` plus a ctx.core.store.Scope (None or all projects: no condition)."""
        if scope is None or scope.all_projects:
            return cls(exclude, tuple(params))
        where, where_params = scope.sql()
        outside, outside_params = scope.outside_sql()
        return cls(exclude, tuple(params), where, tuple(where_params), outside,
                   tuple(outside_params))


def keyword_query(text: str) -> str | None:
    """An FTS5 expression matching any meaningful word of `text` (None: no words).

    Identifiers (CTX_DB, E1023, payments.retry_max, billing/invoice.py, v2.14.0, --dry-run)
    become phrases: FTS5's tokenizer splits stored text at `_ . / -`, so `hook_max_chars`
    matches inside `CTX_HOOK_MAX_CHARS` and `invoice.py` inside `billing/invoice.py`. A
    camelCase word also matches its parts (`finalizeInvoice` finds `finalize_invoice`).
    Stop words are dropped unless nothing else is left."""
    words = [w for w in _WORD.findall(text) if len(w) > 1 or not w.isascii()]
    keep = [w for w in words if w.lower() not in STOPWORDS] or words
    seen, terms = set(), []
    for w in keep:
        term = '"' + w.replace('"', '""') + '"'
        stem = _hangul_stem(w)
        if stem:  # Korean particles stick to the word: 데이터는/데이터를 → "데이터"*
            term = f'"{stem}"*'
        elif len(w) >= 4 and w.isascii() and w.isalpha():  # deploy → deploys, deployed
            term = f'"{w}"*'
        parts = identifier_parts(w)
        if len(parts) > 1 and "".join(parts) == re.sub(r"[^0-9a-z]", "", w.lower()) and _CAMEL.search(w):
            term = f'({term} OR "{" ".join(parts)}")'
        if term.lower() not in seen:
            seen.add(term.lower())
            terms.append(term)
    return " OR ".join(terms) if terms else None


_CAMEL = re.compile(r"[a-z][A-Z]|[A-Z]{2}[a-z]")
_PARTS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+|[^\W\d_]+", re.UNICODE)


def identifier_parts(word: str) -> list[str]:
    """`CTX_HOOK_MAX_CHARS` → ctx hook max chars; `getInitialURL` → get initial url;
    `billing/invoice.py` → billing invoice py; `E1102` → e 1102 (lower case)."""
    return [p.lower() for p in _PARTS.findall(word)]


def query_terms(text: str) -> list[str]:
    """The words keyword search looks for (lower case, stop words dropped, Korean stemmed)."""
    words = [w for w in _WORD.findall(text) if len(w) > 1 or not w.isascii()]
    keep = [w for w in words if w.lower() not in STOPWORDS] or words
    return list(dict.fromkeys((_hangul_stem(w) or w).lower() for w in keep))


def term_coverage(text: str, content: str) -> tuple[int, int]:
    """(query terms found in content, query terms): a keyword match's strength that does
    not depend on the size of the store, unlike BM25. An identifier counts as found when its
    parts appear in a row in the content's (`hook_max_chars` in `CTX_HOOK_MAX_CHARS`)."""
    terms = query_terms(text)
    words = _WORD.findall(content)
    have = {w.lower() for w in words}
    stream = " " + " ".join(p for w in words for p in identifier_parts(w)) + " "
    found = 0
    for t in terms:
        if t in have or any(_same_word(t, w) for w in have):
            found += 1
            continue
        parts = identifier_parts(t)
        if len(parts) > 1 and f" {' '.join(parts)} " in stream:
            found += 1
    return found, len(terms)


def _same_word(term: str, word: str) -> bool:
    """A prompt's word found in another form: Korean with a particle attached (데이터 in
    데이터는), English with an ending (deploy in deploys/deployed, checkouts in checkout) —
    the longer starts with the shorter, of at least 4 letters and at most 3 letters more."""
    if not term.isascii():
        return word.startswith(term)
    short, long_ = (term, word) if len(term) <= len(word) else (word, term)
    return len(short) >= 4 and len(long_) - len(short) <= 3 and long_.startswith(short)


_PARTICLES = ("에서는", "으로는", "에서", "으로", "에는", "에게", "까지", "부터", "은", "는", "이",
              "가", "을", "를", "의", "에", "로", "와", "과", "도", "만")


def _hangul_stem(word: str) -> str | None:
    if not word or not all("\uac00" <= ch <= "\ud7a3" for ch in word):
        return None
    for p in _PARTICLES:
        if word.endswith(p) and len(word) - len(p) >= 2:
            return word[: -len(p)]
    return word


def search(conn: sqlite3.Connection, text: str, options: SearchOptions | None = None, *,
           eligibility: Eligibility | None = None, embedder=None, index_deadline: float | None = None,
           index_max_chunks: int | None = None, progress=None, ensure_index: bool = True) -> SearchResult:
    """Rank nodes for `text`. `embedder` defaults to the process-wide one (semantic and
    hybrid modes need the model: ModelMissingError says how to build it)."""
    return search_many(conn, [text], options, eligibility=eligibility, embedder=embedder,
                       index_deadline=index_deadline, index_max_chunks=index_max_chunks,
                       progress=progress, ensure_index=ensure_index)[0]


def search_many(conn: sqlite3.Connection, texts: list[str], options: SearchOptions | None = None, *,
                eligibility: Eligibility | None = None, embedder=None,
                index_deadline: float | None = None, index_max_chunks: int | None = None,
                progress=None, ensure_index: bool = True) -> list[SearchResult]:
    """Rank nodes for each of `texts` (a prompt and its questions: ctx.semantic.select) with
    the shared work done once — the eligibility SQL, the vectors read, any just-in-time
    indexing — and the queries embedded in one batch. The pipeline, stage by stage (each a
    function of its own): `gather` (candidates) → `merge` and `score` (every candidate's
    similarity and fused score) → `rank` (fused order) → `select` (the seed's choice;
    a prompt's is ctx.semantic.select.choose_for_prompt)."""
    options = (options or SearchOptions()).validate()
    t0 = time.perf_counter()
    pool = gather(conn, texts, options, eligibility=eligibility, embedder=embedder,
                  index_deadline=index_deadline, index_max_chunks=index_max_chunks,
                  progress=progress, ensure_index=ensure_index)
    results = []
    for i, text in enumerate(texts):
        contents: dict[str, str] = {}
        if options.mode == "semantic":
            ranked = pool.semantic[i]
        elif options.mode == "keyword":
            ranked = pool.keyword[i]
        else:
            ranked = merge(pool.semantic[i], pool.keyword[i])
            contents = score(conn, ranked, text, pool.vectors, pool.scores[i], pool.second[i])
            ranked = rank(ranked, contents)
        for r, h in enumerate(ranked, 1):
            h.rank = r
        results.append(SearchResult(text, options, select(ranked, options), ranked,
                                    model_id=pool.model_id, eligible_chunks=pool.eligible_chunks[i],
                                    not_indexed=pool.not_indexed, elapsed_ms=_ms(t0),
                                    timings=dict(pool.timings), contents=contents,
                                    spread=pool.spread[i]))
    return results


class Pool(Value):
    """Stage 1's output (`gather`), shared by a prompt's texts. Per text: its semantic
    candidates (e5's best chunks grouped by node, then MiniLM's for an English text that e5
    missed, with no similarity yet), its keyword candidates (BM25), its scores of every
    chunk (ineligible ones −inf) and, for an English text under English fusion, MiniLM's
    (vectors, scores) — what `score` needs for a candidate the other list brought."""

    __slots__ = ("eligible_chunks", "keyword", "model_id", "not_indexed", "scores", "second",
                 "semantic", "spread", "texts", "timings", "vectors")

    def __init__(self, texts: list[str]) -> None:
        n = len(texts)
        self.texts = list(texts)
        self.semantic: list[list[Hit]] = [[] for _ in range(n)]
        self.keyword: list[list[Hit]] = [[] for _ in range(n)]
        self.scores: list = [None] * n
        self.second: list = [None] * n
        self.eligible_chunks = [0] * n
        self.spread = [0.0] * n  # each text's scores' standard deviation over eligible chunks
        self.vectors = None
        self.model_id: str | None = None
        self.not_indexed = 0
        self.timings: dict = {}


def gather(conn: sqlite3.Connection, texts: list[str], options: SearchOptions, *,
           eligibility: Eligibility | None = None, embedder=None,
           index_deadline: float | None = None, index_max_chunks: int | None = None,
           progress=None, ensure_index: bool = True) -> Pool:
    """Stage 1, candidates: for each text, the `top_k` best eligible nodes by meaning (e5,
    plus MiniLM's for English text — ctx.semantic.embed.english_companion) and by words
    (FTS5 BM25), as `options.mode` asks. Done once for all texts: the eligibility SQL, the
    vectors read, the just-in-time indexing (`index_deadline` bounds it), the queries
    embedded in one batch — the model loads on a thread while this one runs the SQL, which
    releases the GIL: on two cores the halves overlap instead of adding up."""
    elig = eligibility or Eligibility()
    where, params = _eligible_sql(options)
    if elig.where:
        where, params = f"{where} AND {elig.where}", [*params, *elig.where_params]
    if not texts or any(not t.strip() for t in texts):
        raise CtxError("the search text is empty")
    pool = Pool(texts)
    timings = pool.timings
    if options.mode == "keyword":
        t = time.perf_counter()
        pool.keyword = [_keyword_hits(conn, text, options.top_k, where, params, elig)
                        for text in texts]
        timings["keyword"] = _ms(t)
        return pool
    from ctx.semantic import index
    from ctx.semantic.model import require

    model_id = pool.model_id = embedder.model_id if embedder is not None else require().model_id
    loader = _ModelLoader(texts, embedder)
    loader.start()
    t = time.perf_counter()
    if options.mode == "hybrid":
        pool.keyword = [_keyword_hits(conn, text, options.top_k, where, params, elig)
                        for text in texts]
        timings["keyword"] = _ms(t)
    missing = index.missing_count(conn, model_id)
    raw = index.read_segments(conn, model_id) if not (missing and ensure_index) else None
    bad, good = _ineligible(conn, model_id, options, elig)
    timings["sql"] = _ms(t)
    # English fusion's MiniLM (its queries in numpy, its vectors read) on this thread while
    # the loader's thread embeds e5's queries: on two cores it costs the prompt little
    english = _english_prepare(conn, texts, model_id, ensure_index=ensure_index,
                               index_deadline=index_deadline, progress=progress) \
        if options.mode == "hybrid" else None
    timings["english"] = round(_ms(t) - timings["sql"], 2)
    embedder, query_vecs = loader.result()
    timings["model"] = loader.ms
    t = time.perf_counter()
    if missing and ensure_index:
        indexer = embedder
        if missing > BULK_FROM and index_deadline is None and not loader.given:
            from ctx.semantic.embed import get_embedder

            indexer = get_embedder(bulk=True)  # many to embed: the faster, multi-core session
        index.ensure(conn, indexer, deadline=index_deadline, max_chunks=index_max_chunks,
                     progress=progress, compact_small=index_deadline is None)
        missing = index.missing_count(conn, model_id)
        raw = index.read_segments(conn, model_id)
        bad, good = _ineligible(conn, model_id, options, elig)
        timings["index"] = _ms(t)
    t = time.perf_counter()
    vectors = pool.vectors = index.vectors_from(raw, model_id)
    pool.not_indexed = missing
    second_all = _english_vectors(conn, english, options, elig) if english is not None else None
    for i, text in enumerate(texts):
        scores = pool.scores[i] = vectors.scores(query_vecs[i], text)
        _apply_mask(vectors, scores, bad, good)
        eligible = scores[scores > -1.5] if len(scores) else scores
        pool.eligible_chunks[i] = len(eligible)
        pool.spread[i] = float(eligible.std()) if len(eligible) > 1 else 0.0
        sem = pool.semantic[i] = _semantic_hits(conn, vectors, scores, options.top_k)
        if second_all is not None and i in english[2]:
            mv, ms = second_all[0], second_all[1][i]
            mine = _semantic_hits(conn, mv, ms, options.top_k)
            pool.second[i] = (mv, ms, mine)
            have = {h.node_id for h in sem}
            sem += [Hit(h.node_id, 0, semantic_rank=h.semantic_rank) for h in mine
                    if h.node_id not in have]
    timings["rank"] = _ms(t)
    return pool


def merge(semantic: list[Hit], keyword: list[Hit]) -> list[Hit]:
    """Stage 2a, the union of a text's candidate lists: one new Hit per node (the inputs are
    left as they are), semantic candidates first in their order, then the keyword-only
    ones; a node in both carries its similarity and semantic rank and its BM25 and keyword
    rank. A keyword-only candidate has no similarity until `score` looks it up."""
    by_id: dict[str, Hit] = {}
    for h in semantic:
        by_id[h.node_id] = Hit(h.node_id, 0, similarity=h.similarity, semantic_rank=h.semantic_rank,
                               chunk_start=h.chunk_start, chunk_end=h.chunk_end)
    for h in keyword:
        cur = by_id.setdefault(h.node_id, Hit(h.node_id, 0))
        cur.bm25, cur.keyword_rank = h.bm25, h.keyword_rank
    return list(by_id.values())


def score(conn: sqlite3.Connection, hits: list[Hit], text: str, vectors, scores,
          second=None) -> dict[str, str]:
    """Stage 2, scores, in place: every candidate's similarity (a keyword-only one gets its
    best eligible chunk's, from `scores` — the text's scores of every chunk of `vectors`), an
    English note's blended with MiniLM's when `second` is given (`_blend_english`), and its
    fused score: similarity + `keyword_bonus`. Returns the candidates' text it read (once:
    English fusion asks which notes are Korean, the bonuses read the notes the words
    matched) — `rank` and the prompt's choice use it rather than reading it again."""
    if vectors is not None:
        _fill_similarity(conn, vectors, scores, [h for h in hits if h.similarity is None])
    ids = [h.node_id for h in hits] if second is not None else [h.node_id for h in hits
                                                                 if h.bm25 is not None]
    contents = dict(conn.execute(
        f"SELECT id, content FROM nodes WHERE id IN ({','.join('?' * len(ids))})",
        ids).fetchall()) if ids else {}
    if second is not None:
        _blend_english(conn, hits, vectors, scores, second, contents)
    for h in hits:
        matched = contents.get(h.node_id) if h.bm25 is not None else None
        h.fused = round((h.similarity or 0.0) + keyword_bonus(text, matched, h), 6)
    return contents


def rank(hits: list[Hit], contents: dict[str, str]) -> list[Hit]:
    """Stage 3, the fused rank: best fused score first, a long document lifted in this order
    (not in its score) by `document_bonus`; ties go to the higher similarity, then the id.
    Returns a new list; `search_many` numbers it."""
    order = document_bonus(hits, contents)
    return sorted(hits, key=lambda h: (-(h.fused + order.get(h.node_id, 0.0)),
                                       -(h.similarity or 0.0), h.node_id))


def select(ranked: list[Hit], options: SearchOptions) -> list[Hit]:
    """Stage 4, the seed's choice (what `ctx search`, MCP recall and the viewer show):
    similarity ≥ include_score always; fill to top_n by rank. (A prompt's choice adds the
    floor: ctx.semantic.select.choose_for_prompt.)"""
    chosen = []
    for h in ranked:
        h.selected_by = None
        if h.similarity is not None and h.score >= options.include_score:
            h.selected_by = "score"
        elif len(chosen) < options.top_n:
            h.selected_by = "rank"
        if h.selected_by:
            chosen.append(h)
    return chosen


# ------------------------------------------------------------------------------ internals

def _ms(t: float) -> float:
    return round((time.perf_counter() - t) * 1000, 2)


def _eligible_sql(options: SearchOptions) -> tuple[str, list]:
    parts, params = [], []
    if not options.include_superseded:
        parts.append("n.superseded_by IS NULL")
    if options.filter:
        from ctx.query import compile_query

        compiled = compile_query(options.filter)
        parts.append(compiled.where)
        params += list(compiled.params)
    return " AND ".join(parts) or "1", params


class _ModelLoader:
    """Gets the embedder (first use: imports onnxruntime, opens the session) and embeds
    the query, off the calling thread. (Not a Thread subclass: threading loads only when a
    search needs the model, not with this module on every prompt's path.)"""

    def __init__(self, texts: list[str], embedder=None):
        self.texts, self.embedder = texts, embedder
        self.given = embedder is not None
        self.vector = self.error = None
        self.ms = 0.0
        self._thread = None

    def start(self) -> None:
        import threading

        self._thread = threading.Thread(target=self.run, name="ctx-embed", daemon=True)
        self._thread.start()

    def run(self) -> None:
        t = time.perf_counter()
        # One query is a matrix-vector product: OpenBLAS's thread pool, started when numpy
        # loads, only burns CPU (numpy + onnxruntime import: 250 → 130 ms of CPU).
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
        try:
            if self.embedder is None:
                from ctx.semantic.embed import get_embedder

                self.embedder = get_embedder()
            # e5: "query: " (stored text is "passage: "); a prompt's questions in one batch
            many = getattr(self.embedder, "embed_queries", None)
            if many is not None and len(self.texts) > 1:
                self.vector = many(self.texts)
            else:
                one = getattr(self.embedder, "embed_query", None) or self.embedder.embed_one
                self.vector = [one(t) for t in self.texts]
        except BaseException as exc:  # noqa: BLE001 — re-raised in the caller's thread
            self.error = exc
        self.ms = _ms(t)

    def result(self):
        if self._thread is not None:
            self._thread.join()
        if self.error is not None:
            raise self.error
        return self.embedder, self.vector


def _ineligible(conn, model_id, options: SearchOptions,
                elig: Eligibility) -> tuple[list[int], list[int] | None]:
    """(chunk ids to mask, chunk ids to keep or None for all) — SQL only, no numpy.

    Each listed chunk costs a join to its node (~2 µs), so the short side is listed: the
    superseded nodes' chunks, the chunks of nodes outside the scope when they are fewer than
    half (one count over the nodes_project index says), else the scope's own. A --filter
    is any condition: its matching nodes' chunks are kept."""
    bad: list[int] = []
    good = None
    where, params = _eligible_sql(options)
    if options.filter or (elig.where and not elig.outside):
        if elig.where:
            where, params = f"{where} AND {elig.where}", [*params, *elig.where_params]
        good = [r[0] for r in conn.execute(
            f"SELECT c.id FROM nodes n JOIN chunks c ON c.node_id = n.id "
            f"WHERE c.model = ? AND {where}", [model_id, *params])]
    else:
        if not options.include_superseded:
            # (CROSS JOIN and `> ''`: drive from the superseded index, not every chunk)
            bad += [r[0] for r in conn.execute(
                "SELECT c.id FROM nodes n CROSS JOIN chunks c ON c.node_id = n.id "
                "WHERE n.superseded_by > '' AND c.model = ?", (model_id,))]
        outside = elig.where and conn.execute(
            f"SELECT count(*) FROM nodes n WHERE {elig.outside}", elig.outside_params).fetchone()[0]
        if outside and outside * 2 <= conn.execute("SELECT max(seq) FROM nodes").fetchone()[0]:
            bad += [r[0] for r in conn.execute(
                f"SELECT c.id FROM nodes n CROSS JOIN chunks c ON c.node_id = n.id "
                f"WHERE {elig.outside} AND c.model = ?", [*elig.outside_params, model_id])]
        elif outside:
            good = [r[0] for r in conn.execute(
                f"SELECT c.id FROM nodes n CROSS JOIN chunks c ON c.node_id = n.id "
                f"WHERE {where} AND {elig.where} AND c.model = ?",
                [*params, *elig.where_params, model_id])]
    if elig.exclude:
        bad += [r[0] for r in conn.execute(
            f"SELECT c.id FROM chunks c WHERE c.model = ? AND c.node_id IN ({elig.exclude})",
            [model_id, *elig.params])]
    return bad, good


def _apply_mask(vectors, scores, bad: list[int], good: list[int] | None) -> None:
    import numpy as np

    if not len(scores):
        return
    if good is not None:
        keep = np.zeros(len(scores), dtype=bool)
        pos = vectors.positions(good)
        keep[pos[pos >= 0]] = True
        scores[~keep] = -np.inf
    if bad:
        pos = vectors.positions(bad)
        scores[pos[pos >= 0]] = -np.inf


def _semantic_hits(conn, vectors, scores, top_k: int) -> list[Hit]:
    import numpy as np

    n = int((scores > -1.5).sum())
    if n == 0:
        return []
    k = min(top_k, n)
    top = np.argpartition(-scores, k - 1)[:k] if k < len(scores) else np.arange(len(scores))
    top = top[np.argsort(-scores[top], kind="stable")]
    top = [int(i) for i in top if scores[i] > -1.5][:k]
    chunk_ids = [int(vectors.ids[i]) for i in top]
    rows = _chunk_rows(conn, chunk_ids)
    hits: dict[str, Hit] = {}
    for i, cid in zip(top, chunk_ids):
        row = rows.get(cid)
        if row is None:
            continue
        node_id, start, end = row
        if node_id in hits:
            continue  # an earlier (better) chunk of this node already counts
        hits[node_id] = Hit(node_id, len(hits) + 1, similarity=round(float(scores[i]), 6),
                            semantic_rank=len(hits) + 1, chunk_start=start, chunk_end=end)
    return list(hits.values())


def _chunk_rows(conn, chunk_ids: list[int]) -> dict[int, tuple[str, int, int]]:
    if not chunk_ids:
        return {}
    marks = ",".join("?" * len(chunk_ids))
    return {r[0]: (r[1], r[2], r[3]) for r in conn.execute(
        f"SELECT id, node_id, start, end FROM chunks WHERE id IN ({marks})", chunk_ids)}


def _keyword_hits(conn, text: str, limit: int, where: str, params: list,
                  elig: Eligibility) -> list[Hit]:
    """BM25 over the FTS5 index alone, best first, then the eligibility check on just those
    rows (widening the window until `limit` pass): joining every match to `nodes` and its
    tags first costs more than ranking them."""
    match = keyword_query(text)
    if match is None:
        return []
    cond = where
    cond_params = list(params)
    if elig.exclude:
        cond += f" AND n.id NOT IN ({elig.exclude})"
        cond_params += list(elig.params)
    window = max(limit * 4, 50)
    while True:
        ranked = conn.execute(
            "SELECT rowid, bm25(nodes_fts) AS r FROM nodes_fts WHERE nodes_fts MATCH ? "
            "ORDER BY r LIMIT ?", (match, window)).fetchall()
        if not ranked:
            return []
        marks = ",".join("?" * len(ranked))
        ok = dict(conn.execute(f"SELECT n.seq, n.id FROM nodes n WHERE n.seq IN ({marks}) "
                               f"AND {cond}", [r[0] for r in ranked] + cond_params).fetchall())
        hits = [(ok[seq], r) for seq, r in ranked if seq in ok]
        if len(hits) >= limit or len(ranked) < window:
            break
        window *= 4
    hits.sort(key=lambda x: (x[1], x[0]))
    return [Hit(node_id, i, bm25=round(-r, 6), keyword_rank=i)
            for i, (node_id, r) in enumerate(hits[:limit], 1)]


COMPANION_JIT_CHUNKS = 8  # English notes a prompt embeds for the companion (numpy, ~10 ms each)


def _english_prepare(conn, texts, model_id, *, ensure_index: bool = True,
                     index_deadline: float | None = None, progress=None):
    """English fusion (on by default; CTX_ENGLISH_FUSION=0 turns it off): for the English
    queries among `texts` under multilingual-e5, all-MiniLM-L6-v2's query vectors (numpy:
    ctx.semantic.minilm_numpy, one batch) and its stored vectors of the store's English
    notes — (companion, raw segments, {text's position: query vector}), else None.
    _english_vectors scores them.

    Indexing: `ctx index` builds these vectors beside e5's; a search without a deadline
    (`ctx search`) embeds what is missing first, with its progress bar; a prompt (deadline)
    embeds at most COMPANION_JIT_CHUNKS new English chunks in numpy, and while most of the
    store has no MiniLM vectors yet it ranks by e5 alone (never a bulk index on Claude's path)."""
    english = [i for i, t in enumerate(texts) if not _HANGUL.search(t)]
    if not english:
        return None
    from ctx.semantic import index
    from ctx.semantic.embed import english_companion

    hook = index_deadline is not None
    comp = english_companion(model_id, bulk=not hook)
    if comp is None:
        return None
    missing = index.missing_count(conn, comp.model_id)
    if missing and ensure_index:
        if hook:
            index.ensure(conn, comp, deadline=index_deadline, max_chunks=COMPANION_JIT_CHUNKS)
        else:
            index.ensure(conn, comp, progress=progress)
        missing = index.missing_count(conn, comp.model_id)
    if index.mostly_missing(conn, missing):
        return None  # most notes not indexed by MiniLM yet: e5 alone
    raw = index.read_segments(conn, comp.model_id)
    if not raw:
        return None
    vecs = comp.embed_queries([texts[i] for i in english])
    return comp, raw, dict(zip(english, vecs))


def _english_vectors(conn, prepared, options, elig):
    """MiniLM's vectors and, per English query, its scores of every eligible English chunk:
    (vectors, {position: scores}). Each query's best chunks join its candidates;
    _blend_english mixes the scores."""
    from ctx.semantic import index

    comp, raw, queries = prepared
    mv = index.vectors_from(raw, comp.model_id)
    bad, good = _ineligible(conn, comp.model_id, options, elig)
    out = {}
    for i, q in queries.items():
        out[i] = mv.scores(q)
        _apply_mask(mv, out[i], bad, good)
    return mv, out


def _blend_english(conn, hits, vectors, scores, second, contents: dict[str, str]) -> None:
    """An English note's similarity becomes the mean of e5's and MiniLM's, MiniLM's first
    put on e5's scale over this store (its mean and spread over every eligible English chunk
    matched to e5's over the same chunks). A note with Hangul (`contents`: every hit's text)
    keeps e5's alone: MiniLM reads English only."""
    import numpy as np

    mv, ms, _ = second
    # e5's mean and spread over the same population as MiniLM's: the English chunks
    hangul = np.concatenate([a[:, 0] if a is not None else np.zeros(len(c), dtype=np.float32)
                             for (c, _s), a in zip(vectors.segments, vectors.attrs
                                                   or [None] * len(vectors.segments))]) \
        if len(scores) else np.zeros(0, dtype=np.float32)
    e_ok, m_ok = scores[(scores > -1.5) & (hangul == 0)], ms[ms > -1.5]
    if len(e_ok) < 2 or len(m_ok) < 2:
        return
    mu_e, sd_e, mu_m, sd_m = e_ok.mean(), e_ok.std(), m_ok.mean(), m_ok.std()
    if not sd_m > 0:
        return
    hits = [h for h in hits if h.similarity is not None]
    other = [Hit(h.node_id, 0) for h in hits]
    _fill_similarity(conn, mv, ms, other)
    for h, o in zip(hits, other):
        if o.similarity is not None and not _HANGUL.search(contents.get(h.node_id, "")):
            m = (o.similarity - mu_m) / sd_m * sd_e + mu_e
            h.similarity = round(float(np.float64(h.similarity + m) / 2), 6)


_HANGUL = re.compile("[\uac00-\ud7a3]")


def document_bonus(hits, contents: dict[str, str]) -> dict[str, float]:
    """What orders a document longer than one chunk beside its fused score (not its score:
    the floor never sees it): DOCUMENT_WEIGHT × its BM25 relative to the best among the
    candidates × (1 − 1/chunks). A long document is judged by its best chunk's similarity,
    while its words are spread over all of them — a session's date in its heading, the answer
    in its tenth line (LoCoMo: hybrid recall@5 0.860 → see docs/retrieval.md). A one-chunk
    note gains nothing: on short notes a BM25 bonus lifts word-sharing notes over paraphrase
    answers."""
    from ctx.semantic.chunk import MAX_CHARS, chunk_text

    scored = [h for h in hits if h.bm25 is not None and h.node_id in contents]
    best = max((h.bm25 for h in scored), default=0.0)
    if best <= 0:
        return {}
    out = {}
    for h in scored:
        content = contents[h.node_id]
        if len(content) <= MAX_CHARS:
            continue  # one chunk
        n = len(chunk_text(content))
        if n > 1:
            out[h.node_id] = DOCUMENT_WEIGHT * (1.0 - 1.0 / n) * h.bm25 / best
    return out


def keyword_bonus(text: str, content: str | None, hit: Hit | None = None) -> float:
    """What matching the prompt's words adds to a candidate's score: KEYWORD_WEIGHT × the
    squared share of the prompt's terms the memory holds. A memory naming every identifier
    of the prompt gains the full weight; one sharing a common word or two of a paraphrase
    gains next to nothing (BM25, which grows with the number of terms, lifted those over
    the semantic answer: paraphrase recall@5 0.70 semantic vs 0.60 hybrid on the dev set).

    With `hit`, a short note also gets back the share of its short-note penalty
    (ctx.semantic.centering) that its words earn: the penalty keeps "ok"-sized notes from
    answering every prompt, and must not cost "Deploys go out on Tuesdays only" its place
    when the prompt asks when we deploy (issue 40)."""
    if not content:
        return 0.0
    found, total = term_coverage(text, content)
    if not total:
        return 0.0
    share = found / total
    back = 0.0
    if hit is not None and hit.similarity is not None and hit.chunk_start is not None:
        from ctx.semantic.centering import short_penalty

        back = short_penalty(content[hit.chunk_start:hit.chunk_end]) * share
    return KEYWORD_WEIGHT * share ** 2 + back


def _fill_similarity(conn, vectors, scores, hits: list[Hit]) -> None:
    """Keyword-only candidates: their best chunk's cosine, from the scores already computed."""
    if not hits:
        return
    ids = [h.node_id for h in hits]
    marks = ",".join("?" * len(ids))
    rows = conn.execute(f"SELECT id, node_id, start, end FROM chunks WHERE node_id IN ({marks}) "
                        f"AND model = ?", [*ids, vectors.model_id]).fetchall()
    pos = vectors.positions([r[0] for r in rows]) if rows else []
    best: dict[str, tuple[float, int, int]] = {}
    for (_cid, node_id, start, end), p in zip(rows, pos):
        if p < 0 or not scores[p] > -1.5:
            continue
        s = float(scores[p])
        if node_id not in best or s > best[node_id][0]:
            best[node_id] = (s, start, end)
    for h in hits:
        if h.node_id in best:
            s, h.chunk_start, h.chunk_end = best[h.node_id]
            h.similarity = round(s, 6)


def with_nodes(hits: list[Hit], nodes: dict):
    """(hit, its node, the text of the chunk that matched or None) for each hit whose node
    is in `nodes` (id → ctx.core.model.Node): what a list of results shows."""
    for h in hits:
        node = nodes.get(h.node_id)
        if node is not None:
            chunk = node.content[h.chunk_start:h.chunk_end] if h.chunk_start is not None else None
            yield h, node, chunk


def ranking_score(hit: Hit, mode: str) -> float:
    """The score that put `hit` at its rank in `mode` (what people should see beside the
    rank): hybrid ranks by the fused score, semantic by the cosine, keyword by BM25."""
    if mode == "hybrid" and hit.fused is not None:
        return hit.fused
    if mode == "keyword":
        return hit.bm25 or 0.0
    return hit.score
