"""Score `ctx doctor` on a hand-written curation set (issue 36) as a new user would meet it:
the set becomes a `ctx import` file (projects, memories with their own timestamps), is
imported into a fresh store with no index, and `ctx --all-projects doctor --format json`
runs on it as a separate process — exactly the command a user types.

    python -m bench.curation_eval bench/data/curation_tune.json [--no-vectors] [--indexed] [--show]

Set schema: {"about", "projects": [key…], "memories": [{"key", "project" (null: global),
"lang", "type", "tags", "content", "created_at", "updated_at"}], "duplicate_groups":
[[key…]], "contradictions": [{"older", "newer", "differs"}], "traps": [{"a", "b", "why"}]}.

Scores per kind, over pairs of memories:
- duplicate: every pair inside a found group vs every pair inside a labelled group;
- contradiction: found pairs vs labelled pairs, and how many of the found labelled pairs
  propose the newer one as the keeper;
- traps: labelled look-alike pairs flagged as either kind (each one is also a false
  positive of its kind).

The confirm half (bench/confirm/) is only ever run through this scorer, never read.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime
from itertools import combinations
from pathlib import Path

from bench import ROOT

TUNE = ROOT / "bench" / "data" / "curation_tune.json"
CONFIRM = ROOT / "bench" / "confirm" / "curation_confirm.json"
_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


@dataclass
class Score:
    found: int
    right: int
    gold: int

    @property
    def precision(self) -> float:
        return self.right / self.found if self.found else 1.0

    @property
    def recall(self) -> float:
        return self.right / self.gold if self.gold else 1.0


@dataclass
class Result:
    duplicate: Score
    contradiction: Score
    newer_kept: int            # of the labelled contradictions found, how many keep the newer
    traps_flagged: int
    traps: int
    seconds: float
    misses: dict               # for --show: what was missed / wrongly flagged (keys)


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


def run_set(path: Path, *, vectors: bool = True, indexed: bool = False) -> Result:
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
        done = _ctx(db, *args)
        seconds = time.perf_counter() - t0
        if done.returncode not in (0, 1):
            raise RuntimeError(f"ctx doctor failed: {done.stderr.strip()}")
        findings = json.loads(done.stdout or "[]")
    return score(data, ids, findings, seconds)


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


def main(argv: list[str]) -> int:
    vectors = "--no-vectors" not in argv
    show = "--show" in argv
    indexed = "--indexed" in argv
    paths = [Path(a) for a in argv if not a.startswith("--")] or [TUNE]
    for path in paths:
        r = run_set(path, vectors=vectors, indexed=indexed)
        print(f"{path.name}: duplicate P {r.duplicate.precision:.2f} R {r.duplicate.recall:.2f} "
              f"({r.duplicate.right}/{r.duplicate.found} found, {r.duplicate.gold} labelled); "
              f"contradiction P {r.contradiction.precision:.2f} R {r.contradiction.recall:.2f} "
              f"({r.contradiction.right}/{r.contradiction.found}, {r.contradiction.gold}; newer kept "
              f"{r.newer_kept}); traps flagged {r.traps_flagged}/{r.traps}; {r.seconds:.1f} s")
        if show and path.resolve() != CONFIRM.resolve():  # the confirm half: numbers only
            for what, pairs in r.misses.items():
                for p in pairs:
                    print(f"  {what}: {' / '.join(p)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
