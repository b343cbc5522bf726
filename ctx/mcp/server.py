"""`ctx mcp`: ctx's memory as an MCP server over stdio (SPEC §2.9), on the official SDK.

    ctx mcp                       # what an MCP client runs: {"command": "/abs/ctx", "args": ["mcp"]}

Eight tools — remember, recall, show, supersede, link, forget, status, compose — whose work is
in ctx/mcp/tools.py (the same store functions and rules as the hooks and the CLI). This
module only names them, describes them for a model, and turns every failure into an MCP
tool error (`is_error`) whose text says what to fix: a bad call never ends the server.

- stdout is the protocol's: the SDK serves the wire from a private copy of fd 1 and points
  fd 1 at stderr, so a stray print or a native library's chatter lands in the log, not in
  the JSON-RPC stream. Logging goes to stderr at WARNING.
- Each call opens its own connection (WAL, busy timeout: ctx.core.db) and closes it, so the server
  never holds a lock between calls and hooks and the CLI write alongside it. Tools run in
  worker threads (the SDK's), so a slow first semantic recall does not stall other calls.
- Importing this module loads the SDK (about a second here) but nothing of ctx.semantic:
  the embedding model loads on the first semantic recall. `ctx mcp` runs this behind ctx/mcp/wire.py,
  which answers the handshake from the SDK's earlier answers while this module loads.
"""
from __future__ import annotations

import json
import logging
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal

import mcp_types as types
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS
from pydantic import Field, ValidationError

from ctx.core import db, paths
from ctx.core.errors import CtxError
from ctx.core.model import EDGE_TYPES, NODE_TYPES, TIERS
from ctx.core.store import Store
from ctx.mcp import tools as mcp_tools

log = logging.getLogger("ctx.mcp")

NodeType = Literal[NODE_TYPES]  # ctx.core.model: the one vocabulary
Tier = Literal[TIERS]
EdgeType = Literal[EDGE_TYPES]
RecallMode = Literal["auto", "query", "hybrid", "keyword", "semantic"]
Where = Literal["project", "global"]
Dedupe = Literal["keep", "skip", "ask"]

INSTRUCTIONS = """\
ctx is the user's persistent memory, shared with Claude Code's ctx hooks and the `ctx` CLI \
(one local SQLite store). Recall before you guess about past work, decisions or preferences. \
Remember durable facts, decisions and conventions the user will want next time, with a tier: \
pinned (always in view), reference (durable project knowledge), working (this task only), \
off-context (archive, found only by recall). When a remembered fact changes, supersede it \
instead of adding a contradicting one. Never store secrets (passwords, tokens, keys). Ids may \
be given in full or as a unique prefix of at least 4 characters (e.g. 01JD8Z3K). Memory is \
scoped like the hooks': this project's (the folder the client started ctx in, or $CTX_PROJECT) \
plus global memory; remember with where="global" what every project should know."""

TAGS_DOC = ("Extra tags, e.g. [\"project:api\", \"topic:auth\"]: each is text without spaces "
            "or commas. Give the tier with `tier`, not as a tag.")

Ids = Annotated[list[str], Field(min_length=1, max_length=mcp_tools.SHOW_MAX,
                                 description="Node ids, full or a unique prefix (≥ 4 characters).")]


class CtxMCPServer(MCPServer):
    """MCPServer whose argument errors name the argument and what it accepts, and which
    refuses arguments a tool does not take (pydantic would drop a misspelt `tag` silently)."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context=None):
        tool = self._tool_manager.get_tool(name)
        if tool is None:
            known = ", ".join(t.name for t in self._tool_manager.list_tools())
            raise ToolError(f"unknown tool {name!r}; ctx has: {known}")
        allowed = set(tool.parameters.get("properties", {}))
        unknown = sorted(set(arguments or {}) - allowed)
        if unknown:
            raise ToolError(f"{name}: unknown argument{'s' if len(unknown) > 1 else ''} "
                            f"{', '.join(map(repr, unknown))}; {name} takes: {', '.join(sorted(allowed))}")
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                raise ToolError(f"{name}: {_explain(exc.__cause__)}") from None
            raise


    async def get_prompt(self, name: str, arguments: dict[str, Any] | None = None, context=None):
        """ctx has no prompts: an unknown name is the client's mistake — JSON-RPC's invalid
        params (-32602) with a sentence, not an internal error logged with a traceback."""
        if self._prompt_manager.get_prompt(name) is None:
            raise MCPError(INVALID_PARAMS, f"unknown prompt {name!r}; ctx has no prompts (see tools/list)")
        return await super().get_prompt(name, arguments, context)

    async def read_resource(self, uri, context=None):
        """Likewise for a resource ctx does not have."""
        if not any(str(r.uri) == str(uri) for r in await self.list_resources()) and \
                not await self.list_resource_templates():
            raise MCPError(INVALID_PARAMS, f"unknown resource {str(uri)!r}; ctx has no resources")
        return await super().read_resource(uri, context)


def _explain(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors(include_url=False):
        where = ".".join(str(p) for p in err["loc"]) or "arguments"
        text = f"`{where}`: {err['msg']}"
        if err["type"] not in ("missing",):
            text += f" (got {json.dumps(err.get('input'), ensure_ascii=False, default=str)[:80]})"
        parts.append(text)
    return "; ".join(parts)


def _result(data: dict | None, text: str | None = None) -> types.CallToolResult:
    """JSON as text and as structured content (Claude Code hands the model the structured
    form when there is one), or — for prose like compose's markdown — the text alone."""
    body = text if text is not None else json.dumps(data, ensure_ascii=False, indent=1)
    return types.CallToolResult(content=[types.TextContent(type="text", text=body)],
                                structured_content=data)


def _scope(store: Store, *, all_projects: bool = False):
    """The hooks' scope (ctx.core.projects): the project of the server's working directory (where the
    client started it) or $CTX_PROJECT, + global memory; re-read per call, so a moved or
    renamed project is followed."""
    from ctx.core.store import current_scope

    return current_scope(store.conn, all_projects=all_projects)


def build_server(db_path: str | os.PathLike | None = None) -> MCPServer:
    """The server, its tools bound to one database file (resolved once: --db, $CTX_DB,
    ~/.ctx/store.db)."""
    path = Path(paths.db_path(db_path)).expanduser().resolve()

    def run(work: Callable[[Store], Any], *, readonly: bool = False) -> Any:
        try:
            conn = db.connect(path, readonly=readonly)
            try:
                return work(Store(conn))
            finally:
                conn.close()
        except CtxError as exc:
            raise ToolError(str(exc)) from None
        except sqlite3.Error as exc:
            raise ToolError(str(db.translate(exc, path))) from None
        except ToolError:
            raise
        except Exception as exc:  # a bug of ours: say so, log it, keep serving
            log.exception("ctx mcp: unexpected error")
            raise ToolError(f"ctx failed unexpectedly ({type(exc).__name__}: {exc}); the server "
                            f"is still running — the full error is in its log (stderr)") from None

    server = CtxMCPServer(name="ctx", title="ctx memory", version=_version(),
                          instructions=INSTRUCTIONS, log_level="WARNING")

    @server.tool(annotations=types.ToolAnnotations(idempotent_hint=True, destructive_hint=False))
    def remember(
        content: Annotated[str, Field(description="The memory itself, one self-contained statement "
                                                  "(e.g. \"Staging Postgres listens on 6543, not 5432\").")],
        type: Annotated[NodeType, Field(description="What kind of memory this is.")] = "fact",
        tier: Annotated[Tier | None, Field(description=(
            "pinned = always in view; reference = durable knowledge, in every Claude Code session; "
            "working = current task only; off-context = archive. Without a tier the memory is "
            "still found by recall and offered when a prompt is about it."))] = None,
        tags: Annotated[list[str], Field(description=TAGS_DOC)] = [],  # noqa: B006 (schema default)
        rationale: Annotated[str | None, Field(description="Why (for decisions).")] = None,
        supersedes: Annotated[str | None, Field(description=(
            "Id of an older memory this one replaces; it stops appearing in recall and context."))] = None,
        where: Annotated[Where, Field(description=(
            "project (default): this project's memory; global: every project sees it (the "
            "user's preferences, tools, people)."))] = "project",
        dedupe: Annotated[Dedupe | None, Field(description=(
            "keep: store it even if it closely restates a live memory (default: the user's "
            "CTX_DEDUPE; an exact or near-exact repeat is never stored twice)."))] = None,
    ) -> types.CallToolResult:
        """Save something worth knowing in later conversations: a fact, a decision and its
        reason, a convention, a preference. A memory that repeats a live one is not stored
        again: the result names the existing id (status "already remembered", or "likely
        duplicate, not stored"). Returns the node's id. Not for secrets."""
        return _result(run(lambda s: mcp_tools.remember(
            s, content, type=type, tier=tier, tags=tags, rationale=rationale, supersedes=supersedes,
            where=where, scope=_scope(s), dedupe=dedupe)))

    @server.tool(annotations=types.ToolAnnotations(read_only_hint=True))
    def recall(
        query: Annotated[str, Field(description=(
            "Plain words (\"how do we deploy to staging\") for a ranked search by meaning and "
            "words, or the ctx query language: type:decision, tag:project:api, id:01JD8Z3K, "
            "created:>2026-01-01, \"exact phrase\", AND / OR / NOT, parentheses."))],
        limit: Annotated[int, Field(ge=1, le=mcp_tools.RECALL_MAX,
                                    description="At most this many results.")] = 10,
        mode: Annotated[RecallMode, Field(description=(
            "auto (default): query language when the query has field:value or AND/OR/NOT, else "
            "hybrid. hybrid = meaning + words; semantic = meaning only; keyword = words only; "
            "query = query language (newest first)."))] = "auto",
        filter: Annotated[str | None, Field(description=(
            "For plain-words search: a query-language condition results must meet, "
            "e.g. \"type:decision AND tag:project:api\"."))] = None,
        include_superseded: Annotated[bool, Field(description="Also return replaced memories.")] = False,
        all_projects: Annotated[bool, Field(description=(
            "Search every project's memory, not only this project's + global."))] = False,
    ) -> types.CallToolResult:
        """Search the memory (this project's + global). Returns the best matches with id,
        type, tier, tags, project, score (similarity for meaning search; none for
        query-language matches) and text."""
        return _result(run(lambda s: mcp_tools.recall(
            s, query, limit=limit, mode=mode, filter=filter, include_superseded=include_superseded,
            scope=_scope(s, all_projects=all_projects))))

    @server.tool(annotations=types.ToolAnnotations(read_only_hint=True))
    def show(ids: Ids) -> types.CallToolResult:
        """Show memories in full (whole text, metadata, edges to other memories) by id."""
        return _result(run(lambda s: mcp_tools.show(s, ids), readonly=True))

    @server.tool(annotations=types.ToolAnnotations(destructive_hint=False))
    def supersede(
        old: Annotated[str, Field(description="Id of the memory that is out of date.")],
        content: Annotated[str | None, Field(description=(
            "The corrected memory's text: a new node is made and replaces `old` (keeping its type, "
            "tier and tags unless given)."))] = None,
        new: Annotated[str | None, Field(description=(
            "Instead of `content`: the id of an existing memory that replaces `old`."))] = None,
        type: Annotated[NodeType | None, Field(description="Type of the new node (with content).")] = None,
        tier: Annotated[Tier | None, Field(description="Tier of the new node (with content).")] = None,
        tags: Annotated[list[str] | None, Field(description=(
            "Tags of the new node (with content); default: the old node's.")) ] = None,
    ) -> types.CallToolResult:
        """Replace an out-of-date memory, keeping history: the old one stops appearing in
        recall and context. Give either `content` (new text) or `new` (an existing id)."""
        return _result(run(lambda s: mcp_tools.supersede(
            s, old, new=new, content=content, type=type, tier=tier, tags=tags)))

    @server.tool(annotations=types.ToolAnnotations(idempotent_hint=True, destructive_hint=False))
    def link(
        from_id: Annotated[str, Field(description="The memory the edge starts from.")],
        to_id: Annotated[str, Field(description="The memory it points to.")],
        type: Annotated[EdgeType, Field(description=(
            "DEPENDS_ON (from needs to), DERIVED_FROM (from was made from to), RELATES_TO."))] = "RELATES_TO",
    ) -> types.CallToolResult:
        """Connect two memories with a typed edge (e.g. a decision DEPENDS_ON a fact)."""
        return _result(run(lambda s: mcp_tools.link(s, from_id, to_id, type)))

    @server.tool(annotations=types.ToolAnnotations(destructive_hint=True))
    def forget(ids: Ids) -> types.CallToolResult:
        """Delete memories for good (with their tags and edges) — only when the user asks to
        forget something or it was stored by mistake. To correct a memory, use supersede.
        One unknown id deletes nothing. Returns what was deleted."""
        return _result(run(lambda s: mcp_tools.forget(s, ids)))

    @server.tool(annotations=types.ToolAnnotations(read_only_hint=True))
    def status() -> types.CallToolResult:
        """Counts of memories by type and tier, edges, the current task, the database file and
        whether meaning search (the embedding model) is available."""
        return _result(run(lambda s: mcp_tools.status(s, str(path), _scope(s)), readonly=True))

    @server.tool(annotations=types.ToolAnnotations(read_only_hint=True))
    def compose(
        query: Annotated[str | None, Field(description=(
            "A query-language expression to compose instead of the view's query."))] = None,
        view: Annotated[str, Field(description="Named view (default: what sessions start with).")] = "default",
        budget: Annotated[int, Field(ge=1, le=mcp_tools.COMPOSE_MAX_BUDGET, description=(
            "Token budget; larger results are cut by MCP clients."))] = mcp_tools.COMPOSE_BUDGET,
    ) -> types.CallToolResult:
        """The memory block a Claude Code session starts with, as markdown, within a token
        budget: pinned first, then reference (by type), then working memories."""
        _meta, markdown = run(lambda s: mcp_tools.compose(s, query, view=view, budget=budget,
                                                          scope=_scope(s)), readonly=True)
        return _result(None, markdown)

    return server


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("cue-ctx")
    except PackageNotFoundError:
        return "0"


def serve(db_path: str | os.PathLike | None = None) -> None:
    """Run over stdio until the client closes stdin."""
    import signal

    logging.getLogger("mcp").setLevel(logging.WARNING)
    server = build_server(db_path)
    # Clients stop a stdio server with SIGINT, then SIGTERM: end at once on either (a write in
    # flight is one SQLite transaction: all or nothing), rather than unwinding worker threads.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    server.run("stdio")
