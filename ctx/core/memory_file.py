"""A memory as a text file a person edits (`ctx edit`): front matter, then the content.

    ---
    type: decision
    tags: tier:reference, project:api
    metadata: {"rationale": "one file, no server"}
    ---
    Store memory in SQLite

`type` is one word, `tags` a comma-separated list, `metadata` one line of JSON (an object).
Everything after the closing `---` is the content, exactly (one trailing newline, which
editors add, is dropped). Parsing is strict: an unknown or repeated key, a bad type or tag,
metadata that is not a JSON object is a CtxError that names the line — the caller keeps the
text so nothing typed is lost.
"""
from __future__ import annotations

import json

from ctx.core.errors import CtxError
from ctx.core.model import NODE_TYPES
from ctx.core.store import validate_tags
from cuectx.value import Value

FENCE = "---"
KEYS = ("type", "tags", "metadata")


class EditedMemory(Value):
    __slots__ = ("content", "metadata", "tags", "type")

    def __init__(self, content: str, type: str, tags: list[str], metadata: dict) -> None:
        self.content = content
        self.type = type
        self.tags = tags
        self.metadata = metadata


def render(content: str, type: str, tags: list[str], metadata: dict | None) -> str:
    """The file `ctx edit` opens."""
    meta = json.dumps(metadata or {}, ensure_ascii=False, sort_keys=True)
    return (f"{FENCE}\ntype: {type}\ntags: {', '.join(tags)}\nmetadata: {meta}\n{FENCE}\n"
            f"{content}\n")


def parse(text: str) -> EditedMemory:
    """The edited file back as values; CtxError (a sentence naming the line) when it is not
    a memory file."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != FENCE:
        raise CtxError(f"line 1 must be {FENCE!r}, the start of the front matter")
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == FENCE)
    except StopIteration:
        raise CtxError(f"the front matter has no closing {FENCE!r} line") from None
    fields: dict[str, str] = {}
    for number, line in enumerate(lines[1:end], start=2):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        key, sep, value = line.partition(":")
        key = key.strip()
        if not sep or key not in KEYS:
            raise CtxError(f"line {number}: expected one of {', '.join(KEYS)} followed by ':', "
                           f"not {line.strip()[:40]!r}")
        if key in fields:
            raise CtxError(f"line {number}: {key} is given twice")
        fields[key] = value.strip()
    body = "\n".join(lines[end + 1:]).removesuffix("\n")
    if not body.strip():
        raise CtxError("the content (after the front matter) is empty; to delete a memory "
                       "use `ctx rm`")
    node_type = fields.get("type", "")
    if node_type not in NODE_TYPES:
        raise CtxError(f"type {node_type!r} is not one of: {', '.join(NODE_TYPES)}")
    tags = [t.strip() for t in fields.get("tags", "").split(",") if t.strip()]
    tags = validate_tags(tags)
    raw = fields.get("metadata") or "{}"
    try:
        metadata = json.loads(raw)
    except ValueError as exc:
        raise CtxError(f"metadata is not JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(metadata, dict):
        raise CtxError("metadata must be a JSON object, e.g. {\"rationale\": \"…\"}")
    return EditedMemory(body, node_type, tags, metadata)
