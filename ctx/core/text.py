"""Text for Claude under a cap: how long it is, how one node reads, how blocks are fitted.

One module for everything that writes context Claude reads through a hook (compose for
session-start, hand-offs for prompt-submit, the relevant-memory block of a request record):

- `text_len`: length as Claude Code (JavaScript) counts it, in UTF-16 code units. Claude
  Code does not show the model a context over 10,000 of them (it spills it to a file).
- `max_chars()`: the hooks' cap — $CTX_HOOK_MAX_CHARS, else 9,500 (ctx.core.settings).
- `node_line`: `- [type:shortid] content` (continuation lines indented), with optional
  `  - Tags: …`, the seed's §13/§17 line.
- `Block` / `fit`: fill blocks in order with whole items only; an item that does not fit is
  left out (later, smaller ones may still fit) and a last line says how many and how to get
  them. The result, with that line, is never longer than the cap.

Stdlib only: the hooks import it.
"""
from __future__ import annotations

from ctx.core.settings import DEFAULT_HOOK_MAX_CHARS, hook_max_chars
from cuectx.value import Value

PREVIEW_CHARS = 100
LEFT_OUT_RESERVE = 240

__all__ = ["DEFAULT_HOOK_MAX_CHARS", "Block", "fit", "indent", "max_chars", "node_line",
           "text_len"]


def text_len(text: str) -> int:
    """Length as Claude Code (JavaScript) counts it: UTF-16 code units."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def max_chars() -> int:
    return hook_max_chars()


def indent(content: str) -> str:
    """Continuation lines of a list item, indented under its dash."""
    return content.replace("\n", "\n  ")


def node_line(node: dict, short_id: str, *, preview: bool = False) -> str:
    """One node (its dict form) as a list item; `preview` cuts the content and drops tags."""
    from ctx.core import trust

    if trust.origin_of(node) is not None or node.get("origin"):
        return trust.foreign_line(node, short_id, preview=preview, preview_chars=PREVIEW_CHARS)
    content = str(node.get("content", ""))
    if preview and len(content) > PREVIEW_CHARS:
        content = content[:PREVIEW_CHARS].rstrip() + "..."
    line = f"- [{node.get('type', 'node')}:{short_id}] {indent(content)}"
    tags = node.get("tags") or []
    if tags and not preview:
        line += "\n  - Tags: " + ", ".join(str(t) for t in tags)
    return line


class Block(Value):
    """A heading (e.g. "## Recall Results\n\nQuery: `x`\n\nFound 3 nodes:"), its items, a
    footer, and what to show instead of the items when there are none (`empty`)."""

    __slots__ = ("empty", "footer", "header", "items")

    def __init__(self, header: str, items: list[str] | None = None, footer: str = "---",
                 empty: str | None = None) -> None:
        self.header = header
        self.items = [] if items is None else items
        self.footer = footer
        self.empty = empty


def fit(blocks: list[Block], cap: int, *, hint: str) -> tuple[str, int]:
    """(text, items left out). The text, with its left-out line, is at most `cap` long."""
    total_items = sum(len(b.items) for b in blocks)
    parts: list[str] = []
    used = 0
    left_out = 0

    def add(text: str, room: int) -> bool:
        nonlocal used
        cost = text_len(text) + (2 if parts else 0)
        if used + cost > room:
            return False
        parts.append(text)
        used += cost
        return True

    for block in blocks:
        room = cap - (LEFT_OUT_RESERVE if total_items else 0)
        mark = len(parts)
        if not add(block.header, room):
            left_out += len(block.items)
            continue
        shown = 0
        for item in block.items:
            if add(item, room - text_len(block.footer) - 2):
                shown += 1
            else:
                left_out += 1
        if not block.items and block.empty:
            add(block.empty, room)
        if block.items and not shown:  # a header with nothing under it says nothing
            del parts[mark:]
            used = sum(text_len(p) for p in parts) + 2 * max(len(parts) - 1, 0)
            continue
        if block.footer:
            add(block.footer, cap)
    if left_out:
        line = (f"_{left_out} more item{'s' if left_out != 1 else ''} left out to stay under the "
                f"{cap:,}-character hook limit. {hint}_")
        add(line, cap)
    return "\n\n".join(parts), left_out
