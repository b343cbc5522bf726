"""The digest pipeline: recent screen activity → a short, scrubbed narrative.

    select frames → timeline → prepare_for_digest → policy gate → pii.scrub
        → one `digests` row + digest.md

`plan_digest` does the first three steps and calls nothing (`cue digest --dry-run`);
`run_digest` does all of them. On a skip (the policy refused or every backend failed)
the row holds a fixed tombstone and a fixed category (cue.llm.errors.CATEGORIES — the seed's
tombstone, "so file paths / ports / stderr can't leak"), digest.md says "skipped: <category>",
and the details are in privacy.log. The person-facing sentence (which setting, URL or model
file, and what happened) rides on the returned Digest's `detail` for the terminal's
`Error:` line and is never stored. An answer that is not a plausible narrative
(cue.digest.plausible) is stored as `failed` with a fixed reason and a tombstone — never as
a summary, so it never reaches memory.md, `cue suggest` or ctx. A window with nothing in it
(no frames, no events — e.g. fully paused) calls no model at all: "[no recent activity]".

Privacy: keyframe paths stay in this module (they are read, never sent, logged or
stored); image bytes live in memory only; the model's reply is scrubbed before it is
stored, written or returned, and is never logged.
"""
from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

from cue.core import paths
from cue.core.config import Config
from cue.core.timespec import iso_utc
from cue.digest.timeline import Timeline, build_timeline
from cue.llm import FrameImage, Outcome, digest_with_policy
from cue.llm.errors import CLOUD_NOT_ALLOWED
from cue.llm.request import digest_parts, text_of
from cuectx.files import replace_file
from cuectx.value import Value

NO_ACTIVITY = "[no recent activity]"
FAILED_TOMBSTONE = "[failed: the model's answer was not a plausible narrative]"
IMPLAUSIBLE = "model answer was not a plausible narrative"
CHOOSE_BACKEND = ("Choose where screenshots go, once: `cue config set cloud.send_images true` "
                  "(Anthropic's API), `cue config set digest.backend local` (a model on this "
                  "machine) or `cue config set digest.backend server` (a model server you run); "
                  "`cue doctor` shows what will run.")
NO_MODEL_ANSWER = "no model answered"

PROMPT = """\
You are writing a short activity digest for the person whose screen this is, so that
their coding assistant knows what they have been doing. Below are a timeline of window
and input events and a few screenshots from the same window of time, each labelled with
its frame number and seconds from the start.

Write 2 to 5 plain sentences in the past tense: what they worked on, in which apps, and
what changed over the window. Be concrete about tasks, files and topics you can see;
do not guess beyond the evidence. Never copy secrets, passwords, tokens, keys, email
addresses, phone numbers or other personal details from the screen into the digest."""


class PlannedFrame(Value):
    __slots__ = ("anchor", "bytes", "index", "offset_secs", "path", "reason", "scores", "ts")

    def __init__(self, index: int, offset_secs: float, ts: float, anchor: bool, reason: str,
                 scores: dict[str, float], bytes: int, path: Path) -> None:
        self.index = index
        self.offset_secs = offset_secs
        self.ts = ts
        self.anchor = anchor
        self.reason = reason
        self.scores = scores
        self.bytes = bytes
        self.path = path  # shown by --dry-run only; never sent, logged or stored


class DigestPlan(Value):
    """What a digest run would send: the frames (as sizes), the timeline and the prompt."""

    __slots__ = ("end", "frames", "prepare_ms", "prompt", "select_ms", "start", "timeline")

    def __init__(self, start: float, end: float, frames: list[PlannedFrame], timeline: Timeline,
                 prompt: str, select_ms: float, prepare_ms: float) -> None:
        self.start = start
        self.end = end
        self.frames = frames
        self.timeline = timeline
        self.prompt = prompt  # the exact text parts the model gets (images shown as their size)
        self.select_ms = select_ms
        self.prepare_ms = prepare_ms

    @property
    def image_bytes(self) -> int:
        return sum(f.bytes for f in self.frames)

    @property
    def empty(self) -> bool:
        return not self.frames and self.timeline.empty


class Digest(Value):
    """One `digests` row."""

    __slots__ = ("backend", "created_at", "detail", "event_count", "fell_back", "frame_count", "id",
                 "image_bytes", "input_tokens", "model", "output_tokens", "reason", "status",
                 "summary", "timings", "window_end", "window_start")

    def __init__(self, id: int | None, created_at: float, window_start: float, window_end: float,
                 status: str, backend: str, model: str | None, fell_back: bool, summary: str,
                 frame_count: int, event_count: int, image_bytes: int = 0,
                 input_tokens: int | None = None, output_tokens: int | None = None,
                 timings: dict[str, float | None] | None = None, reason: str | None = None,
                 detail: str | None = None) -> None:
        self.id = id
        self.created_at = created_at
        self.window_start = window_start
        self.window_end = window_end
        self.status = status  # ok | skipped | failed | empty
        self.backend = backend
        self.model = model
        self.fell_back = fell_back
        self.summary = summary
        self.frame_count = frame_count
        self.event_count = event_count
        self.image_bytes = image_bytes
        self.input_tokens = input_tokens
        self.output_tokens = output_tokens
        self.timings = {} if timings is None else timings
        self.reason = reason  # skipped/failed: a fixed category (never paths, ports, stderr)
        self.detail = detail  # skipped/failed: the full sentence, for the terminal; not stored

    def to_dict(self) -> dict:
        d = {**self.as_dict(), "timings": dict(self.timings)}
        del d["detail"]
        d["window_start"] = iso_utc(self.window_start)
        d["window_end"] = iso_utc(self.window_end)
        d["created_at"] = iso_utc(self.created_at)
        return d

    def to_ctx_record(self) -> dict:
        """A record `ctx add --json -` stores as an observation node."""
        return {
            "content": self.summary,
            "type": "observation",
            "tags": ["source:cue", "cue:digest"],
            "metadata": {
                "source": "cue",
                "cue_digest_id": self.id,
                "window_start": iso_utc(self.window_start),
                "window_end": iso_utc(self.window_end),
                "backend": self.backend,
                "model": self.model,
                "frames": self.frame_count,
                "events": self.event_count,
            },
        }


def plan_digest(conn: sqlite3.Connection, *, window_secs: float, end: float | None = None,
                keyframe_dir: Path | str | None = None, events_dir: Path | str | None = None,
                max_frames: int = 10) -> tuple[DigestPlan, list[FrameImage]]:
    """Select, build the timeline and prepare the images. Calls no model."""
    from cue.inputs.events import read_events
    from cue.select.choose import WINDOW_LOOKBACK_SECS, select_frames
    t0 = time.perf_counter()
    selection = select_frames(keyframe_dir, window_secs, max_frames, end=end,
                              events_dir=events_dir, conn=conn)
    start, end = selection.start, selection.end
    edir = Path(events_dir) if events_dir is not None else paths.events_dir()
    events = read_events(edir, start - WINDOW_LOOKBACK_SECS, end) if edir.exists() else []
    t1 = time.perf_counter()

    images: list[FrameImage] = []
    planned: list[PlannedFrame] = []
    for f, jpeg in zip(selection.frames, _prepare_all([f.path for f in selection.frames])):
        if jpeg is None:
            continue  # unreadable now (changed since selection): skipped, logged by index
        images.append(FrameImage(index=f.index, offset_secs=f.offset_secs, jpeg=jpeg))
        planned.append(PlannedFrame(f.index, f.offset_secs, f.ts, f.anchor, f.reason,
                                    dict(f.scores), len(jpeg), f.path))
    t2 = time.perf_counter()
    timeline = build_timeline(events, start, end, paused=selection.paused,
                              frames=[(f.index, f.ts) for f in planned],
                              activity=selection.activity())
    t3 = time.perf_counter()
    prompt = text_of(digest_parts(PROMPT, images, timeline.render()))
    plan = DigestPlan(start, end, planned, timeline, prompt,
                      select_ms=(t1 - t0 + t3 - t2) * 1000, prepare_ms=(t2 - t1) * 1000)
    return plan, images


def run_digest(conn: sqlite3.Connection, config: Config, *, window_secs: float,
               end: float | None = None, keyframe_dir: Path | str | None = None,
               events_dir: Path | str | None = None, max_frames: int = 10,
               now: float | None = None) -> Digest:
    """The whole pipeline; returns the stored row (status ok, skipped, failed or empty)."""
    t0 = time.perf_counter()
    # The scrubber's first build (~0.5 s of one core: Presidio's import) runs in a child
    # process on the other core while this one selects and prepares frames and asks the
    # model (cue.pii.worker). Started first: the backfill below may scrub, too.
    from cue.pii import prewarm

    prewarm()
    _ensure_scrubbed(conn)
    plan, images = plan_digest(conn, window_secs=window_secs, end=end,
                               keyframe_dir=keyframe_dir, events_dir=events_dir,
                               max_frames=max_frames)
    timings: dict[str, float | None] = {"select_ms": plan.select_ms,
                                        "prepare_ms": plan.prepare_ms,
                                        "model_ms": None, "scrub_ms": None}
    base = {"id": None, "created_at": time.time() if now is None else now,
            "window_start": plan.start, "window_end": plan.end,
            "frame_count": len(plan.frames), "event_count": plan.timeline.event_count,
            "image_bytes": plan.image_bytes}

    if plan.empty:
        digest = Digest(status="empty", backend="none", model=None, fell_back=False,
                        summary=NO_ACTIVITY, timings=timings, **base)
        return store_digest(conn, digest, started=t0)

    outcome: Outcome = digest_with_policy(PROMPT, images, plan.timeline.render(),
                                          config=config)
    del images
    if outcome.reply is None:
        digest = Digest(status="skipped", backend=outcome.backend, model=None,
                        fell_back=outcome.fell_back, summary=outcome.tombstone or NO_ACTIVITY,
                        timings=timings, reason=outcome.category or NO_MODEL_ANSWER,
                        detail=outcome.reason, **base)
        return store_digest(conn, digest, started=t0)

    from cue.digest.plausible import implausible
    from cue.pii import scrub

    t1 = time.perf_counter()
    summary = scrub(outcome.reply.text).strip()
    timings["scrub_ms"] = (time.perf_counter() - t1) * 1000
    timings["model_ms"] = outcome.reply.model_ms
    model = scrub(outcome.reply.model)
    why = implausible(summary)
    if why is not None:
        from cue.pii.privacy_log import privacy_log

        privacy_log("digest_rejected", backend=outcome.backend, model=model, why=why,
                    chars=len(summary))  # never the answer itself
        digest = Digest(status="failed", backend=outcome.backend, model=model,
                        fell_back=outcome.fell_back, summary=FAILED_TOMBSTONE,
                        input_tokens=outcome.reply.input_tokens,
                        output_tokens=outcome.reply.output_tokens, timings=timings,
                        reason=IMPLAUSIBLE,
                        detail=f"the {outcome.backend} model ({model}) answered something that "
                        f"is not a plausible narrative: {why}; check the model "
                        "(`cue doctor`), nothing went to memory", **base)
        return store_digest(conn, digest, started=t0)
    digest = Digest(status="ok", backend=outcome.backend, model=model,
                    fell_back=outcome.fell_back, summary=summary,
                    input_tokens=outcome.reply.input_tokens,
                    output_tokens=outcome.reply.output_tokens, timings=timings, **base)
    return store_digest(conn, digest, started=t0)


# ------------------------------------------------------------------ history
COLUMNS = ("id, created_at, window_start, window_end, status, backend, model, fell_back, "
           "summary, frame_count, event_count, image_bytes, input_tokens, output_tokens, "
           "select_ms, prepare_ms, model_ms, scrub_ms, total_ms, reason")


def list_digests(conn: sqlite3.Connection, *, limit: int = 20,
                 status: str | None = None) -> list[Digest]:
    """Newest first."""
    sql = f"SELECT {COLUMNS} FROM digests"
    args: list = []
    if status:
        sql += " WHERE status = ?"
        args.append(status)
    sql += " ORDER BY window_end DESC, id DESC LIMIT ?"
    args.append(limit)
    return [_row(r) for r in conn.execute(sql, args)]


def get_digest(conn: sqlite3.Connection, digest_id: int) -> Digest | None:
    row = conn.execute(f"SELECT {COLUMNS} FROM digests WHERE id = ?", (digest_id,)).fetchone()
    return _row(row) if row else None


def latest_digest(conn: sqlite3.Connection) -> Digest | None:
    found = list_digests(conn, limit=1)
    return found[0] if found else None


def ok_summaries(conn: sqlite3.Connection, *, after: float = 0,
                 after_id: int | None = None) -> list[tuple[int, float, float, str]]:
    """(id, window_start, window_end, summary) of the `ok` digests whose window ended after
    `after` (unix seconds), or that were written after digest `after_id`, oldest first —
    as stored (the reader scrubs them again)."""
    column, bound = ("id", after_id) if after_id is not None else ("window_end", after)
    return [tuple(r) for r in conn.execute(
        "SELECT id, window_start, window_end, summary FROM digests "
        f"WHERE status = 'ok' AND {column} > ? ORDER BY window_end, id", (bound,))]


# ------------------------------------------------------------------ persistence
def store_digest(conn: sqlite3.Connection, digest: Digest, *,
                 started: float | None = None) -> Digest:
    """Insert the row and rewrite digest.md, all or nothing; return the row with its id.
    `digest.summary` must already be scrubbed (or a fixed string)."""
    timings = dict(digest.timings)
    if started is not None:
        timings["total_ms"] = (time.perf_counter() - started) * 1000
    conn.execute("BEGIN IMMEDIATE")
    try:
        cur = conn.execute(
            "INSERT INTO digests (created_at, window_start, window_end, status, backend, "
            "model, fell_back, summary, frame_count, event_count, image_bytes, input_tokens, "
            "output_tokens, select_ms, prepare_ms, model_ms, scrub_ms, total_ms, reason) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (digest.created_at, digest.window_start, digest.window_end, digest.status,
             digest.backend, digest.model, int(digest.fell_back), digest.summary,
             digest.frame_count, digest.event_count, digest.image_bytes,
             digest.input_tokens, digest.output_tokens, timings.get("select_ms"),
             timings.get("prepare_ms"), timings.get("model_ms"), timings.get("scrub_ms"),
             timings.get("total_ms"), digest.reason))
        stored = Digest(**{**digest.as_dict(), "id": cur.lastrowid, "timings": timings})
        write_digest_md(stored)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return stored


def write_digest_md(digest: Digest, path: Path | None = None) -> Path:
    """digest.md shows the latest digest; "skipped: <reason>" / "failed: <reason>" when the
    model could not write one (there was activity); "[no recent activity]" when there was none."""
    path = path or paths.digest_md()
    if digest.status == "ok":
        body = digest.summary
    elif digest.status in ("skipped", "failed"):
        body = f"{digest.status}: {digest.reason or digest.summary.strip('[]')}"
        if digest.reason == CLOUD_NOT_ALLOWED:
            body += f"\n\n{CHOOSE_BACKEND}"
    else:
        body = NO_ACTIVITY
    text = (f"# Activity digest\n\n"
            f"_{iso_utc(digest.window_start)} – {iso_utc(digest.window_end)}_\n\n"
            f"{body}\n")
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    replace_file(path, [text.encode("utf-8")])
    return path


def _row(r) -> Digest:
    return Digest(
        id=r["id"], created_at=r["created_at"], window_start=r["window_start"],
        window_end=r["window_end"], status=r["status"], backend=r["backend"],
        model=r["model"], fell_back=bool(r["fell_back"]), summary=r["summary"],
        frame_count=r["frame_count"], event_count=r["event_count"],
        image_bytes=r["image_bytes"], input_tokens=r["input_tokens"],
        output_tokens=r["output_tokens"],
        timings={k: r[k] for k in ("select_ms", "prepare_ms", "model_ms", "scrub_ms",
                                   "total_ms")},
        reason=r["reason"])


def _prepare_all(frame_paths: list[Path]) -> list[bytes | None]:
    """prepare_for_digest for each frame, two at a time (Pillow releases the GIL while it
    decodes, resizes and encodes). A frame that fails is None and logged by position."""
    from concurrent.futures import ThreadPoolExecutor

    from cue.core.errors import CueError
    from cue.digest.image_preprocess import prepare_for_digest

    def one(item: tuple[int, Path]) -> bytes | None:
        position, path = item
        try:
            return prepare_for_digest(path)
        except CueError as exc:
            from cue.pii.privacy_log import privacy_log

            privacy_log("digest_frame_skipped", position=position, error=type(exc).__name__)
            return None

    if len(frame_paths) <= 1:
        return [one(item) for item in enumerate(frame_paths)]
    with ThreadPoolExecutor(max_workers=min(4, os.cpu_count() or 1)) as pool:
        return list(pool.map(one, enumerate(frame_paths)))


def _ensure_scrubbed(conn: sqlite3.Connection) -> None:
    """Re-scrub stored text once after the scrubber's version changes (cue.digest.backfill)."""
    from cue.digest.backfill import ensure_scrubbed

    ensure_scrubbed(conn)
