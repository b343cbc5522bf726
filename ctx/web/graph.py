"""The graph page: a bounded set of nodes and the edges between them, laid out on the server
(a few dozen Fruchterman–Reingold steps in numpy) and drawn as inline SVG.

Bounded on purpose: at most MAX_NODES circles whatever the store's size — around one node
(its neighbourhood, breadth first) or, with no focus, the most connected nodes.
"""
from __future__ import annotations

import math
import sqlite3
from dataclasses import dataclass

from ctx.core.store import Store

MAX_NODES = 120
WIDTH, HEIGHT, MARGIN = 960, 640, 40


@dataclass
class GraphNode:
    id: str
    short: str
    type: str
    name: str
    x: float
    y: float
    r: float
    focus: bool = False
    superseded: bool = False


@dataclass
class GraphEdge:
    a: GraphNode
    b: GraphNode
    type: str


@dataclass
class Graph:
    nodes: list[GraphNode]
    edges: list[GraphEdge]
    total_edges: int
    capped: bool
    focus: str | None


def build(conn: sqlite3.Connection, focus: str | None = None, *, depth: int = 2,
          limit: int = MAX_NODES) -> Graph:
    from ctx.claude.request_view import item_name
    from ctx.core.ids import short_ids

    store = Store(conn)
    capped = False
    if focus:
        focus = store.resolve(focus)
        ids, capped = _neighbourhood(conn, focus, depth, limit)
    else:
        ids, capped = overview(conn, limit)
    edges = store.edges(ids) if ids else []
    idset = set(ids)
    edges = [e for e in edges if e.from_id in idset and e.to_id in idset]
    nodes = {n.id: n for n in store.get_many(ids)}
    ids = [i for i in ids if i in nodes]
    index = {node_id: i for i, node_id in enumerate(ids)}
    pos = layout(len(ids), [(index[e.from_id], index[e.to_id]) for e in edges
                            if e.from_id in index and e.to_id in index])
    degree = {i: 0 for i in ids}
    for e in edges:
        degree[e.from_id] = degree.get(e.from_id, 0) + 1
        degree[e.to_id] = degree.get(e.to_id, 0) + 1
    short = short_ids(store, ids)
    gnodes = {}
    for node_id in ids:
        n = nodes[node_id]
        x, y = pos[index[node_id]]
        gnodes[node_id] = GraphNode(node_id, short[node_id], n.type, item_name(n.content, 48),
                                    round(x, 1), round(y, 1),
                                    round(5 + 2.2 * math.sqrt(degree.get(node_id, 0)), 1),
                                    focus=node_id == focus, superseded=bool(n.superseded_by))
    gedges = [GraphEdge(gnodes[e.from_id], gnodes[e.to_id], e.type) for e in edges
              if e.from_id in gnodes and e.to_id in gnodes]
    total = store.count_edges()
    return Graph(list(gnodes.values()), gedges, total, capped, focus)


def overview(conn, limit: int, hubs: int = 12) -> tuple[list[str], bool]:
    """The most connected nodes and their neighbours: a dozen hubs with what hangs off them
    says more than the top 120 by degree, which in a large store rarely link to each other."""
    store = Store(conn)
    ids: list[str] = []
    seen: set[str] = set()
    capped = False
    for hub in most_connected(conn, hubs)[0]:
        if hub not in seen:
            seen.add(hub)
            ids.append(hub)
        for other in store.neighbours(hub, limit):
            if other in seen:
                continue
            if len(ids) >= limit:
                return ids, True
            seen.add(other)
            ids.append(other)
    return ids, capped


def most_connected(conn, limit: int) -> tuple[list[str], bool]:
    """The nodes with the most edges, and whether there were more (Store.most_linked)."""
    return Store(conn).most_linked(limit)


def _neighbourhood(conn, focus: str, depth: int, limit: int) -> tuple[list[str], bool]:
    store = Store(conn)
    ids, frontier = [focus], [focus]
    seen = {focus}
    for _ in range(max(1, depth)):
        nxt = []
        for node_id in frontier:
            for other in store.neighbours(node_id, limit + 1):
                if other not in seen:
                    if len(ids) >= limit:
                        return ids, True
                    seen.add(other)
                    ids.append(other)
                    nxt.append(other)
        frontier = nxt
    return ids, False


def layout(n: int, pairs: list[tuple[int, int]], iterations: int = 50) -> list[tuple[float, float]]:
    """Fruchterman–Reingold in the unit square, deterministic (seeded), scaled to the canvas."""
    if n == 0:
        return []
    if n == 1:
        return [(WIDTH / 2, HEIGHT / 2)]
    import numpy as np

    rng = np.random.default_rng(7)
    pos = rng.random((n, 2))
    k = 0.6 * math.sqrt(1.0 / n)
    temp = 0.1
    src = np.array([a for a, _ in pairs], dtype=int)
    dst = np.array([b for _, b in pairs], dtype=int)
    for _ in range(iterations):
        dx = pos[:, 0, None] - pos[None, :, 0]
        dy = pos[:, 1, None] - pos[None, :, 1]
        d2 = dx * dx + dy * dy + 1e-9
        w = np.where(d2 < 9 * k * k, k * k / d2, 0.0)              # repulsion k²/d along d,
        #                                       cut off at 3k so separate islands stay close
        disp = np.stack([(w * dx).sum(1), (w * dy).sum(1)], axis=1)
        if len(src):
            d = pos[src] - pos[dst]
            length = np.sqrt((d ** 2).sum(-1))[:, None] + 1e-9
            pull = d * length / k                                  # attraction
            np.add.at(disp, src, -pull)
            np.add.at(disp, dst, pull)
        disp += (0.5 - pos) * 0.4                                  # gravity: keep islands near
        length = np.sqrt((disp ** 2).sum(-1))[:, None] + 1e-9
        pos += disp / length * np.minimum(length, temp)
        temp *= 0.92
    # One scale for both axes (no stretching), and a small graph stays small and centred.
    lo, hi = pos.min(0), pos.max(0)
    span = max(float((hi - lo).max()), 0.8)
    pos = (pos - (lo + hi) / 2) / span + 0.5
    xs = MARGIN + pos[:, 0] * (WIDTH - 2 * MARGIN)
    ys = MARGIN + pos[:, 1] * (HEIGHT - 2 * MARGIN)
    return list(zip(xs.tolist(), ys.tolist(), strict=True))
