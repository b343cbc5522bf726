"""SPEC §2.9 / issue 13: `ctx mcp` — start-up (spawn → the `initialize` answer), and tool-call
latency over stdio on a 2,000-node store: remember, query-language recall, the first semantic
recall (loads MiniLM) and a warm one.

Raw JSON-RPC over the real `ctx mcp` process (no client library in the timing). Wall times on
a shared two-core machine: they also measure the neighbours.
"""
from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench import WORK, Bench

CTX = str(Path(sys.executable).parent / "ctx")
DIR = WORK / "ctx_mcp"
STORE = DIR / "store.db"
N_NODES = 2_000
INIT = {"protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"}}


def build_store() -> None:
    if STORE.exists():
        return
    shutil.rmtree(DIR, ignore_errors=True)
    DIR.mkdir(parents=True)
    from ctx.core import db
    from ctx.core.store import Store

    conn = db.connect(STORE)
    words = ["deploy", "billing", "retry", "cache", "index", "schema", "replica", "alert", "queue",
             "webhook", "refund", "checkout", "payment", "session", "token", "budget"]
    records = [{"content": f"note {i}: the {words[i % 16]} {words[(i * 7) % 16]} rule number {i}",
                "type": "fact", "tags": ["tier:off-context" if i % 10 else "tier:reference"]}
               for i in range(N_NODES)]
    Store(conn).add_many(records)
    conn.close()
    # embed once, so a semantic recall measures search, not indexing
    subprocess.run([CTX, "--db", str(STORE), "index"], check=True, capture_output=True)


class Client:
    def __init__(self, env: dict):
        self.proc = subprocess.Popen([CTX, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, env=env, cwd=DIR, text=True)
        self.n = 0

    def request(self, method: str, params: dict | None = None) -> dict:
        self.n += 1
        msg = {"jsonrpc": "2.0", "id": self.n, "method": method}
        if params is not None:
            msg["params"] = params
        self.proc.stdin.write(json.dumps(msg) + "\n")
        self.proc.stdin.flush()
        while True:
            answer = json.loads(self.proc.stdout.readline())
            if answer.get("id") == self.n:
                return answer

    def notify(self, method: str) -> None:
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": method}) + "\n")
        self.proc.stdin.flush()

    def call_ms(self, tool: str, **args) -> float:
        t0 = time.perf_counter()
        answer = self.request("tools/call", {"name": tool, "arguments": args})
        ms = (time.perf_counter() - t0) * 1000
        if answer["result"].get("isError"):
            raise RuntimeError(f"{tool}: {answer['result']['content'][0]['text']}")
        return ms

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def run(bench: Bench) -> None:
    build_store()
    env = {**os.environ, "CTX_DB": str(STORE)}
    env.pop("CTX_PROJECT", None)  # .bench is not a repository: global memory, all 2,000 nodes
    from ctx.mcp.wire import handshake_file

    Path(handshake_file()).unlink(missing_ok=True)  # the first start learns the handshake
    starts, lists, first_recalls, warm, remembers, queries = [], [], [], [], [], []
    for i in range(4):
        t0 = time.perf_counter()
        c = Client(env)
        c.request("initialize", INIT)
        starts.append((time.perf_counter() - t0) * 1000)
        c.notify("notifications/initialized")
        c.request("tools/list")
        lists.append((time.perf_counter() - t0) * 1000)
        c.call_ms("status")  # the first call of a session warms the SDK's call path
        queries.append(statistics.median(
            c.call_ms("recall", query="type:fact AND tag:tier:reference", limit=10) for _ in range(5)))
        first_recalls.append(c.call_ms("recall", query="how do we retry failed webhooks?"))
        warm.append(statistics.median(c.call_ms("recall", query=f"refund rule for checkout {j}")
                                      for j in range(5)))
        remembers.append(statistics.median(
            c.call_ms("remember", content=f"bench memory {i}-{j} {time.time_ns()}", tier="working")
            for j in range(5)))
        c.close()
    bench.report("ctx mcp: spawn → initialize answer, first start (the SDK answers)", starts[0], None)
    bench.report("ctx mcp: spawn → initialize answer (handshake known)", statistics.median(starts[1:]), 300)
    bench.report("ctx mcp: spawn → tools/list answer (handshake known)", statistics.median(lists[1:]), 300)
    bench.report(f"ctx mcp: recall, query language ({N_NODES} nodes)", statistics.median(queries), 100)
    bench.report("ctx mcp: first semantic recall (loads MiniLM)", statistics.median(first_recalls), 1500)
    bench.report("ctx mcp: warm semantic recall", statistics.median(warm), 150)
    bench.report("ctx mcp: remember", statistics.median(remembers), 100)
