"""cue memory [show|history] (wiring only; see cue.digest.memory)."""
from __future__ import annotations

from typing import Annotated

import typer

from cue.cli.options import group_options, memory_config, option_value, seconds
from cue.cli.output import LIST_FORMATS, Format, clock, dumps, formats, out, resolve, say
from cue.core.errors import NotFoundError
from cuectx.errors import UsageError

app = typer.Typer(no_args_is_help=False, add_completion=False)  # help: the callback


@app.callback(invoke_without_command=True)
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
    format: formats("text", "json", auto=False, help="text: memory.md; json: one record for "
        "`ctx add --json -`.") = Format.text,
) -> None:
    """Fold new digests into CUE_HOME/memory.md (and a `memory` row), then print it.

    The model rewrites the memory in four sections (ongoing projects, open
    loops, recurring patterns, recently finished), keeping what is still
    true and dropping what is stale. It sees only scrubbed text; its reply
    is scrubbed before it is written. If the model fails, nothing is
    written, the previous memory stays and the exit status is 5. With no
    new digests nothing is called or written (exit 0). Before `show` or `history`
    only `-f` applies (`cue memory -f json show`); the update's options there are a
    usage error.

    Example: cue memory --format json | ctx add --json -
    """
    if ctx.invoked_subcommand is not None:
        return
    from cue.core.db import connect
    from cue.digest.memory import plan_memory, update_memory

    cfg = memory_config(backend)
    window = seconds(since)
    conn = connect()
    try:
        if dry_run:
            plan = plan_memory(conn, cfg, since=window)
            if format == Format.json:
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
    out(dumps(memory.to_ctx_record()) + "\n" if format == Format.json
         else memory.content)


UPDATE = "`cue memory` alone (the update)"


@app.command("show")
def memory_show(
    ctx: typer.Context,
    format: formats("text", "json", auto=False, help="text: memory.md as stored; json: the row with its "
        "metadata.") = Format.text,
) -> None:
    """Print the current memory (the newest update) without calling any model. Before the
    first update: exit 3 (not found).

    Example: cue memory show --format json
    """
    format = Format(option_value(group_options(ctx, UPDATE, format=format)["format"]))
    from cue.core.db import connect
    from cue.digest.memory import current_memory

    conn = connect()
    try:
        memory = current_memory(conn)
    finally:
        conn.close()
    if memory is None:
        raise NotFoundError("no memory yet; run `cue digest` a few times, then `cue memory`")
    out(dumps(memory.to_dict()) + "\n" if format == Format.json else memory.content)


@app.command("history")
def memory_history(
    ctx: typer.Context,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, help="How many.")] = 20,
    format: formats(*LIST_FORMATS) = Format.auto,
) -> None:
    """List past memory updates, newest first: id, time, digests read, backend, model.

    Example: cue memory history -n 7
    """
    format = option_value(group_options(ctx, UPDATE, limit=limit, format=format)["format"])
    if format not in ("auto", *LIST_FORMATS):  # `cue memory -f text history`
        raise UsageError(f"`cue memory history` prints auto, {', '.join(LIST_FORMATS)}, "
                         f"not {format}")
    from cue.core.db import connect
    from cue.digest.backfill import ensure_scrubbed
    from cue.digest.memory import list_memory

    conn = connect()
    try:
        ensure_scrubbed(conn)
        found = list_memory(conn, limit=limit)
    finally:
        conn.close()
    format = resolve(format)
    if format == Format.json:
        out(dumps([m.to_dict() for m in found]) + "\n")
    elif format == Format.ndjson:
        out("".join(dumps(m.to_dict()) + "\n" for m in found))
    elif not found:
        say("no memory updates yet; run `cue memory`")
    else:
        rows = [f"{'ID':>5}  {'UPDATED (UTC)':<16}  {'DIGESTS':>7}  {'BACKEND':<7}  MODEL"]
        rows += [f"{m.id:>5}  {clock(m.created_at, seconds=False):<16}  {m.digest_count:>7}  "
                 f"{m.backend:<7}  {m.model or ''}" for m in found]
        out("\n".join(rows) + "\n")
