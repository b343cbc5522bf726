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


class Format(str, Enum):
    """Every --format a cue command can print; the names mean what they mean in ctx.

    text: prose for people (a digest, memory.md, a status); table: rows for people; json:
    one JSON document; ndjson: one JSON value per line; auto: what fits the output — a
    table on a terminal, else JSON (one document) or NDJSON (a list). Each command states
    the ones it supports with `formats(...)`; anything else is a usage error (exit 2).
    """

    auto = "auto"
    text = "text"
    table = "table"
    json = "json"
    ndjson = "ndjson"


LIST_FORMATS = ("table", "json", "ndjson")  # lists: digests, memory history, config show


def formats(*supported: str, help: str | None = None, auto: bool = True):
    """The `--format/-f` option of a command that supports `supported` (plus auto, unless
    auto=False): cuectx.cli's shared declaration, as ctx's commands use it."""
    from cuectx.cli import format_option

    return format_option(Format, *supported, help=help, auto=auto)


def resolve(fmt, *, single: bool = False) -> Format:
    """What `auto` means here: table on a terminal, else JSON (`single`) or NDJSON."""
    from cuectx.output import resolve as _resolve

    return Format(_resolve(fmt, piped="json" if single else "ndjson"))
