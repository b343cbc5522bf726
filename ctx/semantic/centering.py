"""One score scale across languages: language-centred cosine with a short-note correction.

Multilingual embedding models place every Korean text near every other Korean text: with
multilingual-e5-small, a Korean question scores 0.82–0.87 against *any* Korean note and
lower against the English note that answers it (on our dev set, raw cosine put the answer
in the top 5 for 37 % of Korean→English questions). The language is a shared direction in
the vectors; removing it is the standard correction ("language centring"):

    score(q, d) = cos(q − μ(q), d − μ(d)) − short_penalty(d)

μ(t) = w·μ_ko + (1 − w)·μ_en, where w is the text's Hangul share (a Hangul syllable counts
as three Latin letters) and μ_ko/μ_en are the means of the store's own vectors, weighted by
w and 1 − w (kept as running sums in `vector_centers`), shrunk toward the model's prior
centres (`centers.npy`, the means of a small generic corpus embedded at build time) while the
store has few chunks of a language. Centring also removes what all the notes of one store share,
which is what made short generic notes ("ok", "좋은 아이디어") the top match for unrelated
prompts (hubs); the penalty, SHORT_PENALTY × (1 − length/SHORT_CHARS) for chunks shorter than
SHORT_CHARS (a Hangul syllable counts two), does the rest.

On the dev set (tests/ctx/data/devset.json, semantic mode): recall@5 0.75 → 0.92, ko→en
0.37 → 0.90, en→ko 0.42 → 0.85, and unrelated prompts in both languages top out at about
the same score (≈0.24 at the 90th percentile), so one floor serves both.
Scores are cosines of centred vectors: -1..1, unrelated ≈ 0–0.25, answers ≈ 0.3–0.7.
"""
from __future__ import annotations

import re

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing on the hook path
if TYPE_CHECKING:  # numpy loads only where vectors are scored: hooks that select nothing skip it
    import numpy as np

SHORT_CHARS = 40
SHORT_PENALTY = 0.3
PRIOR_WEIGHT = 20.0     # chunks' worth of the overall mean mixed into each language's mean
# Patterns, compiled on first use (re caches them): the Hangul class alone takes ~1 ms to
# compile, and the prompt hook imports this module on prompts that never score a text.
_HANGUL = r"[\uac00-\ud7a3\u1100-\u11ff\u3130-\u318f]"
_LATIN = r"[A-Za-z]"


def hangul_share(text: str) -> float:
    """0 (no Korean) … 1 (Korean only); a syllable weighs as three Latin letters."""
    h = len(re.findall(_HANGUL, text))
    if not h:
        return 0.0
    a = len(re.findall(_LATIN, text))
    return min(1.0, 3 * h / (3 * h + a))


def short_penalty(text: str) -> float:
    """What `scores` took off a chunk of this text for being short."""
    chars = len(text) + len(re.findall(_HANGUL, text))
    return SHORT_PENALTY * min(max(1.0 - chars / SHORT_CHARS, 0.0), 1.0)


def attrs_for(texts: list[str]) -> np.ndarray:
    """float32 [n, 2]: (Hangul share, length) per chunk — stored beside its vector. The
    length counts a Hangul syllable twice (it says about as much as two Latin letters)."""
    import numpy as np

    return np.array([(hangul_share(t), len(t) + len(re.findall(_HANGUL, t))) for t in texts],
                    dtype="<f4").reshape(-1, 2)


def sums_for(vectors: np.ndarray, attrs: np.ndarray) -> dict[str, tuple[float, np.ndarray]]:
    """Weighted sums to add to the running `vector_centers` rows."""
    import numpy as np

    w = attrs[:, 0].astype(np.float64)
    v = np.asarray(vectors, dtype=np.float64)
    return {"ko": (float(w.sum()), w @ v), "en": (float((1 - w).sum()), (1 - w) @ v)}


def means(sums: dict[str, tuple[float, np.ndarray]], prior=None) -> tuple[np.ndarray, np.ndarray] | None:
    """(μ_ko, μ_en) from the store's running sums, each shrunk toward `prior` (the model's
    centres from a generic corpus, `centers.npy`) by PRIOR_WEIGHT chunks' worth — so a new,
    small store is centred by the prior and a grown one by its own notes. None: neither."""
    import numpy as np

    out = []
    for i, lang in enumerate(("ko", "en")):
        w, s = sums.get(lang, (0.0, None))
        p = None if prior is None else np.asarray(prior[i], dtype=np.float64)
        if p is not None:
            mean = ((s if s is not None else 0.0) + PRIOR_WEIGHT * p) / (w + PRIOR_WEIGHT)
        elif s is not None and w > 0:
            mean = s / w
        else:
            return None
        out.append(np.asarray(mean, dtype=np.float32))
    return out[0], out[1]


def center_query(query: np.ndarray, text: str, centers) -> np.ndarray:
    import numpy as np

    if centers is None:
        return query
    mu_ko, mu_en = centers
    w = hangul_share(text)
    q = query - (w * mu_ko + (1 - w) * mu_en)
    n = float(np.linalg.norm(q))
    return (q / n).astype(np.float32) if n > 1e-6 else query


def scores(codes: np.ndarray, scales: np.ndarray, attrs: np.ndarray | None, query_centered: np.ndarray,
           centers) -> np.ndarray:
    """Centred cosine of every stored vector (int8 codes × scale) with a centred query."""
    import numpy as np

    if centers is None:
        return _dot(codes, query_centered) * scales
    mu_ko, mu_en = centers
    cols = _dot(codes, np.stack([query_centered, mu_ko, mu_en], axis=1))   # one pass over the codes
    a, b, c = (cols * scales[:, None]).T
    if attrs is None:
        w = np.zeros(len(scales), dtype=np.float32)
        chars = np.full(len(scales), SHORT_CHARS, dtype=np.float32)
    else:
        w, chars = attrs[:, 0], attrs[:, 1]
    kq, eq = float(query_centered @ mu_ko), float(query_centered @ mu_en)
    kk, ee, ke = float(mu_ko @ mu_ko), float(mu_en @ mu_en), float(mu_ko @ mu_en)
    num = a - w * kq - (1 - w) * eq
    mu2 = w * w * kk + 2 * w * (1 - w) * ke + (1 - w) * (1 - w) * ee
    den2 = 1.0 - 2.0 * (w * b + (1 - w) * c) + mu2
    out = num / np.sqrt(np.maximum(den2, 1e-6))
    out -= SHORT_PENALTY * np.clip(1.0 - chars / SHORT_CHARS, 0.0, 1.0)
    return out.astype(np.float32)


BLOCK_ROWS = 2048


def _dot(codes: np.ndarray, mat: np.ndarray) -> np.ndarray:
    """int8 codes [n, DIM] @ float32 mat, converted to float32 a block at a time into one
    reused buffer: a whole segment's float copy (16k × 384 × 4 = 25 MB, fresh pages each
    search) cost twice the time of the arithmetic (measured: 10–36 → 5 ms per 16k rows)."""
    import numpy as np

    n = len(codes)
    out = np.empty((n, *mat.shape[1:]), dtype=np.float32)
    buf = np.empty((min(BLOCK_ROWS, n), codes.shape[1]), dtype=np.float32)
    for start in range(0, n, BLOCK_ROWS):
        part = codes[start:start + BLOCK_ROWS]
        k = len(part)
        np.copyto(buf[:k], part, casting="unsafe")
        out[start:start + k] = buf[:k] @ mat
    return out
