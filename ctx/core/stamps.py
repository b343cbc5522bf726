"""The two stamps records carry: when (`now_iso`) and which text (`content_hash`).

Stdlib `time` (and `hashlib`, loaded on the first hash: it loads OpenSSL, a quarter of a
bare interpreter's start, and a prompt that injects nothing hashes nothing): the hooks'
cached session-start path imports this and nothing heavier.
"""
from __future__ import annotations

import time


def now_iso() -> str:
    """UTC timestamp with milliseconds, sortable as text: 2026-11-21T23:05:08.123Z."""
    t = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int(t * 1000) % 1000:03d}Z"


def content_hash(text: str) -> str:
    """What the index keys a node's chunks on (with the model id), and what a session keeps
    of the text it sent: a hash of the text."""
    import hashlib

    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:24]
