"""Is a model's answer a plausible narrative? A random-weight or broken model (the tiny
test GGUF, a wrong chat template, a quantization gone bad) answers with byte soup, one
token over and over, or two words. Such an answer must never become memory: the digest
is stored as failed with the reason instead (not merged into memory.md, not suggested,
not piped to ctx).

    implausible("The user edited main.py in VS Code and ran the tests.")  ->  None
    implausible("R:}\\nR:}\\nm rqvR:} titlehp ! !PI|s")                     ->  "… not letters …"

Cheap and language-agnostic enough for English and Korean digests: counts of letters,
words, repeats and word shapes — no model, no dictionary.
"""
from __future__ import annotations

import re
import unicodedata
import zlib
from collections import Counter

MIN_WORDS = 4
MIN_LETTERS = 16
MIN_LETTER_SHARE = 0.65   # letters among non-space characters
MAX_TOP_WORD_SHARE = 0.34  # the most frequent word among all words (≥ 10 words)
MAX_RUN = 3               # the same word this many times in a row is fine, one more is not
MIN_WORDLIKE_SHARE = 0.7  # tokens that look like words of a language
MIN_COMPRESSION = 0.22    # zlib size / text size for long answers (loops compress to nothing)

_TOKEN = re.compile(r"\S+")
_WORD = re.compile(r"[^\W\d_]+(?:['’\-.][^\W\d_]+)*", re.UNICODE)
_VOWELS = set("aeiouyAEIOUY")


def implausible(text: str) -> str | None:
    """Why `text` is not a plausible narrative, or None when it is."""
    text = text.strip()
    if any(unicodedata.category(c) in ("Cc", "Co", "Cs") and c not in "\n\t" for c in text):
        return "it holds control or private-use characters"
    tokens = _TOKEN.findall(text)
    letters = sum(c.isalpha() for c in text)
    if len(tokens) < MIN_WORDS or letters < MIN_LETTERS:
        return f"it is too short ({len(tokens)} words, {letters} letters)"
    visible = sum(not c.isspace() for c in text)
    if letters / visible < MIN_LETTER_SHARE:
        return f"{1 - letters / visible:.0%} of it is not letters"
    words = [w.casefold() for w in _WORD.findall(text)]
    if len(words) >= 10:
        top, count = Counter(words).most_common(1)[0]
        if count / len(words) > MAX_TOP_WORD_SHARE:
            return f"one word ({top[:20]!r}) is {count / len(words):.0%} of it"
    run = longest_run(words)
    if run > MAX_RUN:
        return f"a word repeats {run} times in a row"
    wordlike = sum(_wordlike(t) for t in tokens)
    if wordlike / len(tokens) < MIN_WORDLIKE_SHARE:
        return f"only {wordlike / len(tokens):.0%} of it reads as words of a language"
    raw = text.encode("utf-8")
    if len(raw) >= 300 and len(zlib.compress(raw, 9)) / len(raw) < MIN_COMPRESSION:
        return "it repeats itself"
    return None


def longest_run(words: list[str]) -> int:
    best = run = 0
    previous = None
    for w in words:
        run = run + 1 if w == previous else 1
        best = max(best, run)
        previous = w
    return best


def _wordlike(token: str) -> bool:
    """A token of prose: letters (any script) with light punctuation around or inside,
    a number, or a file/identifier name (main.py, PR-42). Latin words need a vowel unless
    they are short upper-case acronyms (PR, CLI, SQL)."""
    core = token.strip("\"'“”‘’()[]{}<>,.;:!?`*")
    if not core:
        return False
    if core.replace(",", "").replace(".", "").replace(":", "").replace("%", "").isdigit():
        return True
    letters = [c for c in core if c.isalpha()]
    if len(letters) < len(core) * 0.6:
        return bool(re.fullmatch(r"[\w\-./#@~]+", core)) and len(letters) >= 2 and \
            any(c.isalpha() for c in core[:1] + core[-3:])
    latin = [c for c in letters if c.isascii()]
    if latin and len(latin) == len(letters):
        if len(core) <= 5 and core.isupper():
            return True
        return any(c in _VOWELS for c in latin)
    return True
