"""ctx doctor's vector step: each node's nearest neighbours, gathered block by block over the
upper triangle with only what beats a row's k-th nearest so far passed on, are the ones a
full sort of the whole similarity matrix gives."""
from __future__ import annotations

import numpy as np
import pytest

from ctx.doctor import vectors


def _unit(rows):
    rows = np.asarray(rows, dtype=np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def _brute(mat, k):
    sims = mat @ mat.T
    np.fill_diagonal(sims, -1.0)
    order = np.argsort(-sims, axis=1, kind="stable")[:, :k]
    return np.take_along_axis(sims, order, axis=1), order


@pytest.mark.parametrize("block", [7, 64, 1024])
def test_nearest_matches_a_full_sort(monkeypatch, block):
    rng = np.random.default_rng(3)
    n, dim, k = 700, 24, 10
    # families of near-copies (templated notes crowd each other), exact copies (ties), and
    # loners, shuffled so a family spreads over many blocks
    centres = rng.standard_normal((20, dim))
    rows = np.concatenate([
        centres[rng.integers(0, 20, 400)] + 0.05 * rng.standard_normal((400, dim)),
        np.repeat(rng.standard_normal((30, dim)), 3, axis=0),
        rng.standard_normal((n - 490, dim)),
    ])
    mat = _unit(rows[rng.permutation(n)])
    monkeypatch.setattr(vectors, "BLOCK", block)
    top_v, top_i = vectors.nearest(mat, k)
    want_v, want_i = _brute(mat, k)
    np.testing.assert_allclose(np.sort(top_v, axis=1), np.sort(want_v, axis=1), atol=1e-5)
    # the neighbours themselves, wherever the k-th nearest is not tied with the next one
    sims = mat @ mat.T
    np.fill_diagonal(sims, -1.0)
    ranked = np.sort(sims, axis=1)
    untied = np.abs(ranked[:, -k] - ranked[:, -k - 1]) > 1e-5
    assert untied.sum() > n // 2
    for row in np.nonzero(untied)[0]:
        assert set(top_i[row]) == set(want_i[row])
    # no row lists itself
    assert not (top_i == np.arange(n)[:, None]).any()


def test_nearest_of_a_store_smaller_than_k():
    mat = _unit(np.eye(4) + 0.1)
    top_v, top_i = vectors.nearest(mat, 3)
    assert sorted(top_i[0].tolist()) == [1, 2, 3]
    np.testing.assert_allclose(np.sort(top_v, axis=1), np.sort(_brute(mat, 3)[0], axis=1), atol=1e-6)
