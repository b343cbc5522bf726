"""Card and phone numbers Presidio's recognizers turn away although they are written like one.

- Cards: Presidio's pattern knows 13-16 digit Visa/Mastercard(51-55)/Amex/Discover shapes;
  Mastercard's 2-series (2221-2720), 19-digit Visa/UnionPay/Maestro and 12-digit Maestro
  numbers slip through. Here: a known issuer prefix, 13-19 digits (12 only after a card
  word), optionally grouped by single spaces or dashes, and a valid Luhn checksum.
- North American phones: python-phonenumbers rejects numbers whose area code is not
  assigned (generated and typo'd numbers such as 221-432-2419) and Presidio's span stops
  before an extension ("x56395"). Here: the 3-3-4 shape with separators (or 10 bare
  digits after a phone word), an optional +1/001 prefix and an extension.
Pure stdlib; cue.pii.engine wraps the finders.
"""
from __future__ import annotations

import re
from collections.abc import Iterator

from cue.pii.finders.lazy import lazy_re

_CARD_RE = lazy_re(r"(?<![\d\-.])(?:\d[ \-]?){11,18}\d(?![\d\-]|\.\d)")
_CARD_PREFIX = lazy_re(r"(?:2[2-7]|3[0478]|35|4|5[0-8]|6|62|81|2131|1800|0604)")
_CARD_WORD = lazy_re(r"(?i)card|visa|master|amex|maestro|카드|결제")
CARD_TRIGGER = r"\d{4}"


def luhn_ok(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 1:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def find_cards(text: str) -> Iterator[tuple[int, int]]:
    for m in _CARD_RE.finditer(text):
        raw = m.group()
        seps = set(re.findall(r"[ \-]", raw))
        if len(seps) > 1 or "  " in raw or "--" in raw:
            continue
        digits = re.sub(r"\D", "", raw)
        if not _CARD_PREFIX.match(digits) or not luhn_ok(digits) or len(set(digits)) < 3:
            continue
        if len(digits) == 12 and not _CARD_WORD.search(text, max(0, m.start() - 30), m.start()):
            continue
        if seps and not re.fullmatch(r"\d{4}(?:[ \-]\d{4}){2,3}(?:[ \-]\d{1,3})?|\d{4}[ \-]\d{6}[ \-]\d{4,5}",
                                     raw):
            continue  # grouped, but not like a card ("12 3456 78 9012")
        yield m.span()


_NANP_RE = lazy_re(
    r"(?<![\w.+\-])(?:(?:\+1|001)[\s.\-]?)?"
    r"(?:\(\d{3}\)\s?|\d{3}[\s.\-])\d{3}[\s.\-]\d{4}"
    r"(?:\s?(?:x|ext\.?|extension)\s?\d{1,6})?(?![\w\-]|\.\d)")
_BARE_NANP_RE = lazy_re(r"(?<![\w.+\-])(?:\+?1)?\d{10}(?:\s?x\d{1,6})?(?![\w\-]|\.\d)")
_PHONE_WORD = lazy_re(r"(?i)phone|tel\b|call|cell|mobile|sms|text|fax|contact|reach|dial|전화|연락|휴대")


def phone_word_before(text: str, start: int) -> bool:
    """A phone word ("tel", "call", "전화"…) in the 30 characters before `start`."""
    return bool(_PHONE_WORD.search(text, max(0, start - 30), start))


PHONE_TRIGGER = r"\d{3}[\s.\-)]+\d{3}[\s.\-]\d{4}|\d{10}"


def find_nanp_phones(text: str) -> Iterator[tuple[int, int]]:
    for m in _NANP_RE.finditer(text):
        digits = re.sub(r"\D", "", m.group().split("x")[0].split("ext")[0])
        area = digits[-10:-7]
        if area[0] in "01" or len(set(digits[-10:])) < 3:
            continue
        spaced_only = not re.search(r"[().\-+]", m.group())
        if spaced_only and not _PHONE_WORD.search(text, max(0, m.start() - 30), m.start()):
            continue  # "serial 123 456 7890": spaces alone need a phone word
        yield m.span()
    for m in _BARE_NANP_RE.finditer(text):
        digits = m.group().lstrip("+")
        area = digits[-10:-7] if "x" not in digits else digits.split("x")[0][-10:-7]
        if area and area[0] not in "01" and _PHONE_WORD.search(text, max(0, m.start() - 30), m.start()):
            yield m.span()
