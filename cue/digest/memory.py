"""cue memory: fold recent digests into a rolling, scrubbed memory.md.

    recent digests (scrubbed) + current memory → model (memory.* settings, policy gate)
        → pii.scrub → fixed sections → one `memory` row + memory.md

Each run reads the `ok` digests written since the last update (the first run: those
whose window ended in the last `memory.window`), and asks the model to rewrite the memory in full — keeping what
is still true, dropping what is stale — in four fixed sections. The current memory is
read from memory.md when it exists, so a person's edits carry forward.

Privacy (seed, "Defense in depth"): the model only ever sees scrubbed text —
`ensure_scrubbed` first (re-scrubs stored rows after a SCRUB_VERSION bump), then every
digest and the current memory are scrubbed again on the way into the prompt. The reply
is scrubbed (`_compute_memory`) before it is rendered, stored, written or returned, and
is never logged. When the model fails nothing is written: the previous memory stays and
the reason is in privacy.log only.
"""
from __future__ import annotations

import re
import sqlite3
import time
from datetime import UTC, datetime
from pathlib import Path

from cue.core import paths
from cue.core.config import Config
from cue.core.timespec import iso_utc
from cue.digest.run import ok_summaries
from cue.llm import Outcome, complete_text_with_policy
from cue.llm.errors import BackendError
from cuectx.files import replace_file
from cuectx.value import Value

SECTIONS = ("Ongoing projects", "Open loops", "Recurring patterns", "Recently finished")
NOTES = "Notes"  # where a reply's text goes when it is outside the four sections
MAX_BULLETS = 8
MAX_BULLET_CHARS = 300
NONE_BULLET = "- none"

PROMPT = """\
You keep MEMORY.md, a short rolling memory of what one person has been doing at their
computer. They read it every morning, and their coding assistant reads it to know what
they are in the middle of. Below are the current memory (it may be empty) and the
activity digests written since it was last updated, oldest first, each with its time.

Rewrite the whole memory. Use exactly these four sections, in this order, each a list of
"- " bullets (at most 6 per section, one line each, under 25 words):

## Ongoing projects
## Open loops
## Recurring patterns
## Recently finished

Rules:
- Keep what is still true; update items the new digests change; merge duplicates.
- Drop what is stale: a project with no activity for about a week, an open loop the
  digests show was closed (move it to Recently finished), finished items older than a week.
- Date items (YYYY-MM-DD): "since 2026-11-18", "last seen 2026-11-20", "done 2026-11-21".
- State only what the memory or the digests support; never invent.
- Leave out secrets, passwords, tokens, keys, email addresses, phone numbers, personal
  file paths and bracketed placeholders such as [EMAIL] or [API_KEY].
- Write only the four sections: no title, no preamble, no closing remarks."""


class MemoryNotUpdated(BackendError):
    """The model could not answer; nothing was written and the previous memory stays."""


class DigestText(Value):
    """One `ok` digest as a consumer sees it: its window and its scrubbed summary."""

    __slots__ = ("id", "text", "window_end", "window_start")

    def __init__(self, id: int, window_start: float, window_end: float, text: str) -> None:
        self.id = id
        self.window_start = window_start
        self.window_end = window_end
        self.text = text

    def line(self) -> str:
        start = datetime.fromtimestamp(self.window_start, UTC)
        end = datetime.fromtimestamp(self.window_end, UTC)
        span = f"{start:%Y-%m-%d %H:%M}–{end:%H:%M}" if start.date() == end.date() \
            else f"{start:%Y-%m-%d %H:%M} – {end:%Y-%m-%d %H:%M}"
        return f"[{span} UTC] {' '.join(self.text.split())}"


class Memory(Value):
    """One `memory` row; `content` is exactly what memory.md holds."""

    __slots__ = ("backend", "content", "created_at", "digest_count", "digests_from",
                 "digests_through", "fell_back", "id", "input_tokens", "last_digest_id", "model",
                 "output_tokens", "timings")

    def __init__(self, id: int | None, created_at: float, content: str, backend: str,
                 model: str | None, fell_back: bool, digest_count: int, digests_from: float | None,
                 digests_through: float | None, last_digest_id: int | None = None,
                 input_tokens: int | None = None, output_tokens: int | None = None,
                 timings: dict[str, float | None] | None = None) -> None:
        self.id = id
        self.created_at = created_at
        self.content = content
        self.backend = backend
        self.model = model
        self.fell_back = fell_back
        self.digest_count = digest_count
        self.digests_from = digests_from
        self.digests_through = digests_through
        self.last_digest_id = last_digest_id
        self.input_tokens = input_tokens
        self.output_tokens = output_tokens
        self.timings = {} if timings is None else timings

    def to_dict(self) -> dict:
        d = {**self.as_dict(), "timings": dict(self.timings)}
        d["created_at"] = iso_utc(self.created_at)
        d["digests_from"] = _iso(self.digests_from)
        d["digests_through"] = _iso(self.digests_through)
        return d

    def to_ctx_record(self) -> dict:
        """A record `ctx add --json -` stores as a summary node tagged source:cue."""
        return {
            "content": self.content,
            "type": "summary",
            "tags": ["source:cue", "cue:memory"],
            "metadata": {
                "source": "cue",
                "cue_memory_id": self.id,
                "updated_at": iso_utc(self.created_at),
                "digests": self.digest_count,
                "digests_from": _iso(self.digests_from),
                "digests_through": _iso(self.digests_through),
                "backend": self.backend,
                "model": self.model,
            },
        }


class MemoryPlan(Value):
    """What an update would send: the digests read, the current memory and the prompt."""

    __slots__ = ("digests", "last_digest_id", "left_out", "previous", "prompt")

    def __init__(self, digests: list[DigestText], previous: str, prompt: str, left_out: int,
                 last_digest_id: int | None) -> None:
        self.digests = digests
        self.previous = previous  # current memory's sections (scrubbed), "" when there is none
        self.prompt = prompt
        self.left_out = left_out  # older digests that did not fit the prompt budget
        self.last_digest_id = last_digest_id  # the newest digest considered (read or left out)

    @property
    def empty(self) -> bool:
        return not self.digests


# ------------------------------------------------------------------ model settings
def model_config(config: Config, *, max_tokens: int | None = None) -> Config:
    """The config the policy gate sees for memory/suggest: memory.backend as the backend
    (`digest` = whatever digest.backend is), memory.model in the cloud, memory.local_model
    on the local backend, and the output cap. Fallback rules stay digest.*'s."""
    backend = config["memory.backend"]
    changes: dict = {"digest__backend": config["digest.backend"] if backend == "digest"
                     else backend,
                     "cloud__model": config["memory.model"]}
    if config["memory.local_model"]:
        changes["local__model"] = config["memory.local_model"]
    if max_tokens:
        changes.update(cloud__max_tokens=max_tokens, local__max_tokens=max_tokens,
                       server__max_tokens=max_tokens)
    return config.replace(**changes)


def prompt_budget(config: Config) -> int:
    """Characters of prompt the chosen backend can take (on-device: what fits n_ctx next
    to the reply, at a conservative ~3 characters per token)."""
    if config["digest.backend"] == "cloud":
        return 60_000
    return max(4_000, (config["local.n_ctx"] - config["local.max_tokens"]) * 3)


# ------------------------------------------------------------------ reading (scrubbed)
def recent_digests(conn: sqlite3.Connection, *, after: float | None = None,
                   after_id: int | None = None, scrub: bool = True) -> list[DigestText]:
    """`ok` digests whose window ended after `after` (unix seconds) or that were written
    after digest `after_id`, oldest first, scrubbed again on the way out (defense in
    depth: rows written by anything but cue.digest, or before a scrubber fix, never reach
    a prompt raw)."""
    found = [DigestText(*row) for row in ok_summaries(conn, after=after or 0, after_id=after_id)]
    return scrubbed(found) if scrub else found


def scrubbed(digests: list[DigestText]) -> list[DigestText]:
    from cue.pii import scrub

    return [d.replace(text=scrub(d.text).strip()) for d in digests]


def current_memory(conn: sqlite3.Connection) -> Memory | None:
    """The newest update, after the scrub backfill (so a row stored before a scrubber
    fix is shown scrubbed by the current one)."""
    from cue.digest.backfill import ensure_scrubbed

    ensure_scrubbed(conn)
    return latest_memory(conn)


def latest_memory(conn: sqlite3.Connection) -> Memory | None:
    row = conn.execute("SELECT * FROM memory ORDER BY created_at DESC, id DESC LIMIT 1"
                       ).fetchone()
    return _row(row) if row else None


def list_memory(conn: sqlite3.Connection, *, limit: int = 20) -> list[Memory]:
    """Past updates, newest first."""
    return [_row(r) for r in conn.execute(
        "SELECT * FROM memory ORDER BY created_at DESC, id DESC LIMIT ?", (limit,))]


def current_sections(conn: sqlite3.Connection, path: Path | None = None) -> str:
    """The current memory's sections, scrubbed: memory.md when it exists (a person's
    edits count), else the newest row; "" when there is no memory yet."""
    path = path or paths.memory_md()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        latest = latest_memory(conn)
        text = latest.content if latest else ""
    from cue.pii import scrub

    return scrub(sections_of(text)).strip()


def sections_of(markdown: str) -> str:
    """memory.md without its title and dated line: from the first `## ` heading on."""
    lines = markdown.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("## "):
            return "\n".join(lines[i:]).strip()
    return "\n".join(line for line in lines if not line.startswith("# ") and not
                     (line.startswith("_") and line.endswith("_"))).strip()


# ------------------------------------------------------------------ planning
def plan_memory(conn: sqlite3.Connection, config: Config, *, since: float | None = None,
                now: float | None = None) -> MemoryPlan:
    """Collect what the model would see. Calls no model, writes nothing (but runs the
    scrub backfill, which only ever removes PII from stored text)."""
    from cue.core.timespec import parse_duration
    from cue.digest.backfill import ensure_scrubbed

    ensure_scrubbed(conn)
    now = time.time() if now is None else now
    latest = latest_memory(conn)
    # Raw rows are only measured here; just the ones that fit are scrubbed and sent.
    if since is not None:
        digests = recent_digests(conn, after=now - since, scrub=False)
    elif latest and latest.last_digest_id is not None:  # written since the last memory
        digests = recent_digests(conn, after_id=latest.last_digest_id, scrub=False)
    else:
        digests = recent_digests(conn, after=now - parse_duration(config["memory.window"]),
                                 scrub=False)
    previous = current_sections(conn)
    mcfg = model_config(config, max_tokens=config["memory.max_tokens"])
    budget = prompt_budget(mcfg) - len(PROMPT) - len(previous) - 200
    kept = scrubbed(fit_newest(digests, budget))
    return MemoryPlan(kept, previous, memory_prompt(previous, kept, now),
                      left_out=len(digests) - len(kept),
                      last_digest_id=max((d.id for d in digests), default=None))


def fit_newest(digests: list[DigestText], budget: int) -> list[DigestText]:
    """The newest digests whose lines fit in `budget` characters (always at least one)."""
    kept: list[DigestText] = []
    used = 0
    for d in reversed(digests):
        cost = len(d.line()) + 1
        if kept and used + cost > budget:
            break
        kept.append(d)
        used += cost
    return kept[::-1]


def memory_prompt(previous: str, digests: list[DigestText], now: float) -> str:
    today = datetime.fromtimestamp(now, UTC).strftime("%Y-%m-%d")
    return (f"{PROMPT}\n\nToday is {today} (UTC).\n\n"
            f"<current_memory>\n{previous or '(empty: this is the first update)'}\n"
            f"</current_memory>\n\n"
            f"<digests>\n" + "\n".join(d.line() for d in digests) + "\n</digests>")


# ------------------------------------------------------------------ the update
def update_memory(conn: sqlite3.Connection, config: Config, *, since: float | None = None,
                  now: float | None = None) -> Memory | None:
    """Fold new digests into the memory; None when there were no new digests (nothing is
    called or written). Raises MemoryNotUpdated when the model fails (nothing written)."""
    t0 = time.perf_counter()
    now = time.time() if now is None else now
    plan = plan_memory(conn, config, since=since, now=now)
    if plan.empty:
        return None
    outcome, content, scrub_ms = _compute_memory(plan, config, now)
    reply = outcome.reply
    assert reply is not None
    memory = Memory(
        id=None, created_at=now, content=content, backend=outcome.backend,
        model=reply.model, fell_back=outcome.fell_back, digest_count=len(plan.digests),
        digests_from=plan.digests[0].window_end, digests_through=plan.digests[-1].window_end,
        last_digest_id=plan.last_digest_id,
        input_tokens=reply.input_tokens, output_tokens=reply.output_tokens,
        timings={"model_ms": reply.model_ms, "scrub_ms": scrub_ms})
    stored = _persist(conn, memory, t0)
    _log("memory_updated", backend=stored.backend, model=stored.model,
         fell_back=stored.fell_back, digests=stored.digest_count, left_out=plan.left_out,
         chars=len(stored.content))
    return stored


def _compute_memory(plan: MemoryPlan, config: Config, now: float
                    ) -> tuple[Outcome, str, float]:
    """Ask the model; return its outcome and the scrubbed, rendered memory.md text.
    The seed's output-scrub: nothing the model says is kept unscrubbed."""
    from cue.pii import scrub

    mcfg = model_config(config, max_tokens=config["memory.max_tokens"])
    outcome = complete_text_with_policy(plan.prompt, config=mcfg, purpose="memory")
    if outcome.reply is None:
        _log("memory_not_updated", backend=outcome.backend, failures=list(outcome.failures),
             reason=(outcome.tombstone or "no model answered").strip("[]"),
             kept="the previous memory.md and memory row are unchanged")
        raise MemoryNotUpdated(
            f"memory not updated: the {outcome.backend} model could not answer; the "
            "previous memory is kept (details in privacy.log)")
    t1 = time.perf_counter()
    sections = parse_sections(scrub(outcome.reply.text))
    if not any(sections.values()):  # e.g. headings with "(no changes)": never wipe memory
        _log("memory_not_updated", backend=outcome.backend, reason="the reply held no "
             "memory items", kept="the previous memory.md and memory row are unchanged")
        raise MemoryNotUpdated(
            f"memory not updated: the {outcome.backend} model's reply held no memory items; "
            "the previous memory is kept")
    content = scrub(render_memory(sections, now, plan.digests))
    return outcome, content, (time.perf_counter() - t1) * 1000


# ------------------------------------------------------------------ the document
_HEADING = re.compile(r"^\s*(?:#{1,6}\s*|\*\*)(?P<name>[^*#].*?)(?:\*\*)?\s*:?\s*$")
_BULLET = re.compile(r"^\s*(?:[-*•+]|\d{1,2}[.)])\s+")
_ALIASES = {
    "ongoing projects": SECTIONS[0], "projects": SECTIONS[0], "ongoing": SECTIONS[0],
    "current projects": SECTIONS[0], "open loops": SECTIONS[1], "open loop": SECTIONS[1],
    "loose ends": SECTIONS[1], "recurring patterns": SECTIONS[2], "patterns": SECTIONS[2],
    "habits": SECTIONS[2], "recently finished": SECTIONS[3], "finished": SECTIONS[3],
    "recently done": SECTIONS[3], "done": SECTIONS[3], "notes": NOTES,
}


def parse_sections(reply: str) -> dict[str, list[str]]:
    """The reply as {section: bullets}. In a reply with known headings only bullet lines
    count (preambles and closing remarks are dropped) and bullets under an unknown heading
    go to Notes; a reply with no known heading goes to Notes line by line. Bullets are
    normalised ("-", "*", "•", "1."), "none" placeholders dropped, long ones cut."""
    found: dict[str, list[str]] = {}
    known = any(_section_name(line) for line in reply.splitlines())
    current: str | None = None if known else NOTES
    seen = False  # a known heading has been passed
    for line in reply.splitlines():
        if not line.strip() or set(line.strip()) <= set("-=*_#"):
            continue
        if _HEADING.match(line) and (line.lstrip().startswith("#") or _section_name(line)):
            name = _section_name(line)
            if name:
                current, seen = name, True
            elif known:
                current = NOTES if seen else None
            continue
        if current is None or (known and not _BULLET.match(line)):
            continue  # preamble; in a structured reply, prose between lists is chatter
        text = " ".join(_BULLET.sub("", line).split())
        if not text or text.lower().strip(".()") in ("none", "nothing", "n/a", "nothing yet"):
            continue
        if len(text) > MAX_BULLET_CHARS:
            text = text[:MAX_BULLET_CHARS - 1].rstrip() + "…"
        bullets = found.setdefault(current, [])
        if len(bullets) < MAX_BULLETS and text not in bullets:
            bullets.append(text)
    return found


def _section_name(line: str) -> str | None:
    m = _HEADING.match(line)
    if not m:
        return None
    return _ALIASES.get(m["name"].strip().strip("*").strip().rstrip(":").lower())


def render_memory(sections: dict[str, list[str]], now: float,
                  digests: list[DigestText]) -> str:
    """memory.md: a title, a dated line, the four sections in fixed order (then Notes)."""
    updated = datetime.fromtimestamp(now, UTC).strftime("%Y-%m-%d %H:%M UTC")
    span = ""
    if digests:
        first = datetime.fromtimestamp(digests[0].window_start, UTC)
        last = datetime.fromtimestamp(digests[-1].window_end, UTC)
        span = (f" from {len(digests)} digest{'s' if len(digests) != 1 else ''}, "
                f"{first:%Y-%m-%d %H:%M} – {last:%Y-%m-%d %H:%M} UTC")
    out = ["# Memory", "", f"_Updated {updated}{span}._", ""]
    names = list(SECTIONS) + ([NOTES] if sections.get(NOTES) else [])
    for name in names:
        out.append(f"## {name}")
        out += [f"- {b}" for b in sections.get(name, [])] or [NONE_BULLET]
        out.append("")
    return "\n".join(out)


# ------------------------------------------------------------------ persistence
def _persist(conn: sqlite3.Connection, memory: Memory, t0: float) -> Memory:
    timings = dict(memory.timings, total_ms=(time.perf_counter() - t0) * 1000)
    conn.execute("BEGIN IMMEDIATE")
    try:
        cur = conn.execute(
            "INSERT INTO memory (created_at, content, backend, model, fell_back, "
            "digest_count, digests_from, digests_through, last_digest_id, input_tokens, "
            "output_tokens, model_ms, scrub_ms, total_ms) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (memory.created_at, memory.content, memory.backend, memory.model,
             int(memory.fell_back), memory.digest_count, memory.digests_from,
             memory.digests_through, memory.last_digest_id, memory.input_tokens,
             memory.output_tokens,
             timings.get("model_ms"), timings.get("scrub_ms"), timings["total_ms"]))
        stored = Memory(**{**memory.as_dict(), "id": cur.lastrowid, "timings": timings})
        write_memory_md(stored.content)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return stored


def write_memory_md(content: str, path: Path | None = None) -> Path:
    """Replace memory.md atomically (0600)."""
    path = path or paths.memory_md()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    replace_file(path, [content.encode("utf-8")])
    return path


def _row(r) -> Memory:
    return Memory(
        id=r["id"], created_at=r["created_at"], content=r["content"], backend=r["backend"],
        model=r["model"], fell_back=bool(r["fell_back"]), digest_count=r["digest_count"],
        digests_from=r["digests_from"], digests_through=r["digests_through"],
        last_digest_id=r["last_digest_id"], input_tokens=r["input_tokens"], output_tokens=r["output_tokens"],
        timings={k: r[k] for k in ("model_ms", "scrub_ms", "total_ms")})


def _iso(ts: float | None) -> str | None:
    return iso_utc(ts) if ts is not None else None


def _log(event: str, **fields) -> None:
    from cue.pii.privacy_log import privacy_log

    privacy_log(event, **fields)
