"""`make bench`: measured vs budget (SPEC §6). See __main__.py."""
from __future__ import annotations

import statistics
import subprocess
import time
from pathlib import Path

from cuectx.value import Value

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / ".bench"


class Row(Value):
    __slots__ = ("better", "budget", "name", "unit", "value")

    def __init__(self, name: str, value: float, budget: float | None, unit: str,
                 better: str) -> None:
        self.name = name
        self.value = value
        self.budget = budget
        self.unit = unit
        self.better = better  # "lower" or "higher"

    @property
    def ok(self) -> bool | None:
        if self.budget is None:
            return None
        return self.value <= self.budget if self.better == "lower" else self.value >= self.budget


class Bench(Value):
    __slots__ = ("rows",)

    def __init__(self, rows: list[Row] | None = None) -> None:
        self.rows = [] if rows is None else rows

    def report(self, name: str, value: float, budget: float | None = None, unit: str = "ms",
               better: str = "lower") -> Row:
        row = Row(name, value, budget, unit, better)
        self.rows.append(row)
        mark = {True: "ok", False: "OVER", None: ""}[row.ok]
        cmp = "≤" if better == "lower" else "≥"
        budget_s = f"{cmp} {budget:g} {unit}" if budget is not None else ""
        print(f"  {name:<58} {value:>10.3g} {unit:<6} {budget_s:<16} {mark}", flush=True)
        return row


def median_cpu_ms(cmd: list[str], *, input: bytes | None = None, env: dict | None = None,
                  runs: int = 9, warmup: int = 1) -> float:
    """Median user+sys CPU time of a command, in milliseconds: steadier than wall time on a
    busy machine (the two-core machine is shared; wall time also measures the neighbours)."""
    import resource

    times = []
    for i in range(warmup + runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(cmd, input=input, env=env, capture_output=True, check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if i >= warmup:
            times.append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
    return statistics.median(times)


def wall_ms(cmd: list[str], *, input: bytes | None = None, env: dict | None = None) -> float:
    """One whole-process wall time of a command that must succeed, in milliseconds."""
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, input=input, env=env, capture_output=True, check=False)
    dt = (time.perf_counter() - t0) * 1000
    if proc.returncode != 0:
        raise RuntimeError(f"{cmd} failed ({proc.returncode}): {proc.stderr.decode()[-500:]}")
    return dt


def median_wall_ms(cmd: list[str], *, runs: int = 7, input: bytes | None = None,
                   env: dict | None = None, warmup: int = 1) -> float:
    """Median whole-process wall time of a command, in milliseconds."""
    times = [wall_ms(cmd, input=input, env=env) for _ in range(warmup + runs)]
    return statistics.median(times[warmup:])


def paired_wall_ms(cmd: list[str], *, input: bytes | None = None, env: dict | None = None,
                   runs: int = 15, warmup: int = 2) -> tuple[float, float]:
    """(median of `cmd`, median of a bare `python -c pass`) in milliseconds, the two run
    alternately: on a shared machine whose speed drifts by the minute, a ratio of two
    medians taken minutes apart measures the drift as much as the command."""
    import sys

    bare = [sys.executable, "-c", "pass"]
    pairs = [(wall_ms(cmd, input=input, env=env), wall_ms(bare, env=env))
             for _ in range(warmup + runs)][warmup:]
    return statistics.median(p[0] for p in pairs), statistics.median(p[1] for p in pairs)
