"""Options more than one cue command takes."""
from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

KeyframesOpt = Annotated[Path | None, typer.Option(
    "--keyframes", help="Keyframe folder (default: $CUE_HOME/keyframes).", show_default=False)]
EventsOpt = Annotated[Path | None, typer.Option(
    "--events", help="MCAP event log, or a folder of them (default: $CUE_HOME/events).",
    show_default=False)]


def memory_config(backend: str | None):
    """cue's config, with `--backend` (memory.backend) for this run only."""
    from cue.core import config as cue_config

    cfg = cue_config.load()
    return cfg.replace(memory__backend=backend) if backend is not None else cfg


def seconds(text: str | None) -> float | None:
    """A duration option (`--since 3h`) in seconds, None when not given."""
    from cue.core.timespec import parse_duration

    return parse_duration(text) if text is not None else None
