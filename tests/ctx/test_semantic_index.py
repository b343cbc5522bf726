"""The persistent embedding index: JIT embedding, and updates/supersedes/deletes kept right."""
from __future__ import annotations

import time

import numpy as np
import pytest

from ctx.core import db
from ctx.core.store import Store
from ctx.semantic import index
from ctx.semantic.embed import get_embedder
from ctx.semantic.search import SearchOptions, search


@pytest.fixture(scope="module")
def embedder():
    return get_embedder()


@pytest.fixture
def store(tmp_path):
    conn = db.connect(tmp_path / "s.db")
    yield Store(conn)
    conn.close()


def add(store, *texts):
    return [store.add(t).id for t in texts]


def semantic(store, text, **kw):
    return search(store.conn, text, SearchOptions(mode="semantic", **kw))


def test_ensure_embeds_what_is_missing_once(store, embedder):
    ids = add(store, "SQLite runs in WAL mode so readers never block the writer.",
              "The billing worker retries declined charges three times.")
    assert index.missing_count(store.conn, embedder.model_id) == 2
    report = index.ensure(store.conn, embedder)
    assert (report.nodes_embedded, report.chunks_embedded, report.nodes_missing) == (2, 2, 0)
    assert index.ensure(store.conn, embedder).nodes_embedded == 0
    vs = index.load_vectors(store.conn, embedder.model_id)
    assert len(vs) == 2 and list(vs.ids) == sorted(vs.ids)
    assert np.allclose(np.linalg.norm(vs.dense(), axis=1), 1.0, atol=5e-3)
    rows = store.conn.execute("SELECT node_id, content_hash FROM embedded_nodes").fetchall()
    assert {r[0] for r in rows} == set(ids)
    assert all(r[1] == index.content_hash(store.get(r[0]).content) for r in rows)


def test_search_embeds_new_nodes_just_in_time(store, embedder):
    add(store, "Refunds over 500 dollars need a second approver.")
    first = semantic(store, "who approves large refunds")
    assert len(first.hits) == 1 and first.not_indexed == 0
    new = store.add("Free trials last 14 days without a card.").id
    res = semantic(store, "how long is the trial period")
    assert res.candidates[0].node_id == new


def test_updating_content_replaces_its_vectors(store, embedder):
    (node,) = add(store, "The office is on the fourth floor.")
    index.ensure(store.conn, embedder)
    store.update(node, content="Deploys are frozen on Friday afternoons.")
    # the trigger dropped the old chunks at once: nothing stale can be served
    assert store.conn.execute("SELECT count(*) FROM chunks").fetchone()[0] == 0
    assert index.missing_count(store.conn, embedder.model_id) == 1
    res = semantic(store, "when can we not ship to production?")
    hit = res.candidates[0]
    assert hit.node_id == node and hit.similarity > 0.0  # centred scale: unrelated notes ≈ 0
    chunk = store.conn.execute("SELECT start, end FROM chunks WHERE node_id = ?", (node,)).fetchone()
    assert store.get(node).content[chunk[0]:chunk[1]].startswith("Deploys")
    assert store.conn.execute("SELECT count(*) FROM dead_chunks").fetchone()[0] == 1


def test_deleted_nodes_never_come_back(store, embedder):
    keep, gone = add(store, "Passwords are hashed with argon2id.", "Password resets expire in an hour.")
    index.ensure(store.conn, embedder)
    store.delete(gone)
    res = semantic(store, "password", top_n=5)
    assert [h.node_id for h in res.candidates] == [keep]
    assert index.compact(store.conn, embedder.model_id, full=True)
    assert store.conn.execute("SELECT count(*) FROM dead_chunks").fetchone()[0] == 0
    vs = index.load_vectors(store.conn, embedder.model_id)
    assert len(vs) == 1 and vs.dead is None


def test_superseded_nodes_are_excluded_unless_asked(store, embedder):
    old, new = add(store, "Standups are at 9:30 every morning in the big room.",
                   "Standups are asynchronous: post in the channel before 10:30.")
    store.supersede(old, new)
    res = semantic(store, "when is standup")
    assert [h.node_id for h in res.candidates] == [new]
    both = search(store.conn, "when is standup", SearchOptions(mode="semantic", include_superseded=True))
    assert {h.node_id for h in both.candidates} == {old, new}


def test_index_update_catches_edits_made_behind_its_back(store, embedder):
    (node,) = add(store, "The API rate limit is 600 requests per minute.")
    index.ensure(store.conn, embedder)
    store.conn.execute("DROP TRIGGER nodes_semantic_update")  # simulate an edit the triggers miss
    store.conn.execute("UPDATE nodes SET content = 'Lunch is on the first Wednesday.' WHERE id = ?", (node,))
    report = index.update(store.conn, embedder)
    assert report.stale_fixed == 1 and report.nodes_embedded == 1
    res = semantic(store, "when is the team lunch")
    assert res.candidates[0].node_id == node and res.candidates[0].similarity > 0.25


def test_jit_stops_at_the_chunk_limit_and_resumes(store, embedder):
    add(store, *[f"Note number {i} about topic {i}." for i in range(10)])
    report = index.ensure(store.conn, embedder, max_chunks=3)
    assert report.chunks_embedded == 3 and report.nodes_missing == 7
    report = index.ensure(store.conn, embedder, deadline=0.0)  # already past: embeds nothing
    assert report.chunks_embedded == 0 and report.nodes_missing == 7
    assert index.ensure(store.conn, embedder).nodes_missing == 0


def test_small_segments_are_merged_and_rebuild_starts_over(store, embedder):
    for i in range(index.SMALL_SEGMENTS_MAX + 2):
        store.add(f"Fact {i}: something worth remembering about subsystem {i}.")
        index.ensure(store.conn, embedder, compact_small=False)
    segs = store.conn.execute("SELECT count(*) FROM vector_segments").fetchone()[0]
    assert segs == index.SMALL_SEGMENTS_MAX + 2
    assert index.compact(store.conn, embedder.model_id, full=False)
    assert store.conn.execute("SELECT count(*), sum(count) FROM vector_segments").fetchone()[:] == \
        (1, index.SMALL_SEGMENTS_MAX + 2)
    before = index.load_vectors(store.conn, embedder.model_id)
    report = index.rebuild(store.conn, embedder)
    after = index.load_vectors(store.conn, embedder.model_id)
    assert report.nodes_embedded == index.SMALL_SEGMENTS_MAX + 2
    assert len(after) == len(before) and not set(after.ids) & set(before.ids)


def test_vectors_of_another_model_are_ignored_then_dropped(store, embedder):
    add(store, "Postmark sends our transactional email.")
    index.ensure(store.conn, embedder)
    store.conn.execute("UPDATE vector_segments SET model = 'old-model'")
    store.conn.execute("UPDATE chunks SET model = 'old-model'")
    store.conn.execute("UPDATE embedded_nodes SET model = 'old-model'")
    assert len(index.load_vectors(store.conn, embedder.model_id)) == 0
    assert index.missing_count(store.conn, embedder.model_id) == 1
    index.update(store.conn, embedder)
    models = {r[0] for r in store.conn.execute("SELECT model FROM vector_segments")}
    assert models == {embedder.model_id}


def test_stats_describe_the_index(store, embedder):
    paragraph = ("A paragraph that is long enough to be a chunk of its own, comfortably over "
                 "one hundred characters in all.")
    add(store, "\n\n".join([paragraph] * 3))
    index.ensure(store.conn, embedder)
    st = index.stats(store.conn, embedder.model_id)
    assert st["nodes"] == st["nodes_embedded"] == 1
    assert st["chunks"] == st["vectors_stored"] == 3
    assert st["bytes"] == 3 * (384 + 4)  # int8 codes + a float32 scale per vector


def test_stored_vectors_score_like_the_float32_ones(store, embedder):
    texts = ["SQLite runs in WAL mode.", "고객 데이터는 서울 리전에만 저장한다.",
             "The billing worker retries declined charges.", "x " * 300]
    vectors = embedder.embed(texts)
    codes, scales = index.decode(index.encode(vectors), len(texts))
    restored = codes.astype(np.float32) * scales[:, None]
    assert np.abs(restored - vectors).max() <= scales.max() / 2 + 1e-7
    queries = embedder.embed(["how do readers and writers share the file?", "retry policy", "서울"])
    err = np.abs(restored @ queries.T - vectors @ queries.T).max()
    assert err < 0.003
    zero = index.decode(index.encode(np.zeros((1, 384), np.float32)), 1)
    assert not zero[0].any() and zero[1][0] == 1.0


def test_index_update_starts_over_from_an_older_layout(store, embedder):
    add(store, "The guest network is called orbit-guest.")
    index.ensure(store.conn, embedder)
    # a float32 segment, as an early build wrote them
    store.conn.execute("UPDATE vector_segments SET vectors = zeroblob(count * dim * 4)")
    assert len(index.load_vectors(store.conn, embedder.model_id)) == 0  # ignored, not misread
    index.update(store.conn, embedder)
    vs = index.load_vectors(store.conn, embedder.model_id)
    assert len(vs) == 1 and semantic(store, "wifi name").candidates


def test_a_search_that_finds_many_new_nodes_embeds_them_all(store):
    from ctx.semantic.search import BULK_FROM

    ids = add(store, *[f"Service {i} is owned by team {i} and deployed from repo svc-{i}."
                       for i in range(BULK_FROM + 4)])
    res = search(store.conn, "who owns service 7", SearchOptions(mode="semantic"))
    assert res.not_indexed == 0 and "index" in res.timings
    assert ids[7] in [h.node_id for h in res.candidates[:3]]


def test_two_writers_embedding_the_same_node_store_it_once(tmp_path, embedder):
    path = tmp_path / "race.db"
    a, b = db.connect(path), db.connect(path)
    try:
        node = Store(a).add("Both hooks saw this node as missing at the same moment.").id
        content = Store(a).get(node).content
        chunks = index.chunk_text(content)
        plan = [(node, content, c, len(chunks)) for c in chunks]
        index.ensure(b, embedder)  # the other process wins the race
        report = index.IndexReport(embedder.model_id)
        index._embed_and_store(a, embedder, plan, report)  # our late batch: skipped, not doubled
        assert report.nodes_embedded == 0
        assert a.execute("SELECT count(*) FROM chunks").fetchone()[0] == 1
        assert len(index.load_vectors(a, embedder.model_id)) == 1
    finally:
        a.close()
        b.close()


def test_a_huge_node_is_embedded_in_pieces_across_calls(tmp_path, embedder):
    """Issue 26: the chunk cap was skipped for the first node and one node's chunks were one
    batch, so a 1 MB node blew every deadline. Now each call embeds up to its cap, keeps what
    it did, and the next call goes on; the node counts as embedded once all chunks are."""
    conn = db.connect(tmp_path / "huge.db")
    try:
        text = "\n\n".join(f"Paragraph {i}: the deploy of service {i} needs flag f{i} and a "
                            f"migration window of {i % 7} hours." for i in range(90))
        node = Store(conn).add(text).id
        total = len(index.chunk_text(text))
        assert total >= 40
        calls, stored = 0, []
        while index.missing_count(conn, embedder.model_id):
            report = index.ensure(conn, embedder, max_chunks=10)
            calls += 1
            stored.append(conn.execute("SELECT count(*) FROM chunks").fetchone()[0])
            assert report.chunks_embedded <= 10
            assert calls <= total
        assert stored == sorted(stored) and stored[-1] == total and calls == -(-total // 10)
        assert conn.execute("SELECT chunk_count FROM embedded_nodes WHERE node_id = ?",
                            (node,)).fetchone()[0] == total
        assert len(index.load_vectors(conn, embedder.model_id)) == total
        # a deadline already past embeds nothing, and costs nothing
        Store(conn).add(text + " (edited copy)")
        t0 = time.monotonic()
        report = index.ensure(conn, embedder, deadline=time.monotonic())
        assert report.chunks_embedded == 0 and time.monotonic() - t0 < 1.0
    finally:
        conn.close()


def test_an_index_built_by_the_old_model_is_upgraded_without_losing_anything(store, embedder):
    """Issue 22, item 7: vectors record their model; a MiniLM index is re-embedded by the
    new model just in time (a prompt's share at a time, keyword answers meanwhile) or by
    `ctx index`, which then drops the old vectors."""
    import time

    from ctx.semantic import model as model_mod
    from ctx.semantic.embed import Embedder

    old = Embedder(model_mod.require(model_mod.model_dir(model_mod.MINILM)))
    ids = add(store, "The billing worker retries declined charges three times.",
              "결제 실패 후 1일, 3일, 5일, 7일에 다시 시도한다.",
              "Team lunch is on the first Wednesday of the month.")
    index.ensure(store.conn, old)
    assert index.missing_count(store.conn, old.model_id) == 0
    assert index.missing_count(store.conn, embedder.model_id) == 3
    # a hook's search: at most one chunk embedded now, the rest still found by their words
    res = search(store.conn, "when is team lunch", SearchOptions(mode="hybrid"), embedder=embedder,
                 index_max_chunks=1, index_deadline=time.monotonic() + 30)
    assert res.not_indexed == 2 and ids[2] in {h.node_id for h in res.candidates}
    report = index.update(store.conn, embedder)
    assert report.nodes_missing == 0 and report.nodes_embedded == 2
    models = {r[0] for r in store.conn.execute("SELECT DISTINCT model FROM chunks")}
    assert models == {embedder.model_id}   # the old model's vectors are gone, the nodes are not
    assert store.conn.execute("SELECT count(*) FROM nodes").fetchone()[0] == 3
    top = search(store.conn, "결제가 실패하면 언제 다시 시도해?", SearchOptions(mode="semantic")).candidates
    assert {top[0].node_id, top[1].node_id} == {ids[0], ids[1]}


def test_a_bar_does_not_change_the_vectors(tmp_path, embedder):
    """A passage's int8 vector depends a little on the texts embedded with it (onnxruntime's
    dynamic quantisation scale is per batch): when a bar (or a deadline) cut the batches finer
    than a plain run, `ctx doctor` on a terminal and on a pipe read different vectors and found
    different pairs. Every path embeds the same batches now."""
    texts = [(f"Note {i}: " + "the staging deploy needs a migration window " * (1 + i % 5)).strip()
             for i in range(40)]
    dense = []
    for name, progress in (("plain", None), ("bar", lambda done, total: None)):
        conn = db.connect(tmp_path / f"{name}.db")
        try:
            store = Store(conn)
            nodes = [store.add(t).id for t in texts]
            index.ensure(conn, embedder, progress=progress)
            ids, mat = index.node_vectors(conn, embedder.model_id, nodes)
            by_text = dict(zip((store.get(i).content for i in ids), mat))
            dense.append(np.stack([by_text[t] for t in texts]))
        finally:
            conn.close()
    assert np.array_equal(dense[0], dense[1])
