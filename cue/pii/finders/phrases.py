"""Entities that only a phrase around them reveals: meeting IDs and passcodes written
outside a URL, obfuscated email addresses, a bare 9-digit SSN next to the word SSN, and
passport numbers, card security codes and dates of birth after their labels.

Pure stdlib; cue.pii.engine wraps these finders in Presidio recognizers.
"""
from __future__ import annotations

import re
from collections.abc import Iterator

from cue.pii.finders.lazy import lazy_re

# --- meeting IDs and passcodes -----------------------------------------------------------

_MEETING_WORD = (r"(?i:zoom|teams|webex|google meet|meet|meeting|conference|webinar|call|bridge|"
                 r"화상\s?회의|회의|미팅|웨비나|줌|팀즈|웹엑스)")
_ID_LABEL = (
    rf"(?:{_MEETING_WORD}\s?(?i:id|i\.d\.|number|no\.?|num|#|code|아이디|번호|코드)"
    r"|(?i:participant\s?id|attendee\s?id|access\s?code|conference\s?id|참가자\s?(?:ID|번호)|"
    r"액세스\s?코드|회의실\s?(?:번호|ID)|입장\s?번호)"
    r"|(?i:zoom|webex|teams|줌|웹엑스|팀즈)(?:\s?(?i:meeting|회의|미팅))?\s?[:：]?"
    r"|(?i:meeting|회의|미팅)(?=\s\d{3}))"
)
_MEETING_ID = r"\d{3,4}[ \-]?\d{3,4}[ \-]?\d{3,5}(?:[ \-]?\d{1,4})?(?![\d])|[a-z]{3}-[a-z]{4}-[a-z]{3}(?![a-z])"
MEETING_ID_RE = lazy_re(
    rf"{_ID_LABEL}\s*(?:\([^)\n]{{0,24}}\))?\s*(?i:is|는|은)?\s*[:：#=]?\s*(?P<v>{_MEETING_ID})#?")
# A bare "ID: 812 3456 7890" counts when a meeting word is near.
BARE_ID_RE = lazy_re(rf"(?<![A-Za-z])(?:ID|Id|id|아이디)\s*[:：#]?\s*(?P<v>{_MEETING_ID})")
_PASS_LABEL = (r"(?i:passcode|pass\s?code|meeting\s?password|password|passwd|pwd|pw|pin|"
               r"access\s?code|암호|비밀번호|비번|패스코드|회의\s?암호|입장\s?(?:코드|암호)|"
               r"참가\s?(?:코드|암호))")
PASSCODE_RE = lazy_re(
    rf"(?<![A-Za-z]){_PASS_LABEL}\s*(?i:is|는|은)?\s*[:：=]?\s*"
    r"(?P<v>(?=[A-Za-z0-9!@#$%^&*._\-]*\d)[A-Za-z0-9!@#$%^&*._\-]{4,16}|[A-Za-z]{6,12})(?![A-Za-z0-9])")
# "passcode" names a meeting secret by itself; "password"/"PIN" only near a meeting word.
_STRONG_PASS = lazy_re(r"(?i)pass\s?code|패스코드|회의\s?암호|입장\s?(?:코드|암호)|참가\s?(?:코드|암호)")
_MEETING_NEAR = lazy_re(_MEETING_WORD)
MEETING_TRIGGER = (r"(?i),,\d|zoom|teams|webex|meet|conference|webinar|call|bridge|participant|"
                   r"attendee|access|pass|pwd|pin|회의|미팅|웨비나|줌|팀즈|웹엑스|참가|입장|암호|비밀번호|비번")


# A Google Meet code anywhere near the word "Meet" (window titles: "Meet - abc-defg-hij",
# "abc-defg-hij - Google Meet", "meet.google.com/abc-defg-hij").
MEET_CODE_RE = lazy_re(r"(?<![A-Za-z0-9\-])[a-z]{3}-[a-z]{4}-[a-z]{3}(?![A-Za-z0-9\-])")
_MEET_NEAR = lazy_re(r"(?i)\bmeet\b")


# Between a label and a letters-only value: "Passcode: gardenia", "passcode is gardenia".
_SAYS_VALUE = lazy_re(r"(?i)[:：=]|\bis\b|는|은")


# One-tap dial strings: "+16465588656,,81234567890#,,,,*123456#" (ID, then passcode).
DIAL_STRING_RE = lazy_re(r"(?<=\d),,+(?P<v>\d{9,12})#(?:,+\*?(?P<v2>\d{4,10})#)?")


def find_meeting_codes(text: str) -> Iterator[tuple[int, int]]:
    for m in DIAL_STRING_RE.finditer(text):
        yield m.span("v")
        if m["v2"]:
            yield m.span("v2")
    ids = [m.span("v") for m in MEETING_ID_RE.finditer(text)]
    ids += [m.span("v") for m in BARE_ID_RE.finditer(text)
            if m.span("v") not in ids
            and _MEETING_NEAR.search(text, max(0, m.start() - 80), m.end() + 80)]
    yield from ids
    for m in MEET_CODE_RE.finditer(text):  # "Meet - abc-defg-hij - Google Chrome"
        if m.span() not in ids and _MEET_NEAR.search(text, max(0, m.start() - 80), m.end() + 80):
            yield m.span()
    for m in PASSCODE_RE.finditer(text):
        if m["v"].lower() in {"required", "optional", "none", "enabled", "disabled", "protected"}:
            continue
        label = text[m.start():m.start("v")]
        if m["v"].isalpha() and not _SAYS_VALUE.search(label):
            continue  # "passcode policy discussion": a letters-only passcode needs "is" or ":"
        near = text[max(0, m.start() - 160):m.start() + 40]
        if _STRONG_PASS.search(label) or _MEETING_NEAR.search(near) or any(
                abs(s - m.start()) < 200 for s, _ in ids):
            yield m.span("v")


# --- obfuscated emails ------------------------------------------------------------------

_AT_OBF = r"\s*[\[\(\{<]\s*(?:at|AT|At|@|골뱅이)\s*[\]\)\}>]\s*|\s+골뱅이\s+|\s*@\s+|\s+@\s*|@"
_AT_WORD = r"\s+(?:at|AT)\s+"
_DOT_OBF = r"\s*[\[\(\{<]\s*(?:dot|DOT|Dot|\.|점)\s*[\]\)\}>]\s*|\s+(?:dot|DOT)\s+|\s+점\s+|\s+\.\s+"
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9\-]{0,62}[A-Za-z0-9])?"
_TLDS = (r"com|net|org|io|co|kr|uk|de|jp|fr|edu|gov|dev|ai|me|us|ca|au|in|info|biz|app|tech|"
         r"xyz|cn|ru|br|it|es|nl|se|ch|eu|tv|cc|ly|gg|so|sh|to|ac|or|ne|re|pe|go|mil|int")
_DOMAIN = rf"{_LABEL}(?:(?:{_DOT_OBF}|\.){_LABEL})+"
_TLD_SET = set(_TLDS.split("|"))
OBFUSCATED_EMAIL_RE = lazy_re(
    rf"(?<![A-Za-z0-9._%+\-])(?P<local>[A-Za-z0-9][A-Za-z0-9_%+\-]*(?:(?:\.|{_DOT_OBF})"
    rf"[A-Za-z0-9_%+\-]+)*?)(?P<at>{_AT_OBF}|{_AT_WORD})(?P<domain>{_DOMAIN})(?![A-Za-z0-9\-])",
)
# A plain " at " counts only with an obfuscated dot, so the trigger needs no bare "at".
OBFUSCATED_EMAIL_TRIGGER = (r"(?i)[\[({<]\s*(?:at|@|dot)\s*[\])}>]|\bdot\b|@\s|\s@|골뱅이|\s점\s"
                            r"|[A-Za-z0-9][._][A-Za-z0-9]+\s+at\s")
_WORD_AT = lazy_re(_AT_WORD)
# "jane.doe at example.com": a local part shaped like a user name (first.last, first_last).
_USERNAME = lazy_re(r"[A-Za-z0-9][._][A-Za-z0-9]")
_OBF_DOT = lazy_re(_DOT_OBF)


def find_obfuscated_emails(text: str) -> Iterator[tuple[int, int]]:
    pos = 0
    while (m := OBFUSCATED_EMAIL_RE.search(text, pos)) is not None:
        # A failed candidate ("me at craig.fuller …") may hide a real one inside it.
        pos = m.start() + 1
        if re.split(r"\W+", m["domain"].strip())[-1].lower() not in _TLD_SET:
            continue
        at_plain_word = _WORD_AT.fullmatch(m["at"]) is not None
        dot_obfuscated = _OBF_DOT.search(m["domain"]) is not None
        if m["at"] == "@" and not dot_obfuscated:
            continue  # a plain address: Presidio's recognizer has it
        if at_plain_word and not dot_obfuscated and not _USERNAME.search(m["local"]):
            continue  # "deployed at example.com" is a sentence, not an address
        pos = m.end()
        yield m.span()


# --- SSN without separators, next to the word SSN -----------------------------------------

_SSN_WORD = r"(?i:\bSSN|\bSS#|social\s+security(?:\s+(?:number|no\.?|num|#))?|사회보장번호)"
_SSN_DIGITS = r"\d{3}[ .\-]?\d{2}[ .\-]?\d{4}"
SSN_CONTEXT_RE = lazy_re(
    rf"{_SSN_WORD}[^\d\n]{{0,24}}?(?<![\d\-])(?P<v>{_SSN_DIGITS})(?![\d\-])"
    rf"|(?<![\d\-])(?P<v2>{_SSN_DIGITS})(?!\d)\s*\(?\s*{_SSN_WORD}"
)
SSN_TRIGGER = r"(?i)ssn|ss#|social\s+security|사회보장"


def _valid_ssn(digits: str) -> bool:
    area, group, serial = digits[:3], digits[3:5], digits[5:]
    return (area not in {"000", "666"} and not area.startswith("9") and group != "00"
            and serial != "0000" and len(set(digits)) > 1)


def find_context_ssns(text: str) -> Iterator[tuple[int, int]]:
    for m in SSN_CONTEXT_RE.finditer(text):
        group = "v" if m["v"] else "v2"
        digits = re.sub(r"\D", "", m[group])
        if len(digits) == 9 and _valid_ssn(digits):
            yield m.span(group)


# --- passport numbers and card security codes, after their labels --------------------------
# Their shapes alone are everyday numbers (an order, a build, a room); the label on a travel
# booking or a checkout form is what makes them a document's number or a card's code.
_PASSPORT_WORD = r"(?<![A-Za-z])(?i:passport(?:\s*(?:no\.?|number|num|#))?|여권\s?번호|여권)"
# one or two letters + 6–8 digits (Korea M12345678, the US, much of Europe), Korea's newer
# letter-3-digits-letter-4-digits, or 9 digits (the US, the UK)
_PASSPORT_NO = r"[A-Z]{1,2}\d{6,8}|[A-Z]\d{3}[A-Z]\d{4}|\d{9}"
PASSPORT_RE = lazy_re(rf"{_PASSPORT_WORD}\s*(?i:is|는|은)?\s*[:：#=]?\s*"
                      rf"(?<![A-Za-z0-9])(?P<v>{_PASSPORT_NO})(?![A-Za-z0-9])")
PASSPORT_TRIGGER = r"(?i)passport|여권"
_CARD_CODE_WORD = (r"(?<![A-Za-z])(?i:cvv2?|cvc2?|card\s+security\s+code|security\s+code|"
                   r"card\s+code|card\s+verification\s+(?:code|value)|보안\s?코드|CVC\s?번호)")
CARD_CODE_RE = lazy_re(rf"{_CARD_CODE_WORD}\s*(?:\([^)\n]{{0,20}}\))?\s*(?i:is|는|은)?\s*[:：#=]?\s*"
                       r"(?<!\d)(?P<v>\d{3,4})(?!\d|[\-/.:]\d)")  # not a date, a time or a decimal
CARD_CODE_TRIGGER = r"(?i)cvv|cvc|security\s+code|card\s+code|card\s+verification|보안\s?코드"


def find_passports(text: str) -> Iterator[tuple[int, int]]:
    for m in PASSPORT_RE.finditer(text):
        yield m.span("v")


def find_card_codes(text: str) -> Iterator[tuple[int, int]]:
    for m in CARD_CODE_RE.finditer(text):
        yield m.span("v")


# --- dates of birth, after their labels -----------------------------------------------------
# A date is left alone (deploys, meetings, versions); after "DOB" or "생년월일" it is a person's.
_BIRTH_WORD = (r"(?<![A-Za-z])(?i:d\.?o\.?b\.?|date\s+of\s+birth|birth\s*date|birthday|born(?:\s+on)?)"
               r"|생년월일|생일|출생일")
_BIRTH_DATE = (r"(?:19|20)\d{2}[-./](?:0?[1-9]|1[0-2])[-./](?:0?[1-9]|[12]\d|3[01])"  # 1985-07-14
               r"|(?:0?[1-9]|1[0-2])/(?:0?[1-9]|[12]\d|3[01])/(?:19|20)\d{2}"  # 07/14/1985
               r"|(?:0?[1-9]|[12]\d|3[01])\.(?:0?[1-9]|1[0-2])\.(?:19|20)\d{2}"  # 14.07.1985
               r"|(?:19|20)\d{2}\s?년\s?(?:0?[1-9]|1[0-2])\s?월\s?(?:0?[1-9]|[12]\d|3[01])\s?일"  # 1985년 7월 14일
               r"|(?i:(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2},?\s+(?:19|20)\d{2})")
BIRTH_DATE_RE = lazy_re(rf"(?:{_BIRTH_WORD})\s*(?i:is|는|은)?\s*[:：=]?\s*"
                        rf"(?<![\d.])(?P<v>{_BIRTH_DATE})(?![\d])")
BIRTH_DATE_TRIGGER = r"(?i)d\.?o\.?b|birth|born|생년월일|생일|출생일"


def find_birth_dates(text: str) -> Iterator[tuple[int, int]]:
    for m in BIRTH_DATE_RE.finditer(text):
        yield m.span("v")
