"""`ctx mcp`: wiring for ctx/mcp/server.py (loaded only by this command: the SDK is heavy)."""
from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Add `ctx mcp` to the app."""

    @app.command("mcp")
    def mcp_() -> None:
        """Serve ctx's memory to an MCP client over stdio (Claude Desktop, Claude Code, others).

        Tools: remember, recall, show, supersede, link, forget, status, compose. Configure a
        client with {"command": "/path/to/ctx", "args": ["mcp"]}, or run `ctx install --mcp
        claude-desktop|claude-code`. Uses --db / $CTX_DB like every other command; the project
        is the working directory's, or --project NAME / $CTX_PROJECT.

        Example: ctx --db ~/notes.db mcp
        """
        import os

        from ctx.cli.state import state
        from ctx.core.errors import CtxError

        if state.all_projects:
            raise CtxError("--all-projects does not apply to the server; recall takes all_projects")
        if state.project:  # `ctx --project api mcp`: the server works in that project, as CTX_PROJECT does
            os.environ["CTX_PROJECT"] = state.project
        from ctx.mcp.server import serve
        from ctx.mcp.wire import run

        run(lambda: serve(state.db_path))
