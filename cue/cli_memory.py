"""cue memory, cue suggest: wiring only (see cue.memory, cue.suggest)."""
from __future__ import annotations

from enum import Enum
from typing import Annotated

import typer

from cue.errors import CueError
from cue.output import ListFormat, clock, dumps, out, resolve_list, say


class TextFormat(str, Enum):
    text = "text"
    json = "json"








def _config(backend: str | None):
    from cue import config as cue_config

    cfg = cue_config.load()
    return cfg.replace(memory__backend=backend) if backend is not None else cfg


def _seconds(text: str | None) -> float | None:
    from cue.timespec import parse_duration

    return parse_duration(text) if text is not None else None




# ------------------------------------------------------------------ cue memory
memory_app = typer.Typer(no_args_is_help=False, add_completion=False)  # help: the callback


@memory_app.callback(invoke_without_command=True)
def memory_update(
    ctx: typer.Context,
    since: Annotated[str | None, typer.Option(
        "--since", help="Read digests from this far back (e.g. 24h, 3d) instead of those "
        "new since the last update.")] = None,
    backend: Annotated[str | None, typer.Option(
        "--backend", help="digest, cloud, local or server, for this run only.")] = None,
    dry_run: Annotated[bool, typer.Option(
        "--dry-run", help="Print the prompt that would be sent; call no model, write "
        "nothing.")] = False,
    format: Annotated[TextFormat, typer.Option(
        "--format", "-f", help="text: memory.md; json: one record for "
        "`ctx add --json -`.")] = TextFormat.text,
) -> None:
    """Fold new digests into CUE_HOME/memory.md (and a `memory` row), then print it.

    The model rewrites the memory in four sections (ongoing projects, open
    loops, recurring patterns, recently finished), keeping what is still
    true and dropping what is stale. It sees only scrubbed text; its reply
    is scrubbed before it is written. If the model fails, nothing is
    written, the previous memory stays and the exit status is 4. With no
    new digests nothing is called or written (exit 0).

    Example: cue memory --format json | ctx add --json -
    """
    if ctx.invoked_subcommand is not None:
        return
    from cue.db import connect
    from cue.memory import plan_memory, update_memory

    cfg = _config(backend)
    window = _seconds(since)
    conn = connect()
    try:
        if dry_run:
            plan = plan_memory(conn, cfg, since=window)
            if format is TextFormat.json:
                out(dumps({"dry_run": True, "digests": len(plan.digests),
                             "left_out": plan.left_out, "prompt": plan.prompt}) + "\n")
            else:
                out(f"dry run: nothing sent, nothing written. {len(plan.digests)} digest(s)"
                     f"{f', {plan.left_out} older left out' if plan.left_out else ''}\n\n"
                     f"{plan.prompt}\n")
            return
        memory = update_memory(conn, cfg, since=window)
    finally:
        conn.close()
    if memory is None:
        say("cue: no new digests since the last memory update; memory.md is unchanged")
        return
    out(dumps(memory.to_ctx_record()) + "\n" if format is TextFormat.json
         else memory.content)


@memory_app.command("show")
def memory_show(
    format: Annotated[TextFormat, typer.Option(
        "--format", "-f", help="text: memory.md as stored; json: the row with its "
        "metadata.")] = TextFormat.text,
) -> None:
    """Print the current memory (the newest update) without calling any model.

    Example: cue memory show --format json
    """
    from cue.db import connect
    from cue.memory import current_memory

    conn = connect()
    try:
        memory = current_memory(conn)
    finally:
        conn.close()
    if memory is None:
        raise CueError("no memory yet; run `cue digest` a few times, then `cue memory`")
    out(dumps(memory.to_dict()) + "\n" if format is TextFormat.json else memory.content)


@memory_app.command("history")
def memory_history(
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, help="How many.")] = 20,
    format: Annotated[ListFormat, typer.Option(
        "--format", "-f", help="auto (table on a terminal, else ndjson), table, json, ndjson.")
    ] = ListFormat.auto,
) -> None:
    """List past memory updates, newest first: id, time, digests read, backend, model.

    Example: cue memory history -n 7
    """
    from cue.backfill import ensure_scrubbed
    from cue.db import connect
    from cue.memory import list_memory

    conn = connect()
    try:
        ensure_scrubbed(conn)
        found = list_memory(conn, limit=limit)
    finally:
        conn.close()
    format = resolve_list(format)
    if format is ListFormat.json:
        out(dumps([m.to_dict() for m in found]) + "\n")
    elif format is ListFormat.ndjson:
        out("".join(dumps(m.to_dict()) + "\n" for m in found))
    elif not found:
        say("no memory updates yet; run `cue memory`")
    else:
        rows = [f"{'ID':>5}  {'UPDATED (UTC)':<16}  {'DIGESTS':>7}  {'BACKEND':<7}  MODEL"]
        rows += [f"{m.id:>5}  {clock(m.created_at, seconds=False):<16}  {m.digest_count:>7}  "
                 f"{m.backend:<7}  {m.model or ''}" for m in found]
        out("\n".join(rows) + "\n")


# ------------------------------------------------------------------ cue suggest
def suggest_command(
    since: Annotated[str, typer.Option(
        "--since", help="Digests from this far back (e.g. 2h, 1d).")] = "6h",
    limit: Annotated[int, typer.Option(
        "--limit", "-n", min=1, max=20, help="At most this many suggestions.")] = 5,
    backend: Annotated[str | None, typer.Option(
        "--backend", help="digest, cloud, local or server, for this run only.")] = None,
    dry_run: Annotated[bool, typer.Option(
        "--dry-run", help="Print the prompt that would be sent; call no model.")] = False,
    format: Annotated[TextFormat, typer.Option(
        "--format", "-f", help="text: one suggestion per line; json: an object with a "
        "`suggestions` list.")] = TextFormat.text,
) -> None:
    """Suggest a few next steps from the memory and recent digests.

    The model (memory.* settings) sees only scrubbed text; each suggestion
    is scrubbed too. Nothing is stored.

    Example: cue suggest --since 3h -n 3
    """
    from cue.db import connect
    from cue.suggest import plan_suggestions, suggest

    cfg = _config(backend)
    window = _seconds(since)
    conn = connect()
    try:
        if dry_run:
            plan = plan_suggestions(conn, cfg, since=window, limit=limit)
            out(dumps({"dry_run": True, "digests": len(plan.digests),
                         "prompt": plan.prompt}) + "\n" if format is TextFormat.json
                 else f"dry run: nothing sent. {len(plan.digests)} digest(s)\n\n"
                      f"{plan.prompt}\n")
            return
        result = suggest(conn, cfg, since=window, limit=limit)
    finally:
        conn.close()
    out(dumps(result.to_dict()) + "\n" if format is TextFormat.json
         else "".join(f"- {item}\n" for item in result.items))


def register(app: typer.Typer) -> None:
    """Add this group's commands to the app."""
    app.add_typer(memory_app, name="memory")
    app.command("suggest")(suggest_command)
