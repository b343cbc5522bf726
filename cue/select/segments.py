"""Segments: the frames cut into stretches between real changes (SPEC §4.2), each with the
frame that shows it best and a priority. `find_segments` over `score_frames`' results."""
from __future__ import annotations

import bisect
import itertools
import math
import statistics

from cue.inputs.events import TOPIC_INPUT, TOPIC_WINDOW, Event
from cue.inputs.keyframes import Keyframe
from cue.select.features import FrameFeatures, hamming, layout_distance
from cue.select.scores import (
    BLIP_DISCOUNT,
    BLIP_SECS,
    WEIGHTS,
    _count,
    text_density_score,
    user_event_spike_score,
    visual_change_score,
    window_app_title_change_score,
)
from cuectx.value import Value

DEDUPE_HAMMING = 4
# Context (SPEC §4.2): segments are stretches between real changes.
STABLE_SECS = 8.0  # a screen unchanged this long has settled
PRIORITY_CAP_SECS = 240.0  # past this, a longer segment is not more telling
MOTION_BOOST = 1.5  # a segment whose screen moved (scroll, typing) carries more news
BURST_KEYS = 20  # keys in a segment that make it an input burst
PAUSE_MARK = "/cue/.paused"  # pseudo-event at each pause's start and end (never stored)
PAUSED_STATE = "\x00paused"
BURST_RATE = 1.0  # keys per second: typing going on (the screen has not settled)
# A scroll is one moment however long: pieces of it that rested less than this run on, when
# each step changes the screen by at most SCROLL_STEP_HAMMING bits (another tab or view
# changes it by more: ~30+ of 64 on the scripted sessions, scroll steps ≤ 25).
SCROLL_REST_SECS = 20.0
SCROLL_STEP_HAMMING = 26
# Two frames whose layouts (features.layout_distance) are this close show one document or
# view — scrolled, edited, typed into; further apart, another tab, page or view. Calibrated
# on bench/sessions.py's frames: consecutive steps of one scroll or typing burst ≤ 0.044,
# a tab, page or app change with no window event ≥ 0.075 (the middle of the gap).
SAME_LAYOUT = 0.06


def same_layout(a: bytes, b: bytes) -> bool | None:
    """One document or view (True), another (False), or unknown (None: no layout)."""
    d = layout_distance(a, b)
    return None if d is None else d <= SAME_LAYOUT


class _Scored(Value):
    __slots__ = ("combined", "dhash", "kf", "layout", "reason", "scores", "window")

    def __init__(self, kf: Keyframe, dhash: int, layout: bytes, scores: dict[str, float],
                 combined: float, reason: str, window: tuple[str, str] | None) -> None:
        self.kf = kf
        self.dhash = dhash
        self.layout = layout
        self.scores = scores
        self.combined = combined
        self.reason = reason
        self.window = window


class FrameSegment(Value):
    """A stretch between real changes: what one frame can show for all of it.

    `kind` says how it began: "window" (an app or title change), "screen" (the pixels
    changed with no window event: a tab, a new page), "motion" (a run of small changes:
    scrolling, typing) or "start" (the window's first stretch). `settled` is the frame that
    shows it best: the first frame of its stable part, or the last frame of a run that
    never settled.
    """

    __slots__ = ("blip", "cause", "clicks", "end", "first", "interval", "keys", "kind", "last",
                 "moved", "priority", "settled", "stable_from", "start", "window")

    def __init__(self, first: int, last: int, start: float, end: float, kind: str, settled: int,
                 stable_from: int, window: tuple[str, str] | None, cause: str, blip: bool = False,
                 moved: bool = False, keys: int = 0, clicks: int = 0, priority: float = 0.0,
                 interval: int = 0) -> None:
        self.first = first  # frame indexes into the scored list, inclusive
        self.last = last
        self.start = start  # capture time of the first frame
        self.end = end  # capture time of the next segment's first frame (or the window's end)
        self.kind = kind
        self.settled = settled
        self.stable_from = stable_from  # first frame of the stable part (== last + 1 if none)
        self.window = window
        self.cause = cause  # what started it, for reasons and the timeline
        self.blip = blip  # a change that did not last (a window seen for seconds)
        self.moved = moved  # it holds a run of small changes (scroll, typing)
        self.keys = keys
        self.clicks = clicks
        self.priority = priority
        self.interval = interval  # which stretch of one foreground window it is in


    @property
    def secs(self) -> float:
        return self.end - self.start

    def describe(self) -> str:
        """What happened in it that no window event says; "" if a window event does."""
        if self.moved and self.keys >= BURST_KEYS:
            return f"typing burst: {self.keys} keys, {self.clicks} clicks (screen changing " \
                   f"as they typed)"
        if self.moved:
            return f"screen kept changing with no window event, {_per_minute(self)} " \
                   "(scrolling, or a page or video moving)"
        if self.kind == "screen":
            return "screen changed with no window event (another tab, page or view in the " \
                   "same window)"
        return ""


def _per_minute(seg) -> str:
    """Input described by what it is, not judged: keystrokes and clicks per minute."""
    minutes = max(seg.secs, 1.0) / 60
    if not seg.keys and not seg.clicks:
        return "no keystrokes or clicks"
    return f"{seg.keys / minutes:.0f} keystrokes and {seg.clicks / minutes:.0f} clicks a minute"


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
        out.append(_Scored(kf, feat.dhash, feat.layout, scores, combined, reason,
                           change[i][2]))
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
    4. A long scroll is one segment: consecutive screen/motion segments of one window
       stretch with little input, each resting less than SCROLL_REST_SECS before the next
       change and each step a partial change (dhash ≤ SCROLL_STEP_HAMMING), are merged,
       settled on the last one's frame. A slow scroll otherwise breaks
       into many pieces that together outrank — and crowd out — the screen read on arrival
       before it (issue 25): the arrival and the settled end are two moments, not ten.
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
        elif pending is not None and ts[a] - ts[pending] >= STABLE_SECS \
                and a + 1 < n and iv[a + 1] == iv[a] \
                and same_layout(scored[a - 1].layout, scored[a].layout) is False:
            # a run of changes (a scroll) that ends in another tab or page: two activities
            # (not a jump just before a window change: the next window showing early)
            groups.append((pending, a - 1, a))
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
    segs = _merge_scrolls(segs, ts, [x.dhash for x in scored], [x.layout for x in scored])
    for s in segs:
        s.priority = _priority(s)
    return segs


def _scroll_piece(s: FrameSegment) -> bool:
    return s.kind in ("screen", "motion") and not s.blip and s.keys < BURST_KEYS


def _one_document(i: int, j: int, hashes: list[int], layouts: list[bytes]) -> bool:
    """Frames i and j show one document (a scroll step), judged by layout where known."""
    same = same_layout(layouts[i], layouts[j])
    if same is not None:
        return same
    return hamming(hashes[i], hashes[j]) <= SCROLL_STEP_HAMMING


def _merge_scrolls(segs: list[FrameSegment], ts: list[float],
                   hashes: list[int], layouts: list[bytes]) -> list[FrameSegment]:
    """Step 4 of find_segments: runs of scroll pieces become one segment."""
    def rest(s: FrameSegment) -> float:  # how long its screen stayed put at the end
        return s.end - ts[s.stable_from] if s.stable_from <= s.last else 0.0

    out: list[FrameSegment] = []
    i = 0
    while i < len(segs):
        j = i
        while (j + 1 < len(segs) and _scroll_piece(segs[j]) and rest(segs[j]) < SCROLL_REST_SECS
               and _scroll_piece(segs[j + 1]) and segs[j + 1].interval == segs[i].interval
               and _one_document(segs[j].settled, segs[j + 1].first, hashes, layouts)):
            j += 1
        if j == i:
            out.append(segs[i])
        else:
            run, first, last = segs[i:j + 1], segs[i], segs[j]
            out.append(FrameSegment(
                first.first, last.last, first.start, last.end, "motion", last.settled,
                last.stable_from, last.window, "screen kept changing with no window event",
                moved=True, keys=sum(s.keys for s in run), clicks=sum(s.clicks for s in run),
                interval=first.interval))
        i = j + 1
    return out


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

