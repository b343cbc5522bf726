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
from typing import NamedTuple

REPLACEMENT = "[SECRET:{kind}]"


class Finding(NamedTuple):
    kind: str  # e.g. "github-token", "private-key", "password"
    start: int
    end: int


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
    if any(p in low for p in _PLACEHOLDER_PARTS):
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
_PASSWORD_WORDS = {"password", "passwd", "passphrase", "pwd", "pass"}
_SECRET_WORDS = {"secret", "token", "apikey", "credential", "credentials", "accountkey", "auth"}
_KEY_PAIRS = {("api", "key"), ("access", "key"), ("auth", "key"), ("private", "key"),
              ("secret", "key"), ("client", "secret"), ("access", "token"), ("auth", "token"),
              ("refresh", "token"), ("id", "token"), ("account", "key"), ("signing", "key"),
              ("master", "key"), ("encryption", "key"), ("webhook", "secret"),
              ("session", "token"), ("bot", "token"), ("app", "secret"), ("shared", "secret")}
_NOT_VALUE_WORDS = {"file", "path", "dir", "env", "length", "len", "count", "prompt", "policy",
                    "min", "max", "reset", "field", "url", "type", "name", "limit", "expiry",
                    "hash", "id", "ids", "header", "endpoint", "uri", "rotation", "ttl", "lifetime",
                    "format", "mode", "scope", "scopes", "expires", "expiration", "usage", "size",
                    "budget"}
_KEY_WORDS = (r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
_KO_PASSWORD, _KO_TOKEN = ("비밀번호", "패스워드", "비번", "암호"), ("토큰",)


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
    if _PASSWORD_WORDS.intersection(words):
        return "password"
    if ("api", "key") in pairs or "apikey" in words:
        return "api-key"
    if "token" in words:
        return "token"
    if _SECRET_WORDS.intersection(words) or _KEY_PAIRS.intersection(pairs):
        return "secret"
    return None


def _assignment(m: re.Match, strict: bool) -> bool:
    kind = _label_kind(m["label"])
    value = m["v"].rstrip(".")
    if kind is None or len(value) < (6 if kind == "password" else 8) or is_placeholder(value):
        return False
    if value.isdigit() or _is_uuid(value) or (value[0] in "vV0123456789"
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
          r"(?i:\b(?:proxy-)?authorization\s*[:=]\s*[\"']?)(?P<scheme>(?i:basic|bearer|token|digest))\s+"
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
          r"[A-Za-z0-9\-]*)(?:=|[ \t]+)[\"']?(?P<v>[^\s'\"]+)|-u[ \t]+[^:\s/]+:(?P<pw>[^\s'\"@]+))",
          check=_cli_secret, priority=3),
    # -- labelled values
    _Rule("secret", _LABEL_ANCHORS, r"(?<![A-Za-z0-9])(?P<label>" + _LABEL + r")" + _ASSIGNED,
          check=None, priority=4, anycase=True, gate=_labelled_near),
    _Rule("secret", _KO_PASSWORD + _KO_TOKEN, r"(?P<label>" + _KO_LABEL + r")" + _ASSIGNED,
          check=None, priority=4, gate=_labelled_near),
    # (an AWS secret key by shape alone, and base64 that hides a credential: _find_runs)
]
_ASSIGNMENTS = (_RULES[-2], _RULES[-1])


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


def _find_private_keys(text: str, out: list) -> None:
    """A block runs to its END line; one cut off runs to the last line of key material.
    Short letter-only lines ("Done") count as material only when an END line follows.
    Lines are split on newlines, or on literal "\\n" in a JSON-escaped key."""
    pos = 0
    while (m := _compiled(_BEGIN_KEY).search(text, pos)) is not None:
        escaped = text.startswith(("\\n", "\\r\\n"), m.end())
        sep = "\\n" if escaped else "\n"
        cursor, sure, material = m.end(), None, 0
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


# A prefixed token wrapped onto the next line(s) when it was pasted.
_BROKEN_PREFIXES = ("AKIA", "ASIA", "gh", "github_pat_", "glpat-", "xox", "sk-", "sk_live_",
                    "rk_live_", "AIza", "npm_", "hf_", "pypi-")
_BROKEN = (r"(?<![A-Za-z0-9_\-])(?:AKIA|ASIA|gh[pousr]_|github_pat_|glpat-|xox[abposre]-|sk-|"
           r"[sr]k_live_|AIza|npm_|hf_|pypi-)[A-Za-z0-9_\-]*[ \t]*\r?\n[ \t]*[A-Za-z0-9_\-]+"
           r"(?:[ \t]*\r?\n[ \t]*[A-Za-z0-9_\-]+){0,3}")
# A base64 run long enough to hide a credential (a Kubernetes secret's data, a config blob).
_B64_RUN = r"(?<![A-Za-z0-9+/=_\-])[A-Za-z0-9+/]{24,}={0,2}(?![A-Za-z0-9+/=_\-])"


def _find_broken(text: str, out: list, strict: bool) -> None:
    """Rejoin a prefixed token broken across lines and report the whole broken span — only
    when its first line alone is not already a complete token, and with as few lines as
    make one (a variable-length token must not swallow the next line's word)."""
    for m in _compiled(_BROKEN).finditer(text):
        lines = m[0].split("\n")
        if any(f.start == 0 for f in find(lines[0].strip(), strict=strict, labelled=False, _depth=1)):
            continue
        for k in range(2, len(lines) + 1):
            piece = "\n".join(lines[:k])
            offsets = [m.start() + i for i, ch in enumerate(piece) if not ch.isspace()]
            joined = "".join(ch for ch in piece if not ch.isspace())
            hit = next((f for f in find(joined, strict=strict, labelled=False, _depth=1)
                        if f.start == 0 and offsets[f.end - 1] >= m.start() + len(lines[0])), None)
            if hit is not None:
                out.append((0, m.start(), offsets[hit.end - 1] + 1, hit.kind))
                break


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


def find(text: str, *, strict: bool = False, labelled: bool = True, _depth: int = 0) -> list[Finding]:
    """Every credential in `text`, in order, none overlapping. `labelled=False` leaves out
    values found by their label (`password=…`) and passwords in URLs (cue has its own).
    Also found: a prefixed token broken across lines, and a base64 value that decodes to
    text holding a credential (one level deep)."""
    if not text:
        return []
    low = text.lower()
    candidates: list[tuple[int, int, int, str]] = []  # (priority, start, end, kind)
    if "private key" in low:
        _find_private_keys(text, candidates)
    if not _depth and "\n" in text and any(p in text for p in _BROKEN_PREFIXES):
        _find_broken(text, candidates, strict)
    if len(text) >= 24:
        _find_runs(text, candidates, strict, decode=labelled and not _depth)
    for rule in _RULES:
        if rule.anchors and not any(a in (low if rule.anycase else text) for a in rule.anchors):
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
                kind = "basic-auth" if m["scheme"].lower() == "basic" else "bearer-token"
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
