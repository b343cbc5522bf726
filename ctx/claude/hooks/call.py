"""`HookCall`: one hook invocation — the parsed input and a place for one-line warnings.

Every hook module imports it from here (ctx.claude.hooks.entry parses argv/stdin into it).
Stdlib only.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ctx.core.settings import DEFAULT_HOOK_MAX_CHARS

EVENTS = {"session-start": "SessionStart", "prompt-submit": "UserPromptSubmit", "stop": "Stop"}


@dataclass
class HookCall:
    """One hook invocation: the parsed input and a place for one-line warnings."""

    command: str                       # "session-start" | "prompt-submit" | "stop"
    payload: dict = field(default_factory=dict)
    db: str | None = None
    response: str | None = None
    max_chars: int = DEFAULT_HOOK_MAX_CHARS
    verbose: bool = False
    warnings: list[str] = field(default_factory=list)
    # The process ends right after this call (`ctx hook` from a shell or Claude Code):
    # connections are left for the OS to drop. See ctx/__main__.py.
    process_exits: bool = False

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
