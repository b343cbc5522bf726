"""`ctx hook-server status|stop`: the processes that answer hooks (ctx/claude/hooks/server.py)."""
from __future__ import annotations

import typer

from ctx.cli.options import RecordFormatOpt
from ctx.cli.output import Format, emit_records, say

hook_server_app = typer.Typer(
    help="The background process that answers hooks with their imports done.",
    no_args_is_help=True)


def _records() -> list[dict]:
    from ctx.claude.hooks import client, server

    mine = client.socket_path() if client.usable() else None
    return [{"pid": pid, "socket": path, "this_installation": path == mine}
            for path, pid in server.servers()]


@hook_server_app.command("status")
def status(fmt: RecordFormatOpt = Format.auto) -> None:
    """List the hook servers running (run dir: $CTX_RUN_DIR, else $XDG_RUNTIME_DIR/cue-ctx,
    else /tmp/cue-ctx-<uid>): pid, socket, whether it serves this installation. Exit 0
    either way.

    Example: ctx hook-server status --format json
    """
    from ctx.core import settings

    records = _records()
    if not records and fmt in (Format.auto, Format.table):
        then = ("the next hook starts one" if settings.hook_server_enabled()
                else "CTX_HOOK_SERVER is off: hooks run in their own process")
        say(f"no hook server in {settings.run_dir()} ({then})")
        return
    emit_records(records, fmt, columns=["pid", "this_installation", "socket"], free="socket")


@hook_server_app.command("stop")
def stop() -> None:
    """End the hook servers in the run dir. A hook already running finishes; the next hook
    runs in its own process and starts a new server (CTX_HOOK_SERVER=0: none).

    Example: ctx hook-server stop
    """
    from ctx.claude.hooks import server
    from ctx.core import settings

    pids = server.stop()
    say(f"stopped {len(pids)} hook server(s)" + (f": {', '.join(map(str, pids))}" if pids
                                                   else "") + f" (run dir: {settings.run_dir()})")


def register(app: typer.Typer) -> None:
    app.add_typer(hook_server_app, name="hook-server")
