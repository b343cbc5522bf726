"""The secret guard on every ctx write: what CTX_SECRETS says to do with a credential.

Store.add/add_many/update call `screen` on a node's content and on the text in its
metadata, so every path that writes through the store — the Stop hook's remember and
summarize, `ctx add`/`update`/`import`, the MCP tools, the web viewer — is guarded in one
place. The detector is cuectx.secrets (stdlib, shared with cue's scrubber).

Policies (CTX_SECRETS, or a command's --allow-secrets):
- `redact` (default): each secret becomes `[SECRET:<kind>]`; the rest is stored.
- `refuse`: nothing is written; SecretRefusedError says which kinds, where — never a value.
- `allow`: stored as given.
"""
from __future__ import annotations

from functools import lru_cache

from ctx.core import settings
from ctx.core.errors import CtxError
from cuectx.value import Value

ENV = "CTX_SECRETS"
REDACT, REFUSE, ALLOW = "redact", "refuse", "allow"
POLICIES = (REDACT, REFUSE, ALLOW)


class SecretRefusedError(CtxError):
    """The text holds a secret and the policy is `refuse`: nothing was written."""

    def __init__(self, findings, where: str = "content"):
        from cuectx.secrets import describe

        self.kinds = list(dict.fromkeys(f.kind for f in findings))
        spots = ", ".join(f"{f.kind} at {f.start}–{f.end}" for f in findings[:5])
        super().__init__(f"refused to store {where}: it holds {describe(findings)} ({spots}); "
                         f"remove the secret, or store it redacted with CTX_SECRETS=redact, or "
                         f"as given with --allow-secrets")


class SecretEvent(Value):
    """One write that met a secret (for the warning line and the hooks' hand-off)."""

    __slots__ = ("action", "count", "kinds", "node_id")

    def __init__(self, node_id: str | None, kinds: tuple[str, ...], count: int,
                 action: str) -> None:
        self.node_id = node_id
        self.kinds = kinds
        self.count = count
        self.action = action  # "redacted" or "refused"


def policy(value: str | None = None) -> str:
    """The policy to apply: `value` if given, else $CTX_SECRETS, else redact."""
    raw = (value if value is not None else settings.secrets_policy() or "").strip().lower()
    if not raw:
        return REDACT
    if raw not in POLICIES:
        raise CtxError(f"{ENV}={raw!r} is not a policy; use one of: {', '.join(POLICIES)}")
    return raw


def screen(text: str, mode: str, where: str = "content") -> tuple[str, list]:
    """(text to store, findings) under `mode`; raises SecretRefusedError under refuse."""
    if mode == ALLOW or not text:
        return text, []
    from cuectx.secrets import redact

    try:
        findings = _find(text)
    except Exception as exc:  # noqa: BLE001 — a bug in the check must not let a secret through
        raise CtxError(f"the secret check failed ({type(exc).__name__}); nothing was stored — "
                       f"report this, or store it with --allow-secrets") from None
    if not findings:
        return text, []
    if mode == REFUSE:
        raise SecretRefusedError(findings, where)
    return redact(text, findings), findings


def _find(text: str) -> list:
    """cuectx.secrets.find, remembered for short texts: a batch (an import, a shared file)
    screens the same tags and provenance strings thousands of times."""
    from cuectx.secrets import find

    if len(text) > 256:
        return find(text)
    return list(_find_short(text))


@lru_cache(maxsize=4096)
def _find_short(text: str) -> tuple:
    from cuectx.secrets import find

    return tuple(find(text))


def screen_value(value, mode: str, found: list, where: str = "metadata"):
    """Metadata (any JSON value) with every string in it screened; findings go to `found`."""
    if isinstance(value, str):
        text, findings = screen(value, mode, where)
        found += findings
        return text
    if isinstance(value, dict):
        return {k: screen_value(v, mode, found, where) for k, v in value.items()}
    if isinstance(value, list):
        return [screen_value(v, mode, found, where) for v in value]
    return value


def screen_tags(tags: list[str], mode: str, found: list, where: str = "the tags") -> list[str]:
    """Tags with secrets redacted (`api-key:[SECRET:openai-key]`), duplicates dropped."""
    out: list[str] = []
    for tag in tags:
        text, findings = screen(tag, mode, where)
        found += findings
        if text not in out:
            out.append(text)
    return out


def notice(events, source) -> str | None:
    """The one sentence for what the guard redacted — how many secrets of which kinds in which
    nodes — for every edge (the CLI's warning, the Stop hook's report, the MCP result).
    `source` (a Store or connection) shortens the ids (ctx.core.ids.short_ids). None when
    nothing was redacted (a refusal is the error's own sentence)."""
    redacted = [e for e in events if e.action == "redacted"]
    if not redacted:
        return None
    from ctx.core.ids import short_ids

    kinds = list(dict.fromkeys(k for e in redacted for k in e.kinds))
    n = sum(e.count for e in redacted)
    ids = list(dict.fromkeys(e.node_id for e in redacted if e.node_id))
    short = short_ids(source, ids[:5]) if ids else {}
    where = f" in {', '.join(short[i] for i in ids[:5])}{' …' if len(ids) > 5 else ''}" if ids else ""
    return (f"redacted {n} secret{'s' if n != 1 else ''} ({', '.join(kinds)}){where} before "
            f"storing; the text keeps [SECRET:<kind>] in its place")
