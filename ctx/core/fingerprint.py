"""What a memory says, reduced to something two memories can be compared by — stdlib only,
cheap enough for the Stop hook (SPEC §2.10: duplicates and contradictions from the text
itself, no model, no network).

- `normal_hash(text)`: the same words in the same order, whatever the case, punctuation or
  spacing — an exact duplicate.
- `analyse(text)`: the text's *content tokens* (stop words out, plural/tense endings off,
  a few synonyms folded: database → db), which of them are values (numbers, versions,
  dates), whether it is negated, whether it says it is done or replaces something.
- `bands(tokens)`: MinHash LSH keys over the content tokens with every value replaced by
  `#`, so "port 5432" and "port 6543" land in the same bucket. The store keeps them per
  node (ctx.core.store); a write looks up its bands to find the few nodes worth comparing.
- `relation(a, b)`: what two analysed texts are to each other — the same fact restated
  (`duplicate`), the same subject with another value (`contradiction`: a port, a version, a
  tool, a reversed decision), or two facts (`None`): "staging DB port 5432" and "production
  DB port 5432" share every word but the one that says which database.

The rules are the ones measured on bench/doctor_devset.py (precision/recall per kind).
"""
from __future__ import annotations

import hashlib
import re
import unicodedata
import zlib
from functools import lru_cache

from cuectx.value import Value

FINGERPRINT_VERSION = 1
_TOKEN = re.compile(r"[^\W_]+(?:[._\-][^\W_]+)*")
# Compiled on first use (re caches them): a Hangul class takes ~1 ms to compile, and a Stop
# hook that stores an English memory without numbers needs neither.
_VALUE = r"v?\d+(?:[.:\-]\d+)*(?:[a-z%]{0,7}|[\uac00-\ud7a3]{1,2})$"  # 30s, 7701번
_HANGUL = r"[\uac00-\ud7a3]"
_LATIN = re.compile(r"[a-z]")


def _has_hangul(text: str) -> bool:
    return not text.isascii() and re.search(_HANGUL, text) is not None

def _words(text: str) -> list[str]:
    return text.split()


STOP = frozenset(_words("""
a an the is are was were be been being am to of in on at for and or with by as from into onto
it its this that these those there here we our us you your i me my they them their he she his her
should will would shall can could may might must do does did has have had having
now also just so then than too very all any each some such only same other
which what who whom whose when where why how about over under again further once
please note fyi currently today still yet already
"""))
NEGATIONS = frozenset(_words("""
not no never dont don't doesnt doesn't isnt isn't wont won't shouldnt shouldn't cannot cant can't
without avoid stop stopped disable disabled forbid forbidden drop dropped removed
않는다 않습니다 않는 않음 않기로 않기 안 말 말고 금지 중단 폐기
"""))
ANTONYMS = {"enable": "disable", "enabled": "disabled", "on": "off", "true": "false",
            "yes": "no", "allow": "forbid", "allowed": "forbidden", "sync": "async",
            "always": "never", "required": "optional"}
# Words that name *which* thing a fact is about: two texts differing only in these are two
# facts (staging vs production), never a restatement or a changed value.
QUALIFIERS = frozenset(_words("""
staging stage prod production dev development test testing qa uat local ci preview sandbox demo
frontend front backend back client server api web mobile ios android desktop cli
primary replica secondary master main read write reader writer
internal external public private admin user users customer customers
input output source target upstream downstream
east west north south eu us asia
monday tuesday wednesday thursday friday saturday sunday
unit integration e2e smoke load
linux macos windows mac
old new legacy
""")) | frozenset(_words("스테이징 운영 프로덕션 개발 테스트 로컬 프론트엔드 백엔드 클라이언트 서버"))
# The qualifiers by kind. Two texts are about two things when they name two qualifiers of one
# kind that exclude each other (staging vs prod, iOS vs Android, primary vs replica); a
# qualifier one side lacks, or one of another kind ("web" beside "server"), is wording. A word
# is a qualifier only as itself ("staged" is no "staging"); each names its kind's canonical
# word (production → prod, 개발 → dev).
QUALIFIER_KINDS = {
    "environment": ("staging stage=staging prod production=prod dev development=dev test "
                    "testing=test qa uat local ci preview sandbox demo "
                    "스테이징=staging 운영=prod 프로덕션=prod 개발=dev 테스트=test 로컬=local"),
    "side": "frontend backend 프론트엔드=frontend 백엔드=backend",
    "end": "client server 클라이언트=client 서버=server",
    "platform": "ios android web desktop mobile",
    "role": "primary replica secondary=replica master=primary",
    "access": "read write reader=read writer=write",
    # who it is for: internal vs public, partner vs public, admin vs user…
    "audience": ("internal external public private partner partners=partner admin user "
                 "users=user customer=user customers=user"),
    "direction": "input output",
    "flow": "source target upstream=source downstream=target",
    "region": "east west north south eu asia",
    "day": "monday tuesday wednesday thursday friday saturday sunday",
    "suite": "unit integration e2e smoke",
    "os": "linux macos mac=macos windows",
    "age": "old legacy=old new",
}
# Qualifiers of one kind that do not exclude each other (an iOS app is a mobile app).
QUALIFIERS_COMPATIBLE = frozenset(frozenset(p.split()) for p in (
    "mobile ios", "mobile android", "internal private", "internal admin", "external public",
    "external partner", "external user", "public user", "private admin"))
QUALIFIER = {}  # word as written → (kind, canonical word)
for _kind, _words_of_kind in QUALIFIER_KINDS.items():
    for _w in _words_of_kind.split():
        _word, _, _canon = _w.partition("=")
        QUALIFIER[_word] = (_kind, _canon or _word)


def exclusive_qualifiers(a: frozenset, b: frozenset) -> list[tuple[str, str, str]]:
    """(kind, a's, b's) for each qualifier of `a` that excludes one of `b` — of the same kind,
    named on one side only, and not compatible (`Text.qualifiers` are (kind, word) pairs)."""
    only_a, only_b = a - b, b - a
    return [(ka, wa, wb) for ka, wa in sorted(only_a) for kb, wb in sorted(only_b)
            if ka == kb and frozenset({wa, wb}) not in QUALIFIERS_COMPATIBLE]


SYNONYMS = {
    "database": "db", "databases": "db", "postgresql": "postgres", "psql": "postgres",
    "repository": "repo", "repositories": "repo", "configuration": "config", "cfg": "config",
    "directory": "dir", "folder": "dir", "javascript": "js", "typescript": "ts",
    "kubernetes": "k8s", "production": "prod", "development": "dev", "environment": "env",
    "uses": "use", "using": "use", "used": "use", "utilize": "use", "utilise": "use",
    "employ": "use", "rely": "use", "relies": "use",
    "runs": "run", "running": "run", "ran": "run", "listens": "listen", "listening": "listen",
    "serves": "listen", "served": "listen", "serving": "listen", "binds": "listen",
    "seconds": "second", "secs": "second", "sec": "second", "minutes": "minute",
    "mins": "minute", "min": "minute", "ms": "millisecond", "milliseconds": "millisecond",
    "tests": "test", "testing": "test", "tested": "test",
    "deployment": "deploy", "deployments": "deploy", "deploys": "deploy", "deployed": "deploy",
    "deploying": "deploy", "release": "release", "releases": "release",
    "chose": "choose", "chosen": "choose", "picked": "choose", "pick": "choose",
    "selected": "choose", "select": "choose", "decided": "decide", "decision": "decide",
    "switched": "migrate", "switching": "migrate", "switch": "migrate", "moved": "migrate",
    "move": "migrate", "migrated": "migrate", "migrating": "migrate", "migration": "migrate",
    "upgraded": "upgrade", "upgrading": "upgrade", "upgrades": "upgrade",
    "adopted": "adopt", "adopting": "adopt", "prefer": "prefer", "preferred": "prefer",
    "preferring": "prefer", "prefers": "prefer", "standardized": "standardize",
    "standardised": "standardize", "standardise": "standardize",
    # Korean: the particle-free stems of a few verbs and nouns people write memory with
    "사용": "use", "사용한다": "use", "사용합니다": "use", "쓴다": "use", "씁니다": "use",
    "데이터베이스": "db", "디비": "db", "포트": "port", "버전": "version", "배포": "deploy",
}
# Words that change how a fact is said, not what it is about: two texts that differ only in
# these (and in words one of them adds) can be the same fact. Any other differing word on
# both sides — auth vs billing, staging vs production — makes them two facts.
_SOFT_WORDS = _words("""
run listen serve bind expose use work live sit set configure config default write store keep
go need make put have get show call point available reachable found located hosted host
always usually normally generally typically currently actually really basically
note reminder remember important fyi tip info heads up remark
team project code repo our app system setup stuff thing way
should must need want try prefer like please
via through over using with on at by
fast quick simple new latest
""")
USE_VERBS = frozenset({"use", "switch", "migrate", "adopt", "choose", "prefer", "standardize",
                       "run", "replace", "go", "via", "through", "is", "be", "with", "=",
                       "채택", "전환", "도입", "선택"})
DONE_WORDS = frozenset(_words("""
done finished complete completed shipped merged resolved fixed closed landed delivered
완료 완료됨 완료했다 완료했습니다 끝 끝났다 끝냄 해결 해결됨
"""))
REPLACE_PHRASES = ("instead of", "rather than", "replaces", "replaced", "supersedes",
                   "superseded", "no longer", "is outdated", "is obsolete", "deprecated",
                   "correction:", "대신", "대체", "더 이상")
_KO_ENDINGS = ("에서는", "으로는", "에서", "으로", "에는", "이다", "입니다", "합니다", "한다",
               "했다", "하다", "하기로", "하기", "하고", "하는", "은", "는", "이", "가", "을",
               "를", "에", "의", "로", "와", "과", "도", "만", "로는")


SOFT = frozenset()  # filled below, once _stem exists


def normalise(text: str) -> str:
    """NFKC, case-folded, every run of punctuation or space one space."""
    return " ".join(_TOKEN.findall(unicodedata.normalize("NFKC", text).casefold()))


def normal_hash(text: str) -> str:
    return hashlib.sha1(normalise(text).encode("utf-8")).hexdigest()[:20]


def _stem(word: str) -> str:
    word = SYNONYMS.get(word, word)
    if _has_hangul(word):
        for end in _KO_ENDINGS:
            if word.endswith(end) and len(word) > len(end):
                word = word[: -len(end)]
                break
        word = SYNONYMS.get(word, word)
        if _has_hangul(word):
            return word
    if not word.isalpha() or len(word) < 4:
        return word
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and not word.endswith("ss") and len(word) - len(suffix) >= 2:
            word = word[: -len(suffix)]
            break
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    return word


SOFT = frozenset(_stem(w) for w in _SOFT_WORDS) | frozenset(_SOFT_WORDS)


def is_value(token: str) -> bool:
    head = token[1:2] if token[:1] == "v" else token[:1]  # a value starts `v?\d`: most words don't
    return head.isdigit() and re.match(_VALUE, token) is not None


def value_key(token: str) -> str:
    """A value without its unit or its `v`: 30s → 30, v3.12 → 3.12."""
    return re.sub(r"(?:[a-z%]+|[\uac00-\ud7a3]+)$", "", token.removeprefix("v"))


class Text(Value):
    """One memory, analysed: the content tokens in order and as a set, and its markers."""

    __slots__ = ("done", "hangul", "hard", "latin", "negated", "qualifiers", "replaces",
                 "sequence", "tokens", "values")

    def __init__(self, sequence: tuple[str, ...], tokens: frozenset[str], values: frozenset[str],
                 negated: bool, done: bool, replaces: bool, latin: frozenset[str] = frozenset(),
                 hangul: bool = False, hard: frozenset[str] = frozenset(),
                 qualifiers: frozenset[tuple[str, str]] = frozenset()) -> None:
        self.sequence = sequence  # content tokens in order (values as written)
        self.tokens = tokens  # content tokens (values keyed: 30s → 30)
        self.values = values  # the value tokens among them
        self.negated = negated
        self.done = done
        self.replaces = replaces
        self.latin = latin  # Latin-script tokens (cross-lingual check)
        self.hangul = hangul
        # tokens that are more than wording or a value (not SOFT): lets `relation` settle most
        # unrelated pairs early
        self.hard = hard
        # (kind, canonical word) of each qualifier written as itself: ("environment", "prod")
        self.qualifiers = qualifiers

    @property
    def shape(self) -> frozenset[str]:
        """The tokens with every value as `#` (what the LSH bands are made of)."""
        return frozenset("#" if t in self.values else t for t in self.tokens)


_NEGATES, _DONE = object(), object()  # markers, not tokens
_READ: dict = {}  # word → its token, a marker, or None (a stop word): memories share words
_READ_MAX = 100_000


def _read(word: str):
    if word in NEGATIONS or word.endswith("n't"):
        token = _NEGATES
    elif word in DONE_WORDS:
        token = _DONE
    elif word in STOP:
        token = None
    elif is_value(word):
        token = value_key(word)
    else:
        stem = _stem(word)
        token = stem if stem and stem not in STOP else None
    _READ[word] = token
    return token


def analyse(text: str) -> Text:
    folded = unicodedata.normalize("NFKC", text).casefold()
    raw = _TOKEN.findall(folded)
    read = _READ
    if len(read) >= _READ_MAX:
        read.clear()
    marks = [read[w] if w in read else _read(w) for w in raw]
    if "longer" in raw:  # "no longer" negates; "longer" alone is a word
        marks = [_NEGATES if w == "longer" and i and raw[i - 1] == "no" else m
                 for i, (w, m) in enumerate(zip(raw, marks, strict=True))]
    negated = _NEGATES in marks
    done = _DONE in marks
    seq = [m for m in marks if m.__class__ is str]
    hangul = _has_hangul(folded)
    if hangul and any(w.startswith("않") or w.endswith("않는다") or w.startswith("안") and len(w) == 1
                      for w in raw):
        negated = True
    if "[x]" in folded or "✅" in folded:
        done = True
    tokens = frozenset(seq)
    values = frozenset(filter(is_value, tokens))
    # a qualifier as written, not as stemmed ("staged" and "staging" share the stem "stag");
    # a Korean one without its particle ("서버에서" → 서버)
    qualifiers = frozenset(QUALIFIER[w] for w in raw if w in QUALIFIER)
    if hangul:
        qualifiers |= {QUALIFIER[k] for k in (_stem(w) for w in raw if _has_hangul(w))
                       if k in QUALIFIER}
    return Text(
        sequence=tuple(seq), tokens=tokens, values=values, negated=negated, done=done,
        replaces=any(p in folded for p in REPLACE_PHRASES),
        latin=frozenset(t for t in tokens if t in values or _LATIN.search(t)),
        hangul=hangul, hard=tokens - values - SOFT, qualifiers=qualifiers)


@lru_cache(maxsize=4096)
def analyse_stored(text: str) -> Text:
    """`analyse` of a text already stored, remembered: a long-lived process (the hook server,
    the MCP server) checks each new memory against the same stored candidates again and
    again (a Text is immutable). A new text is analysed with `analyse`, once."""
    return analyse(text)


# ---------------------------------------------------------------------------- LSH bands

_BANDS, _ROWS = 8, 2
_P = (1 << 61) - 1
_COEFFS = [((i * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) % _P | 1,
            (i * 0xBF58476D1CE4E5B9 + 0x94D049BB133111EB) % _P) for i in range(_BANDS * _ROWS)]


def bands(text: Text) -> list[int]:
    """MinHash LSH keys (8 bands of 2 rows) over the text's shape; two texts with shape
    Jaccard 0.5 share a band with probability ~0.9, at 0.8 almost surely."""
    shape = text.shape or frozenset(text.sequence[:1]) or frozenset({""})
    hashes = [zlib.crc32(t.encode("utf-8")) for t in shape]
    mins = [min((a * h + b) % _P for h in hashes) for a, b in _COEFFS]
    out = []
    for band in range(_BANDS):
        key = f"{band}:{mins[band * _ROWS]}:{mins[band * _ROWS + 1]}".encode()
        out.append(int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "big", signed=True))
    return out


# ---------------------------------------------------------------------------- comparing

class Relation(Value):
    """What two analysed texts are to each other, how alike, and why we think so."""

    __slots__ = ("evidence", "kind", "score", "subkind")

    def __init__(self, kind: str, score: float, subkind: str, evidence: str) -> None:
        self.kind = kind  # "duplicate" | "contradiction"
        self.score = score  # how alike (0–1)
        self.subkind = subkind  # exact | near | restatement | value | version | port | tool | reversal
        self.evidence = evidence


def jaccard(a: frozenset, b: frozenset) -> float:
    return len(a & b) / len(a | b) if a or b else 1.0


def _subject_words(text: Text, diff: set[str]) -> bool:
    """True when a differing token names *which* thing (a qualifier or an identifier)."""
    return any(t in QUALIFIERS or (not is_value(t) and any(c.isdigit() for c in t))
               for t in diff)


def _in_choice_slot(text: Text, tokens: set[str]) -> set[str]:
    """Those of `tokens` that come right after a verb of choice ("use X", "switch to X"), or
    right before one in Korean ("X를 사용한다"); a two-word name counts whole."""
    seq = text.sequence
    out: set[str] = set()
    for i, t in enumerate(seq):
        if t not in tokens:
            continue
        before, after = seq[i - 1] if i else "", seq[i + 1] if i + 1 < len(seq) else ""
        if before in USE_VERBS or (text.hangul and after in USE_VERBS) or (
                before in out and i >= 2 and seq[i - 2] in USE_VERBS):
            out.add(t)
    return out


def covers_task(done: Text, task: Text) -> bool:
    """A done note is about this task: it repeats every word of the task that is more than
    wording, and its own other words are wording too (or names what was done)."""
    missing = task.tokens - done.tokens - SOFT
    return not missing and len(task.tokens & done.tokens) >= 2 and task.values <= done.values


def relation(a: Text, b: Text, *, near: float = 0.85, restated: float = 0.6) -> Relation | None:
    """What `b` is to `a`: a duplicate, a contradiction, or None (unrelated, or two facts)."""
    shared = a.tokens & b.tokens
    if not shared:
        return None
    jac = len(shared) / (len(a.tokens) + len(b.tokens) - len(shared))
    # Every relation below needs the two nearly the same (jac >= 0.75), or on one side at most
    # two differing words that are more than wording or a value. `ctx doctor` compares
    # thousands of long texts that share a few common words: they are settled here, before
    # the rest of the sets are built.
    # (`hard` is tokens - values - SOFT; a Text made without it is only compared the long way.)
    if (jac < 0.75 and len(a.tokens) - len(shared) > 2 and len(b.tokens) - len(shared) > 2
            and len(a.hard - b.tokens) > 2 and len(b.hard - a.tokens) > 2):
        return None
    only_a, only_b = set(a.tokens - b.tokens), set(b.tokens - a.tokens)
    overlap = len(shared) / (min(len(a.tokens), len(b.tokens)) or 1)
    # Reversed decision: the same words, one of them negated (or an antonym swapped in).
    if a.negated != b.negated and not only_a and not only_b and len(shared) >= 2:
        return Relation("contradiction", jac, "reversal", "the same statement, one negated")
    if a.negated != b.negated and jac >= 0.75 and len(shared) >= 3 and not (
            _subject_words(a, only_a) or _subject_words(b, only_b)):
        return Relation("contradiction", jac, "reversal", "nearly the same statement, one negated")
    if len(only_a) == len(only_b) == 1 and len(shared) >= 2:  # one word swapped for its antonym
        (x,), (y,) = only_a, only_b
        if ANTONYMS.get(x) == y or ANTONYMS.get(y) == x:
            return Relation("contradiction", jac, "reversal", f"{x} vs {y}")
    if a.negated != b.negated:
        return None
    vals_a, vals_b = {t for t in only_a if t in a.values}, {t for t in only_b if t in b.values}
    words_a, words_b = only_a - vals_a, only_b - vals_b
    # The same subject with another value: every differing token is a value (or a word that
    # only changes how it is said: "listens on" / "runs on").
    if (vals_a and vals_b and not words_a - SOFT and not words_b - SOFT
            and len(shared - a.values) >= 2):
        kind = "port" if "port" in shared else "version" if (
            "version" in shared or any("." in v for v in vals_a | vals_b)) else "value"
        return Relation("contradiction", jac, kind,
                        f"{', '.join(sorted(vals_a))} vs {', '.join(sorted(vals_b))}")
    # The same subject with another tool: every differing word that is more than wording
    # sits where a choice is named (right after "use", "switch to", …).
    # (Sizes first: a pair of long texts sharing a few words differs in many, and reading
    # their sequences for choice slots was most of `ctx doctor`'s time on such a store.)
    hard_a, hard_b = words_a - SOFT, words_b - SOFT
    if (0 < len(hard_a) <= 2 and 0 < len(hard_b) <= 2 and not vals_a and not vals_b
            and len(shared) >= 2 and not (hard_a & QUALIFIERS or hard_b & QUALIFIERS)
            and _in_choice_slot(a, hard_a) == hard_a and _in_choice_slot(b, hard_b) == hard_b):
        return Relation("contradiction", jac, "tool",
                        f"{' '.join(sorted(hard_a))} vs {' '.join(sorted(hard_b))}")
    # Otherwise differing values, or a word on each side that is not just wording, make
    # them two facts (auth service vs billing service).
    if vals_a or vals_b or (only_a and only_b and (only_a - SOFT or only_b - SOFT)):
        return None
    if a.tokens == b.tokens:
        return Relation("duplicate", 1.0, "near", "the same words")
    if jac >= near:
        return Relation("duplicate", jac, "near", f"{jac:.0%} of the words shared")
    # One says more than the other (a restatement with detail): count the overlap too.
    score = max(jac, 0.5 * (jac + overlap)) if (not only_a or not only_b) else jac
    if score >= restated and len(shared) >= 2:
        return Relation("duplicate", score, "restatement", f"{score:.0%} of the words shared")
    return None


def cross_lingual_compatible(a: Text, b: Text) -> bool:
    """For a pair found by vectors only: no value or Latin-script name in one that the other
    lacks (where one of them is Korean), and the same values otherwise."""
    if a.values != b.values:
        return False
    if a.hangul != b.hangul:
        ko, other = (a, b) if a.hangul else (b, a)
        return ko.latin <= other.tokens | other.latin
    return True


# ---------------------------------------------------------------------------- the tables
# node_fingerprints and node_bands (migration 8) are written here and nowhere else; the
# store calls write_fingerprints on every insert and content change, and a node's rows go
# with it (ON DELETE CASCADE).

def write_fingerprints(conn, rows) -> None:
    """(node id, content) pairs → their hash and bands, replacing what was there."""
    rows = list(rows)
    if not rows:
        return
    fps, bnds = [], []
    for node_id, content in rows:
        fps.append((node_id, normal_hash(content), FINGERPRINT_VERSION))
        bnds += [(b, node_id) for b in dict.fromkeys(bands(analyse(content)))]
    ids = [(r[0],) for r in rows]
    conn.executemany("DELETE FROM node_bands WHERE node_id = ?", ids)
    conn.executemany("INSERT OR REPLACE INTO node_fingerprints (node_id, normal_hash, version) "
                     "VALUES (?, ?, ?)", fps)
    conn.executemany("INSERT OR IGNORE INTO node_bands (band, node_id) VALUES (?, ?)", bnds)


def band_hits(conn, text: Text, *, per_band: int = 100) -> dict[str, int]:
    """Node id → how many of `text`'s bands it shares (live or not; the store filters). Each
    band is read up to `per_band` rows, so a band thousands of templated memories share costs
    no more than a rare one."""
    hits: dict[str, int] = {}
    for band in dict.fromkeys(bands(text)):
        for (node_id,) in conn.execute("SELECT node_id FROM node_bands WHERE band = ? LIMIT ?",
                                       (band, per_band)):
            hits[node_id] = hits.get(node_id, 0) + 1
    return hits
