"""One detector for credentials in text: API keys and tokens, JWTs, private key blocks,
passwords in URLs, `password=`-style assignments and Authorization headers.

ctx guards every memory it writes with it (ctx/guard.py applies the CTX_SECRETS policy);
cue's Presidio recognizers wrap it (cue/pii/recognizers.py), so there is one copy of the
patterns. Stdlib only and cheap to import: a rule's regex is compiled the first time a text
holds one of its anchors (a literal like "ghp_" or "://"), so a Stop hook whose memories
hold no credential compiles almost nothing.

    find("deploy with ghp_…36 characters…")  ->  [Finding("github-token", 12, 52)]
    redact("deploy with ghp_…")                ->  "deploy with [SECRET:github-token]"
    find("OPENAI_API_KEY=sk-...")              ->  []   (a placeholder)

A finding is (kind, start, end) — never the value, so nothing downstream can log it.
Checks beyond the shape where they apply: GitHub and npm tokens carry a CRC32 checksum (a
valid one is proof, whatever the token looks like); a JWT's header must decode to JSON
with "alg"; a Basic credential must decode to user:password; values found by their label
(`password=`, `token:`) or by shape alone (an AWS secret key) must look random (Shannon
entropy, character classes) and must not be a placeholder (`sk-...`, `your-key-here`,
`xxxx`, `<token>`, `${VAR}`, `****`, an env var's NAME).

`strict=True` (cue's scrubber, which errs toward removing) reports prefixed tokens even
when they look like placeholders or have little entropy.
"""
from __future__ import annotations

import itertools
import json
import math
import re
from collections.abc import Callable

from cuectx.value import Value

REPLACEMENT = "[SECRET:{kind}]"


class Finding(Value):
    """A secret in a text: its kind and where it is, never its value."""

    __slots__ = ("end", "kind", "start")

    def __init__(self, kind: str, start: int, end: int) -> None:
        self.kind = kind  # e.g. "github-token", "private-key", "password"
        self.start = start
        self.end = end


# ------------------------------------------------------------------------------ values

_B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_PLACEHOLDER_PARTS = ("example", "your", "placeholder", "redacted", "changeme", "change_me",
                      "change-me", "dummy", "sample", "xxxx", "****", "...", "…", "${", "{{",
                      "[secret", "insert", "replace_me", "replace-me", "todo", "fixme",
                      "process.env", "environ", "getenv", "env.", "env[", "env(", "00000000",
                      "12345678", "abcdefgh", "foobar")
# A reference to a value, not a value: $VAR, ${VAR}, $(cmd), %VAR%, %(name)s, {name}, <token>,
# [SECRET:kind], a function call get_password().
_REFERENCE = (r"\$[A-Za-z_][A-Za-z0-9_]*|\$\([^)]*\)|%[A-Za-z_][A-Za-z0-9_]*%|%\([A-Za-z_]\w*\)[sd]?"
              r"|\{[A-Za-z_.][\w.]*\}|<[A-Za-z][\w .\-]*>|\[[A-Za-z][\w .:\-]*\]|[A-Za-z_][\w.]*\(.*\)")
# Keys their providers publish in the docs for everyone to use (Stripe's demo account):
# credentials by shape, but no secret.
PUBLISHED = frozenset({"sk_test_4eC39HqLyjWDarjtT1zdp7dc", "sk_test_BQokikJOvBiI2HlWgH4olfQ2",
                       "sk_test_26PHem9AhJZvU623DfE1x4sd", "pk_test_TYooMQauvdEDq54NiTphI7jx",
                       "pk_test_6pRNASCoBOKtIshFeQd4XMUh"})
_NOT_VALUES = {"none", "null", "nil", "true", "false", "undefined", "required", "optional",
               "str", "string", "hidden", "secret", "password", "token", "env", "tbd", "n/a",
               "empty", "unset", "masked"}


def entropy(s: str) -> float:
    """Shannon entropy in bits per character."""
    if not s:
        return 0.0
    n = len(s)
    counts: dict[str, int] = {}
    for ch in s:
        counts[ch] = counts.get(ch, 0) + 1
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def _classes(s: str) -> int:
    return (any(c.islower() for c in s) + any(c.isupper() for c in s)
            + any(c.isdigit() for c in s) + any(not c.isalnum() for c in s))


def is_placeholder(value: str) -> bool:
    """`sk-...`, `your-key-here`, `xxxx`, `<token>`, `${VAR}`, `$VAR`, `****`, `sk-…abcd`,
    an env var's NAME (`GITHUB_TOKEN`), an already redacted `[SECRET:…]`."""
    low = value.lower()
    if any(p in low for p in _PLACEHOLDER_PARTS) or value in PUBLISHED:
        return True
    if value[:1] == "!" and value[1:].isalpha():  # a YAML tag: `password: !vault |`
        return True
    if low in _NOT_VALUES or (value[:1] in "$%{<[" or value.endswith(")")) and re.match(
            rf"(?:{_REFERENCE})$", value):
        return True
    if "<" in value and re.search(r"<[A-Za-z][\w .\-]*>", value):  # sk_live_<your key>
        return True
    if "_" in value and value[0].isalpha() and (  # an env var's NAME, or snake_case words
            all(c.isupper() or c.isdigit() or c == "_" for c in value)
            or all(c.islower() or c == "_" for c in value)):
        return True
    # one character making up most of it: aaaaaaaa, 0000-0000
    return max(value.count(c) for c in set(value)) * 2 > len(value)


def looks_random(value: str, *, min_len: int = 16, min_entropy: float = 3.3,
                 mixed: bool = True) -> bool:
    """A token-ish value: long enough, letters and digits (unless not `mixed`), high
    entropy, no placeholder."""
    if len(value) < min_len or is_placeholder(value):
        return False
    has_digit = any(c.isdigit() for c in value)
    has_alpha = any(c.isalpha() for c in value)
    if mixed and not (has_digit and has_alpha) and not (_classes(value) >= 3 and len(value) >= 20):
        return False
    return entropy(value) >= min_entropy


def _is_uuid(value: str) -> bool:
    parts = value.split("-")
    return [len(p) for p in parts] == [8, 4, 4, 4, 12] and all(
        c in "0123456789abcdefABCDEF" for p in parts for c in p)


_VERSION = r"v?\d+(?:\.\d+){1,3}(?:[-+.][0-9A-Za-z.]+)?"


def _crc32_ok(body: str) -> bool:
    """GitHub/npm tokens: 30 random base62 characters, then their CRC32 in 6 base62 digits."""
    if len(body) != 36:
        return False
    import zlib

    n = zlib.crc32(body[:30].encode())
    digits = ""
    while n:
        n, r = divmod(n, 62)
        digits = _B62[r] + digits
    return body[30:] == digits.rjust(6, "0")


# ------------------------------------------------------------------------------ rules

class _Rule:
    """One pattern. `anchors`: literals, one of which the text must hold (none: always run;
    `anycase`: lower-case ones, matched in the lower-cased text); `gate(text, low)`: a cheap
    check before the regex compiles; `group`: the secret's span; `check(match, strict)`:
    keep it?; `priority`: lower wins an overlap. The regex compiles on first use, so a text
    without anchors costs no compile (what keeps the Stop hook's guard ≲ 2 ms)."""

    __slots__ = ("anchors", "anycase", "check", "flags", "gate", "group", "kind", "pattern",
                 "priority", "regex")

    def __init__(self, kind: str, anchors: tuple[str, ...], pattern: str, flags: int = 0,
                 group: str | int = 0, check: Callable[[re.Match, bool], bool] | None = None,
                 priority: int = 0, anycase: bool = False,
                 gate: Callable[[str, str], bool] | None = None):
        self.kind, self.anchors, self.pattern, self.flags = kind, anchors, pattern, flags
        self.group, self.check, self.priority = group, check, priority
        self.anycase, self.gate = anycase, gate  # anchors in lower case / a cheap pre-check
        self.regex: re.Pattern | None = None

    def compiled(self) -> re.Pattern:
        if self.regex is None:
            self.regex = re.compile(self.pattern, self.flags)
        return self.regex


_L = r"(?<![A-Za-z0-9_\-])"  # not inside a longer word
_R = r"(?![A-Za-z0-9])"


def _random_group(group: str | int = 0, **kw) -> Callable[[re.Match, bool], bool]:
    def check(m: re.Match, strict: bool) -> bool:
        return strict or looks_random(m[group], **kw)
    return check


def _checksummed(m: re.Match, strict: bool) -> bool:
    return strict or _crc32_ok(m["body"]) or looks_random(m["body"], min_entropy=3.5)


def _aws_id(m: re.Match, strict: bool) -> bool:
    value = m[0]
    return strict or ("EXAMPLE" not in value and not is_placeholder(value[4:]))


def _jwt(m: re.Match, strict: bool) -> bool:
    import base64
    import binascii

    head = m["head"]
    try:
        data = json.loads(base64.urlsafe_b64decode(head + "=" * (-len(head) % 4)))
    except (ValueError, binascii.Error, UnicodeDecodeError):
        return False
    return isinstance(data, dict) and ("alg" in data or "typ" in data or "enc" in data)


# localhost, and the names reserved for documentation (RFC 2606): never a real server's password
_LOCAL_HOSTS = (r"(?:localhost|127(?:\.\d{1,3}){3}|0\.0\.0\.0|\[?::1\]?|"
                r"[a-z0-9.-]+\.(?:localhost|test|example|invalid)|example\.(?:com|org|net))$")
_GENERIC_USERS = {"git", "anonymous", "ftp", "guest", "hg", "svn", "user", "username", "root",
                  "admin", "postgres", "oauth2", "x-access-token", "token", "x-token-auth"}
_DB_SCHEMES = {"postgres", "postgresql", "mysql", "mariadb", "mongodb", "mongodb+srv", "redis",
               "rediss", "amqp", "amqps", "mssql", "sqlserver", "oracle", "cockroachdb",
               "clickhouse", "couchdb", "neo4j", "neo4j+s", "cassandra", "memcached",
               "elasticsearch", "snowflake", "db2", "timescale"}


def _url_secret(m: re.Match, strict: bool) -> bool:
    host = m["host"]
    if re.match(_LOCAL_HOSTS, host.lower()) and not strict:
        return False
    pw = m["pw"]
    if pw is not None:
        return bool(pw) and (strict or not (is_placeholder(pw) or pw.lower() in
                                            {"pass", "pwd", "passwd", "secret", "password"}))
    user = m["user"]  # user info without a password: a secret only when it is a token
    if not user:
        return False
    return user.lower() not in _GENERIC_USERS and looks_random(user, min_len=20, min_entropy=3.5)


def _url_kind(m: re.Match) -> str:
    scheme = m["scheme"].lower().removeprefix("jdbc:")  # mongodb+srv, postgresql+psycopg
    if scheme in _DB_SCHEMES or scheme.split("+")[0] in _DB_SCHEMES:
        return "database-password"
    return "url-password" if m["pw"] is not None else "url-credentials"


def _basic(m: re.Match, strict: bool) -> bool:
    import base64
    import binascii

    value = m["cred"]
    if m["scheme"] is None:  # `Authorization: <token>`: no scheme, so it must look random
        return strict or looks_random(value, min_len=20, min_entropy=3.5)
    if m["scheme"].lower() != "basic":
        return strict or (not is_placeholder(value) and len(value) >= 12 and entropy(value) >= 3.0
                          and any(c.isdigit() for c in value) + any(c.isupper() for c in value)
                          + any(c.islower() for c in value) >= 2)
    try:
        raw = base64.b64decode(value + "=" * (-len(value) % 4), validate=True).decode()
    except (ValueError, binascii.Error, UnicodeDecodeError):
        return False
    user, sep, pw = raw.partition(":")
    return bool(sep and user and pw) and raw.isprintable() and (strict or not is_placeholder(pw))


def _loose_basic(m: re.Match, strict: bool) -> bool:
    """`basic auth header value dXNlcjpwYXNz…`: no header name, so it must decode to user:pass."""
    import base64
    import binascii

    value = m["cred"]
    try:
        raw = base64.b64decode(value + "=" * (-len(value) % 4), validate=True).decode()
    except (ValueError, binascii.Error, UnicodeDecodeError):
        return False
    user, sep, pw = raw.partition(":")
    return bool(sep and user and len(pw) >= 4) and raw.isprintable() and " " not in raw and (
        strict or not is_placeholder(pw))


def _cli_secret(m: re.Match, strict: bool) -> bool:
    """`--password hunter22`, `--api-key=…`, `curl -u admin:S3cret`."""
    if m["pw"] is not None:
        pw = m["pw"]
        return len(pw) >= 4 and (strict or not (is_placeholder(pw) or pw.lower() in _NOT_VALUES))
    if m["v"].startswith("-"):
        return False
    return _assignment({"label": m["label"], "v": m["v"], "is": None}, strict)  # type: ignore[arg-type]


def _bare_bearer(m: re.Match, strict: bool) -> bool:
    return strict or looks_random(m["cred"], min_len=20, min_entropy=3.5)


def _aws_secret(m: re.Match, strict: bool) -> bool:
    v = m["v"]
    if "=" in v or not (any(c.isupper() for c in v) and any(c.islower() for c in v)
                        and any(c.isdigit() for c in v)):
        return False
    if re.fullmatch(r"[0-9a-fA-F]+|[A-Za-z]+/[A-Za-z/]+", v):
        return False
    return not is_placeholder(v) and entropy(v) >= 4.2


# `password = …`, `"api_key": "…"`, `DB_PASSWORD=…`, `the token is …`
# The credential label vocabulary, one list for both programs (cue's scrubber builds its
# key=value recognizer from these and adds its privacy-only keys: cookies, signatures, session
# ids). A label names a credential when one of its words is a password or secret word, or
# two neighbouring words are a pair below — and its last word is not one of NOT_A_VALUE_WORDS
# (`password_file`, `max_tokens`, `token_budget` name a property of one).
PASSWORD_WORDS = frozenset({"password", "passwd", "passphrase", "pwd", "pass"})
SECRET_WORDS = frozenset({"secret", "token", "apikey", "credential", "credentials", "accountkey", "auth"})
SECRET_WORD_PAIRS = frozenset({
    ("api", "key"), ("access", "key"), ("auth", "key"), ("private", "key"), ("secret", "key"),
    ("client", "secret"), ("access", "token"), ("auth", "token"), ("refresh", "token"), ("id", "token"),
    ("account", "key"), ("signing", "key"), ("master", "key"), ("encryption", "key"),
    ("webhook", "secret"), ("session", "token"), ("bot", "token"), ("app", "secret"),
    ("shared", "secret"), ("license", "key"), ("licence", "key"), ("unseal", "key"),
    ("recovery", "key")})
KOREAN_PASSWORD_WORDS = ("비밀번호", "패스워드", "비번", "암호")
KOREAN_TOKEN_WORDS = ("토큰",)
NOT_A_VALUE_WORDS = frozenset({
    "file", "path", "dir", "env", "length", "len", "count", "prompt", "policy", "min", "max", "reset",
    "field", "url", "type", "name", "limit", "expiry", "hash", "id", "ids", "header", "endpoint", "uri",
    "rotation", "ttl", "lifetime", "format", "mode", "scope", "scopes", "expires", "expiration",
    "usage", "size", "budget", "algorithm", "algo", "hasher", "hashers", "scheme", "stdin", "strength",
    "complexity", "rounds", "iterations", "cost", "version", "encoding", "validator", "validators",
    "regex", "pattern", "hint", "rate", "manager", "helper", "command", "cmd", "store", "policies",
    "requirements", "rules"})
_PASSWORD_WORDS, _SECRET_WORDS, _KEY_PAIRS = PASSWORD_WORDS, SECRET_WORDS, SECRET_WORD_PAIRS
_NOT_VALUE_WORDS = NOT_A_VALUE_WORDS
_KEY_WORDS = (r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
_KO_PASSWORD, _KO_TOKEN = KOREAN_PASSWORD_WORDS, KOREAN_TOKEN_WORDS


def _label_kind(label: str) -> str | None:
    """'password', 'token', 'api-key', 'secret' or None for a label like DB_PASSWORD or max_tokens."""
    if any(w in label for w in _KO_PASSWORD):  # Korean labels (ASCII-only word regex: cheap)
        return "password"
    if any(w in label for w in _KO_TOKEN):
        return "token"
    words = [w.lower() for w in re.findall(_KEY_WORDS, label)]
    if not words or words[-1] in _NOT_VALUE_WORDS:
        return None
    pairs = set(itertools.pairwise(words))
    if _PASSWORD_WORDS.intersection(words) or any(  # PGPASSWORD, MYSQLPASSWD
            w.endswith(("password", "passwd")) for w in words):
        return "password"
    if ("api", "key") in pairs or "apikey" in words:
        return "api-key"
    if "token" in words:
        return "token"
    if _SECRET_WORDS.intersection(words) or _KEY_PAIRS.intersection(pairs):
        return "secret"
    return None


def _uuid_label(label: str) -> bool:
    """A label whose last word names a key or token (HEROKU_API_KEY, SNYK_TOKEN, apiKey):
    a UUID behind it is that key. Not `AZURE_CLIENT_ID`, `key_id`, `idempotency key`."""
    words = [w.lower() for w in re.findall(_KEY_WORDS, label)]
    return len(words) >= 1 and words[-1] in {"key", "token", "secret", "apikey", "keys", "tokens"} \
        and _label_kind(label) is not None


def _assignment(m: re.Match, strict: bool) -> bool:
    kind = _label_kind(m["label"])
    value = m["v"].rstrip(".")
    if kind is None or len(value) < (6 if kind == "password" else 8) or is_placeholder(value):
        return False
    if _is_uuid(value):  # a request id, unless the label names a key: HEROKU_API_KEY=<uuid>
        return kind != "password" and _uuid_label(m["label"])
    if value.startswith(("pk_live_", "pk_test_")):  # Stripe's publishable keys are public
        return False
    if value.isdigit() or (value[0] in "vV0123456789"
                                               and re.fullmatch(_VERSION, value)):
        return False
    if value.startswith(("/", "./", "~", "http:", "https:", "file:")) or value.lower().startswith("bearer"):
        return False
    if m["is"]:  # "the token is …": prose, so the value must look like a credential
        return looks_random(value, min_len=12, min_entropy=3.2)
    if kind == "password":  # any real-looking password: a digit or a symbol in it, or long
        return (len(value) >= 12 or any(not c.isalpha() for c in value)) and \
            value.lower() not in _PROSE_VALUES
    return looks_random(value, min_len=16, min_entropy=3.3) or (
        len(value) >= 10 and _classes(value) >= 3 and entropy(value) >= 3.0)


_LABEL = r"[A-Za-z][A-Za-z0-9_.\-]{0,60}"
_LABEL_ANCHORS = ("pass", "pwd", "secret", "token", "key", "auth", "credential")
_KO_LABEL = r"[A-Za-z_]{0,20}(?:비밀번호|패스워드|비번|암호|토큰)"  # its own rule: Hangul ranges compile slowly
# Words after `password:` that describe it rather than being it.
_PROSE_VALUES = {"incorrect", "required", "optional", "disabled", "enabled", "expired", "changed",
                 "invalid", "missing", "protected", "reset", "rotated", "set", "unchanged",
                 "same-as-staging", "see-vault", "see-1password", "in-vault", "n/a"}


def _labelled_near(text: str, low: str) -> bool:
    """Cheap gate before the assignment regex compiles: some label word is followed, within
    a label's length, by `=`, `:` or " is "/" was "."""
    for anchor in _LABEL_ANCHORS + _KO_PASSWORD + _KO_TOKEN:
        i = low.find(anchor)
        while i != -1:
            tail = low[i:i + len(anchor) + 40]
            if any(op in tail for op in ("=", ":", " is ", " was ")):
                return True
            i = low.find(anchor, i + 1)
    return False
_VALUE_BARE = r"[^\s\"'`,;<>\[\]{}\\]{6,300}"
# after a label: the operator (or "is"/"was" in prose), then a quoted or bare value
_ASSIGNED = (r"[\"']?[ \t]*(?:(?P<op>:=|=>|=|:)|(?P<is>[ \t]+(?:is|was)))[ \t]*"
             r"(?:\"(?P<v1>[^\"\n]{6,300})\"|'(?P<v2>[^'\n]{6,300})'|`(?P<v3>[^`\n]{6,300})`"
             r"|(?P<v4>" + _VALUE_BARE + r"))")

_RULES: list[_Rule] = [
    # -- cloud and SaaS tokens, by prefix
    _Rule("aws-access-key-id", ("AKIA", "ASIA", "ABIA", "ACCA", "A3T", "AGPA", "AIDA", "AROA", "ANPA",
                                "ANVA", "AIPA"),
          _L + r"(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA|A3T[A-Z0-9])[0-9A-Z]{16}" + _R,
          check=_aws_id),
    _Rule("aws-secret-access-key", ("aws",),
          r"(?i:aws.{0,24}?secret.{0,24}?)[\"']?\s*(?:=|:|=>)\s*[\"']?(?P<v>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
          group="v", check=lambda m, s: s or not is_placeholder(m["v"]), anycase=True),
    _Rule("github-token", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
          _L + r"gh[pousr]_(?P<body>[A-Za-z0-9]{36,255})" + _R, check=_checksummed),
    _Rule("github-token", ("github_pat_",),
          _L + r"github_pat_[A-Za-z0-9_]{40,255}" + _R, check=_random_group(min_len=40)),
    _Rule("gitlab-token", ("glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "glsoat-", "glft-", "gloas-"),
          _L + r"gl(?:pat|dt|rt|ptt|cbt|soat|ft|oas)-[A-Za-z0-9_\-.]{20,}" + _R,
          check=_random_group(min_len=20, min_entropy=3.0)),
    _Rule("slack-token", ("xox", "xapp-"),
          _L + r"(?:xox[abposre]-[0-9A-Za-z\-]{10,}|xapp-\d-[A-Za-z0-9\-]{10,})" + _R,
          check=_random_group(min_len=15, min_entropy=3.0)),
    _Rule("slack-webhook", ("hooks.slack.com",),
          r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_\-]{20,}",
          check=lambda m, s: s or not is_placeholder(m[0].split("/", 4)[-1])),
    _Rule("stripe-key", ("sk_live_", "rk_live_", "sk_test_", "rk_test_", "whsec_"),
          _L + r"(?:(?:sk|rk)_(?:live|test)_|whsec_)[A-Za-z0-9]{16,}" + _R,
          check=_random_group(min_len=20, min_entropy=3.0)),
    _Rule("anthropic-key", ("sk-ant-",),
          _L + r"sk-ant-[a-z]+\d*-[A-Za-z0-9_\-]{20,}", check=_random_group(min_len=30)),
    _Rule("openai-key", ("sk-",),
          _L + r"sk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_\-]{20,}|" + _L
          + r"sk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}" + _R,
          check=_random_group(min_len=30), priority=1),
    _Rule("api-key", ("sk-",),  # other sk- keys: OpenAI legacy, DeepSeek, "sk-live-…"
          _L + r"sk-(?!ant-)[A-Za-z0-9][A-Za-z0-9_\-]{19,}" + _R,
          check=_random_group(min_len=23, min_entropy=3.3), priority=2),
    _Rule("google-api-key", ("AIza",), _L + r"AIza[0-9A-Za-z_\-]{35}" + _R,
          check=_random_group(min_len=39, min_entropy=3.0)),
    _Rule("google-oauth-token", ("ya29.", "GOCSPX-"),
          _L + r"(?:ya29\.[0-9A-Za-z_\-]{20,}|GOCSPX-[0-9A-Za-z_\-]{20,})",
          check=_random_group(min_len=24)),
    _Rule("npm-token", ("npm_",), _L + r"npm_(?P<body>[A-Za-z0-9]{36})" + _R, check=_checksummed),
    _Rule("pypi-token", ("pypi-",), _L + r"pypi-AgE[A-Za-z0-9_\-]{50,}",
          check=_random_group(min_len=50)),
    _Rule("twilio-api-key", ("SK",), _L + r"SK[0-9a-f]{32}" + _R, check=_random_group(min_entropy=3.0),
          priority=3),
    _Rule("sendgrid-key", ("SG.",), _L + r"SG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}" + _R,
          check=_random_group(min_len=60)),
    _Rule("huggingface-token", ("hf_", "api_org_"), _L + r"(?:hf|api_org)_[A-Za-z]{34}" + _R,
          check=_random_group(min_len=30, min_entropy=3.3, mixed=False)),
    _Rule("digitalocean-token", ("dop_v1_", "doo_v1_", "dor_v1_"),
          _L + r"do[opr]_v1_[a-f0-9]{64}" + _R, check=_random_group(min_entropy=3.0)),
    _Rule("shopify-token", ("shpat_", "shpca_", "shppa_", "shpss_"),
          _L + r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}" + _R, check=_random_group(min_entropy=3.0)),
    _Rule("databricks-token", ("dapi",), _L + r"dapi[a-f0-9]{32}(?:-\d)?" + _R,
          check=_random_group(min_entropy=3.0)),
    _Rule("vault-token", ("hvs.", "hvb."), _L + r"hv[sb]\.[A-Za-z0-9_\-]{24,}" + _R,
          check=_random_group(min_len=24)),
    _Rule("linear-key", ("lin_api_",), _L + r"lin_api_[A-Za-z0-9]{40}" + _R, check=_random_group()),
    _Rule("notion-token", ("ntn_", "secret_"), _L + r"(?:ntn_[A-Za-z0-9]{46}|secret_[A-Za-z0-9]{43})" + _R,
          check=_random_group(min_len=40)),
    _Rule("postman-key", ("PMAK-",), _L + r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}" + _R, check=_random_group()),
    _Rule("mailgun-key", ("key-",), _L + r"key-[a-f0-9]{32}" + _R, check=_random_group(min_entropy=3.0)),
    _Rule("atlassian-token", ("ATATT",), _L + r"ATATT3[A-Za-z0-9_\-=]{50,}" + _R, check=_random_group()),
    _Rule("grafana-token", ("glsa_", "glc_"),
          _L + r"(?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,}={0,2})" + _R,
          check=_random_group()),
    _Rule("telegram-bot-token", (":AA",), _L + r"\d{8,10}:AA[A-Za-z0-9_\-]{33}" + _R,
          check=_random_group(min_len=30)),
    _Rule("azure-storage-key", ("accountkey",), r"(?i:AccountKey)=(?P<v>[A-Za-z0-9+/]{86}==)",
          group="v", check=_random_group("v"), anycase=True),
    # -- JWTs: the header must decode to JSON
    _Rule("jwt", ("eyJ",),
          _L + r"(?P<head>eyJ[A-Za-z0-9_\-]{8,})\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"
          r"(?:\.[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]+)?",
          check=_jwt, priority=1),
    # -- passwords in URLs: only the password (or a token as the user) goes
    _Rule("url-password", ("://",),
          r"(?<![A-Za-z0-9+.\-])(?P<scheme>(?:jdbc:)?[A-Za-z][A-Za-z0-9+.\-]{1,20})://"
          r"(?P<user>[^\s:/@?#\[\]\"'<>`]{0,200})(?::(?P<pw>[^\s@/\[\]\"'<>`]{0,200}))?"
          r"@(?P<host>[A-Za-z0-9.\-]+|\[[0-9a-fA-F:.]+\])",
          check=_url_secret, priority=2, gate=lambda text, low: "@" in text),
    # -- Authorization headers
    _Rule("auth-header", ("authorization",),
          r"(?i:\b(?:proxy-)?authorization\s*[:=]\s*[\"']?)(?:(?P<scheme>(?i:basic|bearer|token|digest|ssws|"
          r"apikey|api-key|key|otoken|sso-key|klaviyo-api-key|dsn))\s+)?"
          r"(?P<cred>[A-Za-z0-9._~+/\-]{8,}=*)(?![A-Za-z0-9._~+/=\-])",
          group="cred", check=_basic, priority=2, anycase=True),
    _Rule("bearer-token", ("bearer",),
          r"(?i:\bbearer)\s+(?P<cred>[A-Za-z0-9._~+/\-]{16,}=*)(?![A-Za-z0-9._~+/=\-])",
          group="cred", check=_bare_bearer, priority=3, anycase=True),
    _Rule("basic-auth", ("basic",),
          r"(?i:\bbasic\b)[^\n]{0,30}?\s(?P<cred>[A-Za-z0-9+/]{12,}={0,2})(?![A-Za-z0-9+/=])",
          group="cred", check=_loose_basic, priority=3, anycase=True),
    # -- command-line flags
    _Rule("cli-secret", ("--", "-u "),
          r"(?<!\S)(?:--(?P<label>[A-Za-z0-9\-]*(?:password|passwd|token|secret|api-key|apikey)"
          r"[A-Za-z0-9\-]*)(?:=|[ \t]+)[\"']?(?P<v>[^\s'\"]+)|-u[ \t]+[^:\s/]+:(?P<pw>[^\s'\"@/][^\s'\"]*))",
          check=_cli_secret, priority=3),
    # -- labelled values
    _Rule("secret", _LABEL_ANCHORS, r"(?<![A-Za-z0-9])(?P<label>" + _LABEL + r")" + _ASSIGNED,
          check=None, priority=4, anycase=True, gate=_labelled_near),
    _Rule("secret", _KO_PASSWORD + _KO_TOKEN, r"(?P<label>" + _KO_LABEL + r")" + _ASSIGNED,
          check=None, priority=4, gate=_labelled_near),
    # (an AWS secret key by shape alone, and base64 that hides a credential: _find_runs)
]
_ASSIGNMENTS = (_RULES[-2], _RULES[-1])
# every rule's anchors in one flat list: one pass of substring checks per text picks the rules
_CASE_ANCHORS = tuple((a, n) for n, r in enumerate(_RULES) if not r.anycase for a in r.anchors)
_ANYCASE_ANCHORS = tuple((a, n) for n, r in enumerate(_RULES) if r.anycase for a in r.anchors)


# ------------------------------------------------------------------------------ providers
# The maintained list of provider token prefixes beyond the hand-written rules above (issue 26).
# One row per token family: a new provider is one row here and one example in
# tests/cuectx/test_secrets_adversarial.py. Shapes from each provider's documentation (and
# gitleaks' rule set, which tracks them); values must still look random unless strict, so a
# placeholder such as `dckr_pat_xxxxxxxx` is left alone.
# (kind, anchors, pattern) — the pattern is a whole token; word boundaries are added by the
# caller. Keep rows sorted by kind.
PROVIDERS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("1password-token", ("ops_eyJ",), r"ops_eyJ[A-Za-z0-9+/=_\-]{100,}"),
    ("age-secret-key", ("AGE-SECRET-KEY-1",), r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}"),
    ("alibaba-key", ("LTAI",), r"LTAI[A-Za-z0-9]{20}"),
    ("atlassian-token", ("ATCTT3",), r"ATCTT3[A-Za-z0-9_\-=]{50,}"),
    ("azure-client-secret", ("Q~",), r"[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.\-]{31,34}"),
    ("bitbucket-token", ("ATBB",), r"ATBB[A-Za-z0-9_=.\-]{32,}"),
    ("brevo-key", ("xkeysib-", "xsmtpsib-"), r"x(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}"),
    ("buildkite-token", ("bkua_",), r"bkua_[a-f0-9]{40}"),
    ("circleci-token", ("CCIPAT_", "CCIPRJ_"), r"CCIP(?:AT|RJ)_[A-Za-z0-9]{22}_[a-f0-9]{40}"),
    ("clojars-token", ("CLOJARS_",), r"CLOJARS_[a-z0-9]{60}"),
    ("contentful-token", ("CFPAT-",), r"CFPAT-[A-Za-z0-9_\-]{43}"),
    ("docker-token", ("dckr_pat_", "dckr_oat_"), r"dckr_(?:pat|oat)_[A-Za-z0-9_\-]{24,}"),
    ("doppler-token", ("dp.st.", "dp.pt.", "dp.sa.", "dp.ct.", "dp.scim.", "dp.audit."),
     r"dp\.(?:st|pt|sa|ct|scim|audit)\.(?:[a-z0-9_\-]{2,35}\.)?[A-Za-z0-9]{40,}"),
    ("dropbox-token", ("sl.",), r"sl\.[A-Za-z0-9_\-]{130,}"),
    ("dynatrace-token", ("dt0c01.",), r"dt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64}"),
    ("easypost-key", ("EZAK", "EZTK"), r"EZ[AT]K[A-Za-z0-9]{54}"),
    ("figma-token", ("figd_",), r"figd_[A-Za-z0-9_\-]{40}"),
    ("flyio-token", ("FlyV1 fm", "fo1_"), r"FlyV1 fm[12][ar]?_[A-Za-z0-9+/=,_\-]{40,}|fo1_[A-Za-z0-9_\-]{43}"),
    ("frameio-token", ("fio-u-",), r"fio-u-[A-Za-z0-9_=\-]{64}"),
    ("groq-key", ("gsk_",), r"gsk_[A-Za-z0-9]{48,}"),
    ("heroku-token", ("HRKU-",), r"HRKU-[A-Za-z0-9_\-]{58,}"),
    ("langsmith-key", ("lsv2_",), r"lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}"),
    ("mapbox-secret-token", ("sk.eyJ",), r"sk\.eyJ[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]{20,}"),
    ("neon-key", ("napi_",), r"napi_[a-z0-9]{64}"),
    ("netlify-token", ("nfp_",), r"nfp_[A-Za-z0-9]{36}"),
    ("newrelic-key", ("NRAK-", "NRII-", "NRJS-", "NRAA-"), r"NR(?:AK|II|JS|AA)-[A-Za-z0-9]{19,27}"),
    ("nuget-key", ("oy2",), r"oy2[a-z0-9]{43}"),
    ("okta-token", ("SSWS",), r"(?<=SSWS )00[A-Za-z0-9_\-]{40}"),
    ("perplexity-key", ("pplx-",), r"pplx-[A-Za-z0-9]{40,}"),
    ("pinecone-key", ("pcsk_",), r"pcsk_[A-Za-z0-9]{4,10}_[A-Za-z0-9]{40,}"),
    ("planetscale-token", ("pscale_",), r"pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_\-.=]{32,64}"),
    ("prefect-key", ("pnu_",), r"pnu_[A-Za-z0-9]{36}"),
    ("pulumi-token", ("pul-",), r"pul-[a-f0-9]{40}"),
    ("readme-key", ("rdme_",), r"rdme_[a-z0-9]{70}"),
    ("render-key", ("rnd_",), r"rnd_[A-Za-z0-9]{32}"),
    ("replicate-token", ("r8_",), r"r8_[A-Za-z0-9]{37}"),
    ("rubygems-key", ("rubygems_",), r"rubygems_[a-f0-9]{48}"),
    ("scalingo-token", ("tk-us-",), r"tk-us-[A-Za-z0-9_\-]{48}"),
    ("sentry-token", ("sntrys_", "sntryu_"), r"sntrys_[A-Za-z0-9+/=_]{50,}|sntryu_[a-f0-9]{64}"),
    ("shippo-token", ("shippo_live_", "shippo_test_"), r"shippo_(?:live|test)_[a-f0-9]{40}"),
    ("sourcegraph-token", ("sgp_",), r"sgp_(?:[a-f0-9]{16}_)?[a-f0-9]{40}"),
    ("square-token", ("sq0atp-", "sq0csp-", "EAAA"),
     r"sq0atp-[A-Za-z0-9_\-]{22}|sq0csp-[A-Za-z0-9_\-]{43}|EAAA[A-Za-z0-9_\-]{60}"),
    ("supabase-token", ("sbp_",), r"sbp_[a-f0-9]{40}"),
    ("tavily-key", ("tvly-",), r"tvly-(?:dev-|prod-)?[A-Za-z0-9]{32}"),
    ("terraform-token", (".atlasv1.",), r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=\-]{60,70}"),
    ("typeform-token", ("tfp_",), r"tfp_[A-Za-z0-9_.=\-]{40,}"),
    ("xai-key", ("xai-",), r"xai-[A-Za-z0-9]{70,}"),
)


_PROVIDER_ANCHORS = tuple((a, n) for n, (_, anchors, _) in enumerate(PROVIDERS) for a in anchors)


def _find_providers(text: str, out: list, strict: bool) -> None:
    """The maintained list of other providers' prefixes (cuectx/secret_providers.py): each
    row's regex compiles only when the text holds one of its anchors."""
    for n in sorted({n for a, n in _PROVIDER_ANCHORS if a in text}):
        kind, _, pattern = PROVIDERS[n]
        for m in _compiled(_L + pattern + _R).finditer(text):
            if strict or looks_random(m[0], min_len=20, min_entropy=3.0):
                out.append((0, m.start(), m.end(), kind))


def _find_assignments(text: str, rule: _Rule, out: list) -> None:
    """Labelled values. A rejected match resumes right after its label, so in
    `config: password=…` the `password=…` inside the first value is still seen."""
    regex, pos = rule.compiled(), 0
    while (m := regex.search(text, pos)) is not None:
        group = next(g for g in ("v1", "v2", "v3", "v4") if m[g] is not None)
        value = m[group]
        if group == "v4" and text[m.start() - 1:m.start()] in ("?", "&"):
            value = value.split("&", 1)[0]  # a URL query parameter ends at the next one
        proxy = {"label": m["label"], "v": value, "is": m["is"]}
        if not _assignment(proxy, False):  # type: ignore[arg-type]
            pos = m.end("label")
            continue
        start = m.start(group)
        end = start + len(value.rstrip("."))
        out.append((rule.priority, start, end, _label_kind(m["label"]) or "secret"))
        pos = m.end()


_BEGIN_KEY = (r"-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----")
_END_KEY = (r"-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----")
_KEY_HEADER = (r"(?:Proc-Type|DEK-Info|Comment|Version|Hash|Charset):[^\n\\]*")
_MATERIAL = (r"[A-Za-z0-9+/=]+")


def _compiled(pattern: str) -> re.Pattern:
    return re.compile(pattern)  # re keeps its own cache of compiled patterns


def _inline_key_body(text: str, start: int) -> tuple[int, int | None, int, bool]:
    """Key material on the BEGIN line itself ("-----BEGIN … KEY----- MIIE… b3Bl…"), in
    space-separated chunks, up to an END marker (done) or the first chunk that is not key
    material. Returns (cursor, sure end, material, done); cursor is the line's end when the
    whole rest of the line was material, so the body may go on below."""
    line_end = text.find("\n", start)
    line_end = len(text) if line_end == -1 else line_end
    sure, material, pos = None, 0, start
    for chunk in re.finditer(r"\S+", text[start:line_end]):
        word, end = chunk[0], start + chunk.end()
        if word.startswith("-----END"):
            marker = re.match(_END_KEY, text[start + chunk.start():line_end])
            if marker and material >= 8:
                return line_end, start + chunk.start() + marker.end(), material, True
            return pos, sure, material, False
        if not re.fullmatch(_MATERIAL, word):
            return pos, sure, material, False
        material += len(word)
        if len(word) >= 16 or any(c in word for c in "0123456789+/="):
            sure = end
        pos = end
    return (line_end if sure is not None or material == 0 else pos), sure, material, False


def _find_private_keys(text: str, out: list) -> None:
    """A block runs to its END line; one cut off runs to the last line of key material.
    Short letter-only lines ("Done") count as material only when an END line follows.
    Lines are split on newlines, or on literal "\\n" in a JSON-escaped key."""
    pos = 0
    while (m := _compiled(_BEGIN_KEY).search(text, pos)) is not None:
        escaped = text.startswith(("\\n", "\\r\\n"), m.end())
        sep = "\\n" if escaped else "\n"
        cursor, sure, material = m.end(), None, 0
        if not escaped:  # text lifted off a screen: the body follows on the BEGIN line
            cursor, sure, material, done = _inline_key_body(text, m.end())
            if done:
                out.append((0, m.start(), sure, "private-key"))
                pos = sure
                continue
        while True:
            if not escaped and text.startswith("\r\n", cursor):
                cursor += 1
            elif escaped and text.startswith("\\r", cursor):
                cursor += 2
            if not text.startswith(sep, cursor):
                break
            line_start = cursor + len(sep)
            nxt = text.find(sep, line_start)
            line_end = len(text) if nxt == -1 else nxt
            line = text[line_start:line_end]
            stripped = line.strip()
            lead = len(line) - len(line.lstrip())
            if escaped and stripped.endswith("\\r"):
                stripped = stripped[:-2]
            if end := re.match(_END_KEY, stripped):
                sure, material = line_start + lead + end.end(), material + 4
                break
            if re.fullmatch(_KEY_HEADER, stripped) or (not stripped and not material):
                cursor = line_end  # armor headers, and PGP's blank line before the body
                continue
            body = re.match(_MATERIAL, stripped)
            if not body:
                break
            chunk = body[0]
            material += len(chunk)
            if len(chunk) >= 16 or any(c in chunk for c in "0123456789+/="):
                sure = line_start + lead + len(chunk)
            if len(chunk) < len(stripped):  # the key ends inside this line: MIIE…",
                break
            cursor = line_end
        if sure is not None and material >= 8:
            out.append((0, m.start(), sure, "private-key"))
            pos = sure
        else:
            pos = m.end()


# A base64 run long enough to hide a credential (a Kubernetes secret's data, a config blob).
_B64_RUN = r"(?<![A-Za-z0-9+/=_\-])[A-Za-z0-9+/]{24,}={0,2}(?![A-Za-z0-9+/=_\-])"


def _decoded_text(value: str) -> str | None:
    """The text a base64 value decodes to, or None (not base64, or bytes that are not text)."""
    import base64  # here: most texts have no run to decode
    import binascii

    try:
        raw = base64.b64decode(value + "=" * (-len(value) % 4), validate=True).decode("utf-8")
    except (ValueError, binascii.Error, UnicodeDecodeError):
        return None
    return raw if all(c.isprintable() or c in "\n\r\t" for c in raw) else None


def _find_runs(text: str, out: list, strict: bool, decode: bool) -> None:
    """Runs of base64 characters (one regex for both): 40 random ones are an AWS secret key
    by shape alone; with `decode`, one that decodes to text holding a credential is one,
    of the same kind."""
    for m in _compiled(_B64_RUN).finditer(text):
        value = m[0]
        if len(value) == 40 and _aws_secret({"v": value}, strict) and _decoded_text(value) is None:
            # (an AWS key decodes to random bytes; base64 of a sentence decodes to text)
            out.append((5, m.start(), m.end(), "aws-secret-access-key"))
            continue
        if not decode or len(value.rstrip("=")) % 4 == 1:
            continue
        raw = _decoded_text(value)
        if raw is None:
            continue
        inner = find(raw, strict=strict, _depth=1)
        if inner:
            out.append((1, m.start(), m.end(), inner[0].kind))


# ------------------------------------------------------------------------------ prose
# Labels in sentences, without `=` or `:` (issue 26): "the passphrase to the backup key is …",
# "password was reset to …", "wifi pass …", "auth token <hex>", "토큰은 …", "admin / …",
# "enter … as the password". The value must look like a credential on its own (a digit or a
# symbol among letters, 8+ characters; a long hex or base64 run; a UUID behind a key's name),
# and it must follow the label directly or after a connector ("is", "to", ":", "-").
_KO_PARTICLES = r"(?:값은|값이|값|은|는|이|가|을|를)?"
_KO_PROSE_LABEL = (r"(?P<label>(?:비밀번호|패스워드|비번|암호|토큰|시크릿[ \t]?키|시크릿|[Aa][Pp][Ii][ \t]?키|"
                   r"액세스[ \t]?키|액세스[ \t]?토큰|인증[ \t]?키|인증[ \t]?토큰))" + _KO_PARTICLES)
_CONNECTORS = {"is", "was", "to", "are", "were", "as", "be", "becomes", "now", "=", ":", "-", "—", "–",
               "->", "→", "is:", "=>", "into", "now:", ","}
_TOOL_WORDS = {"1password", "lastpass", "bitwarden", "keepass", "keepassxc", "keychain", "vault",
               "argon2", "argon2id", "argon2i", "bcrypt", "scrypt", "pbkdf2", "sha256", "sha512",
               "sha-256", "sha-512", "aes-256", "aes-128", "aes256", "aes128", "md5", "sha1", "oauth2",
               "x-auth-token", "utf-8", "base64", "hs256", "rs256", "es256", "http/1.1", "http/2"}
_FILE_EXT = (".txt", ".json", ".yaml", ".yml", ".pem", ".key", ".env", ".sh", ".py", ".cfg", ".conf",
             ".ini", ".toml", ".log", ".gpg", ".asc", ".kdbx", ".md", ".csv", ".crt", ".p12", ".pfx")
_LOGIN_USERS = {"admin", "administrator", "root", "user", "deploy", "ubuntu", "postgres", "sa", "ops",
                "ci", "svc", "service", "test", "guest", "operator", "jenkins", "grafana", "elastic",
                "kibana", "oracle", "pi", "ec2-user", "superuser", "dev", "devops", "backup", "admin1",
                "sysadmin", "webadmin", "manager", "tomcat", "mysql", "rabbit", "minio", "demo"}
_LOGIN_WORDS = ("login", "log in", "creds", "credential", "user", "account", "sign in", "ssh", "bastion",
                "password", "console", "username", "로그인", "계정")


def _prose_value(value: str, kind: str, *, uuid_ok: bool = False) -> bool:
    """A value that reads as a credential without a `=` to say so. (Cheap checks first: this
    runs on every word after a label, and most are words.)"""
    if len(value) < 8 or len(value) > 200:
        return False
    letters = any(c.isalpha() for c in value)
    digits = any(c.isdigit() for c in value)
    if not letters:
        return False
    special = any(not c.isalnum() and c not in "._-/" for c in value)
    if not (digits or special):
        return False
    if _is_uuid(value):
        return uuid_ok
    if any(c in "()[]{}`\"<>" for c in value) and (len(value) < 20 or entropy(value) < 4.0):
        return False  # code and markup: list[Token], `DISPLAY`/`XAUTHORITY`, (github-token)
    if ("(" in value or "=" in value) and re.match(r"[A-Za-z_][\w.]*[(=]", value):
        return False  # code: a call `_load_list(store.…`, a keyword `use_cache=True`
    low = value.lower()
    if (is_placeholder(value) or low in _NOT_VALUES or low in _PROSE_VALUES or low in _TOOL_WORDS
            or low.startswith(("http:", "https:", "ftp:", "file:", "/", "./", "../", "~", "-", "$", "%",
                               "pk.", "pk_"))
            or "://" in value or low.endswith(_FILE_EXT)):
        return False
    if "@" in value and re.fullmatch(r"[^@\s]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)+", value):  # an email
        return False
    if value[0] in "vV0123456789" and re.fullmatch(_VERSION, value):
        return False
    if "/" in value and all(re.fullmatch(r"[A-Za-z][a-z0-9_.\-]*|", part) for part in value.split("/")):
        return False  # a path: secret/staging/db, services/api
    if all(c in "0123456789abcdefABCDEF" for c in value):  # a hash or a token in hex: long ones only
        return len(value) >= 32
    return entropy(value) >= 2.8


def _mixed_letters(value: str) -> bool:
    """After an explicit `:`, a letters-only value counts when it is long, mixed case and
    not CamelCase words: `osDPzMdRWXLktyzCje`, not `ProjectSettings`."""
    return (len(value) >= 12 and value.isalpha() and value.isascii() and not value.islower()
            and not value.isupper() and not re.fullmatch(r"(?:[A-Z][a-z]+)+", value)
            and entropy(value) >= 3.3 and not is_placeholder(value))


def _unwrap(raw: str) -> tuple[str, int]:
    """A token without its quotes or trailing punctuation, and where it starts in `raw`."""
    if len(raw) >= 2 and raw[0] in "`\"'" and raw[-1] == raw[0]:
        return raw[1:-1], 1
    start = 0
    if raw[:1] in "(`\"'":
        start = 1
    end = len(raw)
    while end > start and raw[end - 1] in ".,;)`\"'" and not (raw[end - 1] == ")" and "(" in raw):
        end -= 1
    if raw[start:end].endswith(":") and end - start > 1:
        end -= 1
    return raw[start:end], start


def _words(window: str, limit: int = 9) -> list[tuple[int, str]]:
    """Words separated by spaces, tabs or CRs, and where they start (str.split, not a regex
    or a loop over characters: this runs for every label in every memory)."""
    out, pos = [], 0
    # tabs and CRs become spaces: same length, so the offsets hold
    for word in window.replace("\t", " ").replace("\r", " ").split(" "):
        if word:
            out.append((pos, word))
            if len(out) >= limit:
                break
        pos += len(word) + 1
    return out


def _prose_kind(label: str) -> str:
    low = label.lower()
    if any(w in low for w in ("pass", "pw", "비밀번호", "패스워드", "비번", "암호")):
        return "password"
    if "api" in low:
        return "api-key"
    return "token" if ("token" in low or "토큰" in low) else "secret"


_PROSE_HEADS = ("password", "passwd", "passphrase", "passcode", "pass", "pwd", "pw", "token", "secret",
                "apikey", "key")
_QUALIFIERS = ("api", "auth", "access", "secret", "unseal", "master", "license", "licence", "signing",
               "encryption", "recovery", "deploy", "bot", "session", "refresh", "client", "app",
               "webhook", "private", "personal access", "runner", "registration")
_QUALIFIED = tuple(q + sep for q in _QUALIFIERS for sep in (" ", "_", "-", ""))
_BEFORE_LABEL = set("_-/.<:@#$%&=[") | set("abcdefghijklmnopqrstuvwxyz0123456789")


def _find_prose(text: str, low: str, out: list) -> None:
    """Labels in sentences: the first credential-looking token after the label (within a
    line and 8 words) counts when it follows the label directly or a connector. Labels are
    found with str.find, not a regex: this runs on most memories, and a compile costs ms."""
    for head in _PROSE_HEADS:
        i = low.find(head)
        while i != -1:
            end = i + len(head)
            if low.startswith("s", end) and head not in ("pass",):
                end += 1
            nxt = low[end:end + 1]
            start = i
            if low.endswith(_QUALIFIED, 0, i):  # one C call; which one, in the list's order:
                for q in _QUALIFIERS:  # "api key", "auth_token", "unseal-key"
                    for sep in (" ", "_", "-", ""):
                        if low.startswith(q + sep, i - len(q) - len(sep)) and i - len(q) - len(sep) >= 0:
                            start = i - len(q) - len(sep)
                            break
                    if start != i:
                        break
            if (nxt in ("", " ", "\t", ",", ":", "=") and (start == 0 or low[start - 1] not in _BEFORE_LABEL)
                    and (head != "key" or start != i)):
                _prose_after(text, end, text[start:end], out, korean=False)
            i = low.find(head, i + 1)


def _prose_after(text: str, pos: int, label: str, out: list, *, korean: bool) -> None:
    kind = _prose_kind(label)
    line_end = text.find("\n", pos)
    window = text[pos:min(len(text) if line_end == -1 else line_end, pos + 100)]
    prev = ""
    uuid_ok = kind != "password"
    for i, (t_start, raw) in enumerate(_words(window)):
        if i >= 8:
            return
        value, lead = _unwrap(raw)
        if i == 0 and len(value) > 1 and value[0] in "=:":  # `client_secret=…` in prose
            op = len(value) - len(value.lstrip("=:>"))
            value, lead = _unwrap(value[op:])[0], lead + op
        if korean:  # the value ends where Hangul starts: `X입니다`
            cut = re.search(r"[\uac00-\ud7a3]", value)
            if cut:
                value = value[:cut.start()]
        if i == 0 and value.lower() in _NOT_VALUE_WORDS:
            return  # "password reset", "token budget", "auth token length"
        connected = i == 0 or prev in _CONNECTORS or prev.endswith((":", "=", "->", "→"))
        if _prose_value(value, kind, uuid_ok=uuid_ok) or (prev.endswith((":", "=")) and _mixed_letters(value)):
            if connected:
                start = pos + t_start + lead
                out.append((4, start, start + len(value), kind))
            return
        if korean and value in ("", ":", "=", "값은", "값이", "값", "은", "는", "=>", "->"):
            prev = ":"
            continue
        if korean or raw.endswith((".", ";", "?", "!")) or raw.startswith(("(", "[", "{", "<")) \
                or len(value) > 24 or value.lower() in {"not", "never", "no"}:
            return
        prev = raw.lower().strip("`\"'")


def _find_korean(text: str, out: list) -> None:
    for m in _compiled(_KO_PROSE_LABEL).finditer(text):
        _prose_after(text, m.end(), m["label"], out, korean=True)


_AS_LABEL = (r"(?i:(?<!\S)(?P<v>\S{8,200})[ \t]+as[ \t]+(?:the[ \t]+|a[ \t]+|your[ \t]+|my[ \t]+|our[ \t]+)?"
             r"(?:new[ \t]+)?(?:admin[ \t]+|root[ \t]+|db[ \t]+)?(?P<label>password|passphrase|passwd|"
             r"pin|token|api[ \t]key|secret)\b)")
_USER_PASS = (r"(?<![\w/.\-@])(?P<user>[A-Za-z][\w.\-]{1,31})[ \t]?/[ \t]?(?P<v>[^\s/]{8,64})(?![\w/])")


def _find_pairs(text: str, low: str, out: list) -> None:
    """`enter X as the password`; `admin / X` on a line about logging in."""
    if " as " in low:
        for m in _compiled(_AS_LABEL).finditer(text):
            value, lead = _unwrap(m["v"])
            kind = _prose_kind(m["label"])
            if _prose_value(value, kind):
                out.append((4, m.start("v") + lead, m.start("v") + lead + len(value), kind))
    if "/" in text:
        for m in _compiled(_USER_PASS).finditer(text):
            value, lead = _unwrap(m["v"])
            if not _prose_value(value, "password"):
                continue
            line_start = text.rfind("\n", 0, m.start()) + 1
            line_end = text.find("\n", m.end())
            line = low[line_start:len(text) if line_end == -1 else line_end]
            if m["user"].lower() in _LOGIN_USERS or any(w in line for w in _LOGIN_WORDS):
                out.append((4, m.start("v") + lead, m.start("v") + lead + len(value), "password"))


# ------------------------------------------------------------------------------ command lines

def _cli_value(value: str, *, short_ok: bool = False) -> bool:
    if len(value) < (4 if short_ok else 6) or value.startswith("-"):
        return False
    low = value.lower()
    if is_placeholder(value) or low in _NOT_VALUES or low in {"prompt", "flag", "option", "stdin", "file"}:
        return False
    if value[0] in "$<{" or value.startswith(("/", "./", "~")):  # a %VAR% is a placeholder
        return False
    return short_ok or any(not c.isalpha() for c in value) or len(value) >= 10


def _names_a_program(text: str) -> bool:
    """Whether a word of `text` is a program that takes a password argument (a command in
    `backticks` or quotes counts: their marks are not part of the word)."""
    words = set(text.replace("`", " ").replace('"', " ").replace("'", " ").split())
    return bool(_CLI_PROGRAMS & words) or any(
        w.rsplit("/", 1)[-1] in _CLI_PROGRAMS for w in words if "/" in w)


def _find_commands(text: str, out: list) -> None:
    """Passwords given as command-line arguments (cuectx/secret_commands.py finds where)."""
    from cuectx.secret_commands import password_args

    for start, raw, how in password_args(text):
        value, lead = _unwrap(raw)
        ok = looks_random(value, min_len=16) if how == "random" else _cli_value(value, short_ok=how == "short")
        if ok:
            out.append((3, start + lead, start + lead + len(value), "password"))


# the programs cuectx/secret_commands.py knows (a test keeps the two lists equal)
_CLI_PROGRAMS = frozenset((
    "mysql", "mysqldump", "mysqladmin", "mysqlimport", "mysqlcheck", "mysqlshow", "mysqlsh", "mariadb",
    "mariadb-dump", "mysqlpump", "mydumper", "sshpass", "docker", "podman", "nerdctl", "buildah",
    "skopeo", "helm", "oras", "crane", "mongo", "mongosh", "mongodump", "mongorestore", "mongoexport",
    "mongoimport", "mongostat", "mongotop", "redis-cli", "ldapsearch", "ldapmodify", "ldapadd",
    "ldapdelete", "ldapwhoami", "ldappasswd", "ldapcompare", "ldapmodrdn", "zip", "unzip", "7z", "7za",
    "openssl", "keytool", "jarsigner", "smbclient", "rpcclient", "az", "sqlcmd", "bcp", "xfreerdp",
    "rdesktop", "ssh-keygen", "rabbitmqctl", "htpasswd", "sqlplus", "vault", "chpasswd", "sudo"))


# ------------------------------------------------------------------------------ wrapped lines
_EDGE_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-+/=.~")


def _find_wrapped(text: str, out: list, strict: bool, labelled: bool) -> None:
    """A key hard-wrapped at any width (a terminal, an email, a 76-column base64 dump): where a
    run of token characters ends a line and another starts the next, join the lines, look
    again, and keep what crosses a break. Only breaks whose joined run looks random (16+
    characters with digits or mixed case) are joined, so prose costs nothing."""
    lines = text.split("\n")
    if len(lines) < 2:
        return
    starts, p = [], 0
    for line in lines:
        starts.append(p)
        p += len(line) + 1
    joinable = []
    for i in range(len(lines) - 1):
        a, b = lines[i].rstrip("\r"), lines[i + 1].lstrip(" \t")
        if not a or not b or a[-1] not in _EDGE_CHARS or b[0] not in _EDGE_CHARS:
            joinable.append(False)
            continue
        k = len(a)
        while k > 0 and a[k - 1] in _EDGE_CHARS:
            k -= 1
        m = 0
        while m < len(b) and b[m] in _EDGE_CHARS:
            m += 1
        left, right = a[k:], b[:m]
        run = left + right
        rest = b[m:].strip()
        if rest and right.isalpha() and right[1:].islower():
            joinable.append(False)  # the next line starts with a word and goes on: prose
            continue
        joinable.append(len(run) >= 16 and (any(c.isdigit() for c in run)
                                            or (any(c.isupper() for c in run) and any(c.islower() for c in run))))
    i = 0
    while i < len(lines) - 1:
        if not joinable[i]:
            i += 1
            continue
        j = i + 1  # a chain goes on past a line only when that line is full (as long as the
        # one before): the short last piece of a key ends it, not the next line's word
        while j < len(lines) - 1 and joinable[j] and len(lines[j].strip()) >= len(lines[j - 1].strip()):
            j += 1
        # lines i..j joined: each break and the next line's indent removed
        pieces, offsets = [], []
        for k in range(i, j + 1):
            line = lines[k].rstrip("\r") if k < j else lines[k]
            skip = 0
            if k > i:
                skip = len(line) - len(line.lstrip(" \t"))
            seg = line[skip:]
            pieces.append(seg)
            offsets.extend(range(starts[k] + skip, starts[k] + skip + len(seg)))
        joined = "".join(pieces)
        breaks = set()
        acc = 0
        for seg in pieces[:-1]:
            acc += len(seg)
            breaks.add(acc)
        for f in find(joined, strict=strict, labelled=labelled, _depth=1, _wrapped=True):
            if any(f.start < b < f.end for b in breaks):
                out.append((0, offsets[f.start], offsets[f.end - 1] + 1, f.kind))
        i = j + 1


def find(text: str, *, strict: bool = False, labelled: bool = True, _depth: int = 0,
         _wrapped: bool = False) -> list[Finding]:
    """Every credential in `text`, in order, none overlapping. `labelled=False` leaves out
    values found by their label (`password=…`) and passwords in URLs (cue has its own).
    Also found: a key wrapped across lines at any width, and a base64 value that decodes to
    text holding a credential (one level deep)."""
    if not text:
        return []
    low = text.lower()
    candidates: list[tuple[int, int, int, str]] = []  # (priority, start, end, kind)
    if "private key" in low:
        _find_private_keys(text, candidates)
    if len(text) >= 24:
        _find_runs(text, candidates, strict, decode=labelled and not _depth)
    if not _wrapped and "\n" in text:
        _find_wrapped(text, candidates, strict, labelled)
    if labelled:  # values found by their label, in prose or on a command line
        if any(w in low for w in ("pass", "pw", "token", "secret", "key")):
            _find_prose(text, low, candidates)
        if ("/" in text and (any(w in low for w in _LOGIN_WORDS) or any(
                u + "/" in low or u + " /" in low for u in _LOGIN_USERS))) or (" as " in low and any(
                w in low for w in ("pass", "pin", "token", "key", "secret"))):
            _find_pairs(text, low, candidates)
        if any(w in text for w in KOREAN_PASSWORD_WORDS) or "토큰" in text or "키" in text:
            _find_korean(text, candidates)
        if _names_a_program(text):
            _find_commands(text, candidates)
    _find_providers(text, candidates, strict)
    hit = {i for a, i in _CASE_ANCHORS if a in text}
    hit.update(i for a, i in _ANYCASE_ANCHORS if a in low)
    for n, rule in enumerate(_RULES):
        if rule.anchors and n not in hit:
            continue
        if rule.gate is not None and not rule.gate(text, low):
            continue
        if not labelled and rule.kind in ("secret", "url-password", "cli-secret", "basic-auth"):
            continue
        if rule in _ASSIGNMENTS:
            _find_assignments(text, rule, candidates)
            continue
        for m in rule.compiled().finditer(text):
            if rule.check is not None and not rule.check(m, strict):
                continue
            start, end = m.span(rule.group)
            if rule.kind == "url-password":
                group = "pw" if m["pw"] is not None else "user"
                start, end = m.span(group)
                kind = _url_kind(m)
            elif rule.kind == "auth-header":
                kind = "basic-auth" if (m["scheme"] or "").lower() == "basic" else "bearer-token"
            elif rule.kind == "cli-secret":
                start, end = m.span("pw" if m["pw"] is not None else "v")
                kind = "password" if m["pw"] is not None else _label_kind(m["label"]) or "secret"
            else:
                kind = rule.kind
            if end > start:
                candidates.append((rule.priority, start, end, kind))
    if not candidates:
        return []
    candidates.sort(key=lambda c: (c[0], c[1] - c[2], c[1]))
    taken: list[tuple[int, int, str]] = []
    for _, start, end, kind in candidates:
        if all(end <= s or start >= e for s, e, _ in taken):
            taken.append((start, end, kind))
    return [Finding(kind, s, e) for s, e, kind in sorted(taken)]


def redact(text: str, findings: list[Finding] | None = None) -> str:
    """`text` with each finding replaced by `[SECRET:<kind>]` (idempotent)."""
    if findings is None:
        findings = find(text)
    parts, pos = [], 0
    for f in findings:
        parts += [text[pos:f.start], REPLACEMENT.format(kind=f.kind)]
        pos = f.end
    parts.append(text[pos:])
    return "".join(parts)


def kinds(findings: list[Finding]) -> list[str]:
    """The distinct kinds, in order of first appearance (for a warning line)."""
    return list(dict.fromkeys(f.kind for f in findings))


def describe(findings: list[Finding]) -> str:
    """'2 secrets (github-token, password)' — kinds and count, never a value."""
    n = len(findings)
    return f"{n} secret{'s' if n != 1 else ''} ({', '.join(kinds(findings))})"
