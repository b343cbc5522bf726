"""`ctx capture list|show|fold`: the session records ctx keeps from Claude Code transcripts
(ctx.claude.capture, SPEC §2.12) — what was captured, why it was kept or not, and folding old
records into the project's digest."""
from __future__ import annotations

from typing import Annotated

import typer

from ctx.cli.options import RecordFormatOpt
from ctx.cli.output import Format, dumps, emit_records, resolve, say
from ctx.cli.state import open_store

capture_app = typer.Typer(help="Session records kept from Claude Code transcripts (no model call).",
                          no_args_is_help=True)


@capture_app.command("list")
def capture_list(
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, help="How many sessions.")] = 20,
    fmt: RecordFormatOpt = Format.auto,
) -> None:
    """The sessions captured, newest first: kept or not, and why.

    Example: ctx capture list -n 5
    """
    from ctx.claude.capture_store import captures
    from ctx.core.ids import short_ids

    with open_store(readonly=True) as store:
        found = captures(store, limit=limit)
        short = short_ids(store, [c.node.id for c in found if c.node])
    rows = [{"session": c.session_id, "updated_at": c.updated_at,
             "record": short.get(c.node.id, c.node.id) if c.node else "", "why": c.why}
            for c in found]
    if not rows:
        say("No session captured yet (Claude Code's Stop hook captures each session; "
            "CTX_CAPTURE=off turns it off).")
    emit_records(rows, fmt, columns=["session", "updated_at", "record", "why"], free="why")


@capture_app.command("show")
def capture_show(
    session: Annotated[str | None, typer.Argument(
        help="A session id or a unique prefix (default: the latest captured).")] = None,
    fmt: RecordFormatOpt = Format.auto,
) -> None:
    """What was captured from one session, and why it was kept or left out.

    Example: ctx capture show 9b777d0e
    """
    from ctx.claude.capture_store import captures
    from ctx.core.errors import NotFoundError

    with open_store(readonly=True) as store:
        found = captures(store, session, limit=1)
    if not found:
        raise NotFoundError("no session was captured yet")
    c = found[0]
    data = c.to_dict()
    if resolve(fmt, single=True) in (Format.json, Format.ndjson):
        print(dumps(data))
        return
    counts = data["counts"]
    print(f"session   {c.session_id}")
    print(f"transcript {c.path} (read to byte {c.offset}, last by {c.event})")
    print(f"span      {data['started_at']} → {data['ended_at']}")
    print("counts    " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in counts.items()))
    print(f"decision  {c.why}")
    if c.node is not None:
        print(f"record    {c.node.id} ({data['record_status']}, {c.node.type}, "
              f"{', '.join(c.node.tags)})")
        print()
        print(c.node.content)


@capture_app.command("fold")
def capture_fold(
    older_than: Annotated[int | None, typer.Option(
        "--older-than", min=1, help="Days (default $CTX_CAPTURE_KEEP_DAYS, 30).")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Only say what would be folded.")] = False,
    fmt: RecordFormatOpt = Format.auto,
) -> None:
    """Fold session records older than N days into one digest line each, per project.

    The digest is a `summary` node (tier off-context, tag capture:digest); each folded record
    is superseded by it — nothing is deleted (`ctx show ID --include-superseded`).

    Example: ctx capture fold --older-than 30 --dry-run
    """
    from ctx.claude.capture_store import fold_old
    from ctx.core.settings import capture_keep_days

    days = older_than or capture_keep_days()
    with open_store() as store:
        folded = fold_old(store, older_than_days=days, dry_run=dry_run)
    verb = "would fold" if dry_run else "folded"
    say(f"{verb} {len(folded)} session record(s) older than {days} days")
    emit_records([{"record": rid, "line": line} for rid, _, line in folded], fmt,
                 columns=["record", "line"], free="line")


def register(app: typer.Typer) -> None:
    app.add_typer(capture_app, name="capture")
