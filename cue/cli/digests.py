"""cue digests [list|show] (wiring only; see cue.digest.run)."""
from __future__ import annotations

from typing import Annotated

import typer

from cue.cli.options import group_options, option_value
from cue.cli.output import LIST_FORMATS, Format, clock, dumps, formats, out, resolve, say
from cue.core.errors import CueError, NotFoundError
from cuectx.errors import UsageError

app = typer.Typer(no_args_is_help=False, add_completion=False)

LimitOpt = Annotated[int, typer.Option("--limit", "-n", min=1, help="How many.")]
StatusOpt = Annotated[str | None, typer.Option(
    "--status", help="Only ok, skipped, failed or empty digests.")]
ListFormatOpt = formats(*LIST_FORMATS)


@app.callback(invoke_without_command=True)
def digests_root(ctx: typer.Context, limit: LimitOpt = 20, status: StatusOpt = None,
                 format: ListFormatOpt = Format.auto) -> None:
    """Digest history (newest first). Without a subcommand: `cue digests list`. These
    options may come before `list` too (`cue digests -f json list`); before `show`, only
    `-f json`.

    Example: cue digests show latest --format json
    """
    if ctx.invoked_subcommand is None:
        _list(limit, status, format)


@app.command("list")
def digests_list(ctx: typer.Context, limit: LimitOpt = 20, status: StatusOpt = None,
                 format: ListFormatOpt = Format.auto) -> None:
    """List recent digests: id, window, status, backend, frames, model time.

    Example: cue digests list --status skipped
    """
    _list(**group_options(ctx, "`cue digests list`", limit=limit, status=status, format=format))


def _list(limit: int, status: str | None, format: Format) -> None:
    from cue.core.db import connect
    from cue.digest import list_digests

    if status is not None and status not in ("ok", "skipped", "failed", "empty"):
        raise CueError(f"--status must be ok, skipped, failed or empty, not {status!r}")
    conn = connect()
    try:
        found = list_digests(conn, limit=limit, status=status)
    finally:
        conn.close()
    format = resolve(format)
    if format == Format.json:
        out(dumps([d.to_dict() for d in found]) + "\n")
    elif format == Format.ndjson:
        out("".join(dumps(d.to_dict()) + "\n" for d in found))
    else:
        if not found:
            say("no digests yet; run `cue digest`")
            return
        from cuectx.human import ago
        from cuectx.output import Col, print_fitted

        print_fitted(
            [Col("id", justify="right"), Col("ended"), Col("status"), Col("backend", squeeze=True),
             Col("frames", justify="right"), Col("model", justify="right"),
             Col("summary", free=True)],
            [[str(d.id), ago(d.window_end), d.status, d.backend, str(d.frame_count),
              f"{d.timings['model_ms'] / 1000:.1f} s" if d.timings.get("model_ms") else "-",
              " ".join(d.summary.split())] for d in found])


@app.command("show")
def digests_show(
    ctx: typer.Context,
    digest_id: Annotated[str, typer.Argument(metavar="ID|latest", help="A digest id.")],
    format: formats("text", "json", auto=False) = Format.text,
) -> None:
    """Show one digest with its window, backend and timings.

    Example: cue digests show 12
    """
    given = group_options(ctx, "`cue digests list`", format=format)
    format = Format(option_value(given["format"]))
    if format not in (Format.text, Format.json):  # `cue digests -f table show …`
        raise UsageError(f"`cue digests show` prints text or json, not {format.value}")
    from cue.core.db import connect
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
        raise NotFoundError(f"no digest {digest_id}; see `cue digests list`")
    if format == Format.json:
        out(dumps(d.to_dict()) + "\n")
        return
    t = d.timings
    timing = ", ".join(f"{k.removesuffix('_ms')} {v:.0f} ms" for k, v in t.items() if v)
    out(f"digest {d.id} · {d.status} · backend {d.backend}"
         f"{' (cloud fallback)' if d.fell_back else ''}{' · ' + d.model if d.model else ''}\n"
         f"window {clock(d.window_start)} – {clock(d.window_end)} UTC · "
         f"{d.frame_count} frames · {d.event_count} events · {d.image_bytes:,} image bytes\n"
         f"timings: {timing}\n\n{d.summary}\n")
