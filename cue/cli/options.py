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


def group_options(ctx: typer.Context, applies_to: str, **given):
    """A subcommand's options with those given before it folded in (`cue digests -f json
    list`): a group option the subcommand does not take (it `applies_to` another), or the
    same option given differently in both places, is a usage error (exit 2) — never
    silently dropped."""
    from cuectx.errors import UsageError

    group = ctx.parent

    def explicit(c: typer.Context, name: str) -> bool:  # typed, not the default
        return getattr(c.get_parameter_source(name), "name", None) in ("COMMANDLINE",
                                                                       "ENVIRONMENT")

    for param in group.command.params:
        name = param.name
        if not explicit(group, name):
            continue
        flag = param.opts[0]
        if name not in given:
            raise UsageError(f"{flag} applies to {applies_to}, not to "
                             f"`cue {group.info_name} {ctx.info_name}`")
        value = group.params[name]
        if explicit(ctx, name) and option_value(given[name]) != option_value(value):
            raise UsageError(f"{flag} given twice, before and after `{ctx.info_name}`, "
                             "with different values; give it once")
        given[name] = value
    return given


def option_value(option):
    """An option's value as typed: a choice's enum member gives its name."""
    return getattr(option, "value", option)


def memory_config(backend: str | None):
    """cue's config, with `--backend` (memory.backend) for this run only."""
    from cue.core import config as cue_config

    cfg = cue_config.load()
    return cfg.replace(memory__backend=backend) if backend is not None else cfg


def seconds(text: str | None) -> float | None:
    """A duration option (`--since 3h`) in seconds, None when not given."""
    from cue.core.timespec import parse_duration

    return parse_duration(text) if text is not None else None
