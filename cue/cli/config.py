"""cue config show|get|set|unset (wiring only; see cue.core.config)."""
from __future__ import annotations

from typing import Annotated

import typer

from cue.cli.output import LIST_FORMATS, Format, dumps, formats, out, resolve, say
from cue.core import paths, settings

app = typer.Typer(
    help="Show and change cue's settings (CUE_HOME/config.toml; env CUE_SECTION_KEY "
    "overrides). Example: cue config set digest.backend local",
    no_args_is_help=True, add_completion=False)


@app.command("show")
def config_show(
    format: formats(*LIST_FORMATS) = Format.auto,
) -> None:
    """Every setting with its value and where it came from (default, file, env).

    Example: cue config show --format json
    """
    from cue.core import config as cue_config

    cfg = cue_config.load()
    key_source = cue_config.api_key_source(cfg)
    format = resolve(format)
    if format != Format.table:
        rows = [{"key": s.key, "value": cfg[s.key], "source": cfg.sources[s.key],
                 "env": cue_config.env_name(s.key), "help": s.help}
                for s in cue_config.SETTINGS]
        rows.append({"key": "anthropic_api_key", "value": None, "source": key_source,
                     "env": "ANTHROPIC_API_KEY", "help": "never shown"})
        out(dumps(rows) + "\n" if format == Format.json
             else "".join(dumps(r) + "\n" for r in rows))
        return
    from cuectx.output import Col, print_fitted

    out(f"# {paths.config_path()}\n")
    # the value takes the width and wraps between words (the exclusion lists are long)
    print_fitted([Col("key"), Col("value", free=True, lines=None), Col("source", style="dim")],
                 [[s.key, _show(cfg[s.key]), cfg.sources[s.key]] for s in cue_config.SETTINGS]
                 + [["anthropic api key", key_source, ""]])


@app.command("get")
def config_get(key: Annotated[str, typer.Argument(help="A key, e.g. digest.backend.")]) -> None:
    """Print one setting's effective value.

    Example: cue config get digest.backend
    """
    from cue.core import config as cue_config

    cfg = cue_config.load()
    if key not in cue_config.BY_KEY:
        raise cue_config.ConfigError(f"unknown setting `{key}`; known keys: "
                                     f"{', '.join(cue_config.BY_KEY)}")
    out(_show(cfg[key]) + "\n")


@app.command("set")
def config_set(
    key: Annotated[str, typer.Argument(help="A key, e.g. local.model.")],
    value: Annotated[str, typer.Argument(help="The new value.")],
    more: Annotated[list[str] | None, typer.Argument(
        metavar="[KEY VALUE]...", help="More pairs, all validated before any is written.",
        show_default=False)] = None,
) -> None:
    """Change settings in CUE_HOME/config.toml (validated first; file kept 0600).

    Example: cue config set digest.backend server server.model gemma3:4b
    """
    from cue.core import config as cue_config
    from cue.core.errors import CueError

    rest = list(more or [])
    if len(rest) % 2:
        raise CueError(f"`cue config set` takes KEY VALUE pairs; {rest[-1]!r} has no value")
    pairs = [(key, value)] + list(zip(rest[::2], rest[1::2], strict=True))
    for (k, _), typed in zip(pairs, cue_config.set_values(pairs), strict=True):
        say(f"{k} = {_show(typed)}")
        if settings.overrides([k]):
            say(f"note: {cue_config.env_name(k)} is set and overrides the file")


@app.command("unset")
def config_unset(key: Annotated[str, typer.Argument(help="A key to reset to its default.")]
                 ) -> None:
    """Remove a setting from the file (back to its default).

    Example: cue config unset local.timeout
    """
    from cue.core import config as cue_config

    cue_config.unset_value(key)
    say(f"{key} reset to its default")


def _show(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)
