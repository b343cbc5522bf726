"""Sessions and request records, as one import (older code and tests use `ctx.requests`).

The code lives in three modules:
- ctx/sessions.py — include modes (always/manual/agent) and Claude Code sessions;
- ctx/request_records.py — one record per prompt: selection, fitting, what was sent, why;
- ctx/request_view.py — how a record is shown (CLI, web viewer).
"""
from __future__ import annotations

from ctx.request_records import (
    BuiltRequest,
    RequestItem,
    RequestRecord,
    build_request,
    get_request,
    list_requests,
    render_selected,
)
from ctx.request_view import item_name, request_view, tier_priority
from ctx.sessions import (
    ALWAYS_TIERS,
    INCLUDE_MODES,
    PROMPT_KEEP_CHARS,
    RESET_SOURCES,
    Session,
    SessionItem,
    get_session,
    include_mode,
    list_sessions,
    not_agent_sql,
    resolve_session,
    session_add,
    session_items,
    session_remove,
    start_session,
)

__all__ = [
    "ALWAYS_TIERS", "INCLUDE_MODES", "PROMPT_KEEP_CHARS", "RESET_SOURCES", "BuiltRequest",
    "RequestItem", "RequestRecord", "Session", "SessionItem", "build_request", "get_request",
    "get_session", "include_mode", "item_name", "list_requests", "list_sessions",
    "not_agent_sql", "render_selected", "request_view", "resolve_session", "session_add",
    "session_items", "session_remove", "start_session", "tier_priority",
]
