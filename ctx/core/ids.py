"""ULIDs: 48-bit millisecond timestamp + 80 random bits, Crockford base32, 26 chars.

Generated with the stdlib rather than python-ulid: importing python-ulid costs 55–70 ms
(an importlib.metadata lookup at import time), which alone would eat the 80 ms budget of
the Stop hook that creates nodes. tests/ctx/test_ids.py checks our ids against
python-ulid's parser. Ids are monotonic within a process (same millisecond → random part
incremented), so ULID order is creation order.
"""
from __future__ import annotations

import _thread
import os
import time

ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_last_ms = -1
_last_rand = 0
_lock = _thread.allocate_lock()  # _thread: builtin, so the hook path pays no import


def _encode(value: int, length: int) -> str:
    out = []
    for _ in range(length):
        value, rem = divmod(value, 32)
        out.append(ALPHABET[rem])
    return "".join(reversed(out))


def new_ulid(now_ms: int | None = None) -> str:
    """A new id, unique and increasing within the process — also across threads (the MCP
    server runs tools in worker threads: two remembers in one millisecond must not share
    an id), so the read-increment-write of the last id holds a lock."""
    global _last_ms, _last_rand
    ms = int(time.time() * 1000) if now_ms is None else now_ms
    with _lock:
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


# ---------------------------------------------------------------------------- short ids

MIN_SHORT = 8  # the first 8 characters of a ULID are its timestamp to ~1 s


def _common(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def short_ids(source, ids) -> dict[str, str]:
    """{id: the shortest prefix of at least 8 characters that no other node id shares} —
    git-style, so every id a person or Claude is shown can be pasted back. `source` is a
    sqlite3 connection to the ctx store (or anything with `.conn`, like a Store).

    The one function that shortens node ids (tables, compose, hooks, recall results,
    request records). Nodes made in the same second share 8 characters; the prefix then
    grows just enough. Two indexed lookups per id (its neighbours in id order)."""
    conn = getattr(source, "conn", source)
    out = {}
    for node_id in dict.fromkeys(ids):
        need = MIN_SHORT
        for sql in ("SELECT id FROM nodes WHERE id < ? ORDER BY id DESC LIMIT 1",
                    "SELECT id FROM nodes WHERE id > ? ORDER BY id LIMIT 1"):
            other = conn.execute(sql, (node_id,)).fetchone()
            if other:
                need = max(need, _common(node_id, other[0]) + 1)
        out[node_id] = node_id[:need]
    return out


def short_id(source, node_id: str) -> str:
    return short_ids(source, [node_id])[node_id]


def unique_prefixes(ids, minimum: int = MIN_SHORT) -> dict[str, str]:
    """Shortest prefixes (≥ minimum) unique among `ids` alone — for when no store is at hand."""
    ordered = sorted(dict.fromkeys(ids))
    out = {}
    for i, node_id in enumerate(ordered):
        need = minimum
        for j in (i - 1, i + 1):
            if 0 <= j < len(ordered):
                need = max(need, _common(node_id, ordered[j]) + 1)
        out[node_id] = node_id[:need]
    return out
