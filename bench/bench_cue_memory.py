"""cue memory / cue suggest: everything but the model, over a day of digests.

Data: 96 `ok` digests (a day of 15-minute windows, ~450 characters each) in a cue
database under .bench/cue_memory/, written once.

- memory update excluding model time: `update_memory(since=24h)` in one process with
  Presidio warm, against a Messages API stub on 127.0.0.1 answering a ~2.5 KB memory; the
  stub round trip is subtracted. This is the backfill check, scrubbing 96 digests and the
  current memory on the way in, the reply on the way out, rendering and the atomic write.
  Budget: the digest pipeline's (SPEC §6 has none for memory). Median of 5.
- suggest excluding model time: the same for `suggest(since=6h)`. Median of 5.
- a whole `cue memory --since 24h` process (cold: imports, Presidio): reported, no budget.
"""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time

from bench import ROOT, WORK, Bench

HOME = WORK / "cue_memory"
NOW = 1_763_766_000.0
RUNS = 5
TOPICS = ["the Atlas migration to Postgres", "the payment-webhook retry tests",
          "the v2 release notes", "the on-call rota in Slack", "the design.pdf review"]
REPLY = "\n".join(
    f"## {name}\n" + "\n".join(f"- {t.capitalize()}: item {i} with enough words to be "
                               f"a realistic bullet (since 2025-11-{18 + i})"
                               for i, t in enumerate(TOPICS))
    for name in ("Ongoing projects", "Open loops", "Recurring patterns", "Recently finished"))


def _digests(conn) -> None:
    if conn.execute("SELECT count(*) FROM digests").fetchone()[0] >= 96:
        return
    for i in range(96):
        end = NOW - (95 - i) * 900
        topic = TOPICS[i % len(TOPICS)]
        text = (f"Worked on {topic} in VS Code and the terminal, ran the test suite twice, "
                f"read the related docs in Firefox and left review comments on PR {100 + i}. "
                "Switched to Slack for a few minutes to answer a question, then went back "
                "to the editor and finished the change before the end of the window.")
        conn.execute(
            "INSERT INTO digests (created_at, window_start, window_end, status, backend, "
            "summary, frame_count, event_count) VALUES (?, ?, ?, 'ok', 'cloud', ?, 8, 40)",
            (end, end - 900, end, text))


def run(bench: Bench) -> None:
    saved = {k: os.environ.get(k) for k in ("CUE_HOME", "ANTHROPIC_API_KEY")}
    os.environ["CUE_HOME"] = str(HOME)
    os.environ["ANTHROPIC_API_KEY"] = "sk-bench-not-real"
    try:
        _run(bench)
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _run(bench: Bench) -> None:
    sys.path[:0] = [str(ROOT / "tests")]
    from stubs import AnthropicStub

    from cue.core import config as cue_config
    from cue.core.db import connect
    from cue.digest.memory import update_memory
    from cue.digest.suggest import suggest

    conn = connect()
    _digests(conn)
    with AnthropicStub(reply=REPLY) as stub:
        cfg = cue_config.load(env={}).replace(cloud__base_url=stub.url)
        update_memory(conn, cfg, since=86_400, now=NOW)  # warm: Presidio, SDK, caches
        memory_ms, suggest_ms = [], []
        for _ in range(RUNS):
            t0 = time.perf_counter()
            m = update_memory(conn, cfg, since=86_400, now=NOW)
            memory_ms.append((time.perf_counter() - t0) * 1000 - m.timings["model_ms"])
        stub.reply = "\n".join(f"- Pick up {t} where you left off" for t in TOPICS)
        for _ in range(RUNS):
            t0 = time.perf_counter()
            s = suggest(conn, cfg, since=6 * 3600, now=NOW)
            total = (time.perf_counter() - t0) * 1000
            assert s.items
            suggest_ms.append(total)
        # suggest returns no timings; take the stub's own round trip off with a bare call
        from cue.llm.cloud import CloudVisionBackend

        backend = CloudVisionBackend(cfg)
        rtt = statistics.median(backend.complete(["x"]).model_ms for _ in range(RUNS))
        env = dict(os.environ, CUE_CLOUD_BASE_URL=stub.url)
        cue = str(ROOT / ".venv" / "bin" / "cue")
        cold = []
        for _ in range(3):
            t0 = time.perf_counter()
            proc = subprocess.run([cue, "memory", "--since", "24h"], check=False,
                                  env=env, capture_output=True)
            cold.append((time.perf_counter() - t0) * 1000)
            assert proc.returncode == 0, proc.stderr.decode()[-500:]
    conn.close()
    bench.report("cue memory, 96 digests, excluding model time (warm)",
                 statistics.median(memory_ms), 1500)
    bench.report("cue suggest, 24 digests + memory, excluding model time (warm)",
                 statistics.median(suggest_ms) - rtt, 1500)
    bench.report("cue memory whole process, 96 digests (cold, incl. stub)",
                 statistics.median(cold))
