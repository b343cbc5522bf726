"""The graph page: a project's memory — its nodes (and global memory's) with the edges
between them — laid out on the server (Fruchterman–Reingold steps in numpy) and drawn as
inline SVG with arrowheads; app.js adds pan and zoom, CSS shows a label on hover.

Bounded on purpose: at most MAX_NODES circles whatever the store's size — a project's most
connected nodes first, or one node's neighbourhood (breadth first), filtered by type/tier.
"""
from __future__ import annotations

import heapq
import math
import sqlite3

from ctx.core.store import Store
from cuectx.value import Value

MAX_NODES = 400
WIDTH, HEIGHT, MARGIN = 960, 640, 40


class GraphNode(Value):
    __slots__ = ("anchor", "focus", "id", "label", "lx", "ly", "name", "r", "short", "superseded",
                 "tier", "type", "x", "y")

    def __init__(self, id: str, short: str, type: str, name: str, x: float, y: float, r: float,
                 tier: str | None = None, focus: bool = False, superseded: bool = False,
                 label: str = "", lx: float = 0.0, ly: float = 0.0, anchor: str = "start") -> None:
        self.id = id
        self.short = short
        self.type = type
        self.name = name
        self.x = x
        self.y = y
        self.r = r
        self.tier = tier
        self.focus = focus
        self.superseded = superseded
        self.label = label  # the shown label ("" : on hover only, no room for it)
        self.lx = lx  # where it is drawn, and how it is anchored
        self.ly = ly
        self.anchor = anchor


class GraphEdge(Value):
    __slots__ = ("a", "b", "type")

    def __init__(self, a: GraphNode, b: GraphNode, type: str) -> None:
        self.a = a
        self.b = b
        self.type = type

    @property
    def tip(self) -> tuple[float, float]:
        """Where the line ends: at the target circle's edge, so the arrowhead shows."""
        dx, dy = self.b.x - self.a.x, self.b.y - self.a.y
        length = math.hypot(dx, dy) or 1.0
        back = self.b.r + 1.5
        return round(self.b.x - dx / length * back, 1), round(self.b.y - dy / length * back, 1)


class Graph(Value):
    __slots__ = ("capped", "edges", "focus", "height", "nodes", "scope_label", "total_edges",
                 "total_nodes", "width", "x0", "y0")

    def __init__(self, nodes: list[GraphNode], edges: list[GraphEdge], total_edges: int,
                 capped: bool, focus: str | None, scope_label: str = "", total_nodes: int = 0,
                 width: int = WIDTH, height: int = HEIGHT, x0: float = 0.0,
                 y0: float = 0.0) -> None:
        self.nodes = nodes
        self.edges = edges
        self.total_edges = total_edges
        self.capped = capped
        self.focus = focus
        self.scope_label = scope_label
        self.total_nodes = total_nodes
        self.width = width
        self.height = height
        self.x0 = x0  # the viewBox's corner: the drawing plus every label
        self.y0 = y0


def build(conn: sqlite3.Connection, focus: str | None = None, *, depth: int = 2,
          limit: int = MAX_NODES, scope=None, types: tuple[str, ...] = (),
          tier: str | None = None) -> Graph:
    """Around `focus`, else `scope`'s nodes (a ctx.core.store.Scope; None: every node),
    most connected first; `types`/`tier` keep only those nodes."""
    from ctx.claude.request_view import item_name
    from ctx.core.ids import short_ids

    store = Store(conn)
    capped = False
    keep = _filter_expr(types, tier)
    if focus:
        focus = store.resolve(focus)
        ids, capped = _neighbourhood(conn, focus, depth, limit)
        total_nodes = len(ids)
    else:
        ids, total_nodes = _scoped(store, scope, keep, limit)
        capped = total_nodes > len(ids)
    nodes = {n.id: n for n in store.get_many(ids)}
    if focus and (types or tier):
        nodes = {i: n for i, n in nodes.items() if i == focus or _keeps(n, types, tier)}
    ids = [i for i in ids if i in nodes]
    idset = set(ids)
    edges = [e for e in (store.edges(ids) if ids else [])
             if e.from_id in idset and e.to_id in idset]
    index = {node_id: i for i, node_id in enumerate(ids)}
    width, height = canvas(len(ids))
    pos = layout(len(ids), [(index[e.from_id], index[e.to_id]) for e in edges],
                 width=width, height=height)
    degree = {i: 0 for i in ids}
    for e in edges:
        degree[e.from_id] += 1
        degree[e.to_id] += 1
    short = short_ids(store, ids)
    gnodes = {}
    for node_id in ids:
        n = nodes[node_id]
        x, y = pos[index[node_id]]
        gnodes[node_id] = GraphNode(node_id, short[node_id], n.type, item_name(n.content, 80),
                                    round(x, 1), round(y, 1),
                                    round(4 + 2.0 * math.sqrt(degree.get(node_id, 0)), 1),
                                    tier=n.tier, focus=node_id == focus,
                                    superseded=bool(n.superseded_by))
    gedges = [GraphEdge(gnodes[e.from_id], gnodes[e.to_id], e.type) for e in edges]
    box = place_labels(sorted(gnodes.values(), key=lambda g: (not g.focus,
                                                               -degree.get(g.id, 0), g.id)))
    total = store.count_edges()
    label = "around one node" if focus else (scope.label if scope is not None else "all projects")
    x0, y0, x1, y1 = box if gnodes else (0.0, 0.0, float(width), float(height))
    return Graph(list(gnodes.values()), gedges, total, capped, focus, label, total_nodes,
                 math.ceil(x1 - x0), math.ceil(y1 - y0), math.floor(x0), math.floor(y0))


LABEL_CHARS = 30       # a label longer than this is cut on a word with "…" (the name on hover)
FONT_PX = 12           # the labels' font size (style.css: svg.graph text)
LINE_PX = 15


def text_width(text: str) -> float:
    """A generous estimate of `text`'s width at FONT_PX in a sans-serif font: wide scripts
    (CJK, Hangul) take a full em, capitals and digits more than lower case."""
    em = FONT_PX
    total = 0.0
    for ch in text:
        if ord(ch) >= 0x1100:
            total += em * 1.05
        elif ch.isupper() or ch in "mwMW@%":
            total += em * 0.72
        elif ch in " .,:;'!|iljtf()[]":
            total += em * 0.36
        else:
            total += em * 0.6
    return total


def place_labels(nodes: list[GraphNode], pad: float = 2.0) -> tuple[float, float, float, float]:
    """Give each node (most important first) a label beside its circle — right, left, above
    or below — where it overlaps no label placed before it and no circle; a node with no such
    place keeps its name for hover only. Returns the box holding every circle and label, so
    the viewBox clips none of them."""
    from ctx.claude.request_view import item_name

    circles = [(n.x - n.r, n.y - n.r, n.x + n.r, n.y + n.r, n.id) for n in nodes]
    placed: list[tuple[float, float, float, float]] = []
    grid: dict[tuple[int, int], list[tuple[float, float, float, float]]] = {}
    cell = 80.0

    def cells(b):
        for gx in range(int(b[0] // cell), int(b[2] // cell) + 1):
            for gy in range(int(b[1] // cell), int(b[3] // cell) + 1):
                yield gx, gy

    labels: dict[tuple[int, int], list[tuple[float, float, float, float]]] = {}

    def free(b, own: str, over_circles: bool = False) -> bool:
        for key in cells(b):
            for o in (labels if over_circles else grid).get(key, ()):
                if b[0] < o[2] and o[0] < b[2] and b[1] < o[3] and o[1] < b[3]:
                    return False
        return True

    def take(b, label: bool = False):
        for key in cells(b):
            grid.setdefault(key, []).append(b)
            if label:
                labels.setdefault(key, []).append(b)

    for c in circles:
        take((c[0] - pad, c[1] - pad, c[2] + pad, c[3] + pad))
    x0 = min((c[0] for c in circles), default=0.0)
    y0 = min((c[1] for c in circles), default=0.0)
    x1 = max((c[2] for c in circles), default=0.0)
    y1 = max((c[3] for c in circles), default=0.0)
    hubs = max(1, len(nodes) // 20)  # the first few may cover a dot (drawn above them), never a label
    for k, n in enumerate(nodes):
        text = item_name(n.name, LABEL_CHARS)
        w, h = text_width(text), LINE_PX
        gap = n.r + 5
        d = gap
        options = (  # (box, text x, baseline y, anchor): beside, above, below, then diagonals
            ((n.x + gap, n.y - h / 2, n.x + gap + w, n.y + h / 2), n.x + gap, n.y + 4, "start"),
            ((n.x - gap - w, n.y - h / 2, n.x - gap, n.y + h / 2), n.x - gap, n.y + 4, "end"),
            ((n.x - w / 2, n.y - gap - h, n.x + w / 2, n.y - gap), n.x, n.y - gap - 4, "middle"),
            ((n.x - w / 2, n.y + gap, n.x + w / 2, n.y + gap + h), n.x, n.y + gap + 11, "middle"),
            ((n.x + d, n.y - d - h, n.x + d + w, n.y - d), n.x + d, n.y - d - 4, "start"),
            ((n.x + d, n.y + d, n.x + d + w, n.y + d + h), n.x + d, n.y + d + 11, "start"),
            ((n.x - d - w, n.y - d - h, n.x - d, n.y - d), n.x - d, n.y - d - 4, "end"),
            ((n.x - d - w, n.y + d, n.x - d, n.y + d + h), n.x - d, n.y + d + 11, "end"),
        ) + tuple(  # one line further up or down, still beside it
            ((x0_, n.y - h / 2 + dy, x0_ + w, n.y + h / 2 + dy), tx, n.y + 4 + dy, anchor)
            for dy in (-h, h)
            for x0_, tx, anchor in ((n.x + gap, n.x + gap, "start"),
                                    (n.x - gap - w, n.x - gap, "end")))
        # the circle's own box is in the grid: a label beside it starts outside it
        tries = [(o, False) for o in options] + ([(o, True) for o in options] if k < hubs else [])
        for (b, tx, ty, anchor), over in tries:
            b = (b[0] - pad, b[1] - pad, b[2] + pad, b[3] + pad)
            if free(b, n.id, over):
                take(b, label=True)
                placed.append(b)
                n.label, n.lx, n.ly, n.anchor = text, round(tx, 1), round(ty, 1), anchor
                x0, y0 = min(x0, b[0]), min(y0, b[1])
                x1, y1 = max(x1, b[2]), max(y1, b[3])
                break
    m = 8.0
    return x0 - m, y0 - m, x1 + m, y1 + m


def canvas(n: int) -> tuple[int, int]:
    """A canvas that grows with the node count, so hundreds of nodes keep their room."""
    scale = max(1.0, math.sqrt(n / 80))
    return int(WIDTH * scale), int(HEIGHT * scale)


def _filter_expr(types: tuple[str, ...], tier: str | None) -> str:
    """The type/tier filter in the query language (compiled by ctx.query, as the memory
    page's filters are)."""
    from ctx.core.model import TIERS

    parts = []
    if types:
        parts.append("(" + " OR ".join(f"type:{t}" for t in types) + ")")
    if tier == "none":
        parts += [f'NOT tag:"tier:{t}"' for t in TIERS]
    elif tier:
        parts.append(f'tag:"tier:{tier}"')
    return " AND ".join(parts)


def _keeps(node, types, tier) -> bool:
    if types and node.type not in types:
        return False
    if tier == "none":
        return node.tier is None
    return not tier or node.tier == tier


def _scoped(store: Store, scope, keep: str, limit: int) -> tuple[list[str], int]:
    """The scope's live nodes that pass the filter, the most connected first (then newest),
    at most `limit`; and how many there are in all."""
    from ctx.query import compile_query

    where, params = "1", []
    if keep:
        compiled = compile_query(keep)
        where, params = compiled.where, list(compiled.params)
    ids = store.select(where, params, ids_only=True, scope=scope, order="n.id DESC")
    if len(ids) <= limit:
        return ids, len(ids)
    degree = store.edge_degrees()
    # nlargest is sorted(reverse=True)[:limit]: stable, so newest first among equals
    return heapq.nlargest(limit, ids, key=degree.__getitem__), len(ids)


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


def layout(n: int, pairs: list[tuple[int, int]], iterations: int = 50, *, width: int = WIDTH,
           height: int = HEIGHT) -> list[tuple[float, float]]:
    """Fruchterman–Reingold in the unit square, deterministic (seeded), scaled to the canvas."""
    if n == 0:
        return []
    if n == 1:
        return [(width / 2, height / 2)]
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
    xs = MARGIN + pos[:, 0] * (width - 2 * MARGIN)
    ys = MARGIN + pos[:, 1] * (height - 2 * MARGIN)
    return list(zip(xs.tolist(), ys.tolist(), strict=True))
