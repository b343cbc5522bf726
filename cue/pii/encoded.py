"""Passes that look *through* the text: encoded spans and values broken across lines.

- base64 (standard and URL-safe) and percent-encoded spans are decoded; when the decoded
  text holds an entity (`find` says so) the encoded span is an entity too: a base64 blob
  is replaced whole (its bytes cannot be cut), a percent-encoded span only where the
  decoded entity sits. A decoded `user:password` pair (Basic auth) is a SECRET.
- a key or card number broken by a line break is rejoined in a small window and the
  findings that cross the break are mapped back onto the original text.

Pure stdlib: `find` is passed in (cue.pii.engine passes its own), so this module never
imports Presidio. Each pass is triggered by a cheap regex and looks only at candidates.
"""
from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable

from cue.pii.entities import Entity

Find = Callable[[str, int], list[Entity]]

MAX_DEPTH = 2

# --- base64 --------------------------------------------------------------------------------

_B64_RE = re.compile(r"(?<![A-Za-z0-9+/_\-%])[A-Za-z0-9+/_\-]{16,}={0,2}(?![A-Za-z0-9+/=_\-])")
_BASIC_PAIR = re.compile(r"[\w.@+\-]{1,64}:[^\s\"'{}\[\],]{3,128}")
_HEX = re.compile(r"[0-9a-fA-F]+")


def _b64_decode(blob: str) -> str | None:
    body = blob.rstrip("=")
    if len(body) % 4 == 1 or _HEX.fullmatch(body):
        return None
    padded = body + "=" * (-len(body) % 4)
    alphabet = "urlsafe" if ("-" in body or "_" in body) else "std"
    if alphabet == "urlsafe" and ("+" in body or "/" in body):
        return None
    try:
        raw = (base64.urlsafe_b64decode(padded) if alphabet == "urlsafe"
               else base64.b64decode(padded, validate=True))
        decoded = raw.decode("utf-8")
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return None
    if len(decoded) < 4:
        return None
    printable = sum(ch.isprintable() or ch in "\n\r\t" for ch in decoded)
    return decoded if printable == len(decoded) else None


def base64_findings(text: str, find: Find, depth: int) -> list[Entity]:
    out = []
    for m in _B64_RE.finditer(text):
        blob = m.group()
        if not (any(c.isdigit() for c in blob) or (any(c.isupper() for c in blob)
                                                     and any(c.islower() for c in blob))):
            continue
        decoded = _b64_decode(blob)
        if decoded is None:
            continue
        inner = find(decoded, depth + 1)
        if inner:
            lead = max(inner, key=lambda e: (e.end - e.start, e.score))
            out.append(Entity(lead.type, m.start(), m.end(), lead.score))
        elif _BASIC_PAIR.fullmatch(decoded.strip()):
            out.append(Entity("SECRET", m.start(), m.end(), 0.85))
    return out


# --- percent-encoding ------------------------------------------------------------------------

_PCT_RUN = re.compile(r"[^\s'\"<>`]*%[0-9A-Fa-f]{2}[^\s'\"<>`]*")
_PCT = re.compile(r"(?:%[0-9A-Fa-f]{2})+")


def _percent_decode(s: str) -> tuple[str, list[int]]:
    """Decoded text and, for each decoded index (plus one past the end), its offset in `s`."""
    out: list[str] = []
    offsets: list[int] = []
    pos = 0
    for m in _PCT.finditer(s):
        for i in range(pos, m.start()):
            out.append(s[i])
            offsets.append(i)
        raw = bytes(int(m.group()[i + 1:i + 3], 16) for i in range(0, len(m.group()), 3))
        chars = raw.decode("utf-8", errors="replace")
        # Each decoded char maps to the start of the escapes; the run is replaced as one.
        per = max(1, len(m.group()) // max(1, len(chars)))
        for j, ch in enumerate(chars):
            out.append(ch)
            offsets.append(min(m.start() + j * per, m.end() - 1))
        pos = m.end()
    for i in range(pos, len(s)):
        out.append(s[i])
        offsets.append(i)
    offsets.append(len(s))
    return "".join(out), offsets


def percent_findings(text: str, find: Find, depth: int) -> list[Entity]:
    out = []
    for m in _PCT_RUN.finditer(text):
        decoded, offsets = _percent_decode(m.group())
        found = find(decoded, depth + 1)
        if "+" in decoded:  # in a query string '+' is a space: "q=%EC%97%B0+010-1234-5678"
            found += find(decoded.replace("+", " "), depth + 1)
        for e in found:
            start = m.start() + offsets[e.start]
            end = m.start() + (offsets[e.end] if e.end < len(decoded) else len(m.group()))
            end = _escape_end(text, end, m.end())  # never leave half an escape behind
            out.append(Entity(e.type, start, end, e.score))
    return out


def _escape_end(text: str, end: int, limit: int) -> int:
    """Move `end` past an escape it would cut ("%4|0" → "%40|")."""
    for back in (1, 2):
        if end - back >= 0 and text[end - back] == "%" and end - back + 3 <= limit:
            return end - back + 3
    return end


# --- values broken across lines ----------------------------------------------------------------

_KEY_PREFIXES = ("AKIA", "ASIA", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "sk-",
                 "sk_", "rk_", "pk_", "xox", "AIza", "glpat-", "eyJ", "hf_", "npm_", "ya29.",
                 "whsec_", "GOCSPX-", "xapp-")
_KEY_BREAK = re.compile(
    r"(?<![A-Za-z0-9_\-+/=.])(?P<a>[A-Za-z0-9_\-+/=.]{4,})[ \t]*\r?\n[ \t>]*"
    r"(?=(?P<b>[A-Za-z0-9_\-+/=.][A-Za-z0-9_\-+/=.]+))")
_CARD_BREAK = re.compile(
    r"(?<![\d])(?P<a>\d[\d \-]{2,22}\d[ \-]?)[ \t]*\r?\n[ \t>]*(?=(?P<b>\d[\d \-]{0,22}\d|\d)(?![\d]))")


# A card number over three or more lines ("4111\n1111\n1111\n1111") needs a card word
# before it: a column of ports or years looks the same.
_CARD_CHAIN = re.compile(
    r"(?<![\d])(?:\d[\d \-]{0,22}[ \t]*\r?\n[ \t>]*){2,5}(?:\d[\d \-]{0,22}\d|\d)(?![\d])")
_CARD_WORD = re.compile(r"(?i)card|visa|master|amex|카드|결제")


def _keyish(a: str) -> bool:
    if a.startswith(_KEY_PREFIXES):
        return True
    return (len(a) >= 10 and any(c.isdigit() for c in a) and any(c.isalpha() for c in a)
            and any(c.isupper() for c in a))


def _opens_prose(text: str, start: int, word: str) -> bool:
    """The next line opens with a word and goes on ("ssh deploy@…", "Bearer eyJ…"): a
    sentence or a command, not the rest of a key — joining would swallow the word and the
    line break (cuectx.secrets joins wrapped keys by the same rule)."""
    if not (word.isalpha() and word[1:].islower()):
        return False
    end = text.find("\n", start)
    return bool(text[start + len(word):len(text) if end == -1 else end].strip())


def _breaks(text: str) -> list[tuple[int, int, str]]:
    """(start, end, joiner) of each line break that may split a key or a card number."""
    out = []
    for m in _KEY_BREAK.finditer(text):
        if _keyish(m["a"]) and not _opens_prose(text, m.start("b"), m["b"]):
            out.append((m.end("a"), m.start("b"), ""))
    for m in _CARD_BREAK.finditer(text):
        digits = sum(c.isdigit() for c in m["a"] + m["b"])
        if 13 <= digits <= 19:
            a = m["a"]
            grouped = " " in a.rstrip(" -") or "-" in a.rstrip(" -")
            last = re.split(r"[ \-]", a.rstrip(" -"))[-1]
            joiner = "" if a[-1] in " -" or not grouped or len(last) != 4 else (
                " " if " " in a else "-")
            out.append((m.end("a"), m.start("b"), joiner))
    for m in _CARD_CHAIN.finditer(text):
        run = m.group()
        if not 13 <= sum(c.isdigit() for c in run) <= 19 or not _CARD_WORD.search(
                text, max(0, m.start() - 40), m.start()):
            continue
        joiner = " " if " " in run.replace("\n ", "\n").strip() and re.search(r"\d \d", run) else ""
        for nl in re.finditer(r"[ \t]*\r?\n[ \t>]*", run):
            out.append((m.start() + nl.start(), m.start() + nl.end(), joiner))
    kept: list[tuple[int, int, str]] = []
    for brk in sorted(set(out)):
        if not kept or brk[0] >= kept[-1][1]:
            kept.append(brk)
    return kept


def broken_line_findings(text: str, find: Find, depth: int) -> list[Entity]:
    if "\n" not in text:
        return []
    breaks = _breaks(text)
    out = []
    i = 0
    while i < len(breaks):
        # One window: consecutive breaks whose lines touch, from line start to line end.
        group = [breaks[i]]
        while i + 1 < len(breaks) and "\n" not in text[group[-1][1]:breaks[i + 1][0]]:
            i += 1
            group.append(breaks[i])
        i += 1
        lo = text.rfind("\n", 0, group[0][0]) + 1
        hi = text.find("\n", group[-1][1])
        hi = len(text) if hi == -1 else hi
        chars: list[str] = []
        offsets: list[int] = []
        pos = lo
        for start, end, joiner in group:
            chars.extend(text[pos:start])
            offsets.extend(range(pos, start))
            chars.extend(joiner)
            offsets.extend([start] * len(joiner))
            pos = end
        chars.extend(text[pos:hi])
        offsets.extend(range(pos, hi))
        offsets.append(hi)
        joined = "".join(chars)
        for e in find(joined, depth + 1):
            start, end = offsets[e.start], offsets[e.end - 1] + 1
            if "\n" in text[start:end]:
                out.append(Entity(e.type, start, end, e.score))
    return out
