"""ctx ui: page times through the real server (`ctx ui --no-browser` on loopback, HTTP as a
browser sends it), on the 10k-node store (first page budget 300 ms, SPEC §6.1 / issue 14)
and on a 100k-node store with edges, sessions and requests (pages must stay responsive:
paging and LIMITs, no whole-table reads)."""
from __future__ import annotations

import http.client
import random
import re
import shutil
import statistics
import subprocess
import time

from bench import ROOT, WORK, Bench
from bench.bench_ctx_core import build_store

CTX = str(ROOT / ".venv" / "bin" / "ctx")


def _with_links(src, dst, *, edges: int, sessions: int, seed: int = 11) -> None:
    """A copy of a benchmark store with edges, supersede chains, sessions and requests."""
    if dst.exists():
        return
    from ctx.core import db
    from ctx.core.ids import new_ulid

    shutil.copy(src, dst)
    rng = random.Random(seed)
    conn = db.connect(dst)
    ids = [r[0] for r in conn.execute("SELECT id FROM nodes ORDER BY id")]
    now = "2026-11-23T12:00:00.000Z"
    with db.transaction(conn):
        conn.executemany("INSERT OR IGNORE INTO edges (from_id, to_id, type, created_at) "
                         "VALUES (?, ?, ?, ?)",
                         [(rng.choice(ids), rng.choice(ids),
                           rng.choice(("DEPENDS_ON", "DERIVED_FROM", "RELATES_TO")), now)
                          for _ in range(edges)])
        for i in range(0, 2000, 2):  # 1000 supersede pairs
            conn.execute("UPDATE nodes SET superseded_by = ? WHERE id = ?", (ids[i + 1], ids[i]))
        for s in range(sessions):
            sid = f"bench-session-{s:05d}"
            conn.execute("INSERT INTO sessions (id, source, started_at, reset_at, last_seen_at) "
                         "VALUES (?, 'startup', ?, ?, ?)", (sid, now, now, now))
            for node_id in rng.sample(ids, 8):
                conn.execute("INSERT OR IGNORE INTO session_items (session_id, node_id, "
                             "include_mode, state, added_at) VALUES (?, ?, 'always', 'active', ?)",
                             (sid, node_id, now))
            for _ in range(10):
                rid = new_ulid()
                conn.execute("INSERT INTO requests (id, session_id, created_at, prompt, path, "
                             "params, injected_chars, elapsed_ms) VALUES (?, ?, ?, ?, 'semantic', "
                             "'{}', 1200, 40)", (rid, sid, now, "how do we retry payments?"))
                for rank, node_id in enumerate(rng.sample(ids, 10), 1):
                    conn.execute("INSERT INTO request_items (request_id, node_id, include_mode, "
                                 "included, injected, score, reason, rank) VALUES "
                                 "(?, ?, 'agent', ?, ?, ?, ?, ?)",
                                 (rid, node_id, int(rank <= 5), "now" if rank <= 5 else None,
                                  round(rng.random(), 3), None if rank <= 5 else "below threshold",
                                  rank))
    conn.execute("PRAGMA optimize")
    conn.close()


class _Server:
    def __init__(self, db_path):
        self.proc = subprocess.Popen([CTX, "--db", str(db_path), "ui", "--no-browser"],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        url = self.proc.stdout.readline().strip()
        m = re.fullmatch(r"http://127\.0\.0\.1:(\d+)/\?token=(\S+)", url)
        if not m:
            self.close()
            raise RuntimeError(f"ctx ui did not start: {url!r} {self.proc.stderr.read()[-500:]}")
        self.port, token = int(m.group(1)), m.group(2)
        # the cookie is an HMAC of the token over the port (ctx/web/security.py), as a browser
        # gets it by opening the printed address
        from ctx.web.security import cookie_value

        self.cookie = f"ctx_ui_{self.port}={cookie_value(token, self.port)}"

    def get(self, path: str) -> tuple[float, bytes]:
        """(milliseconds, body) of one GET."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        t0 = time.perf_counter()
        conn.request("GET", path, headers={"Cookie": self.cookie})
        resp = conn.getresponse()
        body = resp.read()
        ms = (time.perf_counter() - t0) * 1000
        conn.close()
        if resp.status != 200:
            raise RuntimeError(f"GET {path}: {resp.status} {body[:300]!r}")
        return ms, body

    def get_ms(self, path: str) -> float:
        return self.get(path)[0]

    def health(self) -> tuple[float, float]:
        """The Health page on a fresh server: (ms until the page answered, s until it shows
        the findings — `ctx doctor` runs in the background and the page reloads itself)."""
        t0 = time.perf_counter()
        first, body = self.get("/health")
        while b'http-equiv="refresh"' in body:
            time.sleep(0.25)  # a browser reloads it every second; polling harder slows the check
            body = self.get("/health")[1]
        return first, time.perf_counter() - t0

    def median_ms(self, path: str, runs: int = 7) -> float:
        self.get_ms(path)
        return statistics.median(self.get_ms(path) for _ in range(runs))

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def run(bench: Bench) -> None:
    small, big = WORK / "ctx-10k.db", WORK / "ctx-100k.db"
    build_store(small, 10_000)
    build_store(big, 100_000)
    small_web, big_web = WORK / "ctx-web-10k.db", WORK / "ctx-web-100k.db"
    _with_links(small, small_web, edges=10_000, sessions=50)
    _with_links(big, big_web, edges=100_000, sessions=500)

    firsts, starts = [], []
    for _ in range(5):  # a fresh server each time: the first page a person sees
        t0 = time.perf_counter()
        server = _Server(small_web)
        starts.append((time.perf_counter() - t0) * 1000)
        try:
            firsts.append(server.get_ms("/"))
        finally:
            server.close()
    bench.report("ctx ui start until the address is printed, 10k nodes",
                 statistics.median(starts), None)
    bench.report("ctx ui first page after start, 10k nodes", statistics.median(firsts), 300)
    server = _Server(small_web)
    try:
        bench.report("ctx ui memory page, 10k nodes (warm)", server.median_ms("/"), 300)
        first, ready = server.health()
        bench.report("ctx ui health page, 10k nodes: answered (ctx doctor starts behind it)",
                     first, 300)
        bench.report("  its findings shown after (ctx doctor's budget)", ready, 5, "s")
        bench.report("  the page again, memory unchanged", server.median_ms("/health"), 300)
    finally:
        server.close()

    server = _Server(big_web)
    try:
        bench.report("ctx ui first page after start, 100k nodes", server.get_ms("/"), 300)
        pages = {
            "memory page (newest 50 + counts)": "/",
            "filtered: tier + tag": "/?tier=reference&tag=project:api",
            "type filter, no tier": "/?type=decision&tier=none",
            "keyword search": "/?q=rollback+flaky+cache&mode=keyword",
            "graph overview (hubs + neighbours)": "/graph",
            "sessions (50 newest)": "/sessions",
            "requests (50 newest)": "/requests",
        }
        for name, path in pages.items():
            bench.report(f"ctx ui 100k nodes: {name}", server.median_ms(path, runs=5), 1000)
        # Deep paging is keyset: page 200 costs what page 1 does.
        from ctx.core import db

        with db.opened(big_web, readonly=True) as conn:
            deep = conn.execute("SELECT id FROM nodes WHERE superseded_by IS NULL "
                                "ORDER BY id DESC LIMIT 1 OFFSET 10000").fetchone()[0]
            node = conn.execute("SELECT from_id FROM edges GROUP BY from_id "
                                "ORDER BY count(*) DESC LIMIT 1").fetchone()[0]
            req = conn.execute("SELECT id FROM requests ORDER BY seq DESC LIMIT 1").fetchone()[0]
        bench.report("ctx ui 100k nodes: page 200 (keyset paging)",
                     server.median_ms(f"/?before={deep}", runs=5), 1000)
        bench.report("ctx ui 100k nodes: node detail (edges, chain)",
                     server.median_ms(f"/node/{node}", runs=5), 1000)
        bench.report("ctx ui 100k nodes: graph around one node",
                     server.median_ms(f"/graph?focus={node}", runs=5), 1000)
        bench.report("ctx ui 100k nodes: a request's View Context",
                     server.median_ms(f"/requests/{req}", runs=5), 1000)
    finally:
        server.close()
