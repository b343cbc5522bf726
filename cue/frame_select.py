"""Pick the few keyframes worth showing a vision model for one time window.

The seed's algorithm, step by step (`select_frames`):

1. Keyframes captured in [end - window_secs, end]; frames inside paused intervals
   (`cue.privacy.paused_intervals`) and unreadable images are dropped first.
2. Protected anchors: the first frame, the frame nearest the middle of the time span,
   and the last frame. Anchors are never deduped or dropped.
3. Every other frame is scored by four scorers, each 0..1, combined with WEIGHTS:
   window_app_title_change_score, user_event_spike_score, visual_change_score,
   text_density_score.
4. Non-anchors are taken best first, skipping any within dhash Hamming distance ≤ 4 of
   one already taken (anchors are not compared).
5. If that leaves the budget under-filled, the skipped frames top it up (best score
   first, then the one farthest in time from those already chosen).
6. The result is sorted chronologically; each frame carries its scores and a reason.
"""
from __future__ import annotations

import bisect
import itertools
import math
import sqlite3
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path

from cue import paths
from cue.errors import CueError
from cue.events import TOPIC_INPUT, TOPIC_PAUSE, TOPIC_WINDOW, Event, read_events
from cue.frame_cache import FrameFeatures, features_for, hamming
from cue.keyframes import Keyframe, list_keyframes
from cue.privacy import PAUSE_LOOKBACK_SECS, contains, paused_intervals

WEIGHTS = {
    "window_app_title_change": 0.35,
    "visual_change": 0.35,
    "user_event_spike": 0.15,
    "text_density": 0.15,
}
DEDUPE_HAMMING = 4
APP_SWITCH, TITLE_CHANGE = 1.0, 0.6
SPIKE_BEFORE_SECS, SPIKE_AFTER_SECS = 10.0, 2.0  # input counted this close to a frame
VISUAL_FULL_DISTANCE = 32  # dhash distance that scores 1.0 (unrelated screens: ~32)
TEXT_FULL_DENSITY = 0.2  # edge density that scores 1.0 (a screen full of small text)
WINDOW_LOOKBACK_SECS = 900.0  # window events read before the window: the app at its start


@dataclass(frozen=True)
class SelectedFrame:
    path: Path
    ts: float  # capture time, unix seconds
    index: int  # position in the selection, chronological, from 0
    offset_secs: float  # seconds since the window's start
    anchor: bool
    scores: dict[str, float]
    reason: str
    app: str | None = None  # foreground app / title at capture time, from the event log
    title: str | None = None


@dataclass(frozen=True)
class Selection:
    start: float
    end: float
    max_frames: int
    frames: list[SelectedFrame]
    considered: int  # keyframes captured in the window
    paused_frames: int  # of those, inside a paused interval (never selected)
    unreadable: list[Path] = field(default_factory=list)
    paused: list[tuple[float, float]] = field(default_factory=list)
    events: int = 0  # events read for the window
    notes: list[str] = field(default_factory=list)
    # The events behind the scores: from WINDOW_LOOKBACK_SECS before `start` to `end`,
    # /cue/pause and anything inside a paused interval already removed (for a timeline).
    event_log: list[Event] = field(default_factory=list, repr=False)


def select_digest_frames(keyframe_dir: Path | str | None, window_secs: float,
                         max_frames: int = 10, *, end: float | None = None,
                         events_dir: Path | str | None = None,
                         conn: sqlite3.Connection | None = None) -> list[SelectedFrame]:
    """Up to `max_frames` frames of the last `window_secs` before `end` (default now)."""
    return select_frames(keyframe_dir, window_secs, max_frames, end=end,
                         events_dir=events_dir, conn=conn).frames


def select_frames(keyframe_dir: Path | str | None, window_secs: float, max_frames: int = 10,
                  *, end: float | None = None, events_dir: Path | str | None = None,
                  conn: sqlite3.Connection | None = None) -> Selection:
    """`select_digest_frames` with the bookkeeping: what was dropped and why.

    `keyframe_dir`/`events_dir` None mean cue's default folders; a missing default folder
    is an empty input (a note says so), a missing folder that was named is an error.
    """
    if max_frames < 1:
        raise CueError("max frames must be at least 1")
    if not window_secs > 0 or math.isinf(window_secs):
        raise CueError("the window must be a positive number of seconds")
    end = time.time() if end is None else float(end)
    start = end - window_secs
    if conn is None:
        from cue.db import connect

        conn = connect()
        try:
            return _select(conn, keyframe_dir, events_dir, start, end, max_frames)
        finally:
            conn.close()
    return _select(conn, keyframe_dir, events_dir, start, end, max_frames)


def _select(conn, keyframe_dir, events_dir, start, end, max_frames) -> Selection:
    notes: list[str] = []
    kdir = Path(keyframe_dir) if keyframe_dir is not None else paths.keyframes_dir()
    if keyframe_dir is None and not kdir.exists():
        notes.append(f"no keyframe folder at {kdir} yet; nothing to select")
        keyframes: list[Keyframe] = []
    else:
        keyframes = list_keyframes(kdir, start, end)

    edir = Path(events_dir) if events_dir is not None else paths.events_dir()
    if events_dir is None and not edir.exists():
        events: list[Event] = []
        pause_events: list[Event] = []
    else:
        events = read_events(edir, start - WINDOW_LOOKBACK_SECS, end, notes=notes)
        pause_events = read_events(edir, start - PAUSE_LOOKBACK_SECS, start - WINDOW_LOOKBACK_SECS,
                                   topics=[TOPIC_PAUSE]) + [e for e in events
                                                            if e.topic == TOPIC_PAUSE]
    paused = paused_intervals(conn, start - WINDOW_LOOKBACK_SECS, end, events=pause_events)
    in_window_paused = [(max(a, start), b) for a, b in paused if b >= start]

    live = [k for k in keyframes if not contains(paused, k.ts)]
    paused_frames = len(keyframes) - len(live)
    events = [e for e in events if e.topic != TOPIC_PAUSE and not contains(paused, e.ts)]

    feats = features_for(conn, live)
    unreadable = [k.path for k in live if k.path in feats and feats[k.path].dhash is None]
    usable = [(k, feats[k.path]) for k in live
              if k.path in feats and feats[k.path].dhash is not None]
    if unreadable:
        notes.append(f"{len(unreadable)} keyframe(s) could not be read and were skipped")

    frames = choose(usable, events, start, max_frames)
    n_events = sum(1 for e in events if e.ts >= start)
    return Selection(start, end, max_frames, frames, len(keyframes), paused_frames,
                     unreadable, in_window_paused, n_events, notes, events)


# ---------------------------------------------------------------- the four scorers

def window_app_title_change_score(frame_ts: list[float], events: list[Event],
                                  since: float | None = None
                                  ) -> list[tuple[float, str, tuple[str, str] | None]]:
    """Per frame: (score, detail, foreground (app, title) at capture).

    1.0 when the foreground app changed since the previous frame, 0.6 when only the
    window title did, else 0. Events up to `since` (the window's start) only say what
    was in front when the window began.
    """
    wins = [e for e in events if e.topic == TOPIC_WINDOW]
    out = []
    state: tuple[str, str] | None = None
    j = 0
    if since is not None:
        while j < len(wins) and wins[j].ts <= since:
            state = (str(wins[j].data.get("app", "")), str(wins[j].data.get("title", "")))
            j += 1
    for ts in frame_ts:
        best, detail = 0.0, ""
        while j < len(wins) and wins[j].ts <= ts:
            new = (str(wins[j].data.get("app", "")), str(wins[j].data.get("title", "")))
            if state is not None and new != state:
                if new[0] != state[0]:
                    score, what = APP_SWITCH, f"app switch {state[0]} → {new[0]}"
                else:
                    score, what = TITLE_CHANGE, f"title change in {new[0]}"
                if score > best:
                    best, detail = score, what
            state = new
            j += 1
        out.append((best, detail, state))
    return out


def user_event_spike_score(frame_ts: list[float], events: list[Event]
                           ) -> list[tuple[float, int, int]]:
    """Per frame: (score, keys, clicks) for input in [ts - 10 s, ts + 2 s].

    A spike is activity above the window's median, scaled so the busiest frame is 1.
    """
    inputs = [e for e in events if e.topic == TOPIC_INPUT]
    times = [e.ts for e in inputs]
    keys = [0]
    clicks = [0]
    for e in inputs:
        keys.append(keys[-1] + _count(e.data.get("keys")))
        clicks.append(clicks[-1] + _count(e.data.get("clicks")))
    per_frame = []
    for ts in frame_ts:
        lo = bisect.bisect_left(times, ts - SPIKE_BEFORE_SECS)
        hi = bisect.bisect_right(times, ts + SPIKE_AFTER_SECS)
        per_frame.append((keys[hi] - keys[lo], clicks[hi] - clicks[lo]))
    totals = [k + c for k, c in per_frame]
    if not totals:
        return []
    base, top = statistics.median(totals), max(totals)
    return [((t - base) / (top - base) if top > base and t > base else 0.0, k, c)
            for t, (k, c) in zip(totals, per_frame)]


def visual_change_score(hashes: list[int]) -> list[tuple[float, int]]:
    """Per frame: (score, dhash distance to the previous keyframe); the first gets 0."""
    out = [(0.0, 0)] if hashes else []
    for prev, cur in itertools.pairwise(hashes):
        d = hamming(prev, cur)
        out.append((min(1.0, d / VISUAL_FULL_DISTANCE), d))
    return out


def text_density_score(densities: list[float]) -> list[float]:
    """Per frame: share of strong horizontal edges in the 1/8-scale grayscale, scaled.

    No OCR: text is dense short strokes, so edge density stands in for "how much text".
    """
    return [min(1.0, d / TEXT_FULL_DENSITY) for d in densities]


def _count(value) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


# ---------------------------------------------------------------- selection

@dataclass
class _Scored:
    kf: Keyframe
    dhash: int
    scores: dict[str, float]
    combined: float
    reason: str
    window: tuple[str, str] | None


def score_frames(usable: list[tuple[Keyframe, FrameFeatures]], events: list[Event],
                 start: float | None = None) -> list[_Scored]:
    ts = [k.ts for k, _ in usable]
    hashes = [f.dhash for _, f in usable]
    change = window_app_title_change_score(ts, events, since=start)
    spike = user_event_spike_score(ts, events)
    visual = visual_change_score(hashes)
    text = text_density_score([f.text_density for _, f in usable])
    out = []
    for i, (kf, feat) in enumerate(usable):
        scores = {
            "window_app_title_change": change[i][0],
            "user_event_spike": spike[i][0],
            "visual_change": visual[i][0],
            "text_density": text[i],
        }
        combined = sum(WEIGHTS[name] * s for name, s in scores.items())
        details = {
            "window_app_title_change": change[i][1],
            "user_event_spike": f"input burst ({spike[i][1]} keys, {spike[i][2]} clicks)",
            "visual_change": f"screen changed (dhash distance {visual[i][1]})",
            "text_density": "text-dense screen",
        }
        lead = max(scores, key=lambda n: WEIGHTS[n] * scores[n])
        reason = details[lead] if scores[lead] > 0 else "no change"
        scores = {n: round(s, 4) for n, s in scores.items()}
        scores["combined"] = round(combined, 4)
        out.append(_Scored(kf, feat.dhash, scores, combined, reason, change[i][2]))
    return out


def anchor_indexes(ts: list[float], max_frames: int) -> list[int]:
    """First, middle (nearest the midpoint in time) and last; fewer if the budget is."""
    n = len(ts)
    if n == 0:
        return []
    first, last = 0, n - 1
    mid_t = (ts[first] + ts[last]) / 2
    middle = min(range(n), key=lambda i: (abs(ts[i] - mid_t), i))
    if max_frames == 1:
        wanted = [last]
    elif max_frames == 2:
        wanted = [first, last]
    else:
        wanted = [first, middle, last]
    return sorted(set(wanted))


def choose(usable: list[tuple[Keyframe, FrameFeatures]], events: list[Event], start: float,
           max_frames: int) -> list[SelectedFrame]:
    """Anchors, then the best distinct non-anchors, then top-up; chronological."""
    if not usable:
        return []
    scored = score_frames(usable, events, start)
    ts = [s.kf.ts for s in scored]
    anchors = anchor_indexes(ts, max_frames)
    budget = max_frames - len(anchors)
    anchor_set = set(anchors)
    anchor_ts = [ts[i] for i in anchors]
    # Best first; equal scores (an idle stretch) prefer frames far from the anchors.
    ranked = sorted((i for i in range(len(scored)) if i not in anchor_set),
                    key=lambda i: (-round(scored[i].combined, 4),
                                   -min(abs(ts[i] - t) for t in anchor_ts), ts[i]))
    picked: list[int] = []
    skipped: list[int] = []
    for i in ranked:
        if len(picked) >= budget:
            break
        if any(hamming(scored[i].dhash, scored[j].dhash) <= DEDUPE_HAMMING for j in picked):
            skipped.append(i)
        else:
            picked.append(i)
    topped: list[int] = []
    while len(picked) + len(topped) < budget and skipped:
        chosen_ts = [ts[i] for i in (*anchors, *picked, *topped)]
        best = max(skipped, key=lambda i: (round(scored[i].combined, 4),
                                            min(abs(ts[i] - t) for t in chosen_ts), -ts[i]))
        skipped.remove(best)
        topped.append(best)

    names = {3: ("first", "middle", "last"), 2: ("first", "last"),
             1: ("last",) if max_frames == 1 else ("first",)}
    labels = dict(zip(anchors, names[len(anchors)], strict=True))
    reasons: dict[int, str] = {}
    for i in anchors:
        extra = scored[i].reason
        reasons[i] = f"anchor: {labels[i]} frame" + (f"; {extra}" if extra != "no change" else "")
    for i in picked:
        reasons[i] = scored[i].reason
    for i in topped:
        reasons[i] = f"top-up: {scored[i].reason} (near-duplicate of a chosen frame)"

    out = []
    for n, i in enumerate(sorted(reasons, key=lambda i: ts[i])):
        s = scored[i]
        app, title = s.window if s.window else (None, None)
        out.append(SelectedFrame(s.kf.path, s.kf.ts, n, round(s.kf.ts - start, 3),
                                 i in anchor_set, s.scores, reasons[i], app, title))
    return out
