"""`ctx doctor`: what is wrong with the stored memory (ctx/doctor) — duplicates,
contradictions, stale items, orphans, secrets — and, with --fix, the supersede links and
tier changes that mend it (undoable with --undo). `--secrets` keeps its own listing."""
from __future__ import annotations

import sys
from typing import Annotated

import typer

from ctx.cli.output import RECORD_FORMATS, Format, emit_records, formats, resolve, say
from ctx.core.errors import CtxError
from cuectx.errors import UsageError
from cuectx.exits import ExitCode

FormatOpt = formats(*RECORD_FORMATS)  # json, ndjson, table (others exit 2)


def register(app: typer.Typer) -> None:
    """Add `ctx doctor` to the app."""

    @app.command("doctor")
    def doctor(
        kind: Annotated[list[str] | None, typer.Option(
            "--kind", "-k", metavar="KIND",
            help="Only these kinds (repeatable): duplicate, contradiction, stale, orphan, "
                 "secret.")] = None,
        fix: Annotated[bool, typer.Option(
            "--fix", help="Apply the proposals: supersede links and tier changes (never a "
                          "delete), logged for --undo; secrets are redacted in place.")] = False,
        undo: Annotated[bool, typer.Option(
            "--undo", help="Put back what the last --fix changed (or --run RUN's).")] = False,
        run: Annotated[str | None, typer.Option(
            "--run", metavar="RUN", help="With --undo: that fix run (see --history).")] = None,
        history: Annotated[bool, typer.Option("--history", help="List the --fix runs.")] = False,
        stale_days: Annotated[int | None, typer.Option(
            "--stale-days", min=1, metavar="DAYS",
            help="Working-tier nodes untouched this long are stale (default "
                 "$CTX_DOCTOR_STALE_DAYS, else 14).")] = None,
        no_vectors: Annotated[bool, typer.Option(
            "--no-vectors", help="Words only: neither embed what the index lacks nor use "
                                 "the index (faster, finds fewer restatements).")] = False,
        review: Annotated[bool, typer.Option(
            "--review", help="Also ask a model about the flagged pairs and the pairs alike by "
                             "meaning the words cannot settle (a tool or rule changed in other "
                             "words): shows the token cost first and asks; proposals only.")] = False,
        review_backend: Annotated[str, typer.Option(
            "--review-backend", metavar="anthropic|openai",
            help="anthropic (Claude Haiku, $ANTHROPIC_API_KEY) or openai (a local "
                 "OpenAI-compatible server, --review-url).")] = "anthropic",
        review_url: Annotated[str | None, typer.Option(
            "--review-url", metavar="URL",
            help="The server: http://127.0.0.1:8080/v1 for openai; for anthropic "
                 "$ANTHROPIC_BASE_URL or the API.")] = None,
        review_model: Annotated[str | None, typer.Option(
            "--review-model", metavar="MODEL",
            help="Model name (default $CTX_REVIEW_MODEL, else claude-haiku-4-5).")] = None,
        max_tokens: Annotated[int, typer.Option(
            "--max-tokens", min=100, help="Token cap for one review (input + output).")] = 20_000,
        yes: Annotated[bool, typer.Option(
            "--yes", "-y", help="Send the review without asking (the cost is still printed).")] = False,
        secrets: Annotated[bool, typer.Option(
            "--secrets", help="Only credentials in stored nodes, request records and project "
                              "remotes, listed by field and position (as before).")] = False,
        fmt: FormatOpt = Format.auto,
    ) -> None:
        """Find duplicates, contradictions, stale items and orphans in the stored memory — from
        the text and its embeddings (what the index lacks is embedded first, locally; no
        language model, no network) — and say what to keep and why. --fix applies it as
        supersede links and tier changes; --undo puts them back. Exit code 1 when something was found and not fixed.

        Example: ctx doctor
        Example: ctx doctor --kind contradiction --format json
        Example: ctx doctor --fix && ctx doctor --undo
        Example: ctx doctor --review --review-backend openai --review-url URL
        """
        if secrets:
            return _secrets(fix, fmt)
        from ctx.doctor.findings import KINDS

        kinds = tuple(dict.fromkeys(k.strip().lower() for k in kind or [])) or KINDS
        bad = [k for k in kinds if k not in KINDS]
        if bad:
            raise UsageError(f"unknown --kind {', '.join(bad)}; use: {', '.join(KINDS)}")
        if review_backend not in ("anthropic", "openai"):
            raise UsageError("--review-backend is anthropic or openai")
        if history:
            return _history(fmt)
        if undo:
            return _undo(run, fmt)
        _findings(kinds, fix, stale_days, not no_vectors, fmt,
                  (review_backend, review_url, review_model, max_tokens, yes) if review else None)


def _findings(kinds, fix: bool, stale_days, vectors: bool, fmt, review) -> None:
    import os

    # The check's one large product (every node's vector with every other's, ~1 s at 10k)
    # in one BLAS thread: on a busy two-core machine a second thread spent more CPU waiting
    # than it saved (10k nodes: 3.3 → 2.3 s of CPU in the vector step). Before numpy loads.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from ctx.cli.state import open_store
    from ctx.core.settings import stale_days as default_stale
    from ctx.doctor import fixes
    from ctx.doctor.findings import Options, diagnose

    options = Options(kinds=kinds, stale_days=stale_days or default_stale(), vectors=vectors,
                      undecided=review is not None and "contradiction" in kinds)
    table = resolve(fmt) == Format.table
    with open_store(readonly=not (fix or vectors)) as store:
        if vectors:
            _embed_missing(store)
        found = diagnose(store, options)
        if review is not None and found:
            # the model settles what the words could not: it can take a flagged pair out,
            # or add one of the pairs alike by meaning (as its proposal, never --fix'ed)
            contents = {n.id: n.content for n in store.get_many(
                list(dict.fromkeys(i for f in found for i in f.ids)))}
            found = _review(found, contents, *review)
        # pairs alike by meaning the words cannot settle: only for the model to look at
        found = [f for f in found if f.kind != "undecided"]
        records = [f.to_dict() for f in found]
        if table:
            from ctx.core.ids import short_ids

            sid = short_ids(store, list(dict.fromkeys(i for f in found for i in f.ids)))


            def shorter(text: str) -> str:  # a table shows short ids everywhere
                for full, short in sid.items():
                    text = text.replace(full, short)
                return text

            records = [{**r, "ids": " ".join(sid.get(i, i) for i in r["ids"]),
                        "keep": sid.get(r["keep"], r["keep"]) if r["keep"] else "-",
                        "evidence": shorter(r["evidence"]), "action": shorter(r["action"])}
                       for r in records]
        report = fixes.apply(store, found) if fix and found else None
    if records:
        # the action names every id (and which is kept): no ids/keep columns to crowd the
        # evidence, which is the part a person reads (JSON keeps ids and keep)
        emit_records(records, fmt, columns=["kind", "action", "evidence"],
                     free="evidence", squeeze=("action",), lines=8)
    counts = {}
    for f in found:
        counts[f.kind] = counts.get(f.kind, 0) + 1
    summary = ", ".join(f"{n} {k}" for k, n in counts.items()) or "nothing"
    if report is not None:
        for line in report.done:
            say(f"fixed: {line}")
        for line in report.skipped:
            say(line)
        say(f"doctor: {summary} found; {report.changes} change(s) made (run {report.run_id}; "
            f"`ctx doctor --undo` puts them back)")
        return
    if not found:
        say("doctor: nothing found (kinds: " + ", ".join(kinds) + ")")
        return
    say(f"doctor: {summary} found; `ctx doctor --fix` applies the actions (undo: `ctx doctor --undo`)")
    raise typer.Exit(int(ExitCode.ERROR))


def _embed_missing(store) -> None:
    """Vectors by default: what the index lacks is embedded first (a bar on stderr when
    there is much and stderr is a terminal — on a pipe or in a log nothing), so a store just
    imported is checked as fully as an indexed one."""
    from ctx.cli.reads import progress_bar
    from ctx.doctor.vectors import embed_missing

    callback, close = progress_bar("embedding")
    try:
        why_not = embed_missing(store.conn, progress=callback)
    finally:
        close()
    if why_not:
        say(f"doctor: words only ({why_not})")


def _review(found, contents, backend, url, model, cap, yes) -> list:
    """The findings as the model's answers leave them (ctx.doctor.review.settle)."""
    from ctx.doctor import review

    plan = review.plan(found, contents, cap=cap, backend=backend, model=model)
    say(plan.describe())
    if not plan.pairs:
        return found
    if not yes:
        if not sys.stdin.isatty():
            raise CtxError("the review was not sent: confirm with --yes (nothing is sent "
                           "without a yes)")
        if not typer.confirm("send?", default=False, err=True):
            say("review not sent")
            return found
    verdicts, usage = review.send(plan, url=url)
    if usage:
        say(f"review used {usage}")
    for v in verdicts:
        if v.flagged == "undecided":  # the words could not tell: the model's answer settles it
            say(f"review pair {v.pair} {v.ids[0]} / {v.ids[1]}: alike by meaning, model says "
                f"{v.verdict} — {v.why}")
            continue
        mark = "agrees" if v.agrees else "DISAGREES"
        say(f"review pair {v.pair} {v.ids[0]} / {v.ids[1]}: flagged {v.flagged}, model says "
            f"{v.verdict} ({mark}) — {v.why}")
    settled, notes = review.settle(found, verdicts, plan)
    for line in notes:
        say(line)
    return settled


def _undo(run: str | None, fmt) -> None:
    from ctx.cli.state import open_store
    from ctx.doctor import fixes

    with open_store() as store:
        report = fixes.undo(store, run)
    for line in report.done:
        say(f"undone: {line}")
    for line in report.skipped:
        say(line)
    say(f"doctor: undid {report.changes} change(s) of run {report.run_id}")


def _history(fmt) -> None:
    from ctx.cli.state import open_store
    from ctx.doctor import fixes

    with open_store(readonly=True) as store:
        runs = fixes.history(store)
    if runs:
        emit_records(runs, fmt, columns=["run", "applied_at", "changes", "undone"])
    else:
        say("no `ctx doctor --fix` runs yet")


def _secrets(fix: bool, fmt) -> None:
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
