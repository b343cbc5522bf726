"""privacy.log: the ONE way cue logs anything touching summaries, prompts or payloads.

    from cue.pii.privacy_log import privacy_log
    privacy_log("digest_skipped", reason=str(exc), backend="local", frames=12)

Each call appends one JSON line `{"ts": …, "event": …, **fields}` to
`cue.core.paths.privacy_log()` (created 0600, folder 0700). Before anything is written:
- every string is scrubbed with `cue.pii.scrub` (nested lists/dicts too); if scrubbing
  itself fails, the string is replaced by "[REDACTED]" — the log fails closed;
- bytes-like values (image bytes, payloads) are never written: "[N bytes redacted]";
- `data:…;base64,…` URLs and long base64 runs (inlined images) become "[IMAGE_DATA]" /
  "[BINARY_DATA]";
- `pathlib.Path` values become "[PATH]" (keyframe paths never reach the log);
- strings are cut to MAX_FIELD_CHARS after scrubbing.
"""
from __future__ import annotations

import json
import os
import re
import time
from pathlib import PurePath
from typing import Any

from cue.core import paths

MAX_FIELD_CHARS = 4000
_EVENT = re.compile(r"^[a-z][a-z0-9_.\-]{0,63}$")
_DATA_URL = re.compile(r"data:[\w.+\-]+/[\w.+\-]+;base64,[A-Za-z0-9+/=]*")
_BASE64_RUN = re.compile(r"[A-Za-z0-9+/]{256,}={0,2}")


def privacy_log(event: str, **fields: Any) -> dict:
    """Append one scrubbed record to privacy.log and return what was written."""
    if not _EVENT.match(event):
        raise ValueError(f"privacy_log event must be a short lower-case name, not {event!r}")
    if "ts" in fields or "event" in fields:
        raise ValueError("privacy_log fields may not be named 'ts' or 'event'")
    record = {"ts": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "event": event}
    record.update({key: redact(value) for key, value in fields.items()})
    line = (json.dumps(record, ensure_ascii=False, default=str) + "\n").encode("utf-8")
    _append(line)
    return record


def redact(value: Any) -> Any:
    """The loggable form of a value (see the module docstring)."""
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, (bytes, bytearray, memoryview)):
        return f"[{len(memoryview(value).cast('B'))} bytes redacted]"
    if isinstance(value, PurePath):
        return "[PATH]"
    if isinstance(value, dict):
        return {str(k): redact(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [redact(v) for v in value]
    return _scrub_text(str(value))


def _scrub_text(text: str) -> str:
    text = _DATA_URL.sub("[IMAGE_DATA]", text)
    text = _BASE64_RUN.sub("[BINARY_DATA]", text)
    try:
        from cue.pii import scrub

        text = scrub(text)
    except Exception:  # noqa: BLE001 — a log line must never leak because scrubbing broke
        return "[REDACTED]"
    if len(text) > MAX_FIELD_CHARS:
        text = text[:MAX_FIELD_CHARS] + "…[truncated]"
    return text


def _append(line: bytes) -> None:
    path = paths.privacy_log()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        if os.fstat(fd).st_mode & 0o077:
            os.fchmod(fd, 0o600)
        os.write(fd, line)  # one write per record: O_APPEND keeps concurrent lines whole
    finally:
        os.close(fd)
