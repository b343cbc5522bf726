"""The persistent embedding index: chunks and their vectors, in the ctx database.

Layout (migration 2):
- `chunks` — one row per chunk (node, model, position, character span); ids never reused.
- `embedded_nodes` — (model, node) → the content hash the chunks were made from.
- `vector_segments` — vectors as a few large BLOBs (up to 16,384 vectors each) with the
  chunk ids they belong to, ascending. A search reads a handful of BLOBs straight into
  numpy instead of 100k rows (SPEC §6: ~250 ms for the row-per-vector layout). Each vector
  is stored as int8 codes with one float32 scale (scalar quantisation, 388 bytes instead of
  1,536): 100k vectors are 39 MB to read instead of 154 MB, which is what keeps a cold
  `ctx search` over 100k chunks inside its 500 ms; the cosine moves by at most ~0.002
  (tests/ctx/test_semantic_index.py checks it against the float32 vectors).
- `dead_chunks` — chunks deleted since their segment was written (a trigger fills it);
  masked at search time and dropped when segments are compacted.

Triggers (migration 2) keep it right without anyone calling us: changing a node's content
or deleting it removes its chunks at once (their vectors become dead), so a stale vector is
never served; the node is re-embedded just in time by the next search (`ensure`).
Superseded nodes keep their vectors (`--include-superseded` can find them); search masks them.

"Is anything missing?" is one cheap check — rows in `embedded_nodes` for this model vs
rows in `nodes` — because the triggers keep `embedded_nodes` a subset of `nodes`.
`ctx index` also re-hashes every node's content to catch edits made behind our back.
"""
from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from ctx.core.db import transaction
from ctx.semantic.chunk import chunk_text, content_hash
from ctx.semantic.model import DIM
from cuectx.value import Value

if TYPE_CHECKING:
    import numpy as np

SEGMENT_ROWS = 16384        # a full segment: 16k vectors, 24 MiB
SMALL_SEGMENTS_MAX = 8      # more small (JIT-written) segments than this → merge them
# Embedded and committed together — one size on every path (a deadline is checked and a bar
# moves between batches). A passage's int8 vector depends a little on the texts embedded with
# it (docs/semantic.md), so a size that changed with the path made `ctx doctor` on a pipe
# find other pairs than on a terminal; 16 is also the embedder's own batch.
BATCH_CHUNKS = 16
MMAP_BYTES = 1 << 30        # read-only map for loading vector BLOBs

Progress = Callable[[int, int], None]  # (chunks done, chunks to do)


class IndexReport(Value):
    __slots__ = ("chunks_embedded", "compacted", "model_id", "nodes_embedded", "nodes_missing",
                 "seconds", "stale_fixed")

    def __init__(self, model_id: str, nodes_embedded: int = 0, chunks_embedded: int = 0,
                 nodes_missing: int = 0, stale_fixed: int = 0, compacted: bool = False,
                 seconds: float = 0.0) -> None:
        self.model_id = model_id
        self.nodes_embedded = nodes_embedded
        self.chunks_embedded = chunks_embedded
        self.nodes_missing = nodes_missing  # still not embedded (deadline or chunk limit reached)
        self.stale_fixed = stale_fixed  # hash mismatch found by `verify`
        self.compacted = compacted
        self.seconds = seconds

    @property
    def complete(self) -> bool:
        return self.nodes_missing == 0

    def to_dict(self) -> dict:
        return {"model": self.model_id, "nodes_embedded": self.nodes_embedded,
                "chunks_embedded": self.chunks_embedded, "nodes_missing": self.nodes_missing,
                "stale_fixed": self.stale_fixed, "compacted": self.compacted,
                "seconds": round(self.seconds, 3)}


class VectorSet(Value):
    """The index's live vectors for one model: chunk ids (ascending) and unit vectors."""

    __slots__ = ("attrs", "centers", "dead", "ids", "model_id", "segments")

    def __init__(self, model_id: str, ids: np.ndarray, segments: list[tuple] | None = None,
                 dead: np.ndarray | None = None, attrs: list | None = None,
                 centers: tuple | None = None) -> None:
        self.model_id = model_id
        self.ids = ids  # int64 [n]
        self.segments = [] if segments is None else segments  # (int8 codes [k, DIM], f32 scales [k])
        self.dead = dead  # bool [n]: deleted since written
        self.attrs = [] if attrs is None else attrs  # per segment: f32 [k, 2] (Hangul share, chars) or None
        self.centers = centers  # (μ_ko, μ_en), ctx.semantic.centering

    def __len__(self) -> int:
        return int(self.ids.shape[0])

    def scores(self, query: np.ndarray, text: str | None = None) -> np.ndarray:
        """Score of every vector with a unit query vector (dead ones: -inf): the language-
        centred cosine when `text` (the query's text) is given and the store has centres
        (ctx.semantic.centering), else the plain cosine."""
        import numpy as np

        from ctx.semantic import centering

        if not self.segments:
            return np.empty(0, dtype=np.float32)
        query = np.asarray(query, dtype=np.float32)
        centers = self.centers if text is not None else None
        q = centering.center_query(query, text or "", centers)
        attrs = self.attrs or [None] * len(self.segments)
        out = np.concatenate([centering.scores(codes, scales, a, q, centers)
                              for (codes, scales), a in zip(self.segments, attrs)])
        if self.dead is not None:
            out[self.dead] = -np.inf
        return out

    def dense(self):
        """Every vector as float32 [n, DIM] (dequantised)."""
        import numpy as np

        if not self.segments:
            return np.empty((0, DIM), dtype=np.float32)
        return np.concatenate([codes.astype(np.float32) * scales[:, None]
                               for codes, scales in self.segments])

    def positions(self, chunk_ids) -> np.ndarray:
        """Positions of the given chunk ids in `ids` (-1 where absent)."""
        import numpy as np

        chunk_ids = np.asarray(chunk_ids, dtype=np.int64)
        pos = np.searchsorted(self.ids, chunk_ids)
        pos = np.clip(pos, 0, max(len(self.ids) - 1, 0))
        ok = (len(self.ids) > 0) & (self.ids[pos] == chunk_ids) if len(self.ids) else \
            np.zeros(len(chunk_ids), dtype=bool)
        return np.where(ok, pos, -1)


# ------------------------------------------------------------------------------ reading

def missing_count(conn: sqlite3.Connection, model_id: str) -> int:
    """Nodes without current chunks for this model (two index-only counts)."""
    nodes = conn.execute("SELECT count(*) FROM nodes").fetchone()[0]
    done = conn.execute("SELECT count(*) FROM embedded_nodes WHERE model = ?",
                        (model_id,)).fetchone()[0]
    return max(nodes - done, 0)


def mostly_missing(conn: sqlite3.Connection, missing: int) -> bool:
    """Are `missing` nodes (missing_count) at least half the store? English fusion then ranks
    by e5 alone on a prompt's path (ctx.semantic.search) and `ctx status` says so."""
    return bool(missing) and missing * 2 >= node_count(conn)


def node_count(conn: sqlite3.Connection) -> int:
    """Every node, superseded ones too (what missing_count counts against)."""
    return conn.execute("SELECT count(*) FROM nodes").fetchone()[0]


def encode(vectors) -> bytes:
    """float32 [n, DIM] → int8 codes (row-major) followed by n float32 scales."""
    import numpy as np

    vectors = np.asarray(vectors, dtype=np.float32)
    scales = np.abs(vectors).max(axis=1) / 127.0
    scales = np.where(scales > 0, scales, 1.0).astype("<f4")
    codes = np.clip(np.rint(vectors / scales[:, None]), -127, 127).astype(np.int8)
    return codes.tobytes() + scales.tobytes()


def decode(blob: bytes, count: int):
    """(int8 codes [count, DIM], float32 scales [count]) — views, no copy."""
    import numpy as np

    codes = np.frombuffer(blob, dtype=np.int8, count=count * DIM).reshape(count, DIM)
    scales = np.frombuffer(blob, dtype="<f4", count=count, offset=count * DIM)
    return codes, scales


def read_segments(conn: sqlite3.Connection, model_id: str) -> list[tuple]:
    """The raw segments (chunk ids, vectors, count) and the dead chunk ids — SQL only, so a
    caller can read them while another thread imports numpy and loads the model."""
    conn.execute(f"PRAGMA mmap_size = {MMAP_BYTES}")  # BLOBs copied straight from the map
    segs = [(ids, vecs, count, attrs) for ids, vecs, count, dim, attrs in conn.execute(
        "SELECT chunk_ids, vectors, count, dim, attrs FROM vector_segments WHERE model = ? ORDER BY id",
        (model_id,)) if dim == DIM and len(vecs) == count * (dim + 4)]  # else: another build's
    dead = [r[0] for r in conn.execute("SELECT chunk_id FROM dead_chunks")]
    centers = conn.execute("SELECT lang, weight, total FROM vector_centers WHERE model = ?",
                           (model_id,)).fetchall()
    return [segs, dead, centers]


def vectors_from(raw, model_id: str) -> VectorSet:
    import numpy as np

    from ctx.semantic import centering

    segs, dead_ids, center_rows = raw or ([], [], [])
    ids_parts = [np.frombuffer(ids, dtype="<i8") for ids, *_ in segs]
    segments = [decode(vecs, count) for _, vecs, count, _ in segs]
    attrs = [np.frombuffer(a, dtype="<f4").reshape(count, 2) if a and len(a) == count * 8 else None
             for _, _, count, a in segs]
    ids = np.concatenate(ids_parts) if ids_parts else np.empty(0, dtype=np.int64)
    dead = np.isin(ids, np.array(dead_ids, dtype=np.int64)) if dead_ids and len(ids) else None
    centers = centering.means({lang: (w, np.frombuffer(t, dtype="<f8")) for lang, w, t in center_rows
                               if len(t) == DIM * 8}, _prior(model_id))
    return VectorSet(model_id, ids, segments, dead, attrs, centers)


def _prior(model_id: str):
    """The model's prior centres (centers.npy in its build folder), when it is the one built."""
    import numpy as np

    from ctx.semantic.model import locate

    files = locate()
    if files is None or files.model_id != model_id:
        return None
    try:
        return np.load(files.dir / "centers.npy")
    except (OSError, ValueError):
        return None


def load_vectors(conn: sqlite3.Connection, model_id: str) -> VectorSet:
    return vectors_from(read_segments(conn, model_id), model_id)


def stats(conn: sqlite3.Connection, model_id: str) -> dict:
    row = conn.execute(
        "SELECT count(*), coalesce(sum(count), 0), coalesce(sum(length(vectors)), 0) "
        "FROM vector_segments WHERE model = ?", (model_id,)).fetchone()
    return {
        "model": model_id,
        "nodes": conn.execute("SELECT count(*) FROM nodes").fetchone()[0],
        "nodes_embedded": conn.execute("SELECT count(*) FROM embedded_nodes WHERE model = ?",
                                       (model_id,)).fetchone()[0],
        "chunks": conn.execute("SELECT count(*) FROM chunks WHERE model = ?",
                               (model_id,)).fetchone()[0],
        "segments": row[0],
        "vectors_stored": row[1],
        "dead_vectors": conn.execute("SELECT count(*) FROM dead_chunks").fetchone()[0],
        "bytes": row[2],
    }


# ------------------------------------------------------------------------------ writing

def ensure(conn: sqlite3.Connection, embedder, *, progress: Progress | None = None,
           deadline: float | None = None, max_chunks: int | None = None,
           compact_small: bool = True) -> IndexReport:
    """Embed every node that has no current chunks (JIT). Stops early (leaving the rest for
    later) at `deadline` (time.monotonic()) or after `max_chunks` — cut by chunk, not by
    node: a huge node is embedded BATCH_CHUNKS at a time, its finished chunks are kept, and
    the next call goes on from there (the node counts as embedded once all its chunks are).
    Memory stays bounded by one batch, whatever the size of a node."""
    t0 = time.perf_counter()
    model_id = embedder.model_id
    wants = getattr(embedder, "wants", None)
    report = IndexReport(model_id)
    if missing_count(conn, model_id) == 0:
        report.seconds = time.perf_counter() - t0
        return report
    todo = conn.execute(
        "SELECT n.id FROM nodes n WHERE NOT EXISTS (SELECT 1 FROM embedded_nodes e "
        "WHERE e.model = ? AND e.node_id = n.id) ORDER BY n.seq DESC", (model_id,)).fetchall()
    # newest first: what was just remembered is what the next prompt is most likely about
    done_chunks, batch = 0, []

    def out_of_time() -> bool:
        return deadline is not None and time.monotonic() > deadline

    def flush() -> bool:
        nonlocal done_chunks
        if out_of_time():
            return False
        _embed_and_store(conn, embedder, batch, report)
        done_chunks += len(batch)
        batch.clear()
        if progress:  # the nodes not chunked yet counted at the average so far: a bar that moves
            seen = max(1, nodes_seen)
            progress(done_chunks, total + round((len(todo) - seen) * total / seen))
        return True

    total = 0  # known as we go: chunking every missing node up front cost seconds and memory
    stopped = False
    nodes_seen = 0
    for (node_id,) in todo:
        nodes_seen += 1
        row = conn.execute("SELECT content FROM nodes WHERE id = ?", (node_id,)).fetchone()
        if row is None:
            continue
        content = row[0]
        # an embedder for some texts only (the English companion: ctx.semantic.embed) marks
        # the others done with no chunks, so they are not looked at again
        chunks = chunk_text(content) if wants is None or wants(content) else []
        have = {idx for (idx,) in conn.execute(
            "SELECT idx FROM chunks WHERE node_id = ? AND model = ?", (node_id, model_id))}
        pending = [c for c in chunks if c.idx not in have]
        total += len(pending)
        if not pending:  # every chunk stored by earlier calls: only the mark is missing
            batch.append((node_id, content, None, len(chunks)))
        for c in pending:
            if max_chunks is not None and done_chunks + len(batch) >= max_chunks:
                stopped = True
                break
            batch.append((node_id, content, c, len(chunks)))
            if len(batch) >= BATCH_CHUNKS and not flush():
                batch.clear()
                stopped = True
                break
        if stopped or out_of_time():
            break
    if batch and not out_of_time():
        flush()
    report.nodes_missing = missing_count(conn, model_id)
    if compact_small:
        report.compacted = compact(conn, model_id, full=False)
    report.seconds = time.perf_counter() - t0
    return report


def _embed_and_store(conn: sqlite3.Connection, embedder, batch, report: IndexReport) -> None:
    """Embed and store a batch of (node id, content, chunk or None, the node's chunk count);
    a node whose chunks are then all stored is marked embedded."""
    import numpy as np

    from ctx.semantic import centering

    texts = [c.text for _, _, c, _ in batch if c is not None]
    vectors = embedder.embed(texts) if texts else np.empty((0, DIM), dtype=np.float32)
    attrs = centering.attrs_for(texts)
    now = _now()
    with transaction(conn):
        ids, rows, pos, nodes = [], [], 0, {}
        for node_id, content, chunk, n in batch:
            if node_id not in nodes:
                current = conn.execute("SELECT content FROM nodes WHERE id = ?", (node_id,)).fetchone()
                already = conn.execute("SELECT 1 FROM embedded_nodes WHERE model = ? AND node_id = ?",
                                       (embedder.model_id, node_id)).fetchone()
                # changed, deleted or embedded by someone else meanwhile: skip it
                nodes[node_id] = (current is not None and current[0] == content and not already, content, n)
            if chunk is None:
                continue
            if nodes[node_id][0] and not conn.execute(
                    "SELECT 1 FROM chunks WHERE node_id = ? AND model = ? AND idx = ?",
                    (node_id, embedder.model_id, chunk.idx)).fetchone():
                cur = conn.execute(
                    "INSERT INTO chunks (node_id, model, idx, start, end) VALUES (?, ?, ?, ?, ?)",
                    (node_id, embedder.model_id, chunk.idx, chunk.start, chunk.end))
                ids.append(cur.lastrowid)
                rows.append(pos)
                report.chunks_embedded += 1
            pos += 1
        for node_id, (fresh, content, n) in nodes.items():
            stored = conn.execute("SELECT count(*) FROM chunks WHERE node_id = ? AND model = ?",
                                  (node_id, embedder.model_id)).fetchone()[0]
            if fresh and stored >= n:
                conn.execute(
                    "INSERT INTO embedded_nodes (model, node_id, content_hash, chunk_count, embedded_at) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (embedder.model_id, node_id, content_hash(content), n, now))
                report.nodes_embedded += 1
        if ids:
            sel = np.array(rows, dtype=np.int64)
            _write_segment(conn, embedder.model_id, np.array(ids, dtype=np.int64), vectors[sel], attrs[sel])
            _add_to_centers(conn, embedder.model_id, centering.sums_for(vectors[sel], attrs[sel]))


def _write_segment(conn: sqlite3.Connection, model_id: str, ids: np.ndarray,
                   vectors: np.ndarray, attrs: np.ndarray) -> None:
    import numpy as np

    conn.execute(
        "INSERT INTO vector_segments (model, dim, count, chunk_ids, vectors, attrs) VALUES (?, ?, ?, ?, ?, ?)",
        (model_id, DIM, len(ids), np.ascontiguousarray(ids, dtype="<i8").tobytes(),
         encode(vectors), np.ascontiguousarray(attrs, dtype="<f4").tobytes()))


def _add_to_centers(conn: sqlite3.Connection, model_id: str, sums: dict, *, replace: bool = False) -> None:
    """Running per-language sums (ctx.semantic.centering); deletions are not subtracted (a
    mean drifts little), a full compaction recomputes them exactly (`replace`)."""
    import numpy as np

    for lang, (weight, total) in sums.items():
        row = None if replace else conn.execute(
            "SELECT weight, total FROM vector_centers WHERE model = ? AND lang = ?", (model_id, lang)).fetchone()
        if row is not None and len(row[1]) == DIM * 8:
            weight += row[0]
            total = total + np.frombuffer(row[1], dtype="<f8")
        conn.execute("INSERT OR REPLACE INTO vector_centers (model, lang, weight, total) VALUES (?, ?, ?, ?)",
                     (model_id, lang, float(weight), np.asarray(total, dtype="<f8").tobytes()))


def compact(conn: sqlite3.Connection, model_id: str, *, full: bool = True) -> bool:
    """Rewrite segments: all of them without dead vectors (`full`), or merge the small
    ones JIT indexing leaves behind once there are more than SMALL_SEGMENTS_MAX."""
    import numpy as np

    with transaction(conn):
        segs = conn.execute("SELECT id, count FROM vector_segments WHERE model = ? ORDER BY id",
                            (model_id,)).fetchall()
        if full:
            chosen = [s[0] for s in segs]
            if not chosen and not conn.execute("SELECT 1 FROM dead_chunks LIMIT 1").fetchone():
                return False
        else:
            small = [s[0] for s in segs if s[1] < SEGMENT_ROWS]
            if len(small) <= SMALL_SEGMENTS_MAX:
                return False
            chosen = small
        ids_parts, code_parts, scale_parts, attr_parts = [], [], [], []
        for seg_id in chosen:
            chunk_ids, blob, count, attrs = conn.execute(
                "SELECT chunk_ids, vectors, count, attrs FROM vector_segments WHERE id = ?",
                (seg_id,)).fetchone()
            if len(blob) != count * (DIM + 4):
                continue  # another build's layout: dropped, re-embedded by `ctx index`
            ids_parts.append(np.frombuffer(chunk_ids, dtype="<i8"))
            codes, scales = decode(blob, count)
            code_parts.append(codes)
            scale_parts.append(scales)
            attr_parts.append(np.frombuffer(attrs, dtype="<f4").reshape(count, 2)
                              if attrs and len(attrs) == count * 8
                              else np.tile(np.array([0.0, 500.0], dtype="<f4"), (count, 1)))
        ids = np.concatenate(ids_parts) if ids_parts else np.empty(0, dtype=np.int64)
        codes = np.concatenate(code_parts) if code_parts else np.empty((0, DIM), dtype=np.int8)
        scales = np.concatenate(scale_parts) if scale_parts else np.empty(0, dtype=np.float32)
        attrs = np.concatenate(attr_parts) if attr_parts else np.empty((0, 2), dtype="<f4")
        live = {r[0] for r in conn.execute(
            "SELECT id FROM chunks WHERE model = ?", (model_id,))} if len(ids) else set()
        keep = np.fromiter((i in live for i in ids.tolist()), dtype=bool, count=len(ids))
        order = np.argsort(ids[keep], kind="stable")
        ids, codes, scales = ids[keep][order], codes[keep][order], scales[keep][order]
        attrs = attrs[keep][order]
        conn.executemany("DELETE FROM vector_segments WHERE id = ?", [(s,) for s in chosen])
        for start in range(0, len(ids), SEGMENT_ROWS):  # codes copied as they are: no requantising
            end = start + SEGMENT_ROWS
            conn.execute(
                "INSERT INTO vector_segments (model, dim, count, chunk_ids, vectors, attrs) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (model_id, DIM, len(ids[start:end]), np.ascontiguousarray(ids[start:end], "<i8").tobytes(),
                 np.ascontiguousarray(codes[start:end]).tobytes()
                 + np.ascontiguousarray(scales[start:end], "<f4").tobytes(),
                 np.ascontiguousarray(attrs[start:end], "<f4").tobytes()))
        if full:
            conn.execute("DELETE FROM dead_chunks")
            from ctx.semantic import centering

            if len(ids):  # the live vectors' exact sums (JIT only ever added)
                _add_to_centers(conn, model_id, centering.sums_for(
                    codes.astype(np.float32) * scales[:, None], attrs), replace=True)
    return True


def verify(conn: sqlite3.Connection, model_id: str) -> int:
    """Forget nodes whose content no longer matches the hash they were embedded from
    (edits that bypassed the triggers); returns how many. They are re-embedded by `ensure`."""
    stale = [node_id for node_id, content, h in conn.execute(
        "SELECT n.id, n.content, e.content_hash FROM nodes n JOIN embedded_nodes e "
        "ON e.node_id = n.id AND e.model = ?", (model_id,)) if content_hash(content) != h]
    if stale:
        with transaction(conn):
            for node_id in stale:
                conn.execute("DELETE FROM chunks WHERE node_id = ? AND model = ?", (node_id, model_id))
                conn.execute("DELETE FROM embedded_nodes WHERE node_id = ? AND model = ?",
                             (node_id, model_id))
    return len(stale)


def drop(conn: sqlite3.Connection, *, keep_model: str | None = None,
         also_keep: tuple[str, ...] = ()) -> int:
    """Delete the index (every model's, or all but `keep_model` and `also_keep`). Returns
    chunks dropped."""
    with transaction(conn):
        if keep_model is None:
            n = conn.execute("DELETE FROM chunks").rowcount
            conn.execute("DELETE FROM embedded_nodes")
            conn.execute("DELETE FROM vector_segments")
            conn.execute("DELETE FROM dead_chunks")
        else:
            kept = (keep_model, *also_keep)
            marks = ",".join("?" * len(kept))
            n = conn.execute(f"DELETE FROM chunks WHERE model NOT IN ({marks})", kept).rowcount
            conn.execute(f"DELETE FROM embedded_nodes WHERE model NOT IN ({marks})", kept)
            conn.execute(f"DELETE FROM vector_segments WHERE model NOT IN ({marks})", kept)
    return n


def rebuild(conn: sqlite3.Connection, embedder, *, progress: Progress | None = None,
            keep: tuple[str, ...] = ()) -> IndexReport:
    """`ctx index --rebuild`: drop every vector (`keep` is for update()'s signature: the
    caller rebuilds the English companion after) and embed everything again."""
    drop(conn)
    report = ensure(conn, embedder, progress=progress, compact_small=False)
    report.compacted = compact(conn, embedder.model_id, full=True)
    return report


def update(conn: sqlite3.Connection, embedder, *, progress: Progress | None = None,
           keep: tuple[str, ...] = ()) -> IndexReport:
    """`ctx index`: drop other models' vectors (but `keep`'s: the English companion's),
    re-check hashes, embed what is missing, compact."""
    drop(conn, keep_model=embedder.model_id, also_keep=keep)
    foreign = conn.execute("SELECT count(*) FROM vector_segments WHERE model = ? "
                           "AND length(vectors) != count * (dim + 4)", (embedder.model_id,)).fetchone()[0]
    if foreign:  # written in an older layout: start this model's index over
        drop(conn)
    stale = verify(conn, embedder.model_id)
    report = ensure(conn, embedder, progress=progress, compact_small=False)
    report.stale_fixed = stale
    report.compacted = compact(conn, embedder.model_id, full=True)
    return report


def _now() -> str:
    from ctx.core.model import now_iso

    return now_iso()


# ------------------------------------------------------------------------------ for ctx doctor

def orphan_vectors(conn: sqlite3.Connection) -> tuple[int, int]:
    """(vectors of deleted/changed chunks still in segments, chunks of nodes that are gone)."""
    try:
        dead = conn.execute("SELECT count(*) FROM dead_chunks").fetchone()[0]
        gone = conn.execute("SELECT count(*) FROM chunks c WHERE NOT EXISTS "
                            "(SELECT 1 FROM nodes n WHERE n.id = c.node_id)").fetchone()[0]
    except sqlite3.OperationalError:  # no semantic tables
        return 0, 0
    return dead, gone


def drop_orphans(conn: sqlite3.Connection) -> int:
    """Delete chunks of nodes that are gone and compact every model's segments; returns how
    many vectors that dropped. Nodes are never touched."""
    dead, gone = orphan_vectors(conn)
    with transaction(conn):
        conn.execute("DELETE FROM chunks WHERE NOT EXISTS (SELECT 1 FROM nodes n "
                     "WHERE n.id = chunks.node_id)")
        conn.execute("DELETE FROM embedded_nodes WHERE NOT EXISTS (SELECT 1 FROM nodes n "
                     "WHERE n.id = embedded_nodes.node_id)")
    for (model,) in conn.execute("SELECT DISTINCT model FROM vector_segments").fetchall():
        compact(conn, model, full=True)
    with transaction(conn):
        conn.execute("DELETE FROM dead_chunks")
    return dead + gone


def indexed_model(conn: sqlite3.Connection) -> str | None:
    """The model with the most embedded nodes in this store (None: no index). On a tie, not
    the English companion (all-MiniLM beside multilingual-e5: it marks every node, the
    Korean ones with no chunks)."""
    try:
        row = conn.execute("SELECT model, count(*) AS n FROM embedded_nodes GROUP BY model "
                           "ORDER BY n DESC, model LIKE 'all-MiniLM%' LIMIT 1").fetchone()
    except sqlite3.OperationalError:
        return None
    return row[0] if row else None


def node_vectors(conn: sqlite3.Connection, model_id: str, node_ids: list[str]):
    """(node ids, unit float32 [n, DIM]) — each node's chunks averaged — for the given nodes
    that have live vectors of `model_id`."""
    import numpy as np

    vs = load_vectors(conn, model_id)
    if not len(vs):
        return [], np.empty((0, DIM), dtype=np.float32)
    wanted = set(node_ids)
    owner = {cid: nid for cid, nid in conn.execute(
        "SELECT id, node_id FROM chunks WHERE model = ?", (model_id,)) if nid in wanted}
    dense = vs.dense()
    alive = np.ones(len(vs), dtype=bool) if vs.dead is None else ~vs.dead
    owners = [owner.get(cid) for cid in vs.ids.tolist()]
    ids = sorted({nid for nid, ok in zip(owners, alive.tolist(), strict=True)
                  if ok and nid is not None})
    if not ids:
        return [], np.empty((0, DIM), dtype=np.float32)
    # each node's chunk rows summed in one pass (10k per-node means in Python had cost
    # ~0.2 s at 10k), in row order as before, then divided by their count
    index_of = {nid: i for i, nid in enumerate(ids)}
    node = np.array([index_of.get(nid, -1) for nid in owners], dtype=np.int64)
    node[~alive] = -1
    pos = np.nonzero(node >= 0)[0]
    pos = pos[np.argsort(node[pos], kind="stable")]
    counts = np.bincount(node[pos], minlength=len(ids))
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    mat = np.add.reduceat(dense[pos], starts, axis=0).astype(np.float32)
    mat /= counts[:, None].astype(np.float32)
    mat /= np.maximum(np.linalg.norm(mat, axis=1, keepdims=True), 1e-9)
    return ids, mat
