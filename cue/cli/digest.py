"""cue digest (wiring only; see cue.digest)."""
from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from cue.cli.output import Format, dumps, formats, out, say
from cue.core import paths
from cue.core.errors import CueError, ExitCode


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
    format: formats("text", "json", auto=False, help="text: the digest; json: one record for "
        "`ctx add --json -`.") = Format.text,
    check: Annotated[bool, typer.Option(
        "--check", help="Preflight: which backend would run and whether it can (key, "
        "server, model files, policy); call no model, write no digest.")] = False,
) -> None:
    """Summarise recent screen activity with the configured vision model.

    Writes CUE_HOME/digest.md and a `digests` row. If the model is unavailable the run is
    skipped (fail closed: nothing is sent anywhere else unless
    digest.allow_cloud_fallback); if its answer is not a plausible narrative the digest
    fails and nothing reaches memory or stdout. Either way the `Error:` line and digest.md
    say why ("skipped: …" / "failed: …"), details are in privacy.log, and the exit status
    is 5. `--check` runs `cue doctor`'s checks for the digest instead (exit 0 or 5).

    Example: cue digest --since 15m --format json | ctx add --json -
    """
    from cue.core import config as cue_config
    from cue.core.db import connect
    from cue.core.timespec import parse_duration, parse_time

    cfg = cue_config.load()
    if backend is not None:
        if backend not in cue_config.BACKENDS:
            raise CueError(f"--backend must be one of {', '.join(cue_config.BACKENDS)}, "
                           f"not {backend!r}")
        cfg = cfg.replace(digest__backend=backend)
    if check:
        from cue.cli.doctor import report

        report(cfg, format, digest_only=True)
        return
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
        from cue.digest import run_digest

        cfg = _ask_consent(cfg)
        digest = run_digest(conn, cfg, window_secs=window, end=end_ts, keyframe_dir=kdir,
                            events_dir=edir, max_frames=frames)
    finally:
        conn.close()

    if digest.status in ("skipped", "failed"):
        why = digest.detail or digest.reason or digest.summary.strip("[]")
        raise DigestSkipped(f"digest {digest.status}: {why} (digest.md says so; details in "
                            f"{paths.privacy_log()}; `cue doctor` checks the set-up)")
    if digest.status == "empty":
        say("cue: no activity in this window (nothing captured or all of it paused); "
             "digest.md says [no recent activity]")
        _say_if_no_model(cfg)
        return
    if format == Format.json:
        out(dumps(digest.to_ctx_record()) + "\n")
    else:
        out(digest.summary + "\n")


def _show_plan(plan, cfg, format: Format) -> None:
    from cue.core.timespec import iso_utc

    if format == Format.json:
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


def _ask_consent(cfg):
    """Screenshots go to the cloud only after the user's yes, asked once on a terminal and
    kept in config.toml (cloud.send_images). Unattended runs never ask: the policy gate
    skips the cloud step with a tombstone that says how to choose."""
    import sys

    from cue.core import config as cue_config

    cloud = cfg["digest.backend"] == "cloud" or cfg["digest.allow_cloud_fallback"]
    if not cloud or cfg["cloud.send_images"]:
        return cfg
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        return cfg
    say(f"cue digest sends up to {cfg['digest.max_frames']} screenshots of your screen to "
        f"Anthropic's API ({cfg['cloud.model']}) for each digest. Other choices: "
        "`cue config set digest.backend local` (a model on this machine) or `server`.")
    if not typer.confirm("Send screenshots to the cloud, now and for later digests?",
                         default=False, err=True):
        say("cue: nothing sent; the digest is skipped (`cue doctor` shows the choices)")
        return cfg
    cue_config.set_value("cloud.send_images", "true")
    say("cue: saved cloud.send_images = true (`cue config unset cloud.send_images` takes it back)")
    return cue_config.load()


def _say_if_no_model(cfg) -> None:
    """An empty window calls no model; still say when no model could have run."""
    from cue.digest.preflight import preflight

    if cfg["digest.backend"] == "server":
        return  # checking it means asking the server: `cue doctor` does that
    blocked = [c for c in preflight(cfg, digest_only=True) if c.blocking and not c.ok]
    if blocked:
        say(f"cue: and no model is ready to write a digest ({blocked[0].detail}); "
            "run `cue doctor`")
