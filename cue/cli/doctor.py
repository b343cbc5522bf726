"""cue doctor (and `cue digest --check`), wiring only: see cue.digest.preflight."""
from __future__ import annotations

import typer

from cue.cli.output import Format, dumps, formats, out

RECORDER_FIX = ("start `cue record` (Linux X11) in your session, or let another tool write "
                "cue's input contract (README \"Input contract\")")


def doctor_command(
    format: formats("text", "json", auto=False) = Format.text,
) -> None:
    """Check that cue can work here: which digest backend will run and whether it can (API
    key, server reachable and serving server.model, model files present and loadable), the
    policy on cloud fallback, the recorder, disk headroom. Calls no model, writes nothing.

    Each line is `ok` or `fix` with what to do. Exit status: 0 all ok, 5 the digest
    backend cannot run, 1 something else needs a fix.

    Example: cue doctor --format json
    """
    from cue.core import config as cue_config

    report(cue_config.load(), format, digest_only=False)


def report(cfg, format: Format, *, digest_only: bool) -> None:
    from cue.digest.preflight import exit_status, preflight

    checks = preflight(cfg, digest_only=digest_only)
    if not digest_only:
        checks.insert(len(checks) - 1, _recorder_check())
    status = exit_status(checks, digest_only=digest_only)
    if format == Format.json:
        out(dumps({"ok": status == 0, "exit_status": status,
                   "checks": [c.to_dict() for c in checks]}) + "\n")
    else:
        width = max(len(c.name) for c in checks)
        lines = []
        for c in checks:
            lines.append(f"{'ok ' if c.ok else 'fix'}  {c.name:<{width}}  {c.detail}")
            if not c.ok and c.fix:
                lines.append(f"     {'':<{width}}  → {c.fix}")
        out("\n".join(lines) + "\n")
    if status:
        raise typer.Exit(status)


def _recorder_check():
    from cue.core import paths
    from cue.digest.preflight import Check
    from cue.record.status import recorder_health

    running, detail = recorder_health(paths.home())
    return Check("recorder", running, detail, "" if running else RECORDER_FIX)
