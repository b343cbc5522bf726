"""`ctx sync [--remote URL] [--status]`: your own memory on every machine, through a git remote
you control (SPEC §2.11). Wiring only: the round is ctx/core/sync.py."""
from __future__ import annotations

from typing import Annotated

import typer

from ctx.cli.output import RECORD_FORMATS, Format, dumps, formats, resolve, say

FormatOpt = formats(*RECORD_FORMATS)


def sync(
    remote: Annotated[str | None, typer.Option(
        "--remote", metavar="URL", help="The git remote to sync through (remembered; any remote "
                                        "you control: a bare repository on a disk or a server).")] = None,
    status_: Annotated[bool, typer.Option(
        "--status", help="Say what is ahead/behind instead of syncing.")] = False,
    fmt: FormatOpt = Format.auto,
) -> None:
    """Exchange every project's and the global memory (all tiers) with your other machines
    through a git remote: export → commit → pull --rebase → import → push. Offline, the
    round's commit waits in the clone ($CTX_HOME/sync/repo) and goes out next time.

    Example: git init --bare /media/usb/ctx.git

    Example: ctx sync --remote /media/usb/ctx.git
    """
    from ctx.cli.state import open_store
    from ctx.core import sync as core

    as_json = resolve(fmt, single=True) in (Format.json, Format.ndjson)
    if status_:
        if remote is not None:
            from cuectx.errors import UsageError

            raise UsageError("give --status or --remote, not both")
        with open_store() as store:
            st = core.status(store)
        info = {"remote": st.remote, "clone": st.clone, "ahead": st.ahead, "behind": st.behind,
                "unexported_changes": st.unexported, "reachable": st.reachable,
                "last_commit": st.last_commit}
        if as_json:
            print(dumps(info))
        if st.remote is None:
            say("not set up: ctx sync --remote URL")
        else:
            say(f"remote: {st.remote}{'' if st.reachable else ' (not reachable now)'}")
            say(f"ahead {st.ahead}, behind {st.behind}; "
                + ("changes here not yet exported" if st.unexported else "nothing new here")
                + (f"; last commit {st.last_commit}" if st.last_commit else ""))
        return
    with open_store() as store:
        report = core.run(store, remote, confirm=_confirm)
    imp = report.imported
    for p in imp.problems:
        say(f"ctx warning: {p}")
    info = {"remote": report.remote, "clone": report.clone, "exported_nodes": report.exported_nodes,
            "committed": report.committed, "pushed": report.pushed, "offline": report.offline,
            "ahead": report.ahead, "behind": report.behind, "imported": imp.counts()}
    if as_json:
        print(dumps(info))
    got = ", ".join(f"{v} {k}" for k, v in imp.counts().items() if v and k != "bad_lines")
    say(f"synced with {report.remote}: {report.exported_nodes} nodes here; "
        f"received: {got or 'nothing new'}")
    if report.offline:
        say(f"ctx warning: the remote was not reachable ({report.offline}); "
            f"{report.ahead} commit{'s' if report.ahead != 1 else ''} queued for the next round")


def _confirm(hides: int, live: int) -> bool:
    """A round that would hide many memories asks a person at a terminal; cron gets no prompt
    (the round fails, hiding nothing)."""
    import sys

    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        return False
    say(f"The sync remote deletes {hides} of your {live} live memories. A backup of the store is "
        f"kept under $CTX_HOME/sync/backups either way.")
    return typer.confirm("Hide them (recoverable with `ctx project sync --restore ID`)?", default=False,
                         err=True)


def register(app: typer.Typer) -> None:
    app.command("sync")(sync)
