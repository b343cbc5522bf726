"""The write-time duplicate check by meaning (ctx.core.dedupe.check's `meaning`): a new
memory's vector against the index, the close ones weighed as `ctx doctor` weighs a pair."""
from __future__ import annotations


def paraphrase_of(store, text: str, project_id: int | None, exclude: tuple[str, ...] = (), *,
                  load: bool = False, candidates: int = 8):
    """The write-time check by meaning (ctx.core.dedupe.check's `meaning`): the live node
    of this scope whose indexed vector says `text` restates it, and the words agree (as
    `ctx doctor` weighs a pair, without the store-wide word rarity) — a `likely` duplicate,
    or None. Only with an index of the embedder's model; the embedder is used when this
    process already has it loaded (the hook server, the MCP server, the viewer) or `load`."""
    import sys

    if not load and "ctx.semantic.embed" not in sys.modules:
        return None
    import sqlite3

    try:  # a store with no index loads no model (numpy)
        if store.conn.execute("SELECT 1 FROM vector_segments LIMIT 1").fetchone() is None:
            return None
    except sqlite3.OperationalError:
        return None
    from ctx.semantic.embed import _cached, get_embedder

    if not load and not _cached.cache_info().currsize:
        return None
    from ctx.core.dedupe import LIKELY, Duplicate
    from ctx.doctor.vectors import FLOOR, MODELS
    from ctx.semantic.model import ModelMissingError

    # the embedder's model, if the index holds its vectors (not indexed_model(): its count
    # over every embedded node was 4 ms of a 10 ms budget at 10k nodes; the embedder says
    # which model it is — locating the files again was another ~0.6 ms)
    try:
        embedder = get_embedder()
    except ModelMissingError:
        return None
    model = embedder.model_id
    if not any(m in model for m in MODELS) or store.conn.execute(
            "SELECT 1 FROM vector_segments WHERE model = ? LIMIT 1", (model,)).fetchone() is None:
        return None
    rows = _centred(store, model)
    if rows is None:
        return None
    owners, mat, (mu_ko, mu_en) = rows
    import numpy as np

    from ctx.semantic.centering import hangul_share

    vector = embedder.embed([text])[0]
    w = hangul_share(text)
    query = vector - (w * mu_ko + (1 - w) * mu_en)
    query /= max(float(np.linalg.norm(query)), 1e-9)
    cos = mat @ query  # language-centred cosine with every live chunk, as `ctx doctor` has it
    many = min(candidates * 4, len(cos))
    top = np.argpartition(cos, len(cos) - many)[len(cos) - many:]
    best: dict[str, float] = {}
    for pos in top[np.argsort(-cos[top])].tolist():
        nid = owners[pos]
        if nid not in exclude and cos[pos] >= FLOOR:
            best[nid] = max(best.get(nid, -1.0), float(cos[pos]))
    if not best:
        return None
    from ctx.core.fingerprint import analyse, analyse_stored
    from ctx.doctor.findings import restates

    live = {nid: content for nid, content, _ in store.live_texts(list(best), project_id)}
    new = analyse(text)
    found = None
    for nid, c in sorted(((i, c) for i, c in best.items() if i in live), key=lambda kv: -kv[1])[:candidates]:
        why = restates(analyse_stored(live[nid]), new, c)
        if why and (found is None or why[0] > found.score):
            found = Duplicate(nid, LIKELY, why[0], why[1])
    return found


# (database file, model) → (the index's state, each row's node id, centred unit rows, centres):
# the write-time check in a long-lived process (the hook server, the MCP server) reads and
# centres the index once, not on every write — until the index changes.
_ROWS: dict[tuple[str, str], tuple] = {}


def _centred(store, model: str):
    """(node id per row, language-centred unit vectors [n, DIM], (μ_ko, μ_en)) of the
    index's live chunks, as `ctx doctor` centres them (ctx/doctor/vectors.py); None without
    centres."""
    conn = store.conn
    stamp = (*conn.execute(
        "SELECT count(*), coalesce(max(rowid), 0), coalesce(sum(count), 0) FROM vector_segments "
        "WHERE model = ?", (model,)).fetchone(), *conn.execute(
        "SELECT count(*), coalesce(max(rowid), 0) FROM dead_chunks").fetchone())
    where = next((r[2] for r in conn.execute("PRAGMA database_list") if r[1] == "main"), "") or str(id(conn))
    got = _ROWS.get((where, model))
    if got is not None and got[0] == stamp:
        return got[1]
    import numpy as np

    from ctx.semantic.index import load_vectors

    vs = load_vectors(conn, model)
    if not len(vs) or vs.centers is None:
        return None
    owner = dict(conn.execute("SELECT id, node_id FROM chunks WHERE model = ?", (model,)))
    mat = vs.dense()
    keep = np.array([int(c) in owner for c in vs.ids.tolist()], dtype=bool)
    if vs.dead is not None:
        keep &= ~vs.dead
    if vs.attrs and all(a is not None for a in vs.attrs):
        w = np.concatenate([a[:, 0] for a in vs.attrs]).astype(np.float32)
    else:  # an index written before chunks carried their language: the node's text says it
        from ctx.semantic.centering import hangul_share

        texts = store.contents(list(set(owner.values())))
        w = np.array([hangul_share(texts.get(owner.get(int(c), ""), "")) for c in vs.ids.tolist()],
                     dtype=np.float32)
    mu_ko, mu_en = (np.asarray(c, dtype=np.float32) for c in vs.centers)
    mat, w = mat[keep], w[keep][:, None]
    mat = mat - (w * mu_ko + (1 - w) * mu_en)
    mat /= np.maximum(np.linalg.norm(mat, axis=1, keepdims=True), 1e-9)
    owners = [owner[int(c)] for c in vs.ids[keep].tolist()]
    rows = (owners, mat, (mu_ko, mu_en))
    _ROWS.clear()  # one store per process in practice: keep one matrix, not one per file
    _ROWS[(where, model)] = (stamp, rows)
    return rows
