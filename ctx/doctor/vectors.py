"""Pairs of memories the embedding index says are alike — "vectors when the index has them":
`ctx doctor` works from the text alone and adds these when `ctx index` (or the hooks' JIT
indexing) has embedded the nodes. Restatements in another language (the same fact in Korean
and English) are found only this way, and only as well as the indexed model is multilingual.

The thresholds are per model family: cosine ranges differ (e5 models put unrelated texts
near 0.7, MiniLM near 0.1). Unknown models get the conservative default.
"""
from __future__ import annotations

import sqlite3

# a part of the model id → (same-language, cross-language) cosine a duplicate needs
# (e5 on the dev set: Korean/English restatements 0.87–0.89, unrelated cross-language pairs up
# to 0.88 — the words decide there: same values, and every Latin-script name of the Korean
# text in the English one; see ctx.core.fingerprint.cross_lingual_compatible)
THRESHOLDS = {"MiniLM": (0.90, 0.85), "e5": (0.93, 0.86)}
DEFAULT = (0.92, 0.90)
BLOCK = 1024


def thresholds(conn: sqlite3.Connection) -> tuple[float, float]:
    from ctx.semantic.index import indexed_model

    model = indexed_model(conn) or ""
    return next((v for k, v in THRESHOLDS.items() if k in model), DEFAULT)


def close_pairs(conn: sqlite3.Connection, node_ids: list[str], *,
                floor: float | None = None) -> dict[tuple[str, str], float]:
    """(id, id) sorted → cosine, for indexed nodes at least `floor` alike (default: the
    model's cross-language threshold). Empty when there is no index."""
    from ctx.semantic.index import indexed_model, node_vectors

    model = indexed_model(conn)
    if model is None:
        return {}
    import numpy as np

    ids, mat = node_vectors(conn, model, node_ids)
    if len(ids) < 2:
        return {}
    floor = min(thresholds(conn)) if floor is None else floor
    out: dict[tuple[str, str], float] = {}
    for start in range(0, len(ids), BLOCK):
        sims = mat[start:start + BLOCK] @ mat.T
        rows, cols = np.nonzero(sims >= floor)
        for r, c in zip(rows.tolist(), cols.tolist(), strict=True):
            i = start + r
            if c > i:
                out[(ids[i], ids[c])] = float(sims[r, c])
    return out
