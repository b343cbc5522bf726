"""Pick the few keyframes worth showing a vision model for one time window.

The seed's algorithm, judged in context (SPEC §4.2; `select_frames`):

1. Keyframes captured in [end - window_secs, end]; frames inside paused intervals
   (`cue.privacy.paused_intervals`) and unreadable images are dropped first.
2. Protected anchors: the first frame, the frame nearest the middle of the time span,
   and the last frame. Anchors are never deduped or dropped.
3. Every frame is scored by the four scorers, each 0..1, combined with WEIGHTS:
   window_app_title_change_score (a blip's change discounted), user_event_spike_score,
   visual_change_score, text_density_score.
4. The frames are cut into segments — stretches between real changes (`find_segments`):
   window changes, screens that are no near-duplicate of the previous one, runs of small
   changes (scrolling, typing) that end on a settled screen. Each segment has a settled
   frame and a priority (its length, its input, whether it moved; blips discounted).
5. A segment an anchor is in is shown. The others are taken by priority, each by its
   settled frame, skipping a frame within dhash ≤ 4 of any frame taken (anchors too: the
   same screen again is shown already); a segment that looks like a frame taken in the
   same window ranks lower.
6. Slots left: stretches not shown yet (short ones, then blips), then the frame least like
   the chosen ones; then, only near-duplicates being left, the top-up (spread in time).
7. The result is sorted chronologically; each frame carries its scores and a reason that
   says which rule decided.
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
# Context (SPEC §4.2): segments are stretches between real changes.
BLIP_SECS = 8.0  # a window in front for less than this, then left, is a blip
BLIP_DISCOUNT = 0.1  # what a blip's change (and its segment) is worth
STABLE_SECS = 8.0  # a screen unchanged this long has settled
PRIORITY_CAP_SECS = 240.0  # past this, a longer segment is not more telling
MOTION_BOOST = 1.5  # a segment whose screen moved (scroll, typing) carries more news
SIMILAR_HAMMING = 10  # a segment this close to a frame taken in the same window stretch…
SIMILAR_DISCOUNT = 0.3  # …pulls this much: it is mostly shown already
BURST_KEYS = 20  # keys in a segment that make it an input burst
PAUSE_MARK = "/cue/.paused"  # pseudo-event at each pause's start and end (never stored)
PAUSED_STATE = "\x00paused"
BURST_RATE = 1.0  # keys per second: typing going on (the screen has not settled)


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
    # The stretches between real changes the selection judged by (for the timeline).
    segments: list[FrameSegment] = field(default_factory=list, repr=False)

    def activity(self) -> list[tuple[float, float, str]]:
        """(start, end, text) for each segment a chosen frame shows that no window event
        names — another tab or page, a scroll, a typing burst — for the digest timeline.
        Counts and kinds only: no titles, no paths."""
        out = []
        for s in self.segments:
            if not any(s.start <= f.ts < s.end or f.ts == s.start for f in self.frames):
                continue
            text = s.describe()
            if text:
                out.append((s.start, s.end, text))
        return out


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

    frames, segments = choose_with_segments(usable, events, start, max_frames, end, paused)
    n_events = sum(1 for e in events if e.ts >= start)
    return Selection(start, end, max_frames, frames, len(keyframes), paused_frames,
                     unreadable, in_window_paused, n_events, notes, events, segments)


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
        before, passed = state, []
        while j < len(wins) and wins[j].ts <= ts:
            new = (str(wins[j].data.get("app", "")), str(wins[j].data.get("title", "")))
            if new != state:
                passed.append(new[0])
            state = new
            j += 1
        score, detail = 0.0, ""
        if before is not None and passed:
            # Compare what is in front now with what was at the previous frame; windows
            # passed on the way (cmd-tab) are named, a change undone before this frame is
            # a blip.
            via = list(dict.fromkeys(a for a in passed[:-1] if a not in (before[0], state[0])))
            via_s = f" (via {', '.join(via)})" if via else ""
            if state[0] != before[0]:
                score, detail = APP_SWITCH, f"app switch {before[0]} → {state[0]}{via_s}"
            elif state != before:
                score, detail = TITLE_CHANGE, f"title change in {state[0]}{via_s}"
            else:
                score = APP_SWITCH * BLIP_DISCOUNT
                detail = f"brief switch to {passed[0]} and back (blip)"
        out.append((score, detail, state))
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


# ---------------------------------------------------------------- segments (context)

@dataclass
class _Scored:
    kf: Keyframe
    dhash: int
    scores: dict[str, float]
    combined: float
    reason: str
    window: tuple[str, str] | None


@dataclass
class FrameSegment:
    """A stretch between real changes: what one frame can show for all of it.

    `kind` says how it began: "window" (an app or title change), "screen" (the pixels
    changed with no window event: a tab, a new page), "motion" (a run of small changes:
    scrolling, typing) or "start" (the window's first stretch). `settled` is the frame that
    shows it best: the first frame of its stable part, or the last frame of a run that
    never settled.
    """

    first: int  # frame indexes into the scored list, inclusive
    last: int
    start: float  # capture time of the first frame
    end: float  # capture time of the next segment's first frame (or the window's end)
    kind: str
    settled: int
    stable_from: int  # first frame of the stable part (== last + 1 if none)
    window: tuple[str, str] | None
    cause: str  # what started it, for reasons and the timeline
    blip: bool = False  # a change that did not last (a window seen for seconds)
    moved: bool = False  # it holds a run of small changes (scroll, typing)
    keys: int = 0
    clicks: int = 0
    priority: float = 0.0
    interval: int = 0  # which stretch of one foreground window it is in


    @property
    def secs(self) -> float:
        return self.end - self.start

    def describe(self) -> str:
        """What happened in it that no window event says; "" if a window event does."""
        if self.moved and self.keys >= BURST_KEYS:
            return f"typing burst: {self.keys} keys, {self.clicks} clicks (screen changing " \
                   f"as they typed)"
        if self.moved:
            return "screen kept changing with no window event and little input " \
                   "(scrolling, or a page or video moving)"
        if self.kind == "screen":
            return "screen changed with no window event (another tab, page or view in the " \
                   "same window)"
        return ""


def score_frames(usable: list[tuple[Keyframe, FrameFeatures]], events: list[Event],
                 start: float | None = None) -> list[_Scored]:
    ts = [k.ts for k, _ in usable]
    hashes = [f.dhash for _, f in usable]
    change = window_app_title_change_score(ts, events, since=start)
    spike = user_event_spike_score(ts, events)
    visual = visual_change_score(hashes)
    text = text_density_score([f.text_density for _, f in usable])
    blips = _blip_windows(events, start)
    out = []
    for i, (kf, feat) in enumerate(usable):
        change_score, change_detail = change[i][0], change[i][1]
        if change_score and _in_blip(blips, kf.ts):
            change_score *= BLIP_DISCOUNT  # a window seen for seconds: a change that did not last
            change_detail = f"{change_detail} (blip: gone again within {BLIP_SECS:.0f} s)"
        scores = {
            "window_app_title_change": change_score,
            "user_event_spike": spike[i][0],
            "visual_change": visual[i][0],
            "text_density": text[i],
        }
        combined = sum(WEIGHTS[name] * s for name, s in scores.items())
        details = {
            "window_app_title_change": change_detail,
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


def _window_changes(events: list[Event], since: float | None) -> list[tuple[float, tuple]]:
    """(time, (app, title)) of each change of the foreground window, in order. A paused
    stretch ends what was in front (PAUSED_STATE) and leaves it unknown after."""
    out: list[tuple[float, tuple]] = []
    for e in events:
        if e.topic == TOPIC_WINDOW:
            state = (str(e.data.get("app", "")), str(e.data.get("title", "")))
        elif e.topic == PAUSE_MARK:
            state = (PAUSED_STATE, str(e.data.get("n", "")))
        else:
            continue
        if not out or out[-1][1] != state:
            out.append((e.ts, state))
    if since is not None:  # what was in front at the start counts from the start
        before = [c for c in out if c[0] <= since]
        out = ([(since, before[-1][1])] if before else []) + [c for c in out if c[0] > since]
    return out


def _blip_windows(events: list[Event], since: float | None) -> list[tuple[float, float]]:
    """Stretches in which a window was in front for less than BLIP_SECS, then left."""
    changes = _window_changes(events, since)
    return [(t, nxt) for (t, _), (nxt, _) in itertools.pairwise(changes)
            if nxt - t < BLIP_SECS and (since is None or t > since)]


def _in_blip(blips: list[tuple[float, float]], ts: float) -> bool:
    return any(a <= ts < b for a, b in blips)


def find_segments(scored: list[_Scored], events: list[Event], start: float | None,
                  end: float | None = None) -> list[FrameSegment]:
    """Cut the frames into segments: stretches between real changes (SPEC §4.2).

    1. Stretches: a new one starts where the foreground window changes, or where a frame
       is no near-duplicate (dhash > DEDUPE_HAMMING) of the previous frame or of the
       stretch's first frame (small changes that add up: typing, a slow scroll).
    2. Within one window, short stretches (< STABLE_SECS) are a run of changes; the run
       and the stable stretch that ends it are one segment, settled on that stretch's first
       frame. A run that never settles is one segment ending on its last frame.
    3. Windows in front for less than BLIP_SECS make blip segments.
    """
    n = len(scored)
    if not n:
        return []
    ts = [s.kf.ts for s in scored]
    changes = _window_changes(events, start)
    if changes and (start is None or changes[0][0] > start):
        changes = changes[1:]  # the first window logged, with none known before it, is no
                               # change: frames captured before its event showed it already
    change_ts = [c[0] for c in changes]
    blips = _blip_windows(events, start)
    iv = [bisect.bisect_right(change_ts, t) for t in ts]  # window interval of each frame
    step = statistics.median([b - a for a, b in itertools.pairwise(ts)]) if n > 1 else 1.0
    stop = end if end is not None else ts[-1] + step

    # 1. stretches
    cuts = [0]
    for i in range(1, n):
        if iv[i] != iv[i - 1] \
                or hamming(scored[i].dhash, scored[i - 1].dhash) > DEDUPE_HAMMING \
                or hamming(scored[i].dhash, scored[cuts[-1]].dhash) > DEDUPE_HAMMING:
            cuts.append(i)
    stretches = [(a, b - 1) for a, b in itertools.pairwise([*cuts, n])]
    cut_set = set(cuts)

    def t_end(last: int) -> float:
        """Where the stretch ending on this frame ends: the next frame or window change."""
        nxt = ts[last + 1] if last + 1 < n else max(stop, ts[last])
        return min(nxt, change_ts[iv[last]]) if iv[last] < len(change_ts) else nxt

    # Input per frame interval, for the segments' activity.
    inputs = [e for e in events if e.topic == TOPIC_INPUT]
    in_ts = [e.ts for e in inputs]
    keys_cum, clicks_cum = [0], [0]
    for e in inputs:
        keys_cum.append(keys_cum[-1] + _count(e.data.get("keys")))
        clicks_cum.append(clicks_cum[-1] + _count(e.data.get("clicks")))

    def keys_between(a_t: float, b_t: float) -> int:
        return keys_cum[bisect.bisect_left(in_ts, b_t)] - keys_cum[bisect.bisect_left(in_ts, a_t)]

    # 2. runs of short stretches end in the stable stretch that follows them; a stretch
    #    with typing going on has not settled, however little the pixels moved.
    groups: list[tuple[int, int, int]] = []  # (first, last, stable_from)
    pending: int | None = None
    for a, b in stretches:
        if pending is not None and iv[a] != iv[pending]:
            groups.append((pending, a - 1, a))  # a run the window change cut short
            pending = None
        secs = t_end(b) - ts[a]
        stable = secs >= STABLE_SECS and keys_between(ts[a], t_end(b)) < BURST_RATE * secs
        if stable:
            groups.append((a if pending is None else pending, b, a))
            pending = None
        elif pending is None:
            pending = a
    if pending is not None:
        groups.append((pending, n - 1, n))

    segs: list[FrameSegment] = []
    for first, last, stable_from in groups:
        a_t, b_t = ts[first], t_end(last)
        lo = bisect.bisect_left(in_ts, a_t - step / 2 if first else -math.inf)
        hi = bisect.bisect_left(in_ts, b_t - step / 2) if last + 1 < n else len(in_ts)
        keys, clicks = keys_cum[hi] - keys_cum[lo], clicks_cum[hi] - clicks_cum[lo]
        moved = stable_from > first
        settled = min(stable_from, last)
        if settled == last > first and last in cut_set and iv[last] < len(change_ts) \
                and change_ts[iv[last]] - ts[last] < step:
            settled = last - 1  # a jump just before a window change: the next window showing
                                # before its event was logged, not this run's end
        if first == 0:
            kind, cause = "start", "the window's first stretch"
        elif iv[first] != iv[first - 1]:
            kind = "window"
            cause = scored[first].reason if scored[first].scores[
                "window_app_title_change"] > 0 else "window change"
            if not cause.startswith(("app switch", "title change")):
                w = scored[first].window
                cause = f"switch to {w[0]}" if w else "window change"
        elif moved:
            kind = "motion"
            cause = "screen kept changing with no window event"
        else:
            kind = "screen"
            d = hamming(scored[first].dhash, scored[first - 1].dhash)
            cause = f"screen changed (dhash distance {d}) with no window event"
        blip = _in_blip(blips, ts[first]) and b_t - a_t < BLIP_SECS + step
        segs.append(FrameSegment(first, last, a_t, b_t, kind, settled, stable_from,
                                 scored[settled].window, cause, blip, moved, keys, clicks,
                                 interval=iv[first]))
    for s in segs:
        s.priority = _priority(s)
    return segs


def _priority(s: FrameSegment) -> float:
    """How much a frame of this segment would add: its length, what happened in it."""
    secs = min(s.secs, PRIORITY_CAP_SECS)
    activity = (s.keys + s.clicks) / max(s.secs, 1.0)  # input events per second
    p = secs * (1.0 + min(1.0, activity / 2.0))
    if s.moved:
        p *= MOTION_BOOST  # scrolling, typing: the screen itself carries the news
    if s.blip or s.secs < BLIP_SECS:
        p *= BLIP_DISCOUNT
    return p


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
    """Anchors, then one settled frame per segment not yet shown, then the best distinct
    frames left, then top-up; chronological."""
    return choose_with_segments(usable, events, start, max_frames)[0]


def choose_with_segments(usable: list[tuple[Keyframe, FrameFeatures]], events: list[Event],
                         start: float, max_frames: int, end: float | None = None,
                         paused: list[tuple[float, float]] = ()
                         ) -> tuple[list[SelectedFrame], list[FrameSegment]]:
    if not usable:
        return [], []
    if paused:  # a pause cuts whatever was in front: mark both of its ends
        marks = [Event(t, PAUSE_MARK, {"n": f"{k}{edge}"}) for k, (a, b) in enumerate(paused)
                 for t, edge in ((a, "paused"), (b, "resumed"))]
        events = sorted([*events, *marks], key=lambda e: e.ts)
    scored = score_frames(usable, events, start)
    segs = find_segments(scored, events, start, end)
    seg_of = [0] * len(scored)
    for k, s in enumerate(segs):
        for i in range(s.first, s.last + 1):
            seg_of[i] = k
    ts = [s.kf.ts for s in scored]
    anchors = anchor_indexes(ts, max_frames)
    budget = max_frames - len(anchors)
    anchor_set = set(anchors)
    taken: list[int] = list(anchors)  # every frame shown so far: dedupe is against these
    reasons: dict[int, str] = {}

    def distinct(i: int) -> bool:
        return all(hamming(scored[i].dhash, scored[j].dhash) > DEDUPE_HAMMING for j in taken)

    # A segment an anchor shows needs no second frame — unless the anchor caught only the
    # start of a run of changes (a scroll, a typing burst) whose settled end looks different:
    # then it is partly shown, and ranks lower.
    shown: set[int] = set()
    partly: set[int] = set()
    for i in anchors:
        s = segs[seg_of[i]]
        if s.moved and i < s.settled and distinct(s.settled):
            partly.add(seg_of[i])
        else:
            shown.add(seg_of[i])
    partly -= shown

    # 1. One frame for each segment not yet shown, the most telling segments first.
    picked: list[int] = []

    def lookalike(k: int) -> int | None:
        """dhash distance from segment k's settled frame to the nearest frame taken in the
        same window stretch, if that is ≤ SIMILAR_HAMMING (a dialog, a new message: the
        same screen with a little more), else None."""
        near = [hamming(scored[segs[k].settled].dhash, scored[j].dhash) for j in taken
                if segs[seg_of[j]].interval == segs[k].interval]
        return min(near) if near and min(near) <= SIMILAR_HAMMING else None

    def pull(k: int) -> float:
        seen = lookalike(k) is not None or k in partly
        return segs[k].priority * (SIMILAR_DISCOUNT if seen else 1.0)

    # blips and seconds-long stretches only get slots left at the end (step 2)
    todo = [k for k in range(len(segs))
            if k not in shown and not segs[k].blip and segs[k].secs >= BLIP_SECS]
    while todo and len(picked) < budget:
        k = max(todo, key=lambda k: (pull(k), -segs[k].start))
        todo.remove(k)
        s = segs[k]
        if not distinct(s.settled):
            shown.add(k)  # the screen it settles on is already chosen (a recurring screen)
            continue
        best = s.settled
        like = lookalike(k)
        picked.append(best)
        taken.append(best)
        shown.add(k)
        reasons[best] = _segment_reason(s, best, scored) + (
            f"; close to a frame already chosen in this window (dhash {like}), so taken "
            "after the others" if like is not None else "") + (
            "; an anchor shows only its start" if k in partly else "")

    # 2. Slots left: the best-scoring frames that still show something new.
    extra: list[int] = []
    if len(picked) < budget:
        # The frame least like every frame taken shows the most that is new; blips and
        # seconds-long stretches last; the four scores break ties.
        def novelty(i: int) -> int:
            return min(hamming(scored[i].dhash, scored[j].dhash) for j in taken)

        while len(picked) + len(extra) < budget:
            left = [i for i in range(len(scored))
                    if i not in anchor_set and i not in reasons and distinct(i)]
            if not left:
                break
            # A stretch not shown yet (a blip, a few seconds between two changes) before a
            # second frame of a shown one.
            fresh = [i for i in left if seg_of[i] not in shown]
            if fresh:
                i = max(fresh, key=lambda i: (not segs[seg_of[i]].blip, segs[seg_of[i]].priority,
                                              i == segs[seg_of[i]].settled,
                                              novelty(i), -ts[i]))
                s = segs[seg_of[i]]
                reasons[i] = f"{scored[i].reason}; extra: every longer segment is shown and a " \
                             f"slot was left for this {s.secs:.0f}-second stretch" \
                             + (" (a blip)" if s.blip else "")
                shown.add(seg_of[i])
            else:
                i = max(left, key=lambda i: (novelty(i), round(scored[i].combined, 4), -ts[i]))
                reasons[i] = f"{scored[i].reason}; extra: every segment is shown and a slot " \
                             f"was left: the frame least like the chosen ones " \
                             f"(dhash ≥ {novelty(i)})"
            extra.append(i)
            taken.append(i)

    # 3. Top-up: only near-duplicates are left; spread them in time.
    topped: list[int] = []
    left = [i for i in range(len(scored)) if i not in anchor_set and i not in reasons]
    while len(picked) + len(extra) + len(topped) < budget and left:
        best = max(left, key=lambda i: (not segs[seg_of[i]].blip,
                                        min(abs(ts[i] - ts[j]) for j in taken),
                                        round(scored[i].combined, 4), -ts[i]))
        left.remove(best)
        topped.append(best)
        taken.append(best)
        reasons[best] = f"top-up: {scored[best].reason} (near-duplicate of a chosen frame)"

    names = {3: ("first", "middle", "last"), 2: ("first", "last"),
             1: ("last",) if max_frames == 1 else ("first",)}
    labels = dict(zip(anchors, names[len(anchors)], strict=True))
    for i in anchors:
        extra_reason = scored[i].reason
        reasons[i] = f"anchor: {labels[i]} frame" + (
            f"; {extra_reason}" if extra_reason != "no change" else "")

    out = []
    for n, i in enumerate(sorted(reasons, key=lambda i: ts[i])):
        s = scored[i]
        app, title = s.window if s.window else (None, None)
        out.append(SelectedFrame(s.kf.path, s.kf.ts, n, round(s.kf.ts - start, 3),
                                 i in anchor_set, s.scores, reasons[i], app, title))
    return out, segs


def _segment_reason(s: FrameSegment, i: int, scored: list[_Scored]) -> str:
    """Which rule decided: the segment's cause, and why this frame of it."""
    where = f" in {s.window[0]}" if s.window and s.window[0] else ""
    if s.keys >= BURST_KEYS and s.moved:
        what = f"input burst ({s.keys} keys, {s.clicks} clicks){where}"
        if s.kind == "window":
            what += f"; outranks the window arrival before it ({s.cause})"
    elif s.kind == "motion" or (s.moved and s.kind in ("start", "screen")):
        what = f"screen kept changing with no window event{where} (scrolling?)"
    else:
        what = s.cause
    if s.moved:
        when = "settled end of the change" if s.stable_from <= s.last else "last frame of the run"
    else:
        when = "new segment"
    if s.blip:
        when += "; a blip (gone within seconds), taken only because slots were left"
    return f"{what}; {when}"
