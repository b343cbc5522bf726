"""How the Health page shows a `ctx doctor` finding to a person: the memories it is about by
their text (each with a letter, A, B, …), the evidence in words with those letters where the
finding names ids, and one action in words. Pure: takes findings and the nodes they name.

The finding's own evidence and action are written for `ctx doctor`'s terminal output, with
whole node ids and the texts quoted; here the texts are on the card, so ids become letters and
the quotes are dropped.
"""
from __future__ import annotations

import re

from ctx.doctor.findings import Finding
from cuectx.value import Value

_ID = re.compile(r"\b[0-9A-HJKMNP-TV-Z]{26}\b")
_DATED_QUOTE = re.compile(r"\.\s+\d{4}-\d{2}-\d{2} [0-9A-HJKMNP-TV-Z]{26}: \"")

KIND_TITLES = {"duplicate": "Said twice", "contradiction": "Contradiction",
               "stale": "Out of date", "orphan": "Broken link", "secret": "Stored secret"}
KIND_HELP = {
    "duplicate": "these memories say the same thing; Claude would read it more than once",
    "contradiction": "these memories disagree; Claude cannot tell which one is true",
    "stale": "a memory that a newer one replaces, or working memory nobody touched for a while",
    "orphan": "a link or index entry that points at something no longer there",
    "secret": "a credential stored in memory; Claude would read it in every session it is sent",
}
BUTTONS = {"duplicate": "Keep {keep}, retire the rest", "contradiction": "Keep {keep}, retire {old}",
           "stale": "Retire {old}", "orphan": "Repair", "secret": "Redact the secret"}


class Memory(Value):
    __slots__ = ("created", "id", "keep", "letter", "short", "text", "type")

    def __init__(self, letter: str, id: str, short: str, text: str | None, type: str | None,
                 created: str | None, keep: bool) -> None:
        self.letter = letter
        self.id = id
        self.short = short
        self.text = text  # None: the node is gone
        self.type = type
        self.created = created
        self.keep = keep


class Card(Value):
    __slots__ = ("action", "button", "evidence", "finding", "help", "memories", "title")

    def __init__(self, finding: Finding, title: str, help: str, memories: list[Memory],
                 evidence: str, action: str, button: str) -> None:
        self.finding = finding
        self.title = title
        self.help = help
        self.memories = memories
        self.evidence = evidence
        self.action = action  # what the fix does, in words
        self.button = button  # the one button's label


def cards(findings: list[Finding], nodes: dict, short: dict[str, str]) -> list[Card]:
    """A card per finding; `nodes` maps id → Node for the ids the findings name."""
    return [card(f, nodes, short) for f in findings]


def card(f: Finding, nodes: dict, short: dict[str, str]) -> Card:
    ids = list(dict.fromkeys(i for i in f.ids if _ID.fullmatch(i)))
    letters = {i: chr(ord("A") + k) if k < 26 else str(k) for k, i in enumerate(ids)}
    memories = []
    for i in ids:
        node = nodes.get(i)
        text = _shown_text(f, node.content) if node is not None else None
        memories.append(Memory(letters[i], i, short.get(i, i[:8]), text,
                               node.type if node is not None else None,
                               node.created_at[:10] if node is not None else None, i == f.keep))
    evidence = _evidence(f, letters)
    action = _with_letters(f.action, letters)
    old = ", ".join(letters[i] for i in ids if i != f.keep) or "it"
    keep = letters.get(f.keep or "", "the newest")
    button = BUTTONS.get(f.kind, "Fix").format(keep=keep, old=old)
    if f.kind == "stale" and f.subkind == "working":
        button = "Move it out of context"
    return Card(f, KIND_TITLES.get(f.kind, f.kind), KIND_HELP.get(f.kind, ""), memories,
                evidence, action[:1].upper() + action[1:], button)


def _with_letters(text: str, letters: dict[str, str]) -> str:
    return _ID.sub(lambda m: letters.get(m.group(0), m.group(0)[:8]), text)


def _evidence(f: Finding, letters: dict[str, str]) -> str:
    """The finding's evidence without what the card already shows (the quoted texts)."""
    text = f.evidence
    if f.kind == "contradiction":
        text = _DATED_QUOTE.split(text, maxsplit=1)[0] + ". The newer one wins."
    elif f.kind == "stale" and f.subkind == "task-done":
        later = next((m for m in letters if m != f.ids[0]), None)
        text = f"A later memory ({letters.get(later, '?')}) says this task is done."
    elif ': "' in text:
        text = text.split(': "', 1)[0] + "."
    if f.kind == "duplicate":
        # "keep A (tiered, newest). A ≈ B: 92% of words; …" → one line per pair
        text = text.replace(" ≈ ", " and ")
    text = _with_letters(text, letters)
    return text[:1].upper() + text[1:]


def _shown_text(f: Finding, content: str) -> str:
    """The memory's text; for a stored secret in the content, with the secret masked."""
    if f.kind == "secret" and f.extra.get("field") == "content":
        start, end = f.extra.get("start"), f.extra.get("end")
        if isinstance(start, int) and isinstance(end, int) and 0 <= start < end <= len(content):
            return content[:start] + "•••••• (the secret)" + content[end:]
        return "(the text holds a secret; open the memory to see it)"
    return content
