"""Capability URLs: links that *are* access (reset and invite links with a token, presigned
cloud-storage URLs, "anyone with the link" document shares).

A URL is a capability when it carries a token/signature/share parameter with a token-like
value, when a path word such as `reset-password` or `invite` is followed by a token-like
segment, or when it is a share link of a known document/file/chat service. Public
documentation and repository links carry none of these and stay as they are (a digest
should say *what* was on screen). Pure stdlib; cue.pii.engine wraps `find_capability_urls`.
"""
from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterator
from urllib.parse import parse_qsl, urlsplit

from cue.pii.finders.lazy import lazy_re

_STOP = r"\s'\"<>`\[\]{}()|\\가-힣ㄱ-ㆎ"
# Case-insensitive only where letters are matched: under (?i) the Hangul ranges of the
# tail would compile 11,172 case folds each (4 ms of a cold scrub) for nothing.
_URL_RE = lazy_re(
    rf"(?i:\bhttps?://|(?<![\w.@/\-])(?=(?:www\.)?[a-z0-9\-]+(?:\.[a-z0-9\-]+)*\.[a-z]{{2,}}/))"
    rf"[^{_STOP}]*[^{_STOP}.,;:!?]"
)
URL_TRIGGER = r"(?i)https?://|\.[a-z]{2,}/"

# Query parameters whose value opens something (lower-cased, '-' kept).
_TOKEN_PARAMS = {
    "token", "access_token", "accesstoken", "auth_token", "authtoken", "reset_token",
    "resettoken", "password_reset_token", "reset_password_token", "invite_token",
    "invitation_token", "invite", "invite_code", "invitecode", "invitation", "share_token",
    "sharetoken", "share_key", "sharekey", "share_link_id", "sharing", "authkey", "rlkey",
    "otp", "magic", "magic_token", "login_token", "logintoken", "ticket", "secret",
    "verification_token", "verify_token", "verification_code", "confirmation_token",
    "confirm_token", "activation_key", "activation_token", "session", "sessionid",
    "session_id", "sid", "jwt", "id_token", "refresh_token", "client_secret", "api_key",
    "apikey", "access_key", "key", "code", "auth", "sig", "signature", "x-amz-signature",
    "x-amz-credential", "x-amz-security-token", "x-goog-signature", "x-goog-credential",
    "googleaccessid", "key-pair-id", "policy", "st", "h", "hash", "k", "t", "e",
}
# These decide on their own (a presigned or SAS URL); the rest need a token-like value.
_SIGNATURE_PARAMS = {"sig", "signature", "x-amz-signature", "x-amz-credential",
                     "x-amz-security-token", "x-goog-signature", "x-goog-credential",
                     "googleaccessid", "key-pair-id", "authkey", "rlkey", "share_link_id"}
# Short generic names count only with a strongly token-like value.
_WEAK_PARAMS = {"key", "code", "auth", "st", "h", "hash", "k", "t", "e", "session", "sid",
                "ticket", "invite", "invitation", "sharing", "policy"}

# Path words after which a token-like segment is a capability.
_PATH_WORDS = {
    "reset", "reset-password", "reset_password", "resetpassword", "password-reset",
    "password_reset", "passwordreset", "forgot-password", "forgot_password", "password",
    "invite", "invites", "invitation", "invitations", "accept-invite", "accept_invite",
    "accept-invitation", "join", "verify", "verification", "verify-email", "confirm",
    "confirmation", "confirm-email", "activate", "activation", "magic", "magic-link",
    "magic_link", "login-link", "signin", "sign-in", "auth", "onboard", "onboarding",
    "unsubscribe", "share", "shared", "s", "sh", "redeem", "claim", "token", "tokens", "link",
    "secret", "private",
}
# Generic words: the segment after them must look more random (20+ characters).
_SHORT_PATH_WORDS = {"s", "sh", "share", "shared", "link", "join"}
# Chat invites: a named public server ("discord.gg/pallets") is an advertisement, a
# random code ("discord.gg/RxKUF5JuHs") an invitation.
_INVITE_HOSTS = lazy_re(r"(?i)^(?:discord\.gg|(?:www\.)?discord(?:app)?\.com|t\.me|telegram\.me|"
                        r"chat\.whatsapp\.com|open\.kakao\.com)$")
_FILE_EXT = lazy_re(r"\.(?:[a-z0-9]{1,4}|tar\.gz)$", re.IGNORECASE)

# Share links of document/file/chat services: host pattern → path pattern.
_SHARE_LINKS = [
    (r"docs\.google\.com", r"/(?:document|spreadsheets|presentation|forms|drawings)/(?:u/\d+/)?d/"),
    (r"drive\.google\.com", r"/(?:file/(?:u/\d+/)?d/|drive/(?:u/\d+/)?folders/|open|uc|drive/u/\d+/folders/)"),
    (r"(?:www\.)?dropbox\.com", r"/(?:s|sh|scl/f[io]|t|l)/"),
    (r"dl\.dropboxusercontent\.com|db\.tt|paper\.dropbox\.com", r"/."),
    (r"(?:www\.)?notion\.so|[a-z0-9\-]+\.notion\.site", r"/.*[0-9a-f]{32}"),
    (r"1drv\.ms", r"/."),
    (r"onedrive\.live\.com", r"/.*(?:resid|authkey|redeem|cid)="),
    (r"[a-z0-9\-]+(?:-my)?\.sharepoint\.com", r"/:[a-z]:/[a-z]/|/.*(?:share|guestaccess)"),
    (r"(?:app\.)?box\.com|[a-z0-9\-]+\.app\.box\.com", r"/s/"),
    (r"(?:www\.)?icloud\.com", r"/(?:iclouddrive|keynote|pages|numbers|photos|sharedalbum|attachment)/"),
    (r"share\.icloud\.com", r"/."),
    (r"(?:www\.)?figma\.com", r"/(?:file|design|proto|board|community/invite)/[A-Za-z0-9]{10,}"),
    (r"we\.tl", r"/."),
    (r"(?:www\.)?wetransfer\.com", r"/downloads/"),
    (r"join\.slack\.com", r"/."),
    (r"discord\.gg", r"/."),
    (r"(?:www\.)?discord(?:app)?\.com", r"/invite/"),
    (r"t\.me|telegram\.me", r"/(?:\+|joinchat/)"),
    (r"chat\.whatsapp\.com", r"/."),
    (r"open\.kakao\.com", r"/o/"),
    (r"(?:www\.)?loom\.com", r"/share/"),
    (r"(?:[a-z0-9\-]+\.)?zoom\.us", r"/rec/(?:share|play)/"),
    (r"[a-z0-9\-]+\.slack\.com", r"/(?:join/)?shared_invite/"),
    (r"photos\.app\.goo\.gl", r"/."),
    (r"airtable\.com", r"/(?:shr|app[A-Za-z0-9]+/shr)"),
    (r"trello\.com", r"/invite/"),
    (r"(?:www\.)?canva\.com", r"/design/[A-Za-z0-9_\-]+/[A-Za-z0-9_\-]{10,}"),
    (r"(?:www\.)?overleaf\.com", r"/(?:read|project)/[a-z0-9]{10,}"),
    (r"hackmd\.io", r"/[A-Za-z0-9_\-]{16,}"),
    (r"(?:app\.)?frame\.io|f\.io", r"/(?:reviews|presentations|share)/"),
    (r"(?:www\.)?typeform\.com|[a-z0-9\-]+\.typeform\.com", r"/to/"),
]
_SHARE_RES = [(lazy_re(rf"(?i)^(?:{h})$"), lazy_re(p)) for h, p in _SHARE_LINKS]

_UUID = lazy_re(r"(?i)^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
_PLACEHOLDERS = {"true", "false", "null", "none", "undefined", "yes", "no", "example", "xxx",
                 "token", "your_token", "your-token", "yourtoken", "<token>", "redacted"}


def _entropy(s: str) -> float:
    counts = Counter(s)
    return -sum(c / len(s) * math.log2(c / len(s)) for c in counts.values())


# A slug part: letters then digits or digits then letters, never interleaved ("arm64",
# "2560px", "v3"); random tokens interleave ("3wx5vohc3").
_WORDISH = lazy_re(r"[A-Za-z]+\d*|\d+[A-Za-z]*")


def token_like(value: str, min_len: int = 16) -> bool:
    """Random-looking: long, mixed character classes, not a word-slug or a plain number."""
    value = value.strip()
    if len(value) < 8 or value.lower() in _PLACEHOLDERS:
        return False
    if _UUID.match(value):
        return True
    if len(value) < min_len:
        return False
    if "+" in value or "%" in value:
        return False  # words joined by '+' or escapes: a title, not a token
    value = _FILE_EXT.sub("", value) if not value.endswith("=") else value
    parts = [p for p in re.split(r"[-_.~]", value) if p]
    if len(parts) >= 2 and all(_WORDISH.fullmatch(p) for p in parts):
        return False  # a slug: "password-reset-guide", "Miniforge3-MacOSX-arm64", "1024px-Gfp"
    digits = sum(c.isdigit() for c in value)
    letters = sum(c.isalpha() for c in value)
    upper = any(c.isupper() for c in value)
    lower = any(c.islower() for c in value)
    if digits and letters:
        return _entropy(value) >= 3.0
    if upper and lower and letters >= 20:
        return _entropy(value) >= 3.5
    return False


def _param_is_capability(name: str, value: str, path_says_so: bool = False) -> bool:
    name = name.lower()
    if name not in _TOKEN_PARAMS or not value:
        return False
    if name in _SIGNATURE_PARAMS:
        return len(value) >= 4
    if name in _WEAK_PARAMS:
        # "?code=" is a capability on an invite/reset/verify path, a search term elsewhere.
        return token_like(value, 8 if path_says_so else 20)
    return token_like(value, 8) or (len(value) >= 6 and any(c.isdigit() for c in value)
                                    and any(c.isalpha() for c in value))


def is_capability_url(url: str) -> bool:
    raw = url if "://" in url else "https://" + url
    try:
        parts = urlsplit(raw)
    except ValueError:
        return False
    host = (parts.hostname or "").lower()
    path = parts.path or ""
    if not host:
        return False
    for host_re, path_re in _SHARE_RES:
        if host_re.match(host) and path_re.search(path + ("?" + parts.query if parts.query else "")):
            if _INVITE_HOSTS.match(host):
                code = path.rstrip("/").rsplit("/", 1)[-1].lstrip("+")
                return any(c.isupper() for c in code) and any(c.islower() for c in code) or (
                    token_like(code, 8))
            return True
    segments = [s for s in path.split("/") if s]
    path_says_so = any(seg.lower() in _PATH_WORDS and seg.lower() not in _SHORT_PATH_WORDS
                       for seg in segments)
    for query in (parts.query, parts.fragment):
        if query and "=" in query:
            try:
                pairs = parse_qsl(query, keep_blank_values=True)
            except ValueError:
                pairs = []
            if any(_param_is_capability(k, v, path_says_so) for k, v in pairs):
                return True
    for i, seg in enumerate(segments):
        if seg.lower() in _PATH_WORDS:
            short = seg.lower() in _SHORT_PATH_WORDS
            for later in segments[i + 1:i + 4]:
                if token_like(later, 20 if short else 16):
                    return True
    return False


def find_capability_urls(text: str) -> Iterator[tuple[int, int]]:
    for m in _URL_RE.finditer(text):
        if is_capability_url(m.group()):
            yield m.span()
