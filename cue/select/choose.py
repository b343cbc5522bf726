"""Choosing the frames of one window: the entry (`select_frames`) reads the inputs, drops
paused and unreadable frames, then `choose_with_segments` takes anchors, one settled frame
per segment, extras and a top-up (SPEC §4.2; the steps are in cue.select's docstring)."""
from __future__ import annotations

import math
import sqlite3
import time
from pathlib import Path

from cue.core import paths
from cue.core.errors import CueError
from cue.inputs.events import TOPIC_PAUSE, Event, read_events
from cue.inputs.keyframes import Keyframe, list_keyframes
from cue.inputs.pauses import PAUSE_LOOKBACK_SECS, contains, paused_intervals
from cue.select.features import FrameFeatures, features_for, hamming
from cue.select.scores import BLIP_SECS
from cue.select.segments import (
    BURST_KEYS,
    DEDUPE_HAMMING,
    PAUSE_MARK,
    FrameSegment,
    _Scored,
    find_segments,
    same_layout,
    score_frames,
)
from cuectx.value import Value

WINDOW_LOOKBACK_SECS = 900.0  # window events read before the window: the app at its start
SIMILAR_HAMMING = 10  # a segment this close to a frame taken in the same window stretch…
SIMILAR_DISCOUNT = 0.3  # …pulls this much: it is mostly shown already
# A segment of a window stretch that already has a frame (another tab, a dialog, a scroll's
# end after its arrival) pulls this much less than one of a stretch with none: its app and
# title are shown already.
SAME_WINDOW_DISCOUNT = 0.5


class SelectedFrame(Value):
    __slots__ = ("anchor", "app", "index", "offset_secs", "path", "reason", "scores", "title", "ts")

    def __init__(self, path: Path, ts: float, index: int, offset_secs: float, anchor: bool,
                 scores: dict[str, float], reason: str, app: str | None = None,
                 title: str | None = None) -> None:
        self.path = path
        self.ts = ts  # capture time, unix seconds
        self.index = index  # position in the selection, chronological, from 0
        self.offset_secs = offset_secs  # seconds since the window's start
        self.anchor = anchor
        self.scores = scores
        self.reason = reason
        self.app = app  # foreground app / title at capture time, from the event log
        self.title = title


class Selection(Value):
    __slots__ = ("considered", "end", "event_log", "events", "frames", "max_frames", "notes",
                 "paused", "paused_frames", "segments", "start", "unreadable")

    def __init__(self, start: float, end: float, max_frames: int, frames: list[SelectedFrame],
                 considered: int, paused_frames: int, unreadable: list[Path] | None = None,
                 paused: list[tuple[float, float]] | None = None, events: int = 0,
                 notes: list[str] | None = None, event_log: list[Event] | None = None,
                 segments: list[FrameSegment] | None = None) -> None:
        self.start = start
        self.end = end
        self.max_frames = max_frames
        self.frames = frames
        self.considered = considered  # keyframes captured in the window
        self.paused_frames = paused_frames  # of those, inside a paused interval (never selected)
        self.unreadable = [] if unreadable is None else unreadable
        self.paused = [] if paused is None else paused
        self.events = events  # events read for the window
        self.notes = [] if notes is None else notes
        # The events behind the scores: from WINDOW_LOOKBACK_SECS before `start` to `end`,
        # /cue/pause and anything inside a paused interval already removed (for a timeline).
        self.event_log = [] if event_log is None else event_log
        # The stretches between real changes the selection judged by (for the timeline).
        self.segments = [] if segments is None else segments

    def __repr__(self) -> str:  # the event log and the segments are long: left out
        shown = (f"{n}={getattr(self, n)!r}" for n in self._fields
                 if n not in ("event_log", "segments"))
        return f"Selection({', '.join(shown)})"

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
        from cue.core.db import connect

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

    def duplicate(i: int, j: int) -> bool:
        """The same screen: near-equal dhash, and (where known) the same layout — two text
        pages of different documents can share a coarse dhash."""
        return hamming(scored[i].dhash, scored[j].dhash) <= DEDUPE_HAMMING \
            and same_layout(scored[i].layout, scored[j].layout) is not False

    def distinct(i: int) -> bool:
        return not any(duplicate(i, j) for j in taken)

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
        # The screen before a scroll and where the scroll settled are two moments however
        # alike they look (page 1 and page 25 of one PDF): a scroll's end is never "a little
        # more" of a still screen, nor the other way round.
        near = [hamming(scored[segs[k].settled].dhash, scored[j].dhash) for j in taken
                if segs[seg_of[j]].interval == segs[k].interval
                and (segs[seg_of[j]].kind == "motion") == (segs[k].kind == "motion")]
        return min(near) if near and min(near) <= SIMILAR_HAMMING else None

    def pull(k: int) -> float:
        if k in partly:
            return segs[k].priority * SIMILAR_DISCOUNT
        p = segs[k].priority * (SIMILAR_DISCOUNT if lookalike(k) is not None else 1.0)
        if segs[k].kind in ("screen", "motion") and any(
                segs[seg_of[j]].interval == segs[k].interval for j in taken):
            p *= SAME_WINDOW_DISCOUNT  # not the arrival: what its window showed first is in
        return p

    def continues(k: int) -> bool:
        """More of an activity a taken frame already shows: the same window stretch and
        the same document or view (scrolled further, edited), judged by layout. Every
        other segment gets its frame before any of these gets a second."""
        if k in partly:
            return True
        return any(segs[seg_of[j]].interval == segs[k].interval
                   and same_layout(scored[segs[k].settled].layout, scored[j].layout)
                   for j in taken)

    # blips and seconds-long stretches only get slots left at the end (step 2)
    todo = [k for k in range(len(segs))
            if k not in shown and not segs[k].blip and segs[k].secs >= BLIP_SECS]
    while todo and len(picked) < budget:
        k = max(todo, key=lambda k: (not continues(k), pull(k), -segs[k].start))
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
