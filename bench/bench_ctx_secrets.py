"""Issue 18: the secret guard. Recall and false-positive rate of cuectx.secrets on the
labelled set (tests/ctx/data/secrets, ≥ 300 memory-shaped items), and what the guard adds
to a Stop hook with three remembers (≤ 2 ms): importing the detector plus screening three
memories, in a fresh interpreter (so the lazy regex compiles are counted), median of runs.
For reference, the whole `ctx hook stop` process with the guard on (redact) and off (allow).
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import zlib
from pathlib import Path

from bench import ROOT, WORK, Bench, median_wall_ms

DATA = ROOT / "tests" / "ctx" / "data" / "secrets" / "secrets_set.jsonl"
DIR = WORK / "ctx_secrets"
CTX = str(Path(sys.executable).parent / "ctx")
B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

CLEAN = [
    ("Decision: the API uses SQLite in WAL mode with busy_timeout 5000; migrations are append-only "
    "and recorded in schema_migrations (see ctx/migrations.py, commit 3f9a2b7c1d4e5f6071)."),
    ("The staging server listens on localhost:8080; run `make dev` and open http://127.0.0.1:8080/ui. "
    "Tokens are estimated at 4 characters each; the default view budget is 50000."),
    ("Pattern: hooks never exit 2 and print one JSON object; the Stop hook parses <ctx:remember> tags "
    "outside code fences. OPENAI_API_KEY comes from the environment, never from memory."),
]


def _token() -> str:
    body = "R4nd0mT0k3nV4lu3Xq9Zk2Lm8Np5Wy"
    n, digits = zlib.crc32(body.encode()), ""
    while n:
        n, r = divmod(n, 62)
        digits = B62[r] + digits
    return "ghp_" + body + digits.rjust(6, "0")


WITH_SECRETS = [
    CLEAN[0] + f" CI pushes with {_token()}.",
    CLEAN[1] + " Staging DB: postgres://app:Zx9kq2LmPw@db.staging.internal:5432/app",
    CLEAN[2] + " aws_secret_access_key = 9sK2/pLm4QzX8vTn+RbY7cWd1HfJ0aEu5GiO3kNs",
]

# What a Stop hook process has loaded before it screens a memory; the guard's cost is
# what comes after (importing the detector, compiling the rules the texts need, screening).
_GUARD = """
import json, sys, time
import ctx.claude.actions, ctx.claude.tags, ctx.core.db, ctx.claude.hooks.entry, ctx.claude.hooks.stop, ctx.core.store
texts = json.loads(sys.stdin.read())
t0, c0 = time.perf_counter(), time.process_time()
from cuectx.secrets import find, redact
for t in texts:
    f = find(t)
    if f:
        redact(t, f)
print((time.perf_counter() - t0) * 1000, (time.process_time() - c0) * 1000)
"""


def guard_ms(texts: list[str], runs: int = 15, cpu: bool = False) -> float:
    """Median wall time (or, with `cpu`, CPU time: what a loaded machine does not inflate)."""
    payload = json.dumps(texts).encode()
    # bytecode may be written, as in an installed ctx: without it every run would compile
    # the module's source (~8 ms), which is not what a Stop hook pays
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([sys.executable, "-c", "import cuectx.secrets"], env=env, check=True)
    times = []
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", _GUARD], input=payload, capture_output=True,
                             env=env, check=True).stdout
        times.append(float(out.split()[1 if cpu else 0]))
    return statistics.median(times)


def _faker_items() -> list[dict]:
    import importlib.util

    spec = importlib.util.spec_from_file_location("faker_set", DATA.with_name("faker_set.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.items()


def evaluate(rows: list[dict] | None = None) -> tuple[float, float, int, int]:
    from cuectx.secrets import find, redact

    if rows is None:
        rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines()]
    secrets = [r for r in rows if r["secret"]]
    decoys = [r for r in rows if not r["secret"]]
    recall = sum(r["value"] not in redact(r["text"]) for r in secrets) / len(secrets)
    fp = sum(bool(find(r["text"])) for r in decoys) / len(decoys)
    return recall, fp, len(secrets), len(decoys)


def run(bench: Bench) -> None:
    recall, fp, n_secrets, n_decoys = evaluate()
    bench.report(f"secrets: recall on the labelled set ({n_secrets} secrets)", recall, 0.98, "",
                 better="higher")
    bench.report(f"secrets: false-positive rate ({n_decoys} decoys)", fp * 100, 1, "%")
    recall, fp, n_secrets, n_decoys = evaluate(_faker_items())
    bench.report(f"  Faker set: recall, random passwords behind labels ({n_secrets})", recall, 0.98, "",
                 better="higher")
    bench.report(f"  Faker set: false-positive rate, everyday values ({n_decoys})", fp * 100, 1, "%")
    # issue 26: the adversarial dev set (forms a red team found missing), per form
    sys.path.insert(0, str(ROOT / "tests" / "cuectx"))
    from test_secrets_adversarial import ROWS, per_form

    stats = per_form(ROWS)
    n_sec = sum(s["secrets"] for s in stats.values())
    n_dec = sum(s["decoys"] for s in stats.values())
    bench.report(f"secrets: adversarial set, no leak ({n_sec} secrets)",
                 sum(s["caught"] for s in stats.values()) / n_sec, 0.95, "", better="higher")
    bench.report(f"secrets: adversarial set, false-positive rate ({n_dec} decoys)",
                 sum(s["flagged"] for s in stats.values()) / n_dec * 100, 3, "%")
    for form, s in sorted(stats.items()):
        if s["secrets"]:
            bench.report(f"  {form}: no leak ({s['secrets']})", s["caught"] / s["secrets"], None, "")
        if s["decoys"]:
            bench.report(f"  {form}: decoys flagged ({s['decoys']})", s["flagged"] / s["decoys"] * 100,
                         None, "%")
    bench.report("secret guard on a Stop with 3 remembers (import + screen, cold)",
                 guard_ms(CLEAN), 2, "ms")
    bench.report("  same, CPU time", guard_ms(CLEAN, cpu=True), None, "ms")
    # for reference: secrets in all three compile the URL, label and AWS rules (~3 ms here)
    bench.report("  same, each remember holding a secret (redacted)", guard_ms(WITH_SECRETS), None, "ms")

    DIR.mkdir(parents=True, exist_ok=True)
    reply = "\n".join(f'<ctx:remember type="fact" tier="reference">{t}</ctx:remember>'
                      for t in WITH_SECRETS)
    # (the run's own CTX_RUN_DIR stays: bench/__main__.py stops the hook servers there)
    env = {k: v for k, v in os.environ.items() if not k.startswith("CTX_") or k == "CTX_RUN_DIR"}
    for policy in ("redact", "allow"):
        db_path = DIR / f"stop-{policy}.db"
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db_path}{suffix}").unlink(missing_ok=True)
        bench.report(f"  ctx hook stop, 3 remembers with secrets, CTX_SECRETS={policy}",
                     median_wall_ms([CTX, "hook", "stop", "--response", reply],
                                    env={**env, "CTX_DB": str(db_path), "CTX_SECRETS": policy,
                                         "HOME": str(DIR)}, runs=9), None, "ms")
