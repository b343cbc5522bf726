"""cue pause · cue resume (wiring only; see cue.inputs.pauses)."""
from __future__ import annotations

import time
from typing import Annotated

import typer

from cue.cli.output import Format, dumps, formats, local_time, out


def pause_command(
    for_: Annotated[str | None, typer.Option(
        "--for", help="Resume by itself after this long: 30m, 2h. Default: until "
        "`cue resume`.", show_default=False)] = None,
    reason: Annotated[str | None, typer.Option(
        "--reason", help="A note kept with the pause.", show_default=False)] = None,
    format: formats("text", "json", auto=False) = Format.text,
) -> None:
    """Pause: frames and events from now on are left out of selections and digests.

    Example: cue pause --for 30m
    """
    from cue.core.db import connect
    from cue.core.timespec import parse_duration
    from cue.inputs.pauses import pause

    secs = parse_duration(for_) if for_ is not None else None
    conn = connect()
    try:
        state = pause(conn, for_secs=secs, reason=reason)
    finally:
        conn.close()
    if format == Format.json:
        out(dumps(state_json(state)) + "\n")
    elif state.until is None:
        out("Paused until you run `cue resume`.\n")
    else:
        out(f"Paused until {local_time(state.until)} (in {_human(state.until - time.time())}).\n")


def resume_command(
    format: formats("text", "json", auto=False) = Format.text,
) -> None:
    """End a pause now (a no-op, said so, when nothing is paused).

    Example: cue resume
    """
    from cue.core.db import connect
    from cue.inputs.pauses import pause_state, resume

    conn = connect()
    try:
        was = resume(conn)
        state = pause_state(conn)
    finally:
        conn.close()
    if format == Format.json:
        out(dumps({**state_json(state), "resumed": was}) + "\n")
    else:
        out("Resumed.\n" if was else "Not paused; nothing to resume.\n")


def state_json(state) -> dict:
    """A PauseState as the JSON `cue pause/resume/status --format json` print."""
    return {"paused": state.paused, "since": state.since, "until": state.until,
            "reason": state.reason}


def _human(secs: float) -> str:
    secs = max(0, round(secs))
    h, rem = divmod(secs, 3600)
    m, s = divmod(rem, 60)
    return " ".join(p for p in (f"{h}h" if h else "", f"{m}m" if m else "",
                                f"{s}s" if s and not h else "") if p) or "0s"
