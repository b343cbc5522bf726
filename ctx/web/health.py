"""The Health page's diagnoses (`ctx doctor`), made off the request.

A diagnosis reads every live memory: a few seconds over 10,000 of them on a two-core machine,
far over what a page may take (SPEC §6: 300 ms). So the page never waits for one longer than
`WAIT_S`. A diagnosis is kept with the kinds it looked for and the `store_version.n` it was
made at (the counter the database's own triggers bump on every change to memory, migration
5): while the store is unchanged, the page answers from it at once. After a change a new one
starts in a background thread (one per set of kinds at a time, with its own read-only
connection; texts unchanged since the last one are not analysed or scanned again,
ctx.doctor.findings.Memo) and the page shows the previous diagnosis, marked as older than
the last change, or that one is under way, and reloads itself until the new one is there.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable

from ctx.core.hook_cache import store_version
from ctx.core.store import Store
from ctx.doctor.findings import Finding, Memo, Options, diagnose
from cuectx.value import Value

WAIT_S = 0.1  # how long a page waits for a diagnosis before it shows what it has


class Diagnosis(Value):
    """The findings of `kinds` at store version `version` (None: no counter, an old schema),
    how long they took, and the error that stopped the diagnosis, if one did."""

    __slots__ = ("elapsed_ms", "error", "findings", "kinds", "version")

    def __init__(self, kinds: tuple[str, ...], version: int | None, findings: list[Finding],
                 elapsed_ms: float, error: str | None = None) -> None:
        self.kinds = kinds
        self.version = version
        self.findings = findings
        self.elapsed_ms = elapsed_ms
        self.error = error


class HealthChecks:
    """Diagnoses by kinds, made in background threads; `connect()` opens a read connection
    (a context manager), one per diagnosis."""

    def __init__(self, connect: Callable) -> None:
        self._connect = connect
        self._lock = threading.Lock()
        self._done: dict[tuple[str, ...], Diagnosis] = {}
        self._running: dict[tuple[str, ...], threading.Thread] = {}
        # each diagnosis leaves its per-text work here for the next (threads replace the
        # memo's dicts whole, never change one in place: sharing it is safe)
        self._memo = Memo()

    def get(self, kinds: tuple[str, ...], version: int | None,
            wait_s: float = WAIT_S) -> tuple[Diagnosis | None, bool]:
        """(the latest diagnosis of `kinds` or None, whether it was made at `version`).
        Starts one when there is none at `version`, and waits at most `wait_s` for it."""
        with self._lock:
            done = self._done.get(kinds)
            if done is not None and done.error is None and done.version == version \
                    and version is not None:
                return done, True
            thread = self._running.get(kinds)
            if thread is None:
                thread = threading.Thread(target=self._diagnose, args=(kinds,),
                                          name="ctx-ui-health", daemon=True)
                self._running[kinds] = thread
                thread.start()
        thread.join(wait_s)
        with self._lock:
            done = self._done.get(kinds)
        return done, done is not None and version is not None and done.version == version

    def running(self, kinds: tuple[str, ...]) -> bool:
        with self._lock:
            return kinds in self._running

    def find(self, kind: str, ids: tuple[str, ...], version: int | None) -> list[Finding] | None:
        """The finding of `kind` over `ids` in a diagnosis made at `version` ([] when such a
        diagnosis holds no such finding), or None when no diagnosis is that recent."""
        if version is None:
            return None
        with self._lock:
            current = [d for d in self._done.values()
                       if d.version == version and d.error is None and kind in d.kinds]
        if not current:
            return None
        return [f for f in current[0].findings if f.kind == kind and f.ids == ids]

    def _diagnose(self, kinds: tuple[str, ...]) -> None:
        t0 = time.perf_counter()
        version, findings, error = None, [], None
        try:
            with self._connect() as conn:
                version = store_version(conn)  # read first: a change during the run makes it stale
                findings = diagnose(Store(conn), Options(kinds=kinds, vectors=False),
                                    memo=self._memo)
        except Exception as exc:  # noqa: BLE001 — shown on the page, never raised in a thread
            error = str(exc) or type(exc).__name__
        result = Diagnosis(kinds, version, findings, (time.perf_counter() - t0) * 1000, error)
        with self._lock:
            self._done[kinds] = result
            self._running.pop(kinds, None)
