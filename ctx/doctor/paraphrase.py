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
    # Past the first exit only: the index (dataclasses, typing) stays off the hook path of a
    # Stop whose process holds no embedder, and a store with no index loads no model (numpy).
    from ctx.semantic.index import indexed_model, load_vectors

    model = indexed_model(store.conn)
    if model is None:
        return None
    from ctx.semantic.embed import _cached, get_embedder

    if not load and not _cached.cache_info().currsize:
        return None
    from ctx.core.dedupe import LIKELY, Duplicate
    from ctx.doctor.vectors import FLOOR, MODELS
    from ctx.semantic.model import locate

    files = locate()
    if files is None or files.model_id != model or not any(m in model for m in MODELS):
        return None
    vs = load_vectors(store.conn, model)
    if not len(vs) or vs.centers is None:
        return None
    import numpy as np

    from ctx.semantic.centering import hangul_share

    vector = get_embedder().embed([text])[0]
    mu_ko, mu_en = (np.asarray(c, dtype=np.float32) for c in vs.centers)
    w = hangul_share(text)
    query = vector - (w * mu_ko + (1 - w) * mu_en)
    query /= max(float(np.linalg.norm(query)), 1e-9)
    raw = vs.scores(vector)  # plain cosines (int8), to pick the few worth a closer look
    top = np.argsort(-raw)[: candidates * 4]
    chunk_ids = [int(vs.ids[i]) for i in top if np.isfinite(raw[i])]
    if not chunk_ids:
        return None
    dense = {int(vs.ids[i]): vs_row for i, vs_row in zip(top, _rows(vs, top), strict=True)}
    owners = dict(store.conn.execute(
        f"SELECT id, node_id FROM chunks WHERE id IN ({','.join('?' * len(chunk_ids))})", chunk_ids))
    best: dict[str, float] = {}
    for cid in chunk_ids:
        nid = owners.get(cid)
        if nid is None or nid in exclude:
            continue
        row = dense[cid]
        texts = store.live_texts([nid], project_id)
        if not texts:
            continue
        wn = hangul_share(texts[0][1])
        other = row - (wn * mu_ko + (1 - wn) * mu_en)
        cos = float(other @ query) / max(float(np.linalg.norm(other)), 1e-9)
        best[nid] = max(best.get(nid, -1.0), cos)
    from ctx.core.fingerprint import analyse
    from ctx.doctor.findings import restates

    new = analyse(text)
    found = None
    for nid, cos in sorted(best.items(), key=lambda kv: -kv[1])[:candidates]:
        if cos < FLOOR:
            break
        content = store.live_texts([nid], project_id)[0][1]
        why = restates(analyse(content), new, cos)
        if why and (found is None or why[0] > found.score):
            found = Duplicate(nid, LIKELY, why[0], why[1])
    return found


def _rows(vs, positions):
    """Dequantised vectors at these positions of a VectorSet."""
    import numpy as np

    out = []
    bounds = np.cumsum([0] + [len(s) for _, s in vs.segments])
    for p in positions:
        seg = int(np.searchsorted(bounds, p, side="right") - 1)
        codes, scales = vs.segments[seg]
        out.append(codes[p - bounds[seg]].astype(np.float32) * scales[p - bounds[seg]])
    return out
