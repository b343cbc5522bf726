"""cue digest, cue digests, cue config: wiring only (see cue.digest, cue.config)."""
from __future__ import annotations

import os
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from cue import paths
from cue.errors import CueError, ExitCode
from cue.output import ListFormat, clock, dumps, out, resolve_list, say


class DigestFormat(str, Enum):
    text = "text"
    json = "json"


class DigestSkipped(CueError):
    exit_code = ExitCode.BACKEND








# ------------------------------------------------------------------ cue digest
def digest_command(
    since: Annotated[str | None, typer.Option(
        "--since", help="How far back to look, e.g. 15m, 1h (default: digest.window).")] = None,
    end: Annotated[str | None, typer.Option(
        "--end", help="End of the window: ISO-8601 or unix seconds (default: now).")] = None,
    keyframes: Annotated[Path | None, typer.Option(
        "--keyframes", help="Keyframe folder (default: digest.keyframes or "
        "CUE_HOME/keyframes).")] = None,
    events: Annotated[Path | None, typer.Option(
        "--events", help="MCAP event folder or file (default: digest.events or "
        "CUE_HOME/events).")] = None,
    max_frames: Annotated[int | None, typer.Option(
        "--max-frames", min=1, help="At most this many screenshots (default: "
        "digest.max_frames).")] = None,
    backend: Annotated[str | None, typer.Option(
        "--backend", help="cloud, local or server, for this run only.")] = None,
    dry_run: Annotated[bool, typer.Option(
        "--dry-run", help="Show the frames, image sizes, timeline and prompt that would be "
        "sent; call no model, write no digest.")] = False,
    format: Annotated[DigestFormat, typer.Option(
        "--format", "-f", help="text: the digest; json: one record for "
        "`ctx add --json -`.")] = DigestFormat.text,
) -> None:
    """Summarise recent screen activity with the configured vision model.

    Writes CUE_HOME/digest.md and a `digests` row. If the model is unavailable the run is
    skipped (fail closed): a fixed tombstone row, digest.md says there was no recent
    activity, exit status 4, and the reason is only in privacy.log.

    Example: cue digest --since 15m --format json | ctx add --json -
    """
    from cue import config as cue_config
    from cue.db import connect
    from cue.timespec import parse_duration, parse_time

    cfg = cue_config.load()
    if backend is not None:
        if backend not in cue_config.BACKENDS:
            raise CueError(f"--backend must be one of {', '.join(cue_config.BACKENDS)}, "
                           f"not {backend!r}")
        cfg = cfg.replace(digest__backend=backend)
    window = parse_duration(since or cfg["digest.window"])
    end_ts = parse_time(end) if end else None
    kdir = keyframes or (Path(cfg["digest.keyframes"]).expanduser()
                         if cfg["digest.keyframes"] else None)
    edir = events or (Path(cfg["digest.events"]).expanduser()
                      if cfg["digest.events"] else None)
    frames = max_frames or cfg["digest.max_frames"]

    conn = connect()
    try:
        if dry_run:
            from cue.digest import plan_digest

            plan, _ = plan_digest(conn, window_secs=window, end=end_ts, keyframe_dir=kdir,
                                  events_dir=edir, max_frames=frames)
            _show_plan(plan, cfg, format)
            return
        from cue.digest import NO_ACTIVITY, run_digest

        digest = run_digest(conn, cfg, window_secs=window, end=end_ts, keyframe_dir=kdir,
                            events_dir=edir, max_frames=frames)
    finally:
        conn.close()

    if digest.status == "skipped":
        why = digest.summary.strip("[]").removeprefix("skipped: ")
        raise DigestSkipped(f"digest skipped: {why}; digest.md now says {NO_ACTIVITY} "
                            f"(details in {paths.privacy_log()})")
    if digest.status == "empty":
        say("cue: no activity in this window (nothing captured or all of it paused); "
             "digest.md says [no recent activity]")
        return
    if format is DigestFormat.json:
        out(dumps(digest.to_ctx_record()) + "\n")
    else:
        out(digest.summary + "\n")


def _show_plan(plan, cfg, format: DigestFormat) -> None:
    from cue.timespec import iso_utc

    if format is DigestFormat.json:
        out(dumps({
            "dry_run": True,
            "window_start": iso_utc(plan.start), "window_end": iso_utc(plan.end),
            "backend": cfg["digest.backend"],
            "allow_cloud_fallback": cfg["digest.allow_cloud_fallback"],
            "frames": [{"index": f.index, "offset_secs": round(f.offset_secs, 3),
                        "time": iso_utc(f.ts), "anchor": f.anchor, "reason": f.reason,
                        "bytes": f.bytes, "file": str(f.path)} for f in plan.frames],
            "image_bytes": plan.image_bytes,
            "event_count": plan.timeline.event_count,
            "prompt": plan.prompt,
        }) + "\n")
        return
    fallback = "on" if cfg["digest.allow_cloud_fallback"] else "off"
    lines = [(f"dry run: nothing sent, no digest written. backend {cfg['digest.backend']}"
              f" (cloud fallback {fallback})"),
             f"window {iso_utc(plan.start)} – {iso_utc(plan.end)}",
             (f"{len(plan.frames)} frame(s), {plan.image_bytes:,} bytes of JPEG "
              f"(file names are shown here only; the model sees frame numbers):")]
    for f in plan.frames:
        lines.append(f"  frame {f.index:>2}  +{f.offset_secs:>5.0f}s  {f.bytes:>8,} B  "
                     f"{f.reason}  [{f.path.name}]")
    lines += ["", "prompt text:", plan.prompt]
    out("\n".join(lines) + "\n")


# ------------------------------------------------------------------ cue digests
digests_app = typer.Typer(no_args_is_help=False, add_completion=False)


@digests_app.callback(invoke_without_command=True)
def digests_root(ctx: typer.Context) -> None:
    """Digest history (newest first). Without a subcommand: `cue digests list`.

    Example: cue digests show latest --format json
    """
    if ctx.invoked_subcommand is None:
        digests_list()


@digests_app.command("list")
def digests_list(
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, help="How many.")] = 20,
    status: Annotated[str | None, typer.Option(
        "--status", help="Only ok, skipped or empty digests.")] = None,
    format: Annotated[ListFormat, typer.Option(
        "--format", "-f", help="auto (table on a terminal, else ndjson), table, json, ndjson.")
    ] = ListFormat.auto,
) -> None:
    """List recent digests: id, window, status, backend, frames, model time.

    Example: cue digests list --status skipped
    """
    from cue.db import connect
    from cue.digest import list_digests

    if status is not None and status not in ("ok", "skipped", "empty"):
        raise CueError(f"--status must be ok, skipped or empty, not {status!r}")
    conn = connect()
    try:
        found = list_digests(conn, limit=limit, status=status)
    finally:
        conn.close()
    format = resolve_list(format)
    if format is ListFormat.json:
        out(dumps([d.to_dict() for d in found]) + "\n")
    elif format is ListFormat.ndjson:
        out("".join(dumps(d.to_dict()) + "\n" for d in found))
    else:
        if not found:
            say("no digests yet; run `cue digest`")
            return
        rows = [(f"{'ID':>5}  {'WINDOW END (UTC)':<20} {'STATUS':<8} {'BACKEND':<7} "
                 f"{'FRAMES':>6} {'MODEL s':>8}  SUMMARY")]
        for d in found:
            model_s = f"{d.timings['model_ms'] / 1000:.1f}" if d.timings.get("model_ms") else "-"
            summary = " ".join(d.summary.split())
            rows.append(f"{d.id:>5}  {clock(d.window_end):<20} {d.status:<8} {d.backend:<7} "
                        f"{d.frame_count:>6} {model_s:>8}  {summary[:60]}")
        out("\n".join(rows) + "\n")


@digests_app.command("show")
def digests_show(
    digest_id: Annotated[str, typer.Argument(metavar="ID|latest", help="A digest id.")],
    format: Annotated[DigestFormat, typer.Option("--format", "-f")] = DigestFormat.text,
) -> None:
    """Show one digest with its window, backend and timings.

    Example: cue digests show 12
    """
    from cue.db import connect
    from cue.digest import get_digest, latest_digest

    conn = connect()
    try:
        if digest_id == "latest":
            d = latest_digest(conn)
        else:
            try:
                d = get_digest(conn, int(digest_id))
            except ValueError:
                raise CueError(f"digest id must be a number or 'latest', not {digest_id!r}") \
                    from None
    finally:
        conn.close()
    if d is None:
        raise CueError(f"no digest {digest_id}; see `cue digests list`")
    if format is DigestFormat.json:
        out(dumps(d.to_dict()) + "\n")
        return
    t = d.timings
    timing = ", ".join(f"{k.removesuffix('_ms')} {v:.0f} ms" for k, v in t.items() if v)
    out(f"digest {d.id} · {d.status} · backend {d.backend}"
         f"{' (cloud fallback)' if d.fell_back else ''}{' · ' + d.model if d.model else ''}\n"
         f"window {clock(d.window_start)} – {clock(d.window_end)} UTC · "
         f"{d.frame_count} frames · {d.event_count} events · {d.image_bytes:,} image bytes\n"
         f"timings: {timing}\n\n{d.summary}\n")




# ------------------------------------------------------------------ cue config
config_app = typer.Typer(
    help="Show and change cue's settings (CUE_HOME/config.toml; env CUE_SECTION_KEY "
    "overrides). Example: cue config set digest.backend local",
    no_args_is_help=True, add_completion=False)


@config_app.command("show")
def config_show(
    format: Annotated[ListFormat, typer.Option(
        "--format", "-f", help="auto (table on a terminal, else ndjson), table, json, ndjson.")
    ] = ListFormat.auto,
) -> None:
    """Every setting with its value and where it came from (default, file, env).

    Example: cue config show --format json
    """
    from cue import config as cue_config

    cfg = cue_config.load()
    key_source = cue_config.api_key_source(cfg)
    format = resolve_list(format)
    if format is not ListFormat.table:
        rows = [{"key": s.key, "value": cfg[s.key], "source": cfg.sources[s.key],
                 "env": cue_config.env_name(s.key), "help": s.help}
                for s in cue_config.SETTINGS]
        rows.append({"key": "anthropic_api_key", "value": None, "source": key_source,
                     "env": "ANTHROPIC_API_KEY", "help": "never shown"})
        out(dumps(rows) + "\n" if format is ListFormat.json
             else "".join(dumps(r) + "\n" for r in rows))
        return
    lines = [f"# {paths.config_path()}"]
    width = max(len(s.key) for s in cue_config.SETTINGS)
    for s in cue_config.SETTINGS:
        lines.append(f"{s.key:<{width}}  {_show(cfg[s.key]):<28} ({cfg.sources[s.key]})")
    lines.append(f"{'anthropic api key':<{width}}  {key_source}")
    out("\n".join(lines) + "\n")


@config_app.command("get")
def config_get(key: Annotated[str, typer.Argument(help="A key, e.g. digest.backend.")]) -> None:
    """Print one setting's effective value.

    Example: cue config get digest.backend
    """
    from cue import config as cue_config

    cfg = cue_config.load()
    if key not in cue_config.BY_KEY:
        raise cue_config.ConfigError(f"unknown setting `{key}`; known keys: "
                                     f"{', '.join(cue_config.BY_KEY)}")
    out(_show(cfg[key]) + "\n")


@config_app.command("set")
def config_set(
    key: Annotated[str, typer.Argument(help="A key, e.g. local.model.")],
    value: Annotated[str, typer.Argument(help="The new value.")],
) -> None:
    """Change a setting in CUE_HOME/config.toml (validated first; file kept 0600).

    Example: cue config set digest.backend local
    """
    from cue import config as cue_config

    typed = cue_config.set_value(key, value)
    say(f"{key} = {_show(typed)}")
    if cue_config.env_name(key) in os.environ:
        say(f"note: {cue_config.env_name(key)} is set and overrides the file")


@config_app.command("unset")
def config_unset(key: Annotated[str, typer.Argument(help="A key to reset to its default.")]
                 ) -> None:
    """Remove a setting from the file (back to its default).

    Example: cue config unset local.timeout
    """
    from cue import config as cue_config

    cue_config.unset_value(key)
    say(f"{key} reset to its default")


def _show(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def register(app: typer.Typer) -> None:
    """Add this group's commands to the app."""
    app.command("digest")(digest_command)
    app.add_typer(digests_app, name="digests")
    app.add_typer(config_app, name="config")
