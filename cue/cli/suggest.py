"""cue suggest (wiring only; see cue.digest.suggest)."""
from __future__ import annotations

from typing import Annotated

import typer

from cue.cli.options import memory_config, seconds
from cue.cli.output import Format, dumps, formats, out


def suggest_command(
    since: Annotated[str, typer.Option(
        "--since", help="Digests from this far back (e.g. 2h, 1d).")] = "6h",
    limit: Annotated[int, typer.Option(
        "--limit", "-n", min=1, max=20, help="At most this many suggestions.")] = 5,
    backend: Annotated[str | None, typer.Option(
        "--backend", help="digest, cloud, local or server, for this run only.")] = None,
    dry_run: Annotated[bool, typer.Option(
        "--dry-run", help="Print the prompt that would be sent; call no model.")] = False,
    format: formats("text", "json", auto=False, help="text: one suggestion per line; json: an object with a "
        "`suggestions` list.") = Format.text,
) -> None:
    """Suggest a few next steps from the memory and recent digests.

    The model (memory.* settings) sees only scrubbed text; each suggestion
    is scrubbed too. Nothing is stored.

    Example: cue suggest --since 3h -n 3
    """
    from cue.core.db import connect
    from cue.digest.suggest import plan_suggestions, suggest

    cfg = memory_config(backend)
    window = seconds(since)
    conn = connect()
    try:
        if dry_run:
            plan = plan_suggestions(conn, cfg, since=window, limit=limit)
            out(dumps({"dry_run": True, "digests": len(plan.digests),
                         "prompt": plan.prompt}) + "\n" if format == Format.json
                 else f"dry run: nothing sent. {len(plan.digests)} digest(s)\n\n"
                      f"{plan.prompt}\n")
            return
        result = suggest(conn, cfg, since=window, limit=limit)
    finally:
        conn.close()
    out(dumps(result.to_dict()) + "\n" if format == Format.json
         else "".join(f"- {item}\n" for item in result.items))
