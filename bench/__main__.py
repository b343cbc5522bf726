"""Run every bench/bench_*.py and print measured vs budget."""
from __future__ import annotations

import importlib
import os
import sys
import traceback

from bench import ROOT, WORK, Bench


def main(argv: list[str]) -> int:
    only = set(argv)
    WORK.mkdir(exist_ok=True)
    # Hooks run here are served as Claude Code's are (ctx/claude/hooks/server.py), by servers
    # of this run's own, which end with it.
    run_dir = WORK / "run"
    run_dir.mkdir(mode=0o700, exist_ok=True)
    run_dir.chmod(0o700)
    os.environ["CTX_RUN_DIR"] = str(run_dir)
    try:
        return _run(only)
    finally:
        from ctx.claude.hooks import server

        server.stop(str(run_dir))


def _run(only: set[str]) -> int:
    bench = Bench()
    failed = []
    for path in sorted((ROOT / "bench").glob("bench_*.py")):
        name = path.stem
        if only and name.removeprefix("bench_") not in only and name not in only:
            continue
        print(f"\n== {name}", flush=True)
        try:
            importlib.import_module(f"bench.{name}").run(bench)
        except Exception:  # noqa: BLE001 - one broken benchmark must not hide the others
            traceback.print_exc()
            failed.append(name)
    over = [r for r in bench.rows if r.ok is False]
    print(f"\n{len(bench.rows)} measurements, {len(over)} over budget"
          + (f", {len(failed)} benchmark(s) crashed: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
