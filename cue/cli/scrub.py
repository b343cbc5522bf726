"""cue scrub: PII and secret scrubbing of a file or stdin (wiring only; see cue.pii)."""
from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path
from typing import Annotated

import typer

from cue.cli.output import Format, formats
from cue.core.errors import CueError


def scrub_command(
    source: Annotated[str, typer.Argument(
        metavar="[FILE|-]", help="UTF-8 text to scrub; '-' (the default) reads stdin.")] = "-",
    format: formats("text", "json", auto=False, help="text: the scrubbed text; json: the text plus each entity "
        "found (type, start, end, score; offsets into the input).") = Format.text,
    backfill: Annotated[bool, typer.Option(
        "--backfill", help="Instead of scrubbing input, re-scrub the stored digests and "
        "memory (digests.summary, memory.content, digest.md, memory.md) if they were "
        "scrubbed by an older scrub version. cue does this by itself; this runs it now.")] = False,
    force: Annotated[bool, typer.Option(
        "--force", help="With --backfill: re-scrub even if the stored version is current.")] = False,
) -> None:
    """Replace PII and secrets in text with tokens like [EMAIL] and [API_KEY].

    Runs offline. Only the entity is replaced; the rest of the text is kept as it was.

    Example: git log -5 | cue scrub --format json
    """
    from cue import pii

    if force and not backfill:
        raise CueError("--force only goes with --backfill.")
    if backfill:
        if source != "-":
            raise CueError("--backfill re-scrubs stored text; it takes no FILE.")
        return _backfill(format, force)
    text = _read(source)
    if format == Format.json:
        scrubbed, entities = pii.scrub_report(text)
        out = json.dumps({"text": scrubbed, "scrub_version": pii.SCRUB_VERSION,
                          "entities": [e.to_dict() for e in entities]},
                         ensure_ascii=False) + "\n"
    else:
        out = pii.scrub(text)
    sys.stdout.buffer.write(out.encode("utf-8"))
    sys.stdout.flush()
    _exit_without_teardown()


def _exit_without_teardown() -> None:
    """End a stand-alone `cue scrub` process now, skipping interpreter teardown.

    With Presidio (and pydantic, tldextract; spaCy too with a model) loaded, freeing every
    object at exit takes a good part of the cold budget (0.5–1 s with spaCy) for nothing:
    the output is written and flushed, no file or database is open. mypy's `hard_exit`
    does the same. Only when stdout is the process's own (not under CliRunner or an
    embedding program) and no other thread is running.
    """
    if sys.stdout is not sys.__stdout__ or threading.active_count() > 1:
        return
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def _backfill(format: Format, force: bool) -> None:
    from cue.core import db
    from cue.digest import backfill

    conn = db.connect()
    try:
        result = backfill.backfill(conn, force=force)
    finally:
        conn.close()
    if format == Format.json:
        out = json.dumps({"scrub_version": result.version, "previous": result.previous,
                          "rows": result.rows, "files": list(result.files)},
                         ensure_ascii=False) + "\n"
    elif result.ran or force:
        out = (f"scrub version {result.version}: {result.rows} stored row(s) and "
               f"{len(result.files)} file(s) changed\n")
    else:
        out = f"scrub version {result.version}: stored text is current, nothing to do\n"
    sys.stdout.write(out)


def _read(source: str) -> str:
    try:
        data = sys.stdin.buffer.read() if source == "-" else Path(source).read_bytes()
    except FileNotFoundError:
        raise CueError(f"no such file: {source}.") from None
    except IsADirectoryError:
        raise CueError(f"{source} is a folder; give a text file or '-' for stdin.") from None
    except OSError as exc:
        raise CueError(f"cannot read {source}: {exc.strerror}.") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        name = "stdin" if source == "-" else source
        raise CueError(f"{name} is not UTF-8 text (bad byte at offset {exc.start}); "
                       "cue scrub reads text only.") from None
