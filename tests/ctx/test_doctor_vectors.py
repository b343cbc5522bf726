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


def test_node_vectors_average_each_nodes_live_chunks(tmp_path):
    from ctx.core import db
    from ctx.core.store import Store
    from ctx.semantic import index
    from ctx.semantic.embed import get_embedder

    embedder = get_embedder()
    store = Store(db.connect(tmp_path / "s.db"))
    long = " ".join(f"Step {i}: the billing worker retries declined charges after {i} minutes."
                    for i in range(60))
    ids = [store.add(t).id for t in ("SQLite runs in WAL mode.", long, "Trials last 14 days.",
                                     "Refunds over 500 dollars need a second approver.")]
    index.ensure(store.conn, embedder)
    store.delete(ids[2])
    index.ensure(store.conn, embedder)  # the deleted node's chunk is dead in the index
    vs = index.load_vectors(store.conn, embedder.model_id)
    owner = dict(store.conn.execute("SELECT id, node_id FROM chunks"))
    dense, dead = vs.dense(), vs.dead
    want = {}
    for pos, cid in enumerate(vs.ids.tolist()):
        if owner.get(cid) in ids and (dead is None or not dead[pos]):
            want.setdefault(owner[cid], []).append(dense[pos])
    assert len(want[ids[1]]) > 2  # the long node is several chunks
    got_ids, mat = index.node_vectors(store.conn, embedder.model_id, ids)
    assert got_ids == sorted(want) and ids[2] not in got_ids
    for nid, row in zip(got_ids, mat, strict=True):
        mean = np.mean(want[nid], axis=0)
        np.testing.assert_allclose(row, mean / np.linalg.norm(mean), atol=1e-6)
    store.conn.close()


def test_doctor_embeds_with_a_bar_on_a_terminal_and_silently_on_a_pipe(ctx_bin, tmp_path):
    """As a new user: memories imported (no index), then `ctx doctor` embeds them first —
    a progress bar when stderr is a terminal, nothing but the summary on a pipe; and
    `--no-vectors` embeds nothing."""
    import json
    import os
    import sqlite3
    import subprocess

    from ctx_runner import run_with_terminal_stderr

    recs = "".join(json.dumps({"content": f"Service {i} keeps its {w} under {100 + i} entries."})
                   + "\n" for i, w in enumerate(["cache", "queue", "index", "bucket"] * 6))

    def fresh(name):
        env = {**os.environ, "CTX_DB": str(tmp_path / f"{name}.db"), "COLUMNS": "100"}
        env.pop("CTX_PROJECT", None)
        subprocess.run([ctx_bin, "add", "--json", "-"], input=recs, text=True, env=env,
                       check=True, capture_output=True)
        return env

    def chunks(env):
        with sqlite3.connect(env["CTX_DB"]) as conn:
            return conn.execute("SELECT count(*) FROM chunks").fetchone()[0]

    env = fresh("words")
    r = subprocess.run([ctx_bin, "doctor", "--no-vectors"], check=False, capture_output=True, text=True, env=env)
    assert r.returncode in (0, 1) and chunks(env) == 0 and "embedding" not in r.stderr

    env = fresh("pipe")
    r = subprocess.run([ctx_bin, "doctor", "-f", "json"], check=False, capture_output=True, text=True,
                       env=env)
    assert r.returncode in (0, 1), r.stderr
    assert chunks(env) == 24
    assert "embedding" not in r.stderr and r.stderr.startswith("doctor: ")

    env = fresh("tty")
    code, _, seen = run_with_terminal_stderr([ctx_bin, "doctor", "-f", "json"], env)
    assert code in (0, 1)
    assert chunks(env) == 24
    assert b"embedding" in seen and b"24/24" in seen
