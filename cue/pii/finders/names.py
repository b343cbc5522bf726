"""English "First Last" names without a title or a spaCy model.

spaCy's English models are not on the package registry (Explosion publishes them as GitHub
release files, and the PyPI names are re-uploads by others), so a privacy tool cannot take
one through the lockfile with its provenance checked. Instead: a pair of capitalised words
is a name when the first is a known given name and the second a known surname — both from
Faker's person data for 17 locales (English-speaking countries and the largest European
ones: ~11,000 given names, ~9,000 surnames), a maintained, MIT-licensed package — and
neither is an everyday English word (spaCy's stop words and Faker's English word list). A
known given name before an unknown capitalised word counts only where the text says a person
is meant: a window title's first part ("Jennifer Alvarez - Slack"), after "with", "from",
"by", "to", "cc:", "Hi" …, or before "'s", "wrote", "commented", "(DM)".
Measured in docs/cue-scrub.md (recall and false positives on both halves).
"""
from __future__ import annotations

import functools
import importlib
import re
from collections.abc import Iterator

LOCALES = ("en", "en_US", "en_GB", "en_IE", "en_NZ", "en_IN", "en_NG", "en_KE", "en_PK",
           "en_TH", "es_ES", "fr_FR", "de_DE", "it_IT", "pt_BR", "nl_NL", "pl_PL")

# A capitalised word of a name: "Alvarez", "O'Connor", "McKay", "Smith-Jones".
_WORD = r"(?:[A-Z]'[A-Z][a-z]+|[A-Z][a-z]+(?:[A-Z][a-z]+)?(?:-[A-Z][a-z]+)?)"
PAIR_RE = re.compile(rf"(?<![\w@.])(?P<first>{_WORD})\s(?:(?P<middle>[A-Z]\.?|{_WORD})\s)?"
                     rf"(?P<last>{_WORD})(?![\w@]|\.\w)")
TRIGGER = r"[A-Z][a-z'][a-z]*\s[A-Z]"
# Where the text says a person is meant (the words before and after the pair).
_PERSON_BEFORE = re.compile(
    r"(?:\b(?:with|from|by|to|for|and|cc|bcc|hi|hey|hello|dear|thanks|ask|asked|ping|pinged|"
    r"call|called|met|meet|meeting|assigned|assignee|reviewer|author|owner|attendees?|"
    r"message|dm|chat)\b[:,]?\s*|[,;:@]\s*)$", re.IGNORECASE)
_PERSON_AFTER = re.compile(
    r"^(?:'s\b|’s\b|\s+(?:wrote|said|commented|replied|asked|approved|opened|shared|joined|"
    r"left|is typing)\b|\s*\((?:DM|you|he|she|they)[^)]*\))")
_TITLE_AFTER = re.compile(r"^(?:\s+[-–—|]\s|\s*$)")


@functools.cache
def _data() -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    given: set[str] = set()
    surnames: set[str] = set()
    for locale in LOCALES:
        try:
            provider = importlib.import_module(f"faker.providers.person.{locale}").Provider
        except ImportError:
            continue
        for attr in ("first_names", "first_names_male", "first_names_female",
                     "first_names_nonbinary"):
            given.update(getattr(provider, attr, ()))
        surnames.update(getattr(provider, "last_names", ()))
    from faker.providers.lorem.en_US import Provider as Lorem
    from spacy.lang.en.stop_words import STOP_WORDS

    common = {w.lower() for w in Lorem.word_list} | {w.lower() for w in STOP_WORDS}
    return frozenset(given), frozenset(surnames), frozenset(common)


def find_names(text: str) -> Iterator[tuple[int, int]]:
    """Spans of English "First [Middle] Last" names (see the module's note)."""
    given, surnames, common = _data()
    pos = 0
    while (m := PAIR_RE.search(text, pos)) is not None:
        if _is_name(m, text, given, surnames, common):
            yield m.start(), m.end()
            pos = m.end()
        else:  # "Read Rachel Green": try again from the second word
            pos = m.start("middle") if m["middle"] else m.start("last")


def _is_name(m: re.Match, text: str, given, surnames, common) -> bool:
    first, last = m["first"], m["last"]
    if first not in given:
        return False
    known_last = last in surnames
    if m["middle"] and not (known_last and (len(m["middle"].rstrip(".")) == 1
                                            or m["middle"] in given)):
        return False  # "Park Avenue Plaza"
    if known_last and first.lower() not in common and last.lower() not in common:
        return True
    if known_last or (last.lower() not in common and last not in given):
        return _person_context(m, text)  # "Will Turner shared", "Read Rachel Green's"
    return False


def _person_context(m: re.Match, text: str) -> bool:
    line_start = text.rfind("\n", 0, m.start()) + 1
    line_end = text.find("\n", m.end())
    before = text[line_start:m.start()]
    after = text[m.end():line_end if line_end >= 0 else len(text)]
    if _PERSON_AFTER.match(after):
        return True
    if not before.strip(" ([") or re.fullmatch(r"\(\d+\)\s*", before):
        return bool(_TITLE_AFTER.match(after))  # a window title that starts with the name
    return bool(_PERSON_BEFORE.search(before[-24:]))
