"""Read Claude's replies from a Claude Code transcript (JSONL). Pure: bytes and a cursor in,
text blocks and the next cursor out.

What the real client writes (Claude Code 2.1.330, tools/claude-code/README.md): one JSON
object per line; an assistant message is split into one line per content block (`text`,
`tool_use`, `thinking`), so a turn with a tool call reads `assistant[text]`,
`assistant[tool_use]`, `user[tool_result]`, `assistant[text]`. Many other line types
exist (`attachment`, `api-request-blob`, …) and some replay earlier requests — including
our own injected context — so only `assistant` lines are read.

The Stop hook keeps a per-session cursor (the byte offset after the last complete line it
read). With a cursor, every assistant text block after it is returned, so a tag written
before a tool call, or in a turn whose Stop never ran, is still seen — exactly once. With no
cursor (the session's first Stop, or a forked/resumed transcript that already holds older
turns) only the current turn is read: the lines from the user line whose `promptId` is the
Stop input's `prompt_id` (else the last real user prompt) onwards. A half-written last line
is left for the next read.
"""
from __future__ import annotations

import json
import os

from cuectx.value import Value

MAX_READ_BYTES = 64 * 1024 * 1024  # a transcript tail larger than this is read from its end


class Cursor(Value):
    __slots__ = ("last_message", "offset", "path")

    def __init__(self, path: str, offset: int, last_message: str | None = None) -> None:
        self.path = path
        self.offset = offset
        self.last_message = last_message  # digest of the last `last_assistant_message` handled

    def to_json(self) -> str:
        return json.dumps({"path": self.path, "offset": self.offset,
                           "last_message": self.last_message}, sort_keys=True)

    @classmethod
    def from_json(cls, raw: str | None) -> Cursor | None:
        try:
            data = json.loads(raw) if raw else None
        except ValueError:
            return None
        if not isinstance(data, dict):
            return None
        path, offset, last = data.get("path"), data.get("offset"), data.get("last_message")
        if not isinstance(path, str) or not isinstance(offset, int) or offset < 0:
            path, offset = "", 0
        return cls(path, offset, last if isinstance(last, str) else None)


class Reading(Value):
    __slots__ = ("cursor", "from_cursor", "partial_tail", "texts")

    def __init__(self, texts: list[str], cursor: Cursor, from_cursor: bool,
                 partial_tail: bool) -> None:
        self.texts = texts  # assistant text blocks, in order
        self.cursor = cursor  # where the next read starts
        self.from_cursor = from_cursor  # True: read from the saved cursor; False: current turn only
        self.partial_tail = partial_tail  # the file ended in a half-written line (left unread)


def read_replies(path: str, cursor: Cursor | None = None, *, prompt_id: str | None = None) -> Reading:
    """Assistant text blocks not yet read. Raises OSError when the file can't be read."""
    size = os.path.getsize(path)
    use_cursor = cursor is not None and cursor.path == path and cursor.offset <= size
    start = cursor.offset if use_cursor else 0
    if size - start > MAX_READ_BYTES:
        start = size - MAX_READ_BYTES
    with open(path, "rb") as f:
        f.seek(start)
        data = f.read(size - start)
    end = data.rfind(b"\n") + 1  # complete lines only …
    if end < len(data) and _load(data[end:]) is not None:
        end = len(data)  # … or a last line that is whole JSON without its newline yet
    partial = end < len(data)
    body = data[:end]
    if not use_cursor:
        body = body[_turn_start(body, prompt_id):]
    texts = [t for line in body.splitlines() for t in _assistant_texts(line)]
    return Reading(texts, Cursor(path, start + end), use_cursor, partial)


def _turn_start(body: bytes, prompt_id: str | None) -> int:
    """Offset of the user line that opened the current turn (0 if none is found)."""
    if prompt_id:
        needle = prompt_id.encode("utf-8", "replace")
        i = body.find(needle)
        while i != -1:
            line_start = body.rfind(b"\n", 0, i) + 1
            line_end = body.find(b"\n", i)
            entry = _load(body[line_start:line_end if line_end != -1 else len(body)])
            if entry and entry.get("type") == "user" and entry.get("promptId") == prompt_id:
                return line_start
            i = body.find(needle, i + 1)
    # No prompt_id (older clients): the last user line that is a real prompt.
    last, pos = 0, 0
    for line in body.splitlines(keepends=True):
        if b'"user"' in line:
            entry = _load(line)
            if entry and entry.get("type") == "user" and _is_prompt(entry):
                last = pos
        pos += len(line)
    return last


def _is_prompt(entry: dict) -> bool:
    if entry.get("isMeta") or entry.get("isSidechain"):
        return False
    content = (entry.get("message") or {}).get("content") if isinstance(entry.get("message"), dict) else None
    if isinstance(content, str):
        return True
    if isinstance(content, list):
        return any(isinstance(b, dict) and b.get("type") == "text" for b in content)
    return False


def _load(line: bytes) -> dict | None:
    try:
        entry = json.loads(line)
    except ValueError:
        return None
    return entry if isinstance(entry, dict) else None


def _assistant_texts(line: bytes) -> list[str]:
    if b'"assistant"' not in line:
        return []
    entry = _load(line)
    if not entry or entry.get("type") != "assistant" or entry.get("isSidechain"):
        return []
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):  # older transcripts
        return [content]
    if not isinstance(content, list):
        return []
    return [b["text"] for b in content
            if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)]
