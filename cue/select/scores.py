"""The four per-frame scorers, each 0..1 (SPEC §4.2): a window/app/title change, an input
spike, visual change (dhash distance), text density. `cue.select.segments` combines them."""
from __future__ import annotations

import bisect
import itertools
import statistics

from cue.inputs.events import TOPIC_INPUT, TOPIC_WINDOW, Event
from cue.select.features import hamming

WEIGHTS = {
    "window_app_title_change": 0.35,
    "visual_change": 0.35,
    "user_event_spike": 0.15,
    "text_density": 0.15,
}
APP_SWITCH, TITLE_CHANGE = 1.0, 0.6
SPIKE_BEFORE_SECS, SPIKE_AFTER_SECS = 10.0, 2.0  # input counted this close to a frame
VISUAL_FULL_DISTANCE = 32  # dhash distance that scores 1.0 (unrelated screens: ~32)
TEXT_FULL_DENSITY = 0.2  # edge density that scores 1.0 (a screen full of small text)
BLIP_SECS = 8.0  # a window in front for less than this, then left, is a blip
BLIP_DISCOUNT = 0.1  # what a blip's change (and its segment) is worth

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

