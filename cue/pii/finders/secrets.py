"""Credentials: cuectx.secrets' detector (shared with ctx's write guard) as API_KEY /
PRIVATE_KEY, key=value and command-line secrets (the label words come from cuectx.secrets,
plus cue's privacy keys), and credentials in URLs (a database URL whole, other URLs' user
info). Imports Presidio."""
from __future__ import annotations

import itertools
import math
import re
from collections import Counter

from presidio_analyzer import LocalRecognizer

from cue.pii.finders.base import (
    _HANGUL,
    _STOP,
    _URL_TAIL,
    result,
)
from cue.pii.finders.lazy import lazy_re
from cuectx.secrets import (
    KOREAN_PASSWORD_WORDS,
    KOREAN_TOKEN_WORDS,
    NOT_A_VALUE_WORDS,
    PASSWORD_WORDS,
    SECRET_WORD_PAIRS,
    SECRET_WORDS,
    is_placeholder,
    looks_random,
)

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
            out.append(result(self, entity, f.start, f.end,
                              1.0 if entity == "PRIVATE_KEY" else 0.95))
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
# Command-line flags: `--password hunter2`, `--api-key=…`, `curl -u bob:hunter2` (or
# `--user 'bob:p@ss'`: a password may hold an @).
CLI_SECRET_RE = (
    r"(?<!\S)(?:--(?P<k>[A-Za-z0-9\-]*(?:password|passwd|token|secret|api-key|apikey)"
    r"[A-Za-z0-9\-]*)(?:=|\s+)[\"']?(?P<v>[^\s'\"]+)"
    r"|(?:-u|--user)(?:=|\s+)[\"']?[^:\s'\"]+:(?P<v2>[^\s'\"]+))"
)


def _is_cli_secret(m: re.Match) -> bool:
    if m["v2"] is not None:  # not `-u $CI_USER:$CI_TOKEN`, nor `docker run -u 1000:1000`
        value = m["v2"]
        return (len(value) >= 4 and not value.isdigit() and value[0] not in "${<"
                and not is_placeholder(value))
    return not m["v"].startswith("-") and _is_secret_value(m)


# The key must *be* a secret's name, word by word: DB_PASSWORD, apiKey, x-api-key,
# client_secret — not max_tokens, tokenizer_path, bypass or compass.
_KEY_WORDS = lazy_re(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[가-힣]+")
def _key_kind(key: str) -> str | None:
    """'password', 'secret' or None for a key name like DB_PASSWORD or maxTokens."""
    words = [w.lower() for w in _KEY_WORDS.findall(key)]
    if not words or words[-1] in _NOT_A_VALUE_KEY:  # password_file, token_count, …
        return None
    if _PASSWORD_WORDS.intersection(words) or any(  # PGPASSWORD=… psql, MYSQLPASSWD
            w.endswith(("password", "passwd")) for w in words):
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


_CRYPT_HASH = lazy_re(r"\$[0-9a-z]{1,6}\$\S{8,}")

# A provider's secret shown in parentheses after its name, as consoles and chat paste it:
# "client secret (GOCSPX-…)", "app secret (…)".
PAREN_SECRET_RE = (
    r"(?i:(?<![A-Za-z0-9])(?:client|app|application|consumer|api|webhook|signing)[ _\-]?secret"
    r"(?:[ _\-]?(?:key|value))?\s*\()\s*(?P<v>[A-Za-z0-9_~.+/=\-]{16,128})\s*\)"
)


def _is_paren_secret(m: re.Match) -> bool:
    value = m["v"]
    classes = sum((any(c.islower() for c in value), any(c.isupper() for c in value),
                   any(c.isdigit() for c in value)))
    return classes >= 2 and len(set(value)) >= 8


def _is_secret_value(m: re.Match) -> bool:
    value = m["v"].rstrip(".")
    if _CRYPT_HASH.match(value):  # "$2b$12$…": a password hash, not a $VARIABLE
        return _key_kind(m["k"]) is not None
    if len(value) < 4 or value.lower() in _PLACEHOLDERS or value[0] in "${<*#":
        return False
    if value[0] == "%" and is_placeholder(value):  # %PW%, %(password)s — not %7YIRIrmP_Z
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



# --- passwords given as command-line arguments ------------------------------------------
# `mysql -pS3cret`, `sshpass -p …`, `redis-cli -a …`: where they sit is the shared parser's
# (cuectx.secret_commands, which ctx's write guard uses too); the value tests are cuectx's.

_QUOTES = "'\"`"
_NOT_ARGUMENTS = {"prompt", "flag", "option", "stdin", "file"}
_HANGUL_TAIL = lazy_re(f"[{_HANGUL}]+$")


def find_command_passwords(text: str) -> list[tuple[int, int]]:
    """(start, end) of every password given as a command-line argument: the value alone,
    without its quotes, trailing punctuation or a Korean particle glued to it
    ("-pS3cr3t!로"), never its flag. A reference (`$PASS`, `%PW%`, `<password>`), a path
    (`-p ~/.pw`), a placeholder or a word like `prompt` is not a password."""
    from cuectx.secret_commands import names_a_program, password_args

    if not names_a_program(text):
        return []
    out = []
    for start, raw, how in password_args(text):
        value, lead = _unquoted(raw)
        tail = _HANGUL_TAIL.search(value)
        if tail and tail.start() > 0:
            value = value[:tail.start()]
        ok = (looks_random(value, min_len=16) if how == "random"
              else _argument_value(value, short_ok=how == "short"))
        if ok:
            out.append((start + lead, start + lead + len(value)))
    return out


def _unquoted(raw: str) -> tuple[str, int]:
    """An argument without its quotes and trailing punctuation, and where it starts in `raw`."""
    if len(raw) >= 2 and raw[0] in _QUOTES and raw[-1] == raw[0]:
        return raw[1:-1], 1
    lead = 1 if raw[:1] in _QUOTES else 0
    return raw[lead:].rstrip(".,;)" + _QUOTES), lead


def _argument_value(value: str, *, short_ok: bool) -> bool:
    if len(value) < (4 if short_ok else 6) or value.startswith("-"):
        return False
    if is_placeholder(value) or value.lower() in _NOT_ARGUMENTS:  # `%PW%`, `%(pw)s` included
        return False
    if value[0] in "$<{" or value.startswith(("/", "./", "~")):  # $PASS, <password>, {{pw}}, files
        return False
    return short_ok or any(not c.isalpha() for c in value) or len(value) >= 10
