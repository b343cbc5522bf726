"""Parse the `<ctx:…>` commands Claude writes in its replies (SPEC §2.6). Pure: text in,
commands and warnings out.

    <ctx:remember type="fact" tags="tier:reference,project:x">content</ctx:remember>
    <ctx:recall query="type:decision AND auth"/>      <ctx:status/>
    <ctx:task name="auth" action="start|end" summarize="true"/>
    <ctx:summarize nodes="A,B" archive="true" tags="tier:reference">content</ctx:summarize>
    <ctx:link from="A" to="B" type="DEPENDS_ON"/>     <ctx:supersede old="A" new="B"/>
    <ctx:expand node="S"/>

A tag inside a fenced code block or an inline code span is an example, not a command
(seed §16), so it is ignored. A malformed tag is skipped with a warning; the others still
count. Content is trimmed; internal whitespace is kept (seed §11).
"""
from __future__ import annotations

import re

from ctx.core.model import LARGE_CONTENT_CHARS
from cuectx.value import Value

COMMANDS = ("remember", "recall", "status", "task", "summarize", "link", "supersede", "expand")
# Commands whose body is their content; the others are self-closing.
WITH_CONTENT = ("remember", "summarize")

_OPEN = re.compile(r"<ctx:([A-Za-z_][\w-]*)((?:\s+[^<>]*?)?)\s*(/?)>")
_ATTR = re.compile(r"""([A-Za-z_][\w-]*)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>/`]+))""")
_TRUE = ("true", "yes", "1", "on")


class Command(Value):
    __slots__ = ("attrs", "content", "name", "position")

    def __init__(self, name: str, attrs: dict[str, str] | None = None, content: str | None = None,
                 position: int = 0) -> None:
        self.name = name
        self.attrs = {} if attrs is None else attrs
        self.content = content
        self.position = position  # offset of the opening `<` in the text

    def flag(self, name: str) -> bool:
        return self.attrs.get(name, "").strip().lower() in _TRUE

    def items(self, name: str) -> list[str]:
        """A comma- or space-separated attribute as a list (tags, node ids)."""
        return [p for p in re.split(r"[,\s]+", self.attrs.get(name, "")) if p]


class Parsed(Value):
    __slots__ = ("commands", "warnings")

    def __init__(self, commands: list[Command], warnings: list[str]) -> None:
        self.commands = commands
        self.warnings = warnings


def code_spans(text: str) -> list[tuple[int, int]]:
    """[start, end) ranges of fenced code blocks and inline code spans (CommonMark-ish).

    A fence is a line starting (after ≤ 3 spaces) with ≥ 3 backticks or tildes; it runs to a
    closing fence of the same character and at least the same length, or to the end of the
    text. An inline span is a run of n backticks closed by the next run of exactly n.
    """
    spans: list[tuple[int, int]] = []
    fence = re.compile(r"^ {0,3}(`{3,}|~{3,})", re.MULTILINE)
    pos = 0
    prose: list[tuple[int, int]] = []
    while True:
        m = fence.search(text, pos)
        if not m:
            prose.append((pos, len(text)))
            break
        prose.append((pos, m.start()))
        marker = m.group(1)
        closer = re.compile(r"^ {0,3}" + re.escape(marker[0]) + "{" + str(len(marker)) + r",}[ \t]*$",
                            re.MULTILINE)
        line_end = text.find("\n", m.end())
        c = closer.search(text, line_end + 1) if line_end != -1 else None
        end = len(text) if c is None else c.end()
        spans.append((m.start(), end))
        if c is None:
            break
        pos = end
    ticks = re.compile(r"`+")
    for start, stop in prose:
        i = start
        while True:
            m = ticks.search(text, i, stop)
            if not m:
                break
            n = len(m.group())
            j = m.end()
            while True:
                c = ticks.search(text, j, stop)
                if c is None or len(c.group()) == n:
                    break
                j = c.end()
            if c is None:  # an unmatched run is literal backticks
                i = m.end()
                continue
            spans.append((m.start(), c.end()))
            i = c.end()
    spans.sort()
    return spans


def _inside(spans: list[tuple[int, int]], pos: int) -> bool:
    return any(a <= pos < b for a, b in spans)


def _parse_attrs(raw: str) -> tuple[dict[str, str], str | None]:
    attrs: dict[str, str] = {}
    rest = raw
    for m in _ATTR.finditer(raw):
        value = next(g for g in m.groups()[1:] if g is not None)
        attrs[m.group(1).lower()] = value
        rest = rest.replace(m.group(0), " ", 1)
    leftover = rest.strip()
    return attrs, (f"unreadable attributes {leftover!r}" if leftover else None)


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def parse(text: str) -> Parsed:
    """Every well-formed `<ctx:…>` command outside code, in order of appearance."""
    commands: list[Command] = []
    warnings: list[str] = []
    if not isinstance(text, str) or "<ctx:" not in text:
        return Parsed(commands, warnings)
    spans = code_spans(text)
    pos = 0
    while True:
        start = text.find("<ctx:", pos)
        if start == -1:
            break
        if _inside(spans, start):
            pos = start + 5
            continue
        where = f"line {_line_of(text, start)}"
        m = _OPEN.match(text, start)
        if not m:
            warnings.append(f"malformed <ctx:…> tag at {where}: no closing '>'; skipped")
            pos = start + 5
            continue
        name, raw_attrs, self_closing = m.group(1).lower(), m.group(2), bool(m.group(3))
        pos = m.end()
        if name not in COMMANDS:
            warnings.append(f"unknown command <ctx:{name}> at {where}; skipped "
                            f"(known: {', '.join(COMMANDS)})")
            continue
        attrs, problem = _parse_attrs(raw_attrs)
        if problem:
            warnings.append(f"<ctx:{name}> at {where}: {problem}; skipped")
            continue
        content = None
        close_tag = f"</ctx:{name}>"
        if not self_closing:
            close = _find_close(text, close_tag, m.end(), spans)
            nested = _find_close(text, "<ctx:", m.end(), spans)
            if close != -1 and nested != -1 and nested < close:
                close = -1  # commands don't nest: this one was never closed
            if close == -1:
                if name in WITH_CONTENT:
                    warnings.append(f"<ctx:{name}> at {where} has no {close_tag}; skipped")
                    continue
            else:
                content = text[m.end():close].strip()
                pos = close + len(close_tag)
        cmd = Command(name, attrs, content, start)
        problem = validate(cmd)
        if problem:
            warnings.append(f"<ctx:{name}> at {where}: {problem}; skipped")
            continue
        if content is not None and len(content) > LARGE_CONTENT_CHARS:
            warnings.append(f"<ctx:{name}> at {where}: large content ({len(content)} characters)")
        commands.append(cmd)
    return Parsed(commands, warnings)


def _find_close(text: str, tag: str, start: int, spans: list[tuple[int, int]]) -> int:
    """Offset of the first `tag` at or after `start` outside code, or -1."""
    lowered = text.lower()
    i = start
    while True:
        j = lowered.find(tag, i)
        if j == -1 or not _inside(spans, j):
            return j
        i = j + 1


def validate(cmd: Command) -> str | None:
    """What is wrong with a command's shape, or None. (Ids and types are checked on use.)"""
    a = cmd.attrs
    if cmd.name in WITH_CONTENT and not (cmd.content or "").strip():
        return "empty content"
    if cmd.name == "recall" and not (a.get("query") or cmd.content or "").strip():
        return "missing query=\"…\""
    if cmd.name == "task":
        if not a.get("name", "").strip():
            return "missing name=\"…\""
        if a.get("action", "start").strip().lower() not in ("start", "end"):
            return f"action must be start or end, not {a.get('action')!r}"
    if cmd.name == "summarize" and not cmd.items("nodes"):
        return "missing nodes=\"ID,ID\""
    if cmd.name == "link" and not (a.get("from") and a.get("to")):
        return "needs from=\"ID\" and to=\"ID\""
    if cmd.name == "supersede" and not (a.get("old") and a.get("new")):
        return "needs old=\"ID\" and new=\"ID\""
    if cmd.name == "expand" and not (a.get("node") or a.get("id")):
        return "missing node=\"ID\""
    return None
