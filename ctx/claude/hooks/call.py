"""`HookCall`: one hook invocation — the parsed input and a place for one-line warnings.

Every hook module imports it from here (ctx.claude.hooks.entry parses argv/stdin into it).
Stdlib only.
"""
from __future__ import annotations

from ctx.core.settings import DEFAULT_HOOK_MAX_CHARS

EVENTS = {"session-start": "SessionStart", "prompt-submit": "UserPromptSubmit", "stop": "Stop",
          "pre-compact": "PreCompact", "session-end": "SessionEnd"}


class HookCall:
    """One hook invocation: the parsed input and a place for one-line warnings.

    `command` is "session-start", "prompt-submit" or "stop". `process_exits`: the process
    ends right after this call (`ctx hook` from a shell or Claude Code), so connections are
    left for the OS to drop (see ctx/__main__.py)."""

    __slots__ = (
        "command",
        "db",
        "max_chars",
        "payload",
        "process_exits",
        "response",
        "verbose",
        "warnings",
    )

    def __init__(self, command: str, payload: dict | None = None, db: str | None = None,
                 response: str | None = None, max_chars: int = DEFAULT_HOOK_MAX_CHARS,
                 verbose: bool = False, process_exits: bool = False) -> None:
        self.command = command
        self.payload = {} if payload is None else payload
        self.db = db
        self.response = response
        self.max_chars = max_chars
        self.verbose = verbose
        self.warnings: list[str] = []
        self.process_exits = process_exits

    @property
    def event(self) -> str:
        return EVENTS[self.command]

    def warn(self, message: str) -> None:
        self.warnings.append(" ".join(str(message).split()))

    def text(self, name: str) -> str | None:
        """A string field of the input (fields of the wrong type were dropped on reading)."""
        value = self.payload.get(name)
        return value if isinstance(value, str) else None

    @property
    def session_id(self) -> str | None:
        return self.text("session_id") or None
