"""`ctx ui`: wiring for the local web viewer (ctx/web/). Loaded lazily: no other command pays
for starlette, uvicorn or jinja2."""
from __future__ import annotations

import sys
from typing import Annotated

import typer

from ctx.cli.options import ProjectOpt
from ctx.core.errors import CtxError


def register(app: typer.Typer) -> None:
    """Add `ctx ui` to the app."""

    @app.command("ui")
    def ui(
        port: Annotated[int, typer.Option(
            "--port", min=0, max=65535,
            help="Port on 127.0.0.1 (default: a free one).")] = 0,
        project: ProjectOpt = None,
        no_browser: Annotated[bool, typer.Option(
            "--no-browser", help="Only print the address; don't open a browser.")] = False,
    ) -> None:
        """Browse memory, requests and cue's digests in a local web page (127.0.0.1 only).

        Prints an address with this run's secret token; Ctrl-C stops the server. The Session
        start page shows the folder's project unless -P/--project names one (as everywhere).

        Example: ctx ui --port 8765 --no-browser
        """
        from ctx.cli.output import say
        from ctx.cli.state import scope_options, state
        from ctx.core import db
        from ctx.core.store import current_scope
        from ctx.web import server

        scope_options(project, False)
        conn = db.connect(state.db_path)  # a bad --db or -P is one Error line, before listening
        try:
            if state.project is not None:
                current_scope(conn, project=state.project)
        finally:
            conn.close()
        try:
            running = server.bind(port)
        except OSError as exc:
            raise CtxError(f"cannot listen on 127.0.0.1:{port}: {exc.strerror or exc}"
                           + ("; choose another --port or leave it out" if port else "")) from None

        def ready() -> None:
            print(running.url, flush=True)
            say("ctx ui: open the address above (it carries this run's token); Ctrl-C stops.")
            if not no_browser:
                _open_browser(running.browser_url)  # a one-time code, not the token

        try:
            server.serve(running, db_path=state.db_path, project=state.project, on_ready=ready)
        except KeyboardInterrupt:
            pass
        say("ctx ui: stopped.")
        sys.stdout.flush()


def _open_browser(url: str) -> None:
    """Open the page without holding up the server: in a thread (a browser launcher may
    block), and not at all on a Linux box with no display unless $BROWSER says which (Python
    would otherwise start a text browser in this terminal)."""
    import os
    import threading

    from ctx.cli.output import say

    if (sys.platform.startswith("linux") and not os.environ.get("BROWSER")
            and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))):
        say("ctx ui: no display here; open the address above in a browser.")
        return

    def run() -> None:
        import webbrowser

        try:
            if not webbrowser.open(url):
                say("ctx ui: no browser found; open the address above yourself.")
        except Exception as exc:  # noqa: BLE001 — no browser is not an error: the URL is printed
            say(f"ctx ui: could not open a browser ({exc}); open the address yourself.")

    threading.Thread(target=run, name="open-browser", daemon=True).start()
