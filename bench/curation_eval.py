"""Score `ctx doctor` on a hand-written curation set (issue 36) as a new user would meet it:
the set becomes a `ctx import` file (projects, memories with their own timestamps), is
imported into a fresh store with no index, and `ctx --all-projects doctor --format json`
runs on it as a separate process — exactly the command a user types.

    python -m bench.curation_eval bench/data/curation_tune.json [--no-vectors] [--indexed] [--show]
                                 [--review-oracle [--max-tokens=N]] [--write-time]

`--review-oracle` measures `ctx doctor --review`'s plumbing, not a model: the review goes to
a local OpenAI-compatible stub (on 127.0.0.1, in this process) that answers every pair it is
sent from the set's own labels — a perfect reviewer. What it reaches is the ceiling of
settling by review at the default token cap: which labelled pairs reach the model at all,
at what cost, and that its answers come back into the report.

Set schema: {"about", "projects": [key…], "memories": [{"key", "project" (null: global),
"lang", "type", "tags", "content", "created_at", "updated_at"}], "duplicate_groups":
[[key…]], "contradictions": [{"older", "newer", "differs"}], "traps": [{"a", "b", "why"}]}.

Scores per kind, over pairs of memories:
- duplicate: every pair inside a found group vs every pair inside a labelled group;
- contradiction: found pairs vs labelled pairs, and how many of the found labelled pairs
  propose the newer one as the keeper;
- traps: labelled look-alike pairs flagged as either kind (each one is also a false
  positive of its kind).

The confirm halves (bench/confirm/) are only ever run through this scorer, never read; the
tune halves (bench/data/curation_tune.json, curation_tune2.json) are what thresholds are set on.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from itertools import combinations
from pathlib import Path

from bench import ROOT
from cuectx.value import Value

TUNE = ROOT / "bench" / "data" / "curation_tune.json"
TUNE2 = ROOT / "bench" / "data" / "curation_tune2.json"  # session 4: another team's voice
CONFIRM = ROOT / "bench" / "confirm" / "curation_confirm.json"
CONFIRM2 = ROOT / "bench" / "confirm" / "curation_confirm2.json"  # a second held-out half
# name → set, in the order the bench reports them; the confirm halves are only ever scored
HALVES = (("tune", TUNE), ("tune 2", TUNE2), ("confirm", CONFIRM), ("confirm 2", CONFIRM2))
_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


class Score(Value):
    __slots__ = ("found", "gold", "right")

    def __init__(self, found: int, right: int, gold: int) -> None:
        self.found = found
        self.right = right
        self.gold = gold

    @property
    def precision(self) -> float:
        return self.right / self.found if self.found else 1.0

    @property
    def recall(self) -> float:
        return self.right / self.gold if self.gold else 1.0


class Result(Value):
    __slots__ = ("contradiction", "duplicate", "misses", "newer_kept", "review", "seconds", "traps",
                 "traps_flagged")

    def __init__(self, duplicate: Score, contradiction: Score, newer_kept: int, traps_flagged: int,
                 traps: int, seconds: float, misses: dict, review: dict | None = None) -> None:
        self.duplicate = duplicate
        self.contradiction = contradiction
        self.newer_kept = newer_kept  # of the labelled contradictions found, how many keep the newer
        self.traps_flagged = traps_flagged
        self.traps = traps
        self.seconds = seconds
        self.misses = misses  # for --show: what was missed / wrongly flagged (keys)
        self.review = review  # --review-oracle: pairs sent, requests, left out, tokens


def _ulid(stamp: str, n: int) -> str:
    """A ULID whose time part is the memory's creation time (so ids sort as a real store's)."""
    ms = int(datetime.fromisoformat(stamp).timestamp() * 1000)
    out = []
    value = (ms << 80) | n
    for _ in range(26):
        value, rem = divmod(value, 32)
        out.append(_ALPHABET[rem])
    return "".join(reversed(out))


def export_file(data: dict, path: Path) -> dict[str, str]:
    """The set as a `ctx export` file; memory key → node id."""
    ids = {m["key"]: _ulid(m["created_at"], i) for i, m in enumerate(data["memories"])}
    lines = [{"kind": "ctx-export", "version": 2}]
    for key in data["projects"]:
        lines.append({"kind": "project", "key": key, "name": key, "root": None, "remote": None,
                      "created_at": "2026-01-01T00:00:00Z", "last_active_at": "2026-01-01T00:00:00Z",
                      "aliases": []})
    for m in data["memories"]:
        lines.append({"kind": "node", "id": ids[m["key"]], "type": m.get("type") or "fact",
                      "content": m["content"], "tags": m.get("tags") or [], "metadata": {},
                      "created_at": m["created_at"], "updated_at": m.get("updated_at") or m["created_at"],
                      "project": m.get("project")})
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")
    return ids


def _ctx(db: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "CTX_DB": str(db)}
    env.pop("CTX_PROJECT", None)
    return subprocess.run([sys.executable, "-m", "ctx", *args], env=env, capture_output=True,
                          text=True, check=False, cwd=ROOT)


class _Oracle:
    """An OpenAI-compatible chat server on 127.0.0.1 that answers `ctx doctor --review`'s
    pairs from the labels: duplicate, contradiction, else different. Counts what it is sent."""

    def __init__(self, data: dict):
        import http.server
        import threading

        from ctx.doctor.review import _clean

        by_text = {_clean(m["content"]): m["key"] for m in data["memories"]}
        dup = {frozenset(p) for g in data["duplicate_groups"] for p in combinations(g, 2)}
        con = {frozenset((c["older"], c["newer"])) for c in data["contradictions"]}
        oracle = self
        self.pairs = 0
        self.requests = 0
        self.prompt_chars = 0

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)))
                text = body["messages"][0]["content"]
                oracle.requests += 1
                oracle.prompt_chars += len(text)
                lines = []
                for n, a, b in re.findall(r"^Pair (\d+):\nA: (.*)\nB: (.*)$", text, re.MULTILINE):
                    pair = frozenset((by_text.get(a, a), by_text.get(b, b)))
                    verdict = ("duplicate" if pair in dup else "contradiction" if pair in con
                               else "different")
                    lines.append(json.dumps({"pair": int(n), "verdict": verdict, "why": "labelled"}))
                    oracle.pairs += 1
                out = json.dumps({"choices": [{"message": {"role": "assistant",
                                                           "content": "\n".join(lines)}}],
                                  "usage": {}}).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def run_set(path: Path, *, vectors: bool = True, indexed: bool = False,
            oracle: bool = False, max_tokens: int | None = None) -> Result:
    data = json.loads(path.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory(prefix="ctx-curation-") as tmp:
        db = Path(tmp) / "store.db"
        ids = export_file(data, Path(tmp) / "set.jsonl")
        imported = _ctx(db, "import", str(Path(tmp) / "set.jsonl"))
        if imported.returncode != 0:
            raise RuntimeError(f"ctx import failed: {imported.stderr.strip()}")
        if indexed and _ctx(db, "index").returncode != 0:  # as after `ctx index`
            raise RuntimeError("ctx index failed")
        t0 = time.perf_counter()
        args = ["--all-projects", "doctor", "--kind", "duplicate", "--kind", "contradiction",
                "--format", "json"] + ([] if vectors else ["--no-vectors"])
        stub = _Oracle(data) if oracle else None
        if stub is not None:
            args += ["--review", "--review-backend", "openai", "--review-url", stub.url, "--yes"]
            if max_tokens is not None:
                args += ["--max-tokens", str(max_tokens)]
        try:
            done = _ctx(db, *args)
        finally:
            if stub is not None:
                stub.close()
        seconds = time.perf_counter() - t0
        if done.returncode not in (0, 1):
            raise RuntimeError(f"ctx doctor failed: {done.stderr.strip()}")
        findings = json.loads(done.stdout or "[]")
    result = score(data, ids, findings, seconds)
    if stub is not None:
        sent = re.search(r"review: (\d+) flagged pair\(s\)(?: \((\d+) more left out)?.*?= ~([\d,]+) of",
                         done.stderr)
        result.review = {"pairs": stub.pairs, "requests": stub.requests,
                         "left_out": int(sent.group(2) or 0) if sent else 0,
                         "tokens": int(sent.group(3).replace(",", "")) if sent else 0}
    return result


def score(data: dict, ids: dict[str, str], findings: list[dict], seconds: float = 0.0) -> Result:
    key_of = {v: k for k, v in ids.items()}
    dup_gold = {frozenset(p) for g in data["duplicate_groups"] for p in combinations(sorted(g), 2)}
    con_gold = {frozenset((c["older"], c["newer"])): c["newer"] for c in data["contradictions"]}
    traps = {frozenset((t["a"], t["b"])) for t in data["traps"]}
    dup_pred, con_pred, keeps = set(), set(), {}
    for f in findings:
        keys = [key_of.get(i, i) for i in f["ids"]]
        if f["kind"] == "duplicate":
            dup_pred |= {frozenset(p) for p in combinations(sorted(keys), 2)}
        elif f["kind"] == "contradiction":
            pair = frozenset(keys)
            con_pred.add(pair)
            keeps[pair] = key_of.get(f.get("keep"), f.get("keep"))
    newer_kept = sum(1 for p in con_pred & set(con_gold) if keeps.get(p) == con_gold[p])
    flagged = (dup_pred | con_pred) & traps
    misses = {"duplicate missed": sorted(map(sorted, dup_gold - dup_pred)),
              "duplicate wrong": sorted(map(sorted, dup_pred - dup_gold)),
              "contradiction missed": sorted(map(sorted, set(con_gold) - con_pred)),
              "contradiction wrong": sorted(map(sorted, con_pred - set(con_gold))),
              "traps flagged": sorted(map(sorted, flagged))}
    return Result(Score(len(dup_pred), len(dup_pred & dup_gold), len(dup_gold)),
                  Score(len(con_pred), len(con_pred & set(con_gold)), len(con_gold)),
                  newer_kept, len(flagged), len(traps), seconds, misses)


def write_time(path: Path) -> tuple[int, int, int, int]:
    """The write-time check by meaning (ctx.doctor.paraphrase) on a set: the set imported and
    indexed, then each memory checked as if written again against the others of its scope.
    (flagged, flagged right, memories with a duplicate caught, memories with a duplicate)."""
    from ctx.core import db as store_db
    from ctx.core.store import Store
    from ctx.doctor.paraphrase import paraphrase_of

    data = json.loads(path.read_text(encoding="utf-8"))
    others = {k: set(g) - {k} for g in data["duplicate_groups"] for k in g}
    with tempfile.TemporaryDirectory(prefix="ctx-curation-") as tmp:
        db = Path(tmp) / "store.db"
        ids = export_file(data, Path(tmp) / "set.jsonl")
        if _ctx(db, "import", str(Path(tmp) / "set.jsonl")).returncode or _ctx(db, "index").returncode:
            raise RuntimeError("ctx import / ctx index failed")
        key_of = {v: k for k, v in ids.items()}
        store = Store(store_db.connect(str(db), readonly=True))
        scope = dict(store.conn.execute("SELECT id, project_id FROM nodes"))
        flagged = right = 0
        for m in data["memories"]:
            nid = ids[m["key"]]
            found = paraphrase_of(store, m["content"], scope[nid], (nid,), load=True)
            if found is not None:
                flagged += 1
                right += key_of.get(found.node_id) in others.get(m["key"], ())
        store.conn.close()
    return flagged, right, right, len(others)


def main(argv: list[str]) -> int:
    vectors = "--no-vectors" not in argv
    show = "--show" in argv
    indexed = "--indexed" in argv
    oracle = "--review-oracle" in argv
    cap = next((int(a.split("=", 1)[1]) for a in argv if a.startswith("--max-tokens=")), None)
    paths = [Path(a) for a in argv if not a.startswith("--")] or [TUNE]
    if "--write-time" in argv:
        for path in paths:
            flagged, right, caught, have = write_time(path)
            print(f"{path.name}: write-time check by meaning: {flagged} flagged, {right} right "
                  f"({right / max(flagged, 1):.2f}); {caught} of the {have} memories that have a "
                  f"duplicate caught ({caught / max(have, 1):.2f})")
        return 0
    for path in paths:
        r = run_set(path, vectors=vectors, indexed=indexed, oracle=oracle, max_tokens=cap)
        print(f"{path.name}: duplicate P {r.duplicate.precision:.2f} R {r.duplicate.recall:.2f} "
              f"({r.duplicate.right}/{r.duplicate.found} found, {r.duplicate.gold} labelled); "
              f"contradiction P {r.contradiction.precision:.2f} R {r.contradiction.recall:.2f} "
              f"({r.contradiction.right}/{r.contradiction.found}, {r.contradiction.gold}; newer kept "
              f"{r.newer_kept}); traps flagged {r.traps_flagged}/{r.traps}; {r.seconds:.1f} s")
        if r.review is not None:
            print(f"  review (oracle stub): {r.review['pairs']} pairs in {r.review['requests']} "
                  f"request(s), ~{r.review['tokens']:,} tokens, {r.review['left_out']} left out by the cap")
        if show and path.resolve() not in (CONFIRM.resolve(), CONFIRM2.resolve()):  # numbers only
            for what, pairs in r.misses.items():
                for p in pairs:
                    print(f"  {what}: {' / '.join(p)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
