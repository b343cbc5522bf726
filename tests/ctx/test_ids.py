"""Our stdlib ULIDs are real ULIDs (checked with python-ulid) and sort by creation."""
from __future__ import annotations

import time

from ulid import ULID

from ctx.core.ids import new_ulid, ulid_time_ms


def test_ids_parse_as_ulids_with_our_timestamp():
    before = int(time.time() * 1000)
    value = new_ulid()
    after = int(time.time() * 1000)
    parsed = ULID.from_str(value)
    assert str(parsed) == value
    assert before <= parsed.milliseconds == ulid_time_ms(value) <= after


def test_ids_are_monotonic_within_a_millisecond():
    ids = [new_ulid(now_ms=1_700_000_000_000) for _ in range(1000)]
    assert ids == sorted(ids) and len(set(ids)) == 1000


def test_ids_made_at_once_in_two_threads_never_collide(monkeypatch):
    """The MCP server runs tools in worker threads: two remembers in one millisecond must
    get different ids. A thread switch is forced inside new_ulid (the random source yields
    the GIL and returns the same bytes): without the lock both threads see a new
    millisecond and both draw the same "random" part."""
    import threading
    import types

    from ctx.core import ids

    def slow_constant(n):
        time.sleep(0.01)  # let the other thread in
        return bytes(n)

    monkeypatch.setattr(ids, "os", types.SimpleNamespace(urandom=slow_constant))
    ms = 1_800_000_000_000
    made: list[str] = []
    start = threading.Barrier(2)

    def make():
        start.wait()
        made.append(new_ulid(now_ms=ms))

    threads = [threading.Thread(target=make) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(made) == 2 and made[0] != made[1]
