"""English "First Last" names without a title or a spaCy model.

spaCy's English models are not on the package registry (Explosion publishes them as GitHub
release files, and the PyPI names are re-uploads by others), so a privacy tool cannot take
one through the lockfile with its provenance checked. Instead: a pair of capitalised words
is a name when the first is a known given name and the second a known surname — both from
the Latin-script names of every Faker person locale, accents included, and the romanized
Chinese and Japanese lists (~20,800 given names, ~18,300 surnames; Faker is maintained and
MIT-licensed; the sets are cached in CUE_HOME/cache, see _data) — and
neither is an everyday English word (spaCy's stop words and Faker's English word list). A
known given name before an unknown capitalised word counts only where the text says a person
is meant: a window title's first part ("Jennifer Alvarez - Slack"), after "with", "from",
"by", "to", "cc:", "Hi" …, or before "'s", "wrote", "commented", "(DM)".
Measured in docs/cue-scrub.md (recall and false positives on both halves).
"""
from __future__ import annotations

import functools
import importlib
import importlib.metadata
import json
import pkgutil
import re
from collections.abc import Iterator
from pathlib import Path

from cuectx.files import replace_file

LEXICON = 2  # bump when what _build() keeps changes (the cache file's name)

# Faker's name lists; romanized ones for the locales written in other scripts (ja_JP, zh_CN).
_GIVEN_ATTRS = ("first_names", "first_names_male", "first_names_female", "first_names_nonbinary",
                "first_romanized_names", "first_romanized_names_male",
                "first_romanized_names_female")
_SURNAME_ATTRS = ("last_names", "last_romanized_names")

# Latin letters with their accents (Latin-1 and Latin Extended-A: "José", "Łukasz", "Müller").
_UP = "A-ZÀ-ÖØ-ÞĀ-ſ"
_LO = "a-zß-öø-ÿĀ-ſ"
# A capitalised word of a name: "Alvarez", "O'Connor", "McKay", "Smith-Jones".
_WORD = (rf"(?:[{_UP}]'[{_UP}][{_LO}]+|[{_UP}][{_LO}]+(?:[{_UP}][{_LO}]+)?"
         rf"(?:-[{_UP}][{_LO}]+)?)")
_NAME_WORD = re.compile(rf"{_WORD}\Z")
PAIR_RE = re.compile(rf"(?<![\w@.])(?P<first>{_WORD})\s(?:(?P<middle>[A-Z]\.?|{_WORD})\s)?"
                     rf"(?P<last>{_WORD})(?![\w@]|\.\w)")
TRIGGER = rf"[{_UP}][{_LO}'][{_LO}]*\s[{_UP}]"
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
    """(given names, surnames, everyday words). Importing Faker's ~80 person locales and
    spaCy's stop words takes ~1 s, so the sets are kept in CUE_HOME/cache as JSON, one file per
    Faker and lexicon version; a cache that is missing, unreadable or not three lists of
    strings is rebuilt, one that cannot be written is skipped."""
    path = _cache_path()
    try:
        sets = json.loads(path.read_text(encoding="utf-8")) if path else None
        if (isinstance(sets, list) and len(sets) == 3
                and all(isinstance(x, list) and all(isinstance(w, str) for w in x)
                        for x in sets)):
            return tuple(frozenset(x) for x in sets)  # type: ignore[return-value]
    except (OSError, ValueError):
        pass
    data = _build()
    if path:
        try:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            replace_file(path, [json.dumps([sorted(x) for x in data]).encode("utf-8")], sync=False)
        except OSError:
            pass
    return data


def _cache_path() -> Path | None:
    from cue.core import paths

    try:
        version = importlib.metadata.version("faker")
    except importlib.metadata.PackageNotFoundError:  # no metadata: build every time
        return None
    return paths.home() / "cache" / f"english-names-{LEXICON}-faker{version}.json"


def _build() -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    from faker.providers import person
    from faker.providers.lorem.en_US import Provider as Lorem
    from spacy.lang.en.stop_words import STOP_WORDS

    given: set[str] = set()
    surnames: set[str] = set()
    for module in pkgutil.iter_modules(person.__path__):  # every locale; Latin-script names
        provider = importlib.import_module(f"{person.__name__}.{module.name}").Provider
        given.update(_names(provider, _GIVEN_ATTRS))
        surnames.update(_names(provider, _SURNAME_ATTRS))
    common = {w.lower() for w in Lorem.word_list} | {w.lower() for w in STOP_WORDS}
    return frozenset(given), frozenset(surnames), frozenset(common)


def _names(provider, attrs: tuple[str, ...]) -> Iterator[str]:
    for attr in attrs:
        values = getattr(provider, attr, ())  # a property (computed names) is skipped
        if isinstance(values, dict):  # {name: weight}
            values = values.keys()
        if isinstance(values, (list, tuple, set, frozenset, type({}.keys()))):
            yield from (v for v in values if isinstance(v, str) and _NAME_WORD.match(v))


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
    if known_last or (last.lower() not in common and last not in given
                      and first.lower() not in common):  # not "Star Wars", "Long Beach"
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
