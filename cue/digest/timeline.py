"""The event timeline a digest model reads next to the screenshots.

Window changes become segments ("+0s–+312s  Code — "main.py"  412 keys, 3 clicks"),
paused stretches become "capture paused" with nothing from inside them, and each segment
names the frames captured during it by index. Times are seconds from the window's start —
no clock times, no file paths: the model learns what it needs and nothing more.
"""
from __future__ import annotations

from cue.inputs.events import TOPIC_INPUT, TOPIC_PAUSE, TOPIC_WINDOW, Event
from cuectx.value import Value

TITLE_CHARS = 120


class Segment(Value):
    __slots__ = ("app", "clicks", "end_offset", "frames", "keys", "kind", "start_offset", "title")

    def __init__(self, start_offset: float, end_offset: float, kind: str, app: str = "",
                 title: str = "", keys: int = 0, clicks: int = 0,
                 frames: tuple[int, ...] = ()) -> None:
        self.start_offset = start_offset
        self.end_offset = end_offset
        self.kind = kind  # "window" | "paused" | "unknown" | "before" (nothing recorded yet)
        self.app = app
        self.title = title
        self.keys = keys
        self.clicks = clicks
        self.frames = frames

    def line(self) -> str:
        span = f"+{self.start_offset:.0f}s–+{self.end_offset:.0f}s"
        if self.kind == "paused":
            return f"{span}  capture paused (nothing recorded)"
        if self.kind == "before":
            return f"{span}  before recording started"
        what = f"{self.app} — \"{self.title}\"" if self.kind == "window" else "unknown window"
        minutes = max(self.end_offset - self.start_offset, 1.0) / 60
        activity = (f"{self.keys} keys, {self.clicks} clicks: {self.keys / minutes:.0f} "
                    f"keystrokes a minute") if self.keys or self.clicks \
            else "no keystrokes or clicks"
        frames = f"; frames {', '.join(map(str, self.frames))}" if self.frames else ""
        return f"{span}  {what}  ({activity}{frames})"


class Activity(Value):
    """Something that happened inside one window with no window event of its own (from the
    frame selection: another tab, a scroll, a typing burst), so the model is told of it."""

    __slots__ = ("end_offset", "frames", "start_offset", "text")

    def __init__(self, start_offset: float, end_offset: float, text: str,
                 frames: tuple[int, ...] = ()) -> None:
        self.start_offset = start_offset
        self.end_offset = end_offset
        self.text = text
        self.frames = frames

    def line(self) -> str:
        frames = f" (frames {', '.join(map(str, self.frames))})" if self.frames else ""
        return f"  · +{self.start_offset:.0f}s–+{self.end_offset:.0f}s  {self.text}{frames}"


class Timeline(Value):
    __slots__ = ("activity", "end", "event_count", "segments", "start")

    def __init__(self, start: float, end: float, segments: list[Segment] | None = None,
                 event_count: int = 0, activity: list[Activity] | None = None) -> None:
        self.start = start
        self.end = end
        self.segments = [] if segments is None else segments
        self.event_count = event_count  # events inside the window that were used (paused ones excluded)
        self.activity = [] if activity is None else activity

    @property
    def empty(self) -> bool:
        return self.event_count == 0

    def render(self) -> str:
        minutes = (self.end - self.start) / 60
        head = (f"Timeline of a {minutes:.0f}-minute window (times are seconds from its "
                f"start; frames are numbered as below):")
        if not self.segments and not self.activity:
            return head + "\n(no window or input events recorded)"
        lines = [head]
        todo = sorted(self.activity, key=lambda a: a.start_offset)
        for k, s in enumerate(self.segments):
            lines.append(s.line())
            last = k == len(self.segments) - 1
            while todo and (last or todo[0].start_offset < self.segments[k + 1].start_offset):
                lines.append(todo.pop(0).line())
        lines += [a.line() for a in todo]  # no window segments at all: activity alone
        return "\n".join(lines)


def build_timeline(events: list[Event], start: float, end: float, *,
                   paused: list[tuple[float, float]] = (),
                   frames: list[tuple[int, float]] = (),
                   activity: list[tuple[float, float, str]] = ()) -> Timeline:
    """Segments for [start, end] from events (which may begin before `start`, to know the
    window in front at the start). `paused` stretches drop every event inside them;
    `frames` are (index, capture time) pairs to attach to segments; `activity` is
    (start, end, text) of what happened inside a window with no event of its own
    (`Selection.activity()`), listed under the window it happened in."""

    def is_paused(ts: float) -> bool:
        return any(a <= ts <= b for a, b in paused)

    usable = [e for e in events if e.topic != TOPIC_PAUSE and not is_paused(e.ts)]
    before = [e for e in usable if e.ts < start and e.topic == TOPIC_WINDOW]
    inside = [e for e in usable if start <= e.ts <= end]

    # Boundaries: window changes and the edges of paused stretches.
    marks: list[tuple[float, str, Event | None]] = []
    for e in inside:
        if e.topic == TOPIC_WINDOW:
            marks.append((e.ts, "window", e))
    for a, b in paused:
        a, b = max(a, start), min(b, end)
        if a <= b:
            marks.append((a, "pause", None))
            marks.append((b, "resume", None))
    marks.sort(key=lambda m: (m[0], m[1] != "pause"))

    current = before[-1].data if before else None
    cursor, state = start, ("window" if current else "unknown")
    spans: list[tuple[float, float, str, dict | None]] = []
    for ts, kind, event in marks:
        if kind == "pause":
            spans.append((cursor, ts, state, current))
            cursor, state = ts, "paused"
        elif kind == "resume":
            spans.append((cursor, ts, "paused", None))
            # What is in front after a pause is unknown until the next window event.
            cursor, state, current = ts, "unknown", None
        else:
            if state == "paused":
                current = event.data
                continue
            spans.append((cursor, ts, state, current))
            cursor, state, current = ts, "window", event.data
    spans.append((cursor, end, state, current))

    # What comes before anything was recorded (no event before the window, no event or
    # frame yet) is not an "unknown window": the recorder was not running.
    seen = [e.ts for e in inside] + [ts for _, ts in frames]
    first_seen = min(seen) if seen else end
    recorded_before = any(e.ts < start for e in events)
    segments: list[Segment] = []
    for a, b, kind, data in spans:
        if kind == "unknown" and a == start and not recorded_before and b <= first_seen:
            kind = "before"
        if b - a < 1.0 and kind != "paused":
            continue
        keys = clicks = 0
        if kind != "paused":
            for e in inside:
                if e.topic == TOPIC_INPUT and (a <= e.ts < b or e.ts == b == end):
                    keys += _count(e.data.get("keys"))
                    clicks += _count(e.data.get("clicks"))
        frame_ids = tuple(i for i, ts in frames if a <= ts < b or ts == b == end)
        segments.append(Segment(
            start_offset=a - start, end_offset=b - start, kind=kind,
            app=_short(str((data or {}).get("app", ""))),
            title=_short(str((data or {}).get("title", ""))),
            keys=keys, clicks=clicks, frames=frame_ids))
    notes = []
    for a, b, text in activity:
        if any(x <= a <= y for x, y in paused):
            continue
        a, b = max(a, start), min(b, end)
        notes.append(Activity(a - start, b - start, text,
                              tuple(i for i, ts in frames if a <= ts <= b)))
    return Timeline(start, end, _merge_same(segments), len(inside), notes)


def _merge_same(segments: list[Segment]) -> list[Segment]:
    out: list[Segment] = []
    for s in segments:
        prev = out[-1] if out else None
        if prev and prev.kind == s.kind and (prev.app, prev.title) == (s.app, s.title):
            out[-1] = Segment(prev.start_offset, s.end_offset, s.kind, s.app, s.title,
                              prev.keys + s.keys, prev.clicks + s.clicks, prev.frames + s.frames)
        else:
            out.append(s)
    return out


def _count(value) -> int:
    try:
        return max(0, int(value))
    except (TypeError, ValueError):
        return 0


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= TITLE_CHARS else text[: TITLE_CHARS - 1] + "…"
