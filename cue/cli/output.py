"""How cue's commands write: data to stdout (UTF-8, flushed), messages to stderr."""
from __future__ import annotations

import json
import sys
from enum import Enum


def out(text: str) -> None:
    """Data on stdout, as UTF-8 whatever the locale says."""
    sys.stdout.buffer.write(text.encode("utf-8"))
    sys.stdout.flush()


def say(text: str) -> None:
    """A line for people, on stderr."""
    print(text, file=sys.stderr)


def dumps(obj) -> str:
    return json.dumps(obj, ensure_ascii=False)


def local_time(ts: float | None) -> str:
    """'2026-11-21 23:05:08' in local time, or — for None (pause/status text)."""
    from datetime import datetime

    return "—" if ts is None else f"{datetime.fromtimestamp(ts):%Y-%m-%d %H:%M:%S}"


def clock(ts: float, *, seconds: bool = True) -> str:
    """'2026-11-21 23:05:08' (UTC) for tables."""
    from cue.core.timespec import iso_utc

    return iso_utc(ts)[:19 if seconds else 16].replace("T", " ")


class TextFormat(str, Enum):
    """What cue's one-result commands print: text for people, or one JSON document."""

    text = "text"
    json = "json"


class ListFormat(str, Enum):
    """What cue's list commands print (digests list, memory history, config show): `auto` is
    the table on a terminal and NDJSON when piped (cuectx.output's environment)."""

    auto = "auto"
    table = "table"
    json = "json"
    ndjson = "ndjson"


def resolve_list(fmt: ListFormat) -> ListFormat:
    from cuectx.output import resolve

    return ListFormat(resolve(fmt, piped="ndjson"))
