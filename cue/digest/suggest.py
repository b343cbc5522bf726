"""cue suggest: a short list of next steps from the memory and the latest digests.

The model sees only scrubbed text (the backfill first, then the memory and each digest
are scrubbed again on the way into the prompt); each suggestion it returns is scrubbed
before it is returned. Nothing is stored; a failure raises SuggestFailed (reason in
privacy.log only).
"""
from __future__ import annotations

import re
import sqlite3
import time
from datetime import UTC, datetime

from cue.core.config import Config
from cue.core.errors import CueError
from cue.core.timespec import iso_utc
from cue.digest.memory import (
    DigestText,
    current_sections,
    fit_newest,
    latest_memory,
    model_config,
    prompt_budget,
    recent_digests,
    scrubbed,
)
from cue.llm import complete_text_with_policy
from cue.llm.errors import BackendError
from cuectx.value import Value

MAX_TOKENS = 400
MAX_CHARS = 300

PROMPT = """\
You help one person decide what to do next at their computer. Below are their rolling
memory and what they did in the last hours (activity digests, oldest first).

Suggest up to {limit} concrete next steps, most useful first: open loops to close, work to
pick up where they left off, things started and apparently forgotten. Each is one line
starting with "- ", under 25 words, and grounded in the memory or the digests — no
generic advice. Leave out secrets, passwords, tokens, keys, email addresses, phone
numbers, personal file paths and bracketed placeholders such as [EMAIL].
Write only the list."""


class NothingToSuggestFrom(CueError):
    """No memory and no recent digests."""


class SuggestFailed(BackendError):
    """The model could not answer."""


class Suggestions(Value):
    __slots__ = ("backend", "created_at", "digest_count", "fell_back", "items", "memory_id",
                 "model")

    def __init__(self, created_at: float, items: list[str], backend: str, model: str | None,
                 fell_back: bool, digest_count: int, memory_id: int | None) -> None:
        self.created_at = created_at
        self.items = items
        self.backend = backend
        self.model = model
        self.fell_back = fell_back
        self.digest_count = digest_count
        self.memory_id = memory_id

    def to_dict(self) -> dict:
        return {"created_at": iso_utc(self.created_at), "suggestions": list(self.items),
                "backend": self.backend, "model": self.model, "fell_back": self.fell_back,
                "digests": self.digest_count, "memory_id": self.memory_id}


class SuggestPlan(Value):
    __slots__ = ("digests", "memory", "memory_id", "prompt")

    def __init__(self, digests: list[DigestText], memory: str, memory_id: int | None,
                 prompt: str) -> None:
        self.digests = digests
        self.memory = memory
        self.memory_id = memory_id
        self.prompt = prompt


def plan_suggestions(conn: sqlite3.Connection, config: Config, *, since: float,
                     limit: int = 5, now: float | None = None) -> SuggestPlan:
    """What the model would see. Raises NothingToSuggestFrom when there is nothing."""
    from cue.digest.backfill import ensure_scrubbed

    ensure_scrubbed(conn)
    now = time.time() if now is None else now
    digests = recent_digests(conn, after=now - since, scrub=False)  # scrubbed once fitted
    memory = current_sections(conn)
    latest = latest_memory(conn)
    if not digests and not memory:
        raise NothingToSuggestFrom(
            "nothing to suggest from: no digests in that window and no memory yet; run "
            "`cue digest` (and `cue memory`) first, or widen --since")
    mcfg = model_config(config, max_tokens=MAX_TOKENS)
    budget = prompt_budget(mcfg) - len(PROMPT) - len(memory) - 200
    digests = scrubbed(fit_newest(digests, budget)) if digests else []
    today = datetime.fromtimestamp(now, UTC).strftime("%Y-%m-%d %H:%M")
    prompt = (PROMPT.format(limit=limit) + f"\n\nNow: {today} UTC.\n\n"
              f"<memory>\n{memory or '(none yet)'}\n</memory>\n\n"
              "<digests>\n" + ("\n".join(d.line() for d in digests) or "(none)")
              + "\n</digests>")
    return SuggestPlan(digests, memory, latest.id if latest else None, prompt)


def suggest(conn: sqlite3.Connection, config: Config, *, since: float, limit: int = 5,
            now: float | None = None) -> Suggestions:
    """Ask the model for up to `limit` suggestions; each one scrubbed."""
    from cue.pii import scrub

    now = time.time() if now is None else now
    plan = plan_suggestions(conn, config, since=since, limit=limit, now=now)
    outcome = complete_text_with_policy(plan.prompt, config=model_config(
        config, max_tokens=MAX_TOKENS), purpose="suggest")
    if outcome.reply is None:
        from cue.pii.privacy_log import privacy_log

        privacy_log("suggest_failed", backend=outcome.backend,
                    failures=list(outcome.failures),
                    reason=(outcome.tombstone or "no model answered").strip("[]"))
        raise SuggestFailed(f"no suggestions: the {outcome.backend} model could not answer "
                            "(details in privacy.log)")
    items = [s for s in (scrub(i) for i in parse_suggestions(scrub(outcome.reply.text),
                                                             limit)) if s.strip()]
    if not items:
        raise SuggestFailed("no suggestions: the model's reply held no usable lines")
    return Suggestions(now, items, outcome.backend, outcome.reply.model,
                       outcome.fell_back, len(plan.digests), plan.memory_id)


_BULLET = re.compile(r"^\s*(?:[-*•+]|\d{1,2}[.)])\s+")


def parse_suggestions(reply: str, limit: int) -> list[str]:
    """Bullet lines (any bullet style) of the reply; if it has none, its non-empty lines.
    Headings and preambles ending in ':' are dropped; at most `limit`, each ≤ MAX_CHARS."""
    lines = [line for line in reply.splitlines() if line.strip()]
    bullets = [line for line in lines if _BULLET.match(line)]
    out: list[str] = []
    for line in bullets or lines:
        text = " ".join(_BULLET.sub("", line).split()).strip()
        if not text or text.startswith("#") or (not bullets and text.endswith(":")):
            continue
        if len(text) > MAX_CHARS:
            text = text[:MAX_CHARS - 1].rstrip() + "…"
        if text not in out:
            out.append(text)
        if len(out) == limit:
            break
    return out
