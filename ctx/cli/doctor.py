"""`ctx doctor`: checks over what is already stored — today, secrets (ctx.core.guard)."""
from __future__ import annotations

from typing import Annotated

import typer

from ctx.cli.output import RECORD_FORMATS, Format, emit_records, formats, resolve, say
from cuectx.exits import ExitCode

FormatOpt = formats(*RECORD_FORMATS)  # json, ndjson, table (others exit 2)


def register(app: typer.Typer) -> None:
    """Add `ctx doctor` to the app."""

    @app.command("doctor")
    def doctor(
        secrets: Annotated[bool, typer.Option(
            "--secrets", help="Look for credentials in stored nodes (the only check so far; "
                              "the default).")] = False,
        fix: Annotated[bool, typer.Option(
            "--fix", help="Redact what was found in place (default: a dry run that only lists).")] = False,
        fmt: FormatOpt = Format.auto,
    ) -> None:
        """List nodes (content, metadata, tags), request records (the prompt) and projects
        (the origin remote) that hold
        secrets — id, field, kind, position, never the value; with
        --fix, replace each with [SECRET:<kind>] in place. Full-text search and the embedding
        index follow, and the old text is overwritten on disk. Exit code 1 when secrets were
        found and not fixed, so a cron job can alert.

        Example: ctx doctor --secrets
        Example: ctx doctor --secrets --fix
        """
        from ctx.cli.state import open_store
        from ctx.core.ids import short_ids
        from ctx.doctor import secrets as stored_secrets

        out_table = resolve(fmt) == Format.table

        with open_store(readonly=not fix) as store:
            hits = (stored_secrets.scan_store(store) + stored_secrets.scan_requests(store)
                    + stored_secrets.scan_projects(store))
            fixed = stored_secrets.fix_store(store, hits) if fix and hits else 0
            sid = short_ids(store, list(dict.fromkeys(h.node_id for h in hits))) if hits else {}
        records = [{**h.to_dict(), "id": sid.get(h.node_id, h.node_id) if out_table else h.node_id,
                    "status": "redacted" if fix else "found"} for h in hits]
        if records:
            emit_records(records, fmt, columns=["id", "field", "kind", "start", "end", "status"])
        nodes = len({h.node_id for h in hits})  # nodes and request records
        if not hits:
            say("no secrets found in stored nodes")
        elif fix:
            say(f"redacted {len(hits)} secret(s) in {fixed} node(s), request(s) or project(s)")
        else:
            say(f"found {len(hits)} secret(s) in {nodes} node(s); run `ctx doctor --secrets --fix` "
                f"to redact them in place")
            raise typer.Exit(int(ExitCode.ERROR))
