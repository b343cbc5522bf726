"""Pairs of memories the embedding index says are about the same thing — `ctx doctor`
embeds what the index lacks first (`embed_missing`), then compares every node's vector with
every other's (`close_pairs`).

Raw multilingual-e5 cosines say little: any two Korean notes score 0.82–0.93, unrelated
English ones 0.75–0.9. The vectors are language-centred first, as search does
(ctx.semantic.centering: each vector minus its language's mean, the store's own means shrunk
toward the model's prior), which puts unrelated pairs near 0 and restatements at 0.3–0.9 in
either language. What the words say then decides (ctx/doctor/findings.py).

Calibrated on the tune half of the hand-written curation set (bench/data/curation_tune.json;
the confirm half is only scored): a pair is looked at from FLOOR up.
"""
from __future__ import annotations

import sqlite3

FLOOR = 0.25        # centred cosine a pair needs to be looked at (unrelated pairs: p99 ≈ 0.3)
REVIEW_FLOOR = 0.20  # …when --review asks: updates in other words sit at 0.20–0.25 too
BLOCK = 1024
NEIGHBOURS = 10     # crowding: the mean centred cosine of a node's ten nearest neighbours…
CROWDED = 0.30      # …above this, its pairs count as that much less alike
CLOSEST = 5         # a pair is looked at when one node is among the other's five nearest
MODELS = ("e5",)    # model families these numbers were calibrated for


def embed_missing(conn: sqlite3.Connection, *, progress=None) -> str | None:
    """Embed the nodes the index lacks (a freshly imported store has none), so that the
    check sees every node's vector. None when done; else why not (no model built)."""
    from ctx.semantic import index
    from ctx.semantic.model import locate, missing_message

    files = locate()
    if files is None:
        return missing_message()
    if index.missing_count(conn, files.model_id) == 0:
        return None  # loading the model alone costs most of a second of CPU
    from ctx.semantic.embed import get_embedder

    embedder = get_embedder(bulk=True)
    index.ensure(conn, embedder, progress=progress)
    conn.commit()
    return None


def close_pairs(conn: sqlite3.Connection, contents: dict[str, str], *,
                floor: float = FLOOR) -> dict[tuple[str, str], float]:
    """(id, id) sorted → language-centred cosine, for indexed nodes at least `floor` alike.
    Empty when there is no index, or it was built by a model these numbers do not fit."""
    from ctx.semantic.index import indexed_model, load_vectors, node_vectors

    model = indexed_model(conn)
    if model is None or not any(m in model for m in MODELS):
        return {}
    import numpy as np

    from ctx.semantic.centering import hangul_share

    ids, mat = node_vectors(conn, model, list(contents))
    centers = load_vectors(conn, model).centers
    if len(ids) < 2 or centers is None:
        return {}
    mu_ko, mu_en = (np.asarray(c, dtype=np.float32) for c in centers)
    w = np.array([hangul_share(contents[i]) for i in ids], dtype=np.float32)[:, None]
    mat = mat - (w * mu_ko + (1 - w) * mu_en)
    mat /= np.maximum(np.linalg.norm(mat, axis=1, keepdims=True), 1e-9)
    # Crowding (the hubness correction of cross-lingual retrieval, CSLS): a node whose ten
    # nearest neighbours are all close sits in a family of templated notes ("<service> note
    # N: …"), where closeness says little; its pairs are discounted by how much more crowded
    # it is than notes people write (tune half: median 0.24, 99th percentile 0.37).
    # Blocking by nearest neighbours: a pair is looked at only when one node is among the
    # other's CLOSEST nearest (among the neighbours the crowding is measured on), not every
    # pair above the floor — a family of templated notes otherwise hands the words tens of
    # thousands of pairs. Restatements are each other's nearest; groups larger than that
    # still join through their members' pairs.
    n = len(ids)
    k = min(NEIGHBOURS, n - 1)
    top_v, top_i = nearest(mat, k)
    crowd = top_v.mean(axis=1)
    near, near_sims = top_i, top_v
    if k > CLOSEST:  # the closest few of the k: only they make pairs
        order = np.argpartition(near_sims, k - CLOSEST, axis=1)[:, k - CLOSEST:]
        near = np.take_along_axis(near, order, axis=1)
        near_sims = np.take_along_axis(near_sims, order, axis=1)
    excess = np.maximum(crowd - CROWDED, 0.0)
    out: dict[tuple[str, str], float] = {}
    if n:
        r = np.repeat(np.arange(n), near.shape[1])
        c, v = near.ravel(), near_sims.ravel()
        r, c = np.minimum(r, c), np.maximum(r, c)  # a pair found from both ends counts once
        _, first = np.unique(r.astype(np.int64) * n + c, return_index=True)
        r, c, v = r[first], c[first], v[first]
        v = v - (excess[r] + excess[c]) / 2
        ok = v >= floor
        for i, j, x in zip(r[ok].tolist(), c[ok].tolist(), v[ok].tolist(), strict=True):
            out[(ids[i], ids[j])] = float(x)
    return out


def nearest(mat, k: int):
    """Each row's k nearest other rows of `mat` (unit rows): (cosines, indices), [n, k] each,
    in no particular order within a row. The same as a full sort of every row of
    mat @ mat.T without the diagonal, done block by block over the upper triangle only."""
    import numpy as np

    n = len(mat)
    top_v = np.full((n, k), -np.inf, dtype=np.float32)
    top_i = np.zeros((n, k), dtype=np.int64)
    # Each block of rows is multiplied only with itself and the rows after it (half the
    # products of a full square). Each row's own block first (the diagonal squares): that
    # gives every row a k-th nearest to beat, and the rest of the upper triangle then hands
    # on only what beats it (a few entries in a hundred; selecting from every entry had cost
    # more than the product at 10k).
    for start in range(0, n, BLOCK):
        stop = min(start + BLOCK, n)
        sims = mat[start:stop] @ mat[start:stop].T
        sims[np.arange(stop - start), np.arange(stop - start)] = -1.0
        _merge(top_v, top_i, start, sims, np.arange(start, stop))
    for start in range(0, n - BLOCK, BLOCK):
        stop = start + BLOCK
        sims = mat[start:stop] @ mat[stop:].T           # [BLOCK, n - stop]
        _merge_above(top_v, top_i, start, sims, stop)
        _merge_above(top_v, top_i, stop, sims, start, transposed=True)  # the later rows' view
    return top_v, top_i


def _merge(top_v, top_i, first: int, sims, cols) -> None:
    """Rows first.. of the running nearest (values, column indices) merged with `sims`
    [rows, len(cols)] over columns `cols`: the k largest kept."""
    import numpy as np

    k = top_v.shape[1]
    rows = slice(first, first + sims.shape[0])
    kk = min(k, sims.shape[1])
    part = np.argpartition(sims, sims.shape[1] - kk, axis=1)[:, sims.shape[1] - kk:]
    cand_v = np.concatenate([top_v[rows], np.take_along_axis(sims, part, axis=1)], axis=1)
    cand_i = np.concatenate([top_i[rows], cols[part]], axis=1)
    keep = np.argpartition(cand_v, cand_v.shape[1] - k, axis=1)[:, cand_v.shape[1] - k:]
    top_v[rows] = np.take_along_axis(cand_v, keep, axis=1)
    top_i[rows] = np.take_along_axis(cand_i, keep, axis=1)


def _merge_above(top_v, top_i, first: int, sims, col0: int, *, transposed: bool = False) -> None:
    """As `_merge`, over columns col0.. for rows first.. that have gathered k already (with
    `transposed`, `sims` is [columns, rows]): only the entries above a row's k-th nearest so
    far can enter it. After the first block that is a few in a hundred, so the rest is never
    selected from (the selection over every entry was most of the vector step's time at 10k;
    the nearest found are the same)."""
    import numpy as np

    k = top_v.shape[1]
    nrows = sims.shape[1] if transposed else sims.shape[0]
    bound = top_v[first:first + nrows].min(axis=1)
    if transposed:
        c, r = np.nonzero(sims > bound[None, :])
        v = sims[c, r]
        by_row = np.argsort(r, kind="stable")
        r, c, v = r[by_row], c[by_row], v[by_row]
    else:
        r, c = np.nonzero(sims > bound[:, None])  # row-major: grouped by row
        v = sims[r, c]
    if not len(r):
        return
    touched, start, count = np.unique(r, return_index=True, return_counts=True)
    width = k + int(count.max())
    rows = first + touched
    cand_v = np.full((len(touched), width), -np.inf, dtype=top_v.dtype)
    cand_i = np.zeros((len(touched), width), dtype=top_i.dtype)
    cand_v[:, :k], cand_i[:, :k] = top_v[rows], top_i[rows]
    slot = np.arange(len(r)) - np.repeat(start, count) + k
    where = np.repeat(np.arange(len(touched)), count)
    cand_v[where, slot], cand_i[where, slot] = v, c + col0
    keep = np.argpartition(cand_v, width - k, axis=1)[:, width - k:]
    top_v[rows] = np.take_along_axis(cand_v, keep, axis=1)
    top_i[rows] = np.take_along_axis(cand_i, keep, axis=1)
