"""Split a node's text into chunks for embedding (seed: paragraphs → sentences → ~500 chars).

1. Split into paragraphs (blank lines). Consecutive paragraphs are packed together while
   they fit in `max_chars`, so a note of ten one-line paragraphs is one chunk, not ten
   fragments too short to mean anything.
2. A paragraph longer than `max_chars` is split into sentences (and lines: lists and
   code have no full stops), which are packed up to `max_chars`.
3. A single sentence longer than `max_chars` is cut at the last space before the limit.

Chunks are (start, end) character offsets into the text, so the index stores no copy of
the content and a chunk's text is always `content[start:end]`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

MAX_CHARS = 500
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n\s*")
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+|\n\s*")


@dataclass(frozen=True)
class Chunk:
    idx: int
    start: int
    end: int
    text: str


def chunk_text(text: str, max_chars: int = MAX_CHARS) -> list[Chunk]:
    spans: list[tuple[int, int]] = []
    for start, end in _pieces(text, _PARAGRAPH_BREAK, 0, len(text)):
        if end - start <= max_chars:
            spans.append((start, end))
        else:
            for s_start, s_end in _pieces(text, _SENTENCE_END, start, end):
                spans.extend(_hard_split(text, s_start, s_end, max_chars))
    chunks: list[Chunk] = []
    cur_start = cur_end = None
    for start, end in spans:
        if cur_start is not None and end - cur_start <= max_chars:
            cur_end = end
            continue
        if cur_start is not None:
            chunks.append(Chunk(len(chunks), cur_start, cur_end, text[cur_start:cur_end]))
        cur_start, cur_end = start, end
    if cur_start is not None:
        chunks.append(Chunk(len(chunks), cur_start, cur_end, text[cur_start:cur_end]))
    return chunks


def _pieces(text: str, sep: re.Pattern, start: int, end: int) -> list[tuple[int, int]]:
    """Non-blank spans of text[start:end] between separators, trimmed of whitespace."""
    out = []
    pos = start
    for m in sep.finditer(text, start, end):
        out.append((pos, m.start()))
        pos = m.end()
    out.append((pos, end))
    trimmed = []
    for s, e in out:
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if e > s:
            trimmed.append((s, e))
    return trimmed


def _hard_split(text: str, start: int, end: int, max_chars: int) -> list[tuple[int, int]]:
    out = []
    while end - start > max_chars:
        cut = text.rfind(" ", start + max_chars // 2, start + max_chars)
        if cut <= start:
            cut = start + max_chars
        out.append((start, cut))
        start = cut
        while start < end and text[start].isspace():
            start += 1
    if end > start:
        out.append((start, end))
    return out
