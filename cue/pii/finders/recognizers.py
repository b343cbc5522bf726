"""cue's own recognizers, run by Presidio next to its predefined ones.

Imported only by cue.pii.engine (which is imported only when something is scrubbed):
this module imports Presidio at the top.

Each `SpanRecognizer` is one compiled regex. When the pattern has a group named `v`,
only that group is the entity (e.g. the user name inside `/Users/alice/src`, the value
after `password=`), so the rest of the text stays as it was.
"""
from __future__ import annotations

import ipaddress
import itertools
import math
import re
from collections import Counter
from collections.abc import Callable
from functools import lru_cache

from presidio_analyzer import LocalRecognizer, RecognizerResult
from presidio_analyzer.predefined_recognizers import (
    CreditCardRecognizer,
    EmailRecognizer,
    IbanRecognizer,
    IpRecognizer,
    KrRrnRecognizer,
    PhoneRecognizer,
    UsSsnRecognizer,
)

from cuectx.secrets import (
    KOREAN_PASSWORD_WORDS,
    KOREAN_TOKEN_WORDS,
    NOT_A_VALUE_WORDS,
    PASSWORD_WORDS,
    SECRET_WORD_PAIRS,
    SECRET_WORDS,
)

# Characters that end a URL-ish or token-ish run.
_STOP = r"\s'\"<>`\[\]{}()|\\"
# Korean particles attach straight to a URL or value ("…/j/123에", "hunter22로"), so a
# URL host/path or a secret value never takes Hangul.
_HANGUL = "가-힣ㄱ-ㆎ"
# A URL may not end in sentence punctuation.
_URL_TAIL = rf"[^{_STOP}{_HANGUL}]*[^{_STOP}{_HANGUL}.,;:!?]"


def line_windows(text: str, trigger: re.Pattern) -> list[tuple[int, int]]:
    """The lines of `text` holding a `trigger` match, as (start, end) offsets.

    A cheap trigger (a literal like "@" or "://") narrows an expensive pattern to the few
    lines that can hold a match; findings never cross a line for these recognizers.
    """
    windows = []
    m = trigger.search(text)
    while m:
        start = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.end())
        end = len(text) if end == -1 else end
        windows.append((start, end))
        m = trigger.search(text, end)
    return windows


def windowed(analyze: Callable[[str], list], text: str, trigger: re.Pattern | None) -> list:
    """Run `analyze` on each triggered line and shift its results back into `text`."""
    if trigger is None:
        return analyze(text)
    results = []
    for start, end in line_windows(text, trigger):
        for r in analyze(text[start:end]):
            r.start += start
            r.end += start
            results.append(r)
    return results


class SpanRecognizer(LocalRecognizer):
    """A regex recognizer whose entity is the whole match or its group `v` (or `v2`).

    `trigger`, when given, is a cheap pattern that every match's line must contain.
    """

    def __init__(self, name: str, entity: str, pattern: str, score: float,
                 flags: int = 0, check: Callable[[re.Match], bool] | None = None,
                 trigger: str | None = None, language: str = "en"):
        self.regex = re.compile(pattern, flags)
        self.trigger = re.compile(trigger) if trigger else None
        self.groups = [g for g in ("v", "v2") if g in self.regex.groupindex]
        self.score = score
        self.check = check
        super().__init__(supported_entities=[entity], supported_language=language, name=name)

    def load(self) -> None:
        pass

    def analyze(self, text, entities, nlp_artifacts=None):
        return windowed(self._analyze, text, self.trigger)

    def _analyze(self, text: str) -> list[RecognizerResult]:
        out = []
        for m in self.regex.finditer(text):
            if self.check is not None and not self.check(m):
                continue
            group = next((g for g in self.groups if m[g] is not None), 0)
            start, end = m.span(group)
            if start == end:
                continue
            out.append(RecognizerResult(
                entity_type=self.supported_entities[0], start=start, end=end,
                score=self.score,
                recognition_metadata={
                    RecognizerResult.RECOGNIZER_NAME_KEY: self.name,
                    RecognizerResult.RECOGNIZER_IDENTIFIER_KEY: self.id,
                },
            ))
        return out


# --- API keys, tokens, JWTs, private keys, Authorization headers ------------------------
# One copy of these patterns, in cuectx.secrets (ctx's write guard uses the same detector).

class SharedSecretRecognizer(LocalRecognizer):
    """cuectx.secrets' findings as API_KEY (tokens, JWTs, Basic/Bearer credentials) or
    PRIVATE_KEY (a whole block, or a cut-off one to its last line of key material).

    `strict`: a scrubber errs toward removing, so placeholder-looking and low-entropy
    tokens (AKIAIOSFODNN7EXAMPLE) go too. Labelled values (`password=…`), URL user info and
    DB URLs stay with cue's recognizers below: cue removes more of them (every password,
    whole DB URLs) than ctx's guard does.
    """

    def __init__(self, language: str = "en"):
        super().__init__(supported_entities=["API_KEY", "PRIVATE_KEY"], supported_language=language,
                         name="SharedSecretRecognizer")

    def load(self) -> None:
        pass

    def analyze(self, text, entities, nlp_artifacts=None):
        from cuectx.secrets import find

        out = []
        for f in find(text, strict=True, labelled=False):
            entity = "PRIVATE_KEY" if f.kind == "private-key" else "API_KEY"
            if entities and entity not in entities:
                continue
            out.append(RecognizerResult(
                entity_type=entity, start=f.start, end=f.end,
                score=1.0 if entity == "PRIVATE_KEY" else 0.95,
                recognition_metadata={
                    RecognizerResult.RECOGNIZER_NAME_KEY: self.name,
                    RecognizerResult.RECOGNIZER_IDENTIFIER_KEY: self.id,
                },
            ))
        return out


# key = value secrets: the key names it a secret, the value is replaced. The credential
# words are cuectx.secrets' (one vocabulary with ctx's write guard); cue adds keys that are
# private without being credentials: cookies, signatures, session ids.
_CUE_SECRET_WORDS = frozenset({"cookie", "signature", "sig", "sessionid"})
_CUE_KEY_PAIRS = frozenset({("session", "id")})
_PASSWORD_WORDS = PASSWORD_WORDS | set(KOREAN_PASSWORD_WORDS)
_SECRET_WORDS = SECRET_WORDS | _CUE_SECRET_WORDS | set(KOREAN_TOKEN_WORDS)
_KEY_PAIRS = SECRET_WORD_PAIRS | _CUE_KEY_PAIRS
# (a session id or a password hash is what cue scrubs: "id" and "hash" end a secret's key here)
_NOT_A_VALUE_KEY = NOT_A_VALUE_WORDS - {"id", "ids", "hash"}
_SECRET_KEY = "(?:" + "|".join(sorted(
    {*_PASSWORD_WORDS, *_SECRET_WORDS} | {f"{a}[_\\-]?{b}" for a, b in _KEY_PAIRS},
    key=lambda w: (-len(w), w))) + ")"
SECRET_RE = (
    r"(?i:(?<![A-Za-z0-9])(?P<k>[A-Za-z0-9_.\-]*?" + _SECRET_KEY + r"[A-Za-z0-9_\-]*)"
    r"[\"']?\s*(?:=|:|=>|:=)\s*[\"']?)"
    rf"(?P<v>[^\s'\"`,;&<>\[\]{{}}(){_HANGUL}]+)"
)
# Command-line flags: `--password hunter2`, `--api-key=…`, `curl -u bob:hunter2`.
CLI_SECRET_RE = (
    r"(?<!\S)(?:--(?P<k>[A-Za-z0-9\-]*(?:password|passwd|token|secret|api-key|apikey)"
    r"[A-Za-z0-9\-]*)(?:=|\s+)[\"']?(?P<v>[^\s'\"]+)"
    r"|-u\s+[^:\s]+:(?P<v2>[^\s'\"@]+))"
)


def _is_cli_secret(m: re.Match) -> bool:
    if m["v2"] is not None:
        return len(m["v2"]) >= 4
    return not m["v"].startswith("-") and _is_secret_value(m)


# The key must *be* a secret's name, word by word: DB_PASSWORD, apiKey, x-api-key,
# client_secret — not max_tokens, tokenizer_path, bypass or compass.
_KEY_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[가-힣]+")
def _key_kind(key: str) -> str | None:
    """'password', 'secret' or None for a key name like DB_PASSWORD or maxTokens."""
    words = [w.lower() for w in _KEY_WORDS.findall(key)]
    if not words or words[-1] in _NOT_A_VALUE_KEY:  # password_file, token_count, …
        return None
    if _PASSWORD_WORDS.intersection(words):
        return "password"
    if _SECRET_WORDS.intersection(words) or _KEY_PAIRS.intersection(itertools.pairwise(words)):
        return "secret"
    return None


_UI_WORDS = {"field", "box", "input", "prompt", "label", "form", "manager", "strength",
             "policy", "reset", "changed", "expired", "incorrect", "invalid", "wrong",
             "missing", "hint", "dialog", "screen", "page", "button", "entry"}
_PLACEHOLDERS = {"none", "null", "nil", "true", "false", "undefined", "required", "optional",
                 "str", "string", "redacted", "hidden", "secret", "password", "token",
                 "env", "todo", "tbd", "example"}


def _entropy(s: str) -> float:
    counts = Counter(s)
    return -sum(c / len(s) * math.log2(c / len(s)) for c in counts.values())


_CRYPT_HASH = re.compile(r"\$[0-9a-z]{1,6}\$\S{8,}")


def _is_secret_value(m: re.Match) -> bool:
    value = m["v"].rstrip(".")
    if _CRYPT_HASH.match(value):  # "$2b$12$…": a password hash, not a $VARIABLE
        return _key_kind(m["k"]) is not None
    if len(value) < 4 or value.lower() in _PLACEHOLDERS or value[0] in "$%{<*#":
        return False
    if len(set(value)) <= 2 or value.isdigit():  # xxxx, ****, 0000, 1024
        return False
    kind = _key_kind(m["k"])
    if kind is None:
        return False
    if kind == "password":
        # "Password: field" on a login screen is a label, not a value.
        return value.lower() not in _UI_WORDS
    classes = sum(bool(re.search(p, value)) for p in ("[a-z]", "[A-Z]", "[0-9]"))
    return len(value) >= 16 and classes >= 2 and _entropy(value) >= 3.0


# --- URLs with credentials and meeting URLs --------------------------------------------

_DB_SCHEMES = (r"postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|redis|rediss|amqps?|mssql|"
               r"sqlserver|oracle|cockroachdb|clickhouse|couchdb|neo4j(?:\+s)?|cassandra|"
               r"elasticsearch|memcached")
# A database URL with any user info is replaced whole (its host is usually internal).
DB_URL_RE = rf"(?i:\b(?:{_DB_SCHEMES})(?:\+[a-z0-9]+)?://[^{_STOP}/@]+@){_URL_TAIL}"
# Any other URL keeps its public part; only the user info goes: https://[SECRET]@github.com/…
URL_USERINFO_RE = (
    rf"(?i:\b(?!(?:{_DB_SCHEMES})(?:\+[a-z0-9]+)?://)[a-z][a-z0-9+.\-]*://)"
    rf"(?P<v>[^{_STOP}/@]+)@(?=[a-z0-9])"
)
_GENERIC_URL_USERS = {"git", "anonymous", "ftp", "guest", "hg", "svn"}


def _is_url_secret(m: re.Match) -> bool:
    return m["v"].lower() not in _GENERIC_URL_USERS

_HTTP = r"(?:https?://)?"
MEETING_URL_RE = (
    r"(?i:" + _HTTP + r"(?:[a-z0-9\-]+\.)*(?:zoom\.us|zoomgov\.com)/(?:j|my|w|s|wc/join|wc)/"
    + _URL_TAIL
    + r"|" + _HTTP + r"meet\.google\.com/[a-z]{3}-[a-z]{4}-[a-z]{3}(?:[?#]" + _URL_TAIL + r")?"
    + r"|" + _HTTP + r"teams\.microsoft\.com/(?:l/meetup-join|meet)/" + _URL_TAIL
    + r"|" + _HTTP + r"teams\.live\.com/meet/" + _URL_TAIL
    + r"|" + _HTTP + r"(?:[a-z0-9\-]+\.)*webex\.com/(?:meet|join|[a-z0-9\-]+/j\.php|"
    r"wbxmjs/joinservice|[a-z0-9\-]+/m\.php)" + _URL_TAIL
    + r")"
)

# --- file paths that reveal a user name ------------------------------------------------

_NOT_USERS = {"shared", "public", "default", "default user", "all users", "defaultuser0",
              "guest", "user", "username", "you", "me", "name", "your-name", "yourname",
              "<user>", "$user", "%username%", "...", "*"}
# macOS and Linux user names are ASCII; a Windows one may hold spaces or Hangul when a
# separator follows it ("C:\Users\John Smith\…", "C:\Users\홍길동\…").
_ASCII_NAME = r"[A-Za-z0-9._@+\-]*[A-Za-z0-9_@+\-]"
USER_PATH_RE = (
    r"(?:(?<=file://)|(?<![\w.\-/~]))(?:/var|/export)?/(?:Users|home)/"
    rf"(?P<v>{_ASCII_NAME})"
    r"|(?<![\w])[A-Za-z]:(?:\\+|/)(?i:Users|Documents and Settings)(?:\\+|/)"
    rf"(?P<v2>[^\\/:*?\"<>|\r\n\[\]]+?(?=\\|/)|{_ASCII_NAME})"
)


def _is_user_name(m: re.Match) -> bool:
    name = m["v"] or m["v2"]
    return name.lower() not in _NOT_USERS and not name.startswith(("$", "%", "{", "<"))


# --- Korean mobile numbers and names ---------------------------------------------------

KR_MOBILE_RE = r"(?<![\d+])(?:\+82[\-\s.]?1[016789]|01[016789])[\-\s.]?\d{3,4}[\-\s.]?\d{4}(?!\d)"

_SURNAMES = (
    "남궁|황보|제갈|선우|독고|사공|서문|"
    "김|이|박|최|정|강|조|윤|장|임|한|오|서|신|권|황|안|송|류|유|전|홍|고|문|양|손|배|백|허|"
    "남|심|노|하|곽|성|차|주|우|구|민|진|나|지|엄|채|원|천|방|공|현|함|변|염|여|추|도|소|석|"
    "선|설|마|길|연|위|표|명|기|반|라|왕|금|옥|육|인|맹|제|모|탁|국|어|은|편|용|예|경|봉|사|부|"
    "가|복|태|목|형|피|두|감|음|빈|동|온|호|범|좌|팽|승|간|상|갈|시|단|견|당"
)
# Honorifics and titles that follow a name, then an optional particle.
_TITLES = ("선생님|교수님|박사님|팀장님|과장님|부장님|차장님|대리님|사장님|대표님|이사님|실장님|"
           "본부장님|센터장님|매니저님|책임님|선임님|수석님|원장님|회장님|상무님|전무님|주임님|"
           "사원님|기자님|작가님|변호사님|의사님|간호사님|감독님|코치님|선수|"
           "선생|교수|박사|팀장|과장|부장|차장|대리|사장|대표|이사|실장|매니저|책임|선임|수석")
_HONORIFIC = rf"(?:님|씨|{_TITLES})"
_HONORIFIC_TRIGGER = rf"{_HONORIFIC}|\s[군양]"
KR_NAME_RE = (
    rf"(?<![가-힣])(?P<v>(?:{_SURNAMES})[가-힣]{{1,2}})"
    rf"(?:{_HONORIFIC}|(?P<sp>\s)(?:{_HONORIFIC}|[군양](?![가-힣])))"
)
# Words that look like surname + syllables before an honorific but are not names.
# Roles and titles ("선생님", "변호사님", "여사님"): a name never starts with one.
_KR_ROLE_WORDS_TEXT = """
고객 선생 사장 부장 차장 원장 주인 하느 하나 선배 기사 도련 도령 이사 조교 박사 전무 소장 이장 반장
조장 국장 총장 위원 기자 강사 간호 구청 도지 변호 세무 노무 주임 사원 신부 수녀 장로 전도 고모 이모
사모 장모 장인 부모 조부 조상 선조 임금 공주 왕자 왕비 선녀 서방 방장 기장 경비 도우 마음 편집 연구
제작 부처 석사 명인 안내 상담 담임 지점 회장 교장 교감 실장 팀장 과장 대리 대표 감독 코치 선수 작가
의사 약사 한의 원님 부인 사위 며느 형수 제수 동서 시누 시어 어머 아버 예수 성모 여사 마담 어르 권사
도사 선사 공사 차관 장관 고문 부사 부회 주사 서기 부기 선장 경감 경정 경장 경위 경사 경찰 소방 소령
하사 이병 상병 상사 동료 사수 사부 사범 조원 부원 선임 나리 양반 사무 주무 부교
"""
_KR_ROLE_WORDS = set(_KR_ROLE_WORDS_TEXT.split())
# Everyday words ("오늘의 선생님", "이번에 팀장님").
_KR_COMMON_WORDS_TEXT = """
오늘 이번 이전 이후 지금 지난 우리 전체 정말 정도 하루 조금 모든 모두 최근 방금 원래 현재 한번
안녕 신입 기존 여러 이제 이미 이런 그런 저런 정리 이분 이쪽 오전 오후 주간 주말 전화 신규
공동 남은 유명 명예 서울 한국 부산 지역 전문 전임 전직 현직 현역 차기 신임 전담 담당 수고 고생 감사
"""
_KR_COMMON_WORDS = set(_KR_COMMON_WORDS_TEXT.split())
_COMPOUND_SURNAMES = {"남궁", "황보", "제갈", "선우", "독고", "사공", "서문"}
_PARTICLES = set("은는이가을를의에도와과로만")


def _is_korean_name(m: re.Match) -> bool:
    name = m["v"]
    if name[:2] in _KR_ROLE_WORDS or name in _KR_COMMON_WORDS:
        return False
    if m["sp"]:
        # With a space before the title, only a full name (surname + two syllables) that
        # is not an everyday word plus a particle.
        given = name[2:] if name[:2] in _COMPOUND_SURNAMES else name[1:]
        return len(given) == 2 and not (name[2] in _PARTICLES and name[:2] in _KR_COMMON_WORDS)
    return True


# English names after a title work without a spaCy model (a model, when present, adds more).
_EN_NAME = r"(?:[A-Z]'[A-Z][a-z]+|[A-Z][a-z]+(?:[A-Z][a-z]+)?(?:-[A-Z][a-z]+)?)"
EN_TITLE_NAME_RE = (r"\b(?:Mr|Mrs|Ms|Miss|Mx|Dr|Prof|Professor)\.?\s+"
                    rf"(?P<v>{_EN_NAME}(?:\s+{_EN_NAME})?)")


# --- Presidio's recognizers, kept offline and precise -----------------------------------

_HANGUL_RUN = re.compile(f"[{_HANGUL}]")


@lru_cache(maxsize=4)
def mask_hangul(text: str) -> str:
    """`text` with each Hangul character replaced by a space (same length, same offsets).

    Presidio's patterns use `\\b`, and Hangul counts as a word character, so a particle
    attached to a number or address ("4111 1111 1111 1111로", "10.0.0.1에서",
    "kim@naver.com으로") would hide it. Its recognizers see this masked copy.
    """
    return _HANGUL_RUN.sub(" ", text)


class HangulBoundary:
    """Mixin for Presidio recognizers: analyze the Hangul-masked text."""

    def analyze(self, text, entities, nlp_artifacts=None, *args, **kwargs):
        return super().analyze(mask_hangul(text), entities, nlp_artifacts, *args, **kwargs)


_AT = re.compile("@")
_IP_TRIGGER = re.compile(r"\d\.\d{1,3}\.\d|[0-9A-Fa-f]:[0-9A-Fa-f]{0,4}:")


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


_VERSION_BEFORE = re.compile(
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


_DATE = re.compile(r"(?:19|20)\d{2}[.\-/]\d{1,2}[.\-/]\d{1,2}\b|\d{1,2}[.\-/]\d{1,2}[.\-/](?:19|20)\d{2}\b")


_BRN = re.compile(r"\d{3}-\d{2}-\d{5}")  # Korean business registration number, not a phone
# Korean nationwide business numbers (1588-xxxx, 1600-xxxx, …) belong to companies, not people.
_KR_REP_NUMBER = re.compile(r"1[5-8]\d{2}-\d{4}")
_BARE_DIGITS = re.compile(r"\d+")
_PHONE_CONTEXT = re.compile(
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

    CANDIDATE = re.compile(r"(?<![A-Za-z0-9_.])"
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
