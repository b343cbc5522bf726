"""The recognizers cue.pii.engine registers: Presidio's own (email, IP, phone, Korean RRN,
card, IBAN, SSN) made offline and precise, and `custom_recognizers()` — every regex finder
of secrets.py, people.py and this module (meeting URLs, Korean mobiles) as a SpanRecognizer.

Imported only by cue.pii.engine (which is imported only when something is scrubbed):
this module imports Presidio at the top.

Each `SpanRecognizer` is one compiled regex. When the pattern has a group named `v`,
only that group is the entity (e.g. the user name inside `/Users/alice/src`, the value
after `password=`), so the rest of the text stays as it was.
"""
from __future__ import annotations

import ipaddress

from presidio_analyzer import LocalRecognizer
from presidio_analyzer.predefined_recognizers import (
    CreditCardRecognizer,
    EmailRecognizer,
    IbanRecognizer,
    IpRecognizer,
    KrRrnRecognizer,
    PhoneRecognizer,
    UsSsnRecognizer,
)

from cue.pii.finders.base import (
    _URL_TAIL,
    HangulBoundary,
    SpanRecognizer,
    windowed,
)
from cue.pii.finders.lazy import lazy_re
from cue.pii.finders.people import (
    _HONORIFIC_TRIGGER,
    EN_TITLE_NAME_RE,
    KR_NAME_RE,
    USER_PATH_RE,
    _is_korean_name,
    _is_user_name,
)
from cue.pii.finders.secrets import (
    _SECRET_KEY,
    CLI_SECRET_RE,
    DB_URL_RE,
    PAREN_SECRET_RE,
    SECRET_RE,
    URL_USERINFO_RE,
    SharedSecretRecognizer,
    _is_cli_secret,
    _is_paren_secret,
    _is_secret_value,
    _is_url_secret,
)

# --- meeting URLs ----------------------------------------------------------------------

_HTTP = r"(?:https?://)?"
# Only the hosts and paths are case-insensitive: the tail's class holds no letter, and
# under (?i) each of its Hangul ranges compiles 11,172 case folds (14 ms of a cold scrub).
MEETING_URL_RE = (
    r"(?:(?i:" + _HTTP + r"(?:[a-z0-9\-]+\.)*(?:zoom\.us|zoomgov\.com)/(?:j|my|w|s|wc/join|wc)/)"
    + _URL_TAIL
    + r"|(?i:" + _HTTP + r"meet\.google\.com/[a-z]{3}-[a-z]{4}-[a-z]{3})(?:[?#]" + _URL_TAIL + r")?"
    + r"|(?i:" + _HTTP + r"teams\.microsoft\.com/(?:l/meetup-join|meet)/)" + _URL_TAIL
    + r"|(?i:" + _HTTP + r"teams\.live\.com/meet/)" + _URL_TAIL
    + r"|(?i:" + _HTTP + r"(?:[a-z0-9\-]+\.)*webex\.com/(?:meet|join|[a-z0-9\-]+/j\.php|"
    r"wbxmjs/joinservice|[a-z0-9\-]+/m\.php))" + _URL_TAIL
    + r")"
)

# --- Korean mobile numbers -------------------------------------------------------------

KR_MOBILE_RE = r"(?<![\d+])(?:\+82[\-\s.]?1[016789]|01[016789])[\-\s.]?\d{3,4}[\-\s.]?\d{4}(?!\d)"


# --- Presidio's recognizers, kept offline and precise -----------------------------------

_AT = lazy_re("@")
_IP_TRIGGER = lazy_re(r"\d\.\d{1,3}\.\d|[0-9A-Fa-f]:[0-9A-Fa-f]{0,4}:")


def _in_url_userinfo(text: str, pos: int) -> bool:
    """Is `pos` inside the user info of a URL ("https://bob:pw@host", before the host)?"""
    start = pos
    while start > max(0, pos - 200) and not text[start - 1].isspace():
        start -= 1
    before = text[start:pos]
    return "://" in before and not any(c in before.rsplit("://", 1)[1] for c in "/?#")


class OfflineEmailRecognizer(HangulBoundary, EmailRecognizer):
    """Presidio's email recognizer validating the domain with an offline tldextract."""

    def __init__(self, extractor, **kwargs):
        self._extract = extractor
        super().__init__(**kwargs)

    def validate_result(self, pattern_text: str):
        # Only the domain: a local part holding "/" or "?" ("…/home?to=jane@x.com") would
        # make tldextract read it as a URL with no suffix.
        return self._extract(pattern_text.rsplit("@", 1)[-1]).fqdn != ""

    def analyze(self, text, entities, nlp_artifacts=None, regex_flags=None):
        found = windowed(lambda t: super(OfflineEmailRecognizer, self).analyze(
            t, entities, nlp_artifacts, regex_flags), text, _AT)
        for r in found:
            # Presidio's local part may run back over "…/?u=" in a URL: start after it.
            local = text[r.start:text.index("@", r.start)]
            r.start += max(local.rfind(c) for c in "/?=&#:") + 1
        # "https://alice@host/…", "ftp://bob:pw@host" hold a URL's user info, not an address.
        return [r for r in found if not _in_url_userinfo(text, r.start)]


_VERSION_BEFORE = lazy_re(
    r"(?i)(?:\bv|\b(?:version|ver|build|release|rev|firmware)\s?|버전\s?|[\w.]\.)$")


class PreciseIpRecognizer(HangulBoundary, IpRecognizer):
    """Presidio's IP recognizer minus loopback/unspecified addresses and non-addresses."""

    def invalidate_result(self, pattern_text: str) -> bool:
        try:
            ip = ipaddress.ip_address(pattern_text)
        except ValueError:
            return True
        return ip.is_loopback or ip.is_unspecified

    def analyze(self, text, entities, nlp_artifacts=None, regex_flags=None):
        results = windowed(lambda t: super(PreciseIpRecognizer, self).analyze(
            t, entities, nlp_artifacts, regex_flags), text, _IP_TRIGGER)
        for r in results:
            r.end = self._extend(text, r.start, r.end)
        # "v1.2.3.4", "version 1.2.3.4", "build 1.2.3.4" are versions, not addresses.
        return [r for r in results if not _VERSION_BEFORE.search(text, max(0, r.start - 12), r.start)]

    @staticmethod
    def _extend(text: str, start: int, end: int) -> int:
        """Presidio's IPv6 alternation can stop early ("2001:db8::" of "2001:db8::1"):
        take the longest run of address characters that is still a valid address."""
        run = end
        while run < len(text) and (text[run] in "0123456789abcdefABCDEF:."):
            run += 1
        while run > end:
            try:
                ipaddress.ip_address(text[start:run])
                return run
            except ValueError:
                run -= 1
        return end


_DATE = lazy_re(r"(?:19|20)\d{2}[.\-/]\d{1,2}[.\-/]\d{1,2}\b|\d{1,2}[.\-/]\d{1,2}[.\-/](?:19|20)\d{2}\b")


_BRN = lazy_re(r"\d{3}-\d{2}-\d{5}")  # Korean business registration number, not a phone
# Korean nationwide business numbers (1588-xxxx, 1600-xxxx, …) belong to companies, not people.
_KR_REP_NUMBER = lazy_re(r"1[5-8]\d{2}-\d{4}")
_BARE_DIGITS = lazy_re(r"\d+")
_PHONE_CONTEXT = lazy_re(
    r"(?i)phone|tel\b|call|cell|mobile|sms|text(?:ed)?\b|whats ?app|signal|fax|contact|reach|"
    r"전화|연락|번호|휴대|핸드폰|폰|문자|카톡")


def _not_a_phone(text: str, start: int, end: int) -> bool:
    """A phone-number match that is really a date ("2024.12.31 23"), runs into a time, has
    the shape of a business number, or is a bare digit run (order and ticket numbers look
    like that) with no word nearby saying it is a phone number."""
    match = text[start:end]
    if (_DATE.match(text, start) or text[end:end + 1] == ":" or _BRN.fullmatch(match)
            or _KR_REP_NUMBER.fullmatch(match)):
        return True
    return bool(_BARE_DIGITS.fullmatch(match)) and not _PHONE_CONTEXT.search(
        text, max(0, start - 40), start)


class CandidatePhoneRecognizer(HangulBoundary, PhoneRecognizer):
    """Presidio's phone recognizer (python-phonenumbers, one pass per region), run only on
    the digit runs that could be a phone number: the same findings, far less work on
    long text (phonenumbers otherwise parses every number in the text once per region)."""

    CANDIDATE = lazy_re(r"(?<![A-Za-z0-9_.])"
                        r"(?:\+\d{1,3}[\s.\-]?)?(?:\(\d{1,5}\)[\s.\-]?)?\d[\d\s.\-/]{5,}\d")

    MARGIN = 3

    def analyze(self, text, entities, nlp_artifacts=None):
        windows: list[list[int]] = []
        for m in self.CANDIDATE.finditer(text):
            if sum(c.isdigit() for c in m.group()) < 7 or _DATE.fullmatch(m.group()):
                continue
            start, end = self._widen(text, m.start() - self.MARGIN, m.end() + self.MARGIN)
            if windows and start <= windows[-1][1]:
                windows[-1][1] = max(windows[-1][1], end)
            else:
                windows.append([start, end])
        results = []
        for start, end in windows:
            for r in super().analyze(text[start:end], entities, None):
                r.start += start
                r.end += start
                if text[r.start] == "(" and ")" not in text[r.start:r.end]:
                    r.start += 1  # "(010-1234-5678)": the bracket is punctuation
                if not _not_a_phone(text, r.start, r.end):
                    results.append(r)
        return results

    @staticmethod
    def _widen(text: str, start: int, end: int) -> tuple[int, int]:
        """Clamp to the text and never cut a run of number-ish characters in two."""
        start, end = max(0, start), min(len(text), end)
        while start > 0 and (text[start - 1].isalnum() or text[start - 1] in "+-().:/"):
            start -= 1
        while end < len(text) and (text[end].isalnum() or text[end] in "+-().:/"):
            end += 1
        return start, end


class StrictKrRrnRecognizer(HangulBoundary, KrRrnRecognizer):
    """Presidio's RRN recognizer; without the dash a 13-digit run must pass the checksum."""

    def invalidate_result(self, pattern_text: str):
        return "-" not in pattern_text and self.validate_result(pattern_text) is not True


class KoCreditCardRecognizer(HangulBoundary, CreditCardRecognizer):
    """Presidio's credit card recognizer (Luhn-checked), Korean particles allowed."""


class KoIbanRecognizer(HangulBoundary, IbanRecognizer):
    """Presidio's IBAN recognizer (checksum), Korean particles allowed."""


class KoUsSsnRecognizer(HangulBoundary, UsSsnRecognizer):
    """Presidio's US SSN recognizer, Korean particles allowed."""


def custom_recognizers(language: str = "en") -> list[LocalRecognizer]:
    """cue's own recognizers, for `language`."""
    def span(name, entity, pattern, score, **kw):
        return SpanRecognizer(name, entity, pattern, score, language=language, **kw)

    rec = [
        SharedSecretRecognizer(language),
        span("SecretValueRecognizer", "SECRET", SECRET_RE, 0.85, check=_is_secret_value,
             trigger="(?i)" + _SECRET_KEY),
        span("CliSecretRecognizer", "SECRET", CLI_SECRET_RE, 0.85, check=_is_cli_secret,
             trigger=r"--|-u\s"),
        span("ParenSecretRecognizer", "SECRET", PAREN_SECRET_RE, 0.85, check=_is_paren_secret,
             trigger=r"(?i)secret"),
        span("DbUrlRecognizer", "DB_URL", DB_URL_RE, 0.95, trigger="://"),
        span("UrlUserInfoRecognizer", "SECRET", URL_USERINFO_RE, 0.9, check=_is_url_secret,
             trigger="://"),
        span("MeetingUrlRecognizer", "MEETING_URL", MEETING_URL_RE, 0.95,
             trigger=r"(?i)zoom\.us|zoomgov\.com|meet\.google\.com|teams\.(?:microsoft|live)\.com"
                     r"|webex\.com"),
        span("KrMobileRecognizer", "PHONE_NUMBER", KR_MOBILE_RE, 0.8),
        span("KrNameRecognizer", "PERSON", KR_NAME_RE, 0.75, check=_is_korean_name,
             trigger=_HONORIFIC_TRIGGER),
        span("TitledNameRecognizer", "PERSON", EN_TITLE_NAME_RE, 0.7),
        span("UserPathRecognizer", "USER_PATH", USER_PATH_RE, 0.9, check=_is_user_name,
             trigger=r"(?i)Users|home|Documents and Settings"),
    ]
    for r in rec:
        r.supported_language = language
    return rec
