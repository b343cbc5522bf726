"""What a memory *sets*: its typed values (a port, a version, a time, a weekday, a duration,
a size, a rate, a count) and the names it mentions (tools, people, identifiers — code
spans, capitalised or CamelCase words, paths, kebab/snake identifiers, and every
Latin-script word of a Korean text), with the names it says are gone ("no Redux", "we
have no CircleCI account", "Detox 설정은 삭제함"). `ctx doctor` compares two memories about
the same subject slot by slot: a value of one kind set apart, or one name put in place of
another, is what an update looks like (ctx/doctor/findings.py).

Units and weekdays are read in English and Korean; numbers in either are compared after
the unit is applied (15 minutes = 15분; 2 GB = 2048 MB)."""
from __future__ import annotations

import re
import unicodedata

from cuectx.value import Value


def _split(text: str) -> list[str]:
    return text.split()


# unit word → (kind, factor)
_UNITS = {}
for _kind, _factor, _words in (
        ("duration", 1, "s sec secs second seconds 초"),
        ("duration", 60, "m min mins minute minutes 분"),
        ("duration", 3600, "h hr hrs hour hours 시간"),
        ("duration", 86400, "d day days 일"),
        ("duration", 604800, "w wk week weeks 주"),
        ("duration", 2592000, "mo month months 개월 달"),
        ("duration", 31536000, "y yr yrs year years 년"),
        ("size", 1, "b byte bytes"),
        ("size", 1 << 10, "k kb kib"),
        ("size", 1 << 20, "mb mib m"),
        ("size", 1 << 30, "g gb gib"),
        ("size", 1 << 40, "tb tib"),
        ("percent", 1, "% percent 퍼센트 프로"),
        ("count", 1, "replica replicas pod pods worker workers connection connections 개 명 대"),
        ("ms", 1, "ms millisecond milliseconds"),
):
    for _w in _words.split():
        _UNITS.setdefault(_w, (_kind, _factor))
WEEKDAYS = {w: i for i, ws in enumerate((
    "monday mon 월요일 월", "tuesday tue tues 화요일 화", "wednesday wed 수요일 수",
    "thursday thu thur thurs 목요일 목", "friday fri 금요일 금", "saturday sat 토요일 토",
    "sunday sun 일요일")) for w in ws.split()}
_WEEKDAY_WORD = re.compile(r"\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\b"
                           r"|([월화수목금토일])요일")
_CLOCK = re.compile(r"(?<![\d.:])([01]?\d|2[0-3]):([0-5]\d)(?![\d:])"
                    r"|(오전|오후|새벽|아침|저녁|밤)\s*(\d{1,2})\s*시(?:\s*(반|\d{1,2}\s*분))?")
_PORT = re.compile(r"(?:\bport\s*|포트\s*|(?<![\w/.]):|\blocalhost:|\bon\s+)(\d{2,5})\b(?![.\d])"
                   r"|(?<![\w.:])(\d{2,5})\s*(?:번\s*)?포트")  # Korean puts the word after: 3100 포트
_VERSION = re.compile(r"(?<![\w.])v?(\d+\.\d+(?:\.\d+)?)(?![\w.]*\d)")
_NUMBER = re.compile(r"(?<![\w.:/#-])(\d+(?:\.\d+)?)\s*(%|[a-z]+|[\uac00-\ud7a3]+)?(?:/(\w+))?")
_CODE = re.compile(r"`([^`]+)`")
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.+/@-]*[A-Za-z0-9_+]|[A-Za-z]")
_CRON = re.compile(r"(?<![\d*])(\d{1,2}) (\d{1,2}) [*\d/,-]+ [*\d/,-]+ [*\d/,-]+")
_KEYED = re.compile(r"(?<=[a-z0-9_`'\"])\s*[=:]\s*[`'\"]?(\d+(?:\.\d+)?)\b")  # key = value
_KEY = re.compile(r"([a-z_][a-z0-9_.-]*[a-z0-9_])[`'\"]?\s*$")                       # its key
# A name said to be gone: a negation or removal word just before it, or just after it in
# the same clause (English), or after it in the same clause (Korean).
_GONE_BEFORE = re.compile(r"\b(?:no|not|never|without|instead of|rather than|replaced?|removed?|"
                          r"dropped?|deleted?|ditched?|retired?|away from)\s+(?:the\s+|a\s+|any\s+|our\s+)?$",
                          re.IGNORECASE)
_GONE_AFTER = re.compile(r"^[\w\s.`'-]{0,25}?\b(?:is|are|was|were|has been|have been|got)?\s*"
                         r"(?:gone|removed|deleted|dropped|closed|retired|deprecated|ignored|"
                         r"decommissioned|shut down|turned off|no longer)\b", re.IGNORECASE)
_GONE_KO = re.compile(r"^(?![으]?로|에서?)[^.;。\n]{0,12}?(?:없음|없다|없어|없습니다|삭제|제거|폐기|중단|해지|"
                      r"안 씀|안 쓴|안 함|않|빠짐|뺐|옮겼|떠났|그만)")
_DIGIT = re.compile(r"\d")
_SENTENCE = re.compile(r"(?:^|[.!?;]\s+|\n)[\s`'\"(]*")
_PARTS = re.compile(r"[/,]")
# a word that can say a name is gone; without one, no name is looked at for it
_TRIGGER = re.compile(r"\b(?:no|not|never|without|instead|rather|replace|remove|drop|delete|ditch|retire|"
                      r"away|gone|closed|deprecated|ignored|decommissioned|shut|turned off|longer)"
                      r"|n't|없|삭제|제거|폐기|중단|해지|안 |않|빠짐|뺐|옮겼|떠났|그만")
_COMMON = frozenset(_split(""" a an the is are was were be been to of in on at for and or with by as from into
it its this that we our you i they he she his her all any each every no not only also just so then
than now new old one two use uses used run runs via per if when after before until up down out
over"""))


class Slots(Value):
    """What one text sets."""

    __slots__ = ("gone", "names", "values", "weekdays")

    def __init__(self, values: frozenset[tuple[str, float]], names: frozenset[str],
                 gone: frozenset[str], weekdays: frozenset[int]) -> None:
        self.values = values  # (kind, value in the kind's base unit)
        self.names = names  # casefolded names mentioned
        self.gone = gone  # those of `names` it says are gone / not used
        self.weekdays = weekdays  # 0 = Monday


def _hangul(s: str) -> bool:
    return any("\uac00" <= c <= "\ud7a3" for c in s)


def may_say_gone(text: str) -> bool:
    """Whether `text` has a word that can say a name is gone (no name of it is, without)."""
    return _TRIGGER.search(text.casefold()) is not None


def read(text: str) -> Slots:
    text = unicodedata.normalize("NFKC", text)
    low = text.casefold()
    values = _values(low) if _DIGIT.search(low) else set()
    weekdays = frozenset(WEEKDAYS[m.group(1) or m.group(2) + "요일"] for m in _WEEKDAY_WORD.finditer(low)
                         ) if ("day" in low or "요일" in low) else frozenset()
    names: set[str] = set()
    gone: set[str] = set()
    korean = _hangul(text)
    maybe_gone = _TRIGGER.search(low) is not None  # most texts say nothing is gone
    starts = {m.end() for m in _SENTENCE.finditer(text)}
    spans = [m.span() for m in _CODE.finditer(text)] if "`" in text else []
    for m in _NAME.finditer(text):
        word = m.group(0)
        lw = word.casefold()
        if lw in _COMMON or len(lw) < 2:
            continue
        start = m.start()
        looks = (korean or any(c in word for c in "-_./@+") or not word[1:].islower()
                 or (word[0].isupper() and start not in starts) or any(s <= start < e for s, e in spans))
        if not looks:
            continue
        # a path or a pair written as one ("page/per_page"): the whole and each part
        parts = {lw, *(p for p in _PARTS.split(lw) if len(p) > 1 and p not in _COMMON)} if (
            "/" in lw or "," in lw) else {lw}
        names |= parts
        if not maybe_gone:
            continue
        before, after = text[max(0, start - 25):start], text[m.end():m.end() + 40]
        if _GONE_BEFORE.search(before) or (not korean and _GONE_AFTER.search(after)) or (
                korean and _GONE_KO.search(after)):
            gone |= parts
    return Slots(frozenset(values), frozenset(names), frozenset(gone), weekdays)


def _values(low: str) -> set[tuple[str, float]]:
    values: set[tuple[str, float]] = set()
    taken: list[tuple[int, int]] = []

    def free(s: int, e: int) -> bool:
        return all(e <= s2 or s >= e2 for s2, e2 in taken)

    for m in _CLOCK.finditer(low) if (":" in low or "시" in low) else ():
        if m.group(1) is not None:
            h, mi = int(m.group(1)), int(m.group(2))
        else:
            h = int(m.group(4)) % 12 + (12 if m.group(3) in ("오후", "저녁", "밤") else 0)
            extra = m.group(5) or ""
            mi = 30 if extra == "반" else int(re.sub(r"\D", "", extra) or 0)
        values.add(("clock", h * 60 + mi))
        taken.append(m.span())
    for m in _CRON.finditer(low) if "*" in low else ():
        values.add(("clock", int(m.group(2)) * 60 + int(m.group(1))))
        taken.append(m.span())
    for m in _KEYED.finditer(low) if ("=" in low or ":" in low) else ():
        key = _KEY.search(low, max(0, m.start() - 40), m.start())
        if key is not None and free(*m.span(1)):
            values.add(("=" + key.group(1), float(m.group(1))))
            taken.append(m.span(1))
    for m in _PORT.finditer(low) if ("port" in low or ":" in low or "포트" in low or " on " in low) else ():
        group = 1 if m.group(1) is not None else 2
        if free(*m.span(group)):
            values.add(("port", float(m.group(group))))
            taken.append(m.span(group))
    for m in _VERSION.finditer(low):
        if free(*m.span(1)):
            values.add(("version", _version(m.group(1))))
            taken.append(m.span(1))
    for m in _NUMBER.finditer(low):
        if not free(*m.span(1)):
            continue
        num, unit, per = float(m.group(1)), (m.group(2) or ""), m.group(3)
        if unit and unit not in _UNITS and _hangul(unit):  # 60분으로 → 분
            for k in range(len(unit), 0, -1):
                if unit[:k] in _UNITS:
                    unit = unit[:k]
                    break
        kind, factor = _UNITS.get(unit, ("number", 1))
        if per:
            kind = f"{kind}/{per}"
        values.add((kind, num * factor))
        taken.append(m.span(1))
    return values


def _version(s: str) -> float:
    parts = [int(p) for p in s.split(".")][:3] + [0, 0]
    return parts[0] * 1e6 + parts[1] * 1e3 + parts[2]


def values_apart(a: Slots, b: Slots) -> list[tuple[str, list[float], list[float]]]:
    """Kinds both set, with no value in common: (kind, a's values, b's values)."""
    out = []
    kinds = {k for k, _ in a.values} & {k for k, _ in b.values}
    for kind in sorted(kinds):
        va = sorted(v for k, v in a.values if k == kind)
        vb = sorted(v for k, v in b.values if k == kind)
        if not set(va) & set(vb):
            out.append((kind, va, vb))
    if a.weekdays and b.weekdays and not a.weekdays & b.weekdays:
        out.append(("weekday", sorted(a.weekdays), sorted(b.weekdays)))
    return out


def show_value(kind: str):
    """How a value of `kind` is written back in evidence."""
    def show(v: float) -> str:
        if kind == "version":
            major, minor, patch = int(v // 1e6), int(v % 1e6 // 1e3), int(v % 1e3)
            return f"{major}.{minor}" + (f".{patch}" if patch else "")
        if kind == "clock":
            return f"{int(v) // 60:02d}:{int(v) % 60:02d}"
        if kind == "weekday":
            return ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")[int(v)]
        if kind.startswith("duration"):
            for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
                if v >= size and v % size == 0:
                    return f"{int(v // size)} {unit}"
            return f"{v:g} s"
        if kind.startswith("size"):
            for unit, size in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
                if v >= size:
                    return f"{v / size:g} {unit}"
        return f"{v:g}"
    return show
