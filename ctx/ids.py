"""ULIDs: 48-bit millisecond timestamp + 80 random bits, Crockford base32, 26 chars.

Generated with the stdlib rather than python-ulid: importing python-ulid costs 55–70 ms
(an importlib.metadata lookup at import time), which alone would eat the 80 ms budget of
the Stop hook that creates nodes. tests/ctx/test_ids.py checks our ids against
python-ulid's parser. Ids are monotonic within a process (same millisecond → random part
incremented), so ULID order is creation order.
"""
from __future__ import annotations

import os
import time

ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_last_ms = -1
_last_rand = 0


def _encode(value: int, length: int) -> str:
    out = []
    for _ in range(length):
        value, rem = divmod(value, 32)
        out.append(ALPHABET[rem])
    return "".join(reversed(out))


def new_ulid(now_ms: int | None = None) -> str:
    global _last_ms, _last_rand
    ms = int(time.time() * 1000) if now_ms is None else now_ms
    if ms == _last_ms:
        rand = (_last_rand + 1) & ((1 << 80) - 1)
    else:
        rand = int.from_bytes(os.urandom(10), "big")
    _last_ms, _last_rand = ms, rand
    return _encode(ms, 10) + _encode(rand, 16)


def ulid_time_ms(ulid: str) -> int:
    value = 0
    for ch in ulid[:10].upper():
        value = value * 32 + ALPHABET.index(ch)
    return value
