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
