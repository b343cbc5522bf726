"""A second, independent generator of synthetic screen sessions: a held-out CONFIRM set.

Written from the README's input contracts alone (the keyframe folder, the MCAP event log)
and the public interface of bench/sessions.py (`Segment`, `Frame`, `Session`,
`make_session(root, seed)`), so a frame selector tuned on bench/sessions.py can be checked
on screens, apps, timings, screen sizes and file layouts it has never seen.

    from bench.sessions_alt import make_session
    s = make_session(tmp_path, seed=3)
    sel = select_frames(s.keyframes_dir, s.window_secs, 10, end=s.end, events_dir=s.events_dir)
    score = s.score([f.path for f in sel.frames])   # coverage, anchors, paused, duplicates…

    python -m bench.sessions_alt DIR --seed N       # write one session, print its outline

What a session is (every choice below is drawn from the seed):

- 12–16 minutes; 10–15 segments; one screen size of 1366×768, 1920×1080, 1440×900,
  2560×1440, 3024×1964 (cycling with the seed); a desktop look (macOS menu bar, GNOME top
  bar, Windows taskbar); a capture interval of 2–8 s with ±25 % jitter per frame, and on
  some seeds an extra frame a moment after every window event (event-triggered keyframes);
- keyframes as JPEG or PNG (PNG only up to 1920×1080), named by the contract's forms:
  13-digit unix ms (most seeds), a `display1-` prefix, ISO-8601 with `-` for `:`, or
  13-digit names under day folders; each written as a hidden `.tmp` file and renamed
  into place;
- the event log as one MCAP file, or two (split at a random moment), sometimes with an
  extra non-cue topic (`/recorder/status`) mixed in;
- a start on a past day (Oct 2025 – Mar 2026); each file's modification time is when it
  would have been written (a keyframe: its capture; a log: its last event).

The apps differ from bench/sessions.py's and are drawn per seed from small pools:

    editor    PyCharm | Sublime Text | Zed           typing bursts (input keys), code grows
    browser   Google Chrome | Brave | Vivaldi | Edge  two tabs; the logged title never changes
    reader    Okular | Acrobat Reader | Evince       a long PDF: read, then trackpad-scroll
    terminal  iTerm2 | Alacritty | GNOME Terminal    commands typed, output scrolls up
    sheet     LibreOffice Calc | Excel | Numbers     clicks move the selection, values typed
    design    Figma | Penpot | Inkscape              clicks select and drag shapes
    chat      Microsoft Teams | Discord | Element    messages arrive, a reply is typed
    call      zoom.us | Webex | Jitsi Meet           a video grid, every frame differs, no input
    blips     Files, Spotify, Thunderbird, Calendar, Notes, Settings (seen 2–6 s or 8–13 s)
    private   Signal (on screen only while capture is paused)

The story (units shuffled per seed; inserts placed in the gaps between them):

- app switches, each with a /cue/window event (a little after the screen changes) and an
  alt-tab key pair or a click;
- a browser visit of two tabs: tab A (possibly wheel-scrolled a notch or two), then tab B,
  a different page layout, with NO window event (the logged title is the browser's name);
- a long document read: the reader arrives at the top, stays 20–60 s, then a smooth
  trackpad scroll (flicks with inertia, short reading pauses) for 1.5–4 minutes: no
  window event, no keys, no clicks — most frames differ, and it is ONE segment;
- typing bursts in the editor (a second file on some seeds, its own segment) and the
  terminal (/cue/input key counts, about one event a second);
- a spreadsheet worked with clicks (and a few typed values), a design tool with clicks and
  drags (on most seeds), a chat where messages arrive and a reply is typed;
- a video call: pixels change in every frame, no input at all;
- 2–3 blips (an app visible 2–6 s while alt-tabbing past it; at a long interval a blip
  may get no frame at all) and, on some seeds, a glance (8–13 s, too short to count);
- an idle stretch (40–110 s) of byte-identical frames right after a unit, no events;
- a paused span: /cue/pause "paused", a private chat on screen (frames still on disk),
  /cue/pause "resumed", then the next app's window event;
- a return, far (≥ 4 minutes) after it was left, to an earlier screen pixel for pixel (the
  browser's last tab, the sheet, the design or the editor as they were left; what is
  returned to, and what precedes the idle stretch, stops changing for a capture interval
  before it is left, so its last state is on disk).

Ground truth. Every frame knows its segment (`Frame.segment`) and what it shows
(`Frame.view`: equal views are identical pixels, and identical bytes on disk). A segment
is SIGNIFICANT when it is something the user did for a while: at least 15 s on screen in
total, and its kind is not blip, glance, idle or paused. So: the whole read-and-scroll of
one document is one significant segment (kind "read"); each browser tab is its own
segment (kinds "app" and "tab"); a return to an earlier screen belongs to the earlier
screen's segment (the same thing shown twice is one thing); the idle frames form their own
segment (kind "idle", never significant) — but a picked idle frame shows exactly the
screen the segment before it left, so `score` credits that segment too (coverage is
judged by what a frame shows; a view is named `<segment id>|…` after the segment whose
screen it is). Blips, glances and paused frames are never significant; a paused
frame should never be picked at all.
"""
from __future__ import annotations

import argparse
import bisect
import io
import json
import math
import os
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from cue.inputs.events import EventWriter
from cuectx.value import Value

SIGNIFICANT_SECS = 15.0
SIZES = ((1366, 768), (1920, 1080), (1440, 900), (2560, 1440), (3024, 1964))
SEEDS = (0, 1, 2, 3, 4, 5, 6, 7, 8, 9)  # a confirm run's seeds
NOT_SIGNIFICANT = frozenset({"blip", "glance", "idle", "paused"})


# ---------------------------------------------------------------- the public interface

class Segment(Value):
    __slots__ = ("id", "kind", "label", "significant")

    def __init__(self, id: str, kind: str, label: str, significant: bool) -> None:
        self.id = id
        self.kind = kind  # typing | app | tab | read | clicks | chat | call | blip | glance | idle | paused
        self.label = label
        self.significant = significant


class Frame(Value):
    __slots__ = ("path", "segment", "ts", "view")

    def __init__(self, ts: float, path: Path, segment: str, view: str) -> None:
        self.ts = ts
        self.path = path
        self.segment = segment  # Segment.id
        self.view = view  # what is on screen; equal views are identical pixels


class Session(Value):
    __slots__ = ("_paths", "_views", "end", "events", "events_dir", "frames", "image_format", "interval",
                 "keyframes_dir", "naming", "on_switch", "paused", "root", "seed", "segments",
                 "silent", "size", "spans", "start")

    def __init__(self, root: Path, keyframes_dir: Path, events_dir: Path, start: float, end: float,
                 seed: int, interval: float, frames: list[Frame], segments: dict[str, Segment],
                 spans: list[tuple[float, float, str]],
                 paused: list[tuple[float, float]] | None = None,
                 silent: list[tuple[float, float]] | None = None, size: tuple[int, int] = (0, 0),
                 image_format: str = "jpg", naming: str = "ms", on_switch: bool = False,
                 events: list[tuple[float, str, dict]] | None = None) -> None:
        self.root = root
        self.keyframes_dir = keyframes_dir
        self.events_dir = events_dir
        self.start = start
        self.end = end
        self.seed = seed
        self.interval = interval
        self.frames = frames
        self.segments = segments
        self.spans = spans  # (start, end, segment id), unix seconds
        self.paused = [] if paused is None else paused
        # (start, end) of the spans entered with no window event (a tab, the scroll part of
        # the read, the idle stretch)
        self.silent = [] if silent is None else silent
        # beyond bench/sessions.py's Session
        self.size = size
        self.image_format = image_format
        self.naming = naming
        self.on_switch = on_switch  # an extra keyframe after each window event
        self.events = [] if events is None else events  # as written

    @property
    def window_secs(self) -> float:
        return self.end - self.start

    def significant(self) -> list[Segment]:
        return [s for s in self.segments.values() if s.significant]

    def frame_of(self, path: Path) -> Frame:
        return self._by_path()[Path(path)]

    def _by_path(self) -> dict[Path, Frame]:
        if not hasattr(self, "_paths"):
            self._paths = {f.path: f for f in self.frames}
        return self._paths

    def _shown(self) -> dict[str, set[str]]:
        """view → the segments it shows: those whose frames show it, and the segment whose
        screen it is (a view is named `<segment id>|…`; an idle frame's view is the
        screen the segment before it left, even when that last state was never captured
        before the idle began)."""
        if not hasattr(self, "_views"):
            self._views: dict[str, set[str]] = {}
            for f in self.frames:
                owner = f.view.split("|", 1)[0]
                self._views.setdefault(f.view, {owner} & set(self.segments)).add(f.segment)
        return self._views

    def score(self, chosen: list[Path]) -> dict:
        """How well `chosen` (keyframe paths) shows this session.

        coverage   fraction of significant segments with ≥ 1 chosen frame, where a frame
                   counts for its own segment and for any segment that shows the very same
                   screen (an idle frame shows the segment before it);
        anchors    how many of the first, middle and last unpaused frames were chosen;
        paused     chosen frames captured while paused (should be 0);
        duplicates chosen frames showing a screen already chosen;
        same_segment chosen frames beyond the first in one segment;
        blips      chosen frames of blips and glances; idle: of the idle stretch;
        wasted_while_missing  chosen frames that are not the first of a significant
                   segment, counted only when some significant segment got none (the
                   selector should give every segment a frame before any gets two).
        """
        picked = [self.frame_of(p) for p in chosen]
        chosen_set = {Path(p) for p in chosen}
        sig = {s.id for s in self.significant()}
        shown = self._shown()
        credited: set[str] = set()
        for f in picked:
            credited |= shown[f.view]
        covered = credited & sig
        live = [f for f in self.frames if self.segments[f.segment].kind != "paused"]
        anchors = 0
        if live:
            first, last = live[0], live[-1]
            mid_t = (first.ts + last.ts) / 2
            mid = min(live, key=lambda f: (abs(f.ts - mid_t), f.ts))
            anchors = sum(a in chosen_set for a in {first.path, mid.path, last.path})
        views = [f.view for f in picked]
        by_kind: dict[str, list[bool]] = {}
        for seg in self.significant():
            by_kind.setdefault(seg.kind, []).append(seg.id in covered)
        firsts: set[str] = set()
        useful = 0
        for f in sorted(picked, key=lambda f: f.ts):
            new = (shown[f.view] & sig) - firsts
            if new:
                useful += 1
                firsts |= new
        missed = sig - covered
        kinds = [self.segments[f.segment].kind for f in picked]
        return {
            "by_kind": {k: (sum(v), len(v)) for k, v in sorted(by_kind.items())},
            "coverage": len(covered) / len(sig) if sig else 1.0,
            "covered": len(covered), "significant": len(sig),
            "missed": sorted(self.segments[i].label for i in missed),
            "anchors": anchors,
            "paused": kinds.count("paused"),
            "duplicates": len(views) - len(set(views)),
            "same_segment": len(picked) - len({f.segment for f in picked}),
            "blips": kinds.count("blip") + kinds.count("glance"),
            "idle": kinds.count("idle"),
            "wasted_while_missing": (len(picked) - useful) if missed else 0,
            "frames": len(picked),
        }


# ---------------------------------------------------------------- painting

def _mix(a, b, t):
    return tuple(int(a[i] + (b[i] - a[i]) * t) for i in range(3))


class Painter:
    """Draws full screens at one size, in one desktop look."""

    def __init__(self, size: tuple[int, int], seed: int, desktop: str, apps: list[str]):
        self.W, self.H = size
        self.s = self.H / 900.0
        self.seed = seed
        self.desktop = desktop
        self.apps = apps  # taskbar / dock order
        self._fonts: dict[int, ImageFont.ImageFont] = {}

    def px(self, v: float) -> int:
        return max(1, round(v * self.s))

    def font(self, size: float):
        n = self.px(size)
        if n not in self._fonts:
            try:
                self._fonts[n] = ImageFont.load_default(size=n)
            except TypeError:  # Pillow < 10.1 or no FreeType: the fixed bitmap font
                self._fonts[n] = ImageFont.load_default()
        return self._fonts[n]

    def text(self, d: ImageDraw.ImageDraw, xy, s: str, size: float, fill) -> None:
        s = s.replace("\u2014", "-").replace("\u2013", "-")  # the default font has no dashes
        d.text((int(xy[0]), int(xy[1])), s, font=self.font(size), fill=fill)

    def words(self, d, x0, y, x1, h, rng: random.Random, fill, *, unit=None,
              wmin=2, wmax=10, budget: float | None = None) -> float:
        """Greeked words on one line from x0 to at most x1; returns where the line ended.

        With `budget`, only that many characters (a space counts as one) are drawn, and the
        return value is where the next character would go (a cursor's place)."""
        unit = unit or self.s * 6.2
        x = x0
        used = 0.0
        while True:
            n = rng.randint(wmin, wmax)
            w = n * unit
            if x + w > x1:
                break
            if budget is not None:
                if used >= budget:
                    break
                if used + n > budget:
                    w = (budget - used) * unit
            d.rectangle([int(x), int(y), int(x + w), int(y + h)], fill=fill)
            used += n + 1
            x += w + unit
        if budget is not None:
            return x0 + min(budget, used) * unit
        return x

    def content_rect(self) -> tuple[int, int, int, int]:
        """Where an app's maximised window content goes (below its title bar)."""
        px = self.px
        if self.desktop == "mac":
            return (0, px(24) + px(28), self.W, self.H)
        if self.desktop == "gnome":
            return (0, px(26) + px(38), self.W, self.H)
        return (0, px(30), self.W, self.H - px(40))

    def screen(self, app: str, title: str, *, dark: bool = False, bar=None):
        """A new screen with the desktop chrome and `app`'s maximised window title bar;
        returns (image, draw, content rect)."""
        W, H, px = self.W, self.H, self.px
        img = Image.new("RGB", (W, H), (30, 30, 30) if dark else (250, 250, 250))
        d = ImageDraw.Draw(img)
        top, bottom = 0, H
        if self.desktop == "mac":
            mh = px(24)
            d.rectangle([0, 0, W, mh], fill=(232, 232, 236))
            d.ellipse([px(14), px(6), px(26), px(18)], fill=(20, 20, 20))
            self.text(d, (px(40), px(5)), app, 13, (10, 10, 10))
            x = px(60) + len(app) * px(8)
            for m in ("File", "Edit", "View", "Window", "Help"):
                self.text(d, (x, px(5)), m, 13, (40, 40, 40))
                x += px(16) + len(m) * px(8)
            for i in range(4):
                d.rectangle([W - px(30 + 28 * i), px(7), W - px(16 + 28 * i), px(17)],
                            fill=(70, 70, 70))
            top = mh
            th = px(28)
            tb = bar or ((52, 52, 56) if dark else (222, 222, 226))
            d.rectangle([0, top, W, top + th], fill=tb)
            for i, c in enumerate(((255, 95, 87), (254, 188, 46), (40, 200, 64))):
                d.ellipse([px(12 + 20 * i), top + px(8), px(24 + 20 * i), top + px(20)], fill=c)
            self.text(d, (W // 2 - len(title) * px(3.5), top + px(7)), title, 13,
                      (220, 220, 220) if dark else (50, 50, 50))
            top += th
        elif self.desktop == "gnome":
            gh = px(26)
            d.rectangle([0, 0, W, gh], fill=(0, 0, 0))
            self.text(d, (px(12), px(6)), "Activities", 13, (240, 240, 240))
            self.text(d, (px(110), px(6)), app, 13, (240, 240, 240))
            for i in range(3):
                d.rectangle([W - px(24 + 22 * i), px(8), W - px(12 + 22 * i), px(18)],
                            fill=(200, 200, 200))
            top = gh
            th = px(38)
            tb = bar or ((48, 48, 48) if dark else (235, 235, 235))
            d.rectangle([0, top, W, top + th], fill=tb)
            self.text(d, (W // 2 - len(title) * px(3.6), top + px(11)), title, 14,
                      (230, 230, 230) if dark else (40, 40, 40))
            d.ellipse([W - px(30), top + px(11), W - px(14), top + px(27)], fill=(90, 90, 90))
            top += th
        else:  # win
            kh = px(40)
            d.rectangle([0, H - kh, W, H], fill=(32, 32, 36))
            x0 = W // 2 - len(self.apps) * px(22)
            d.rectangle([x0 - px(50), H - kh + px(8), x0 - px(26), H - px(8)], fill=(0, 120, 215))
            for i, a in enumerate(self.apps):
                r = random.Random(f"icon|{a}")
                c = (r.randint(60, 230), r.randint(60, 230), r.randint(60, 230))
                x = x0 + i * px(44)
                d.rounded_rectangle([x, H - kh + px(8), x + px(24), H - px(8)], radius=px(4),
                                    fill=c)
                if a == app:
                    d.rectangle([x + px(4), H - px(4), x + px(20), H - px(2)], fill=(96, 205, 255))
            bottom = H - kh
            th = px(30)
            tb = bar or ((43, 43, 43) if dark else (243, 243, 243))
            d.rectangle([0, 0, W, th], fill=tb)
            self.text(d, (px(12), px(8)), title, 12, (230, 230, 230) if dark else (30, 30, 30))
            for i in range(3):
                x = W - px(46 * (i + 1)) + px(16)
                d.rectangle([x, px(14), x + px(12), px(16)], fill=(120, 120, 120))
            top = th
        assert (0, top, W, bottom) == self.content_rect()
        return img, d, (0, top, W, bottom)


def _encode(img: Image.Image, fmt: str, quality: int) -> bytes:
    buf = io.BytesIO()
    if fmt == "png":
        img.save(buf, "PNG", compress_level=1)
    else:
        img.save(buf, "JPEG", quality=quality)
    return buf.getvalue()


# ---------------------------------------------------------------- activities

View = tuple[str, Callable[[], Image.Image]]


class Activity:
    """One stretch of the timeline: t0..t1 (seconds after the session's start)."""

    kind = "app"
    role = "app"

    def __init__(self, p: Painter, rng: random.Random, app: str, title: str, label: str):
        self.p, self.rng = p, rng
        self.app, self.title, self.label = app, title, label
        self.t0 = self.t1 = 0.0
        self.seg = ""
        self.window_event = True
        self.inputs: list[tuple[float, int, int]] = []  # (t, keys, clicks)
        # nothing changes in the last `settle` seconds, so the screen as it is left was
        # captured (raised for a screen returned to later, or left for an idle stretch)
        self.settle = 2.0

    def place(self, t0: float, t1: float) -> None:
        """Put the activity at t0..t1 and draw its schedule (once)."""
        self.t0, self.t1 = t0, t1
        self.inputs = []

    def view(self, t: float) -> View:
        raise NotImplementedError

    def last_view(self) -> View:
        return self.view(self.t1 - 1e-3)

    def silent_spans(self) -> list[tuple[float, float]]:
        return [] if self.window_event else [(self.t0, self.t1)]


def _bursts(rng, a: float, b: float, n: int, cps=(3.5, 7.0), length=(4.0, 13.0)):
    """n typing bursts (t0, t1, chars per second) inside [a, b], in order, not touching."""
    if b - a < 3:
        return []
    spans = []
    slots = sorted(rng.uniform(a, b) for _ in range(n))
    last = a
    for s in slots:
        t0 = max(s, last + 1.5)
        t1 = min(t0 + rng.uniform(*length), b)
        if t1 - t0 >= 1.5:
            spans.append((t0, t1, rng.uniform(*cps)))
            last = t1
    return spans


def _keys_at(spans, t: float) -> int:
    return int(sum(max(0.0, min(t, t1) - t0) * c for t0, t1, c in spans))


def _key_events(rng, spans) -> list[tuple[float, int, int]]:
    """The /cue/input events a recorder reports about once a second while keys go down."""
    out = []
    for t0, t1, _c in spans:
        prev = _keys_at(spans, t0)
        t = t0 + rng.uniform(0.6, 1.1)
        while True:
            tt = min(t, t1 + 0.3)
            k = _keys_at(spans, tt)
            if k > prev:
                out.append((tt, k - prev, 0))
                prev = k
            if tt >= t1 + 0.3:
                break
            t += rng.uniform(0.8, 1.2)
    return out


# -- editor

_EDITOR_THEMES = {
    "PyCharm": {"bg": (43, 43, 43), "gutter": (49, 51, 53), "side": (60, 63, 65),
                "status": (60, 63, 65),
                    "num": (96, 99, 102), "fg": [(204, 120, 50), (169, 183, 198), (106, 135, 89),
                                          (104, 151, 187), (128, 128, 128), (255, 198, 109)],
                    "dark": True, "tab": (78, 82, 84)},
    "Sublime Text": {"bg": (39, 40, 34), "gutter": (39, 40, 34), "side": (30, 31, 28),
                         "status": (24, 24, 20), "num": (144, 144, 138),
                         "fg": [(249, 38, 114), (248, 248, 242), (230, 219, 116),
                             (174, 129, 255), (117, 113, 94), (102, 217, 239)],
                         "dark": True, "tab": (60, 61, 55)},
    "Zed": {"bg": (250, 250, 250), "gutter": (250, 250, 250), "side": (238, 238, 240),
                "status": (230, 230, 234), "num": (160, 160, 170),
                "fg": [(167, 29, 93), (36, 41, 46), (3, 47, 98), (0, 92, 197), (106, 115, 125),
                    (111, 66, 193)],
                "dark": False, "tab": (255, 255, 255)},
}


def _code(rng: random.Random, n: int) -> list[tuple[int, list[tuple[int, int]]]]:
    """Lines of code: (indent, [(chars, colour class)])."""
    lines = []
    indent = 0
    for _ in range(n):
        r = rng.random()
        if r < 0.12:
            lines.append((0, []))
            indent = rng.choice((0, 1, 1, 2))
            continue
        if r < 0.2:
            lines.append((indent, [(3, 0), (rng.randint(5, 14), 5), (rng.randint(6, 20), 1)]))
            indent = min(indent + 1, 4)
            continue
        toks = []
        for _t in range(rng.randint(1, 6)):
            toks.append((rng.randint(2, 12), rng.choice((1, 1, 1, 2, 3, 0, 5))))
        if rng.random() < 0.15:
            toks = [(rng.randint(12, 40), 4)]
        lines.append((indent, toks))
        if rng.random() < 0.2:
            indent = max(0, indent - 1)
    return lines


class Editor(Activity):
    kind = "typing"
    role = "editor"

    def __init__(self, p, rng, app, title, label, file: str, project: str):
        super().__init__(p, rng, app, title, label)
        self.file, self.project = file, project
        self.th = _EDITOR_THEMES[app]
        self.lh = p.s * 19
        self.code = _code(random.Random(f"{p.seed}|code|{file}"), 160)
        self.typed = _code(random.Random(f"{p.seed}|typed|{file}"), 40)
        self.first = rng.randint(0, 40)  # first line shown
        self.files = [file] + rng.sample(["models.py", "api.py", "utils.py", "README.md",
                                          "config.toml", "cli.py", "db.py", "views.py"], 5)

    def place(self, t0, t1):
        super().place(t0, t1)
        rng = self.rng
        self.spans = _bursts(rng, t0 + rng.uniform(3, 6), t1 - self.settle, rng.randint(2, 4))
        self.inputs = _key_events(rng, self.spans)
        _, y0, _, y1 = self._code_rect()
        visible = int((y1 - y0) / self.lh)
        self.cursor = int(visible * rng.uniform(0.5, 0.68))

    def _code_rect(self):
        _x0, y0, x1, y1 = self.p.content_rect()
        return (self.p.px(230), y0 + self.p.px(32), x1, y1 - self.p.px(22))

    def view(self, t):
        k = _keys_at(self.spans, t)
        return f"{self.seg}|editor|{k}", lambda: self._draw(k)

    def _draw(self, keys: int) -> Image.Image:
        p, th = self.p, self.th
        img, d, (x0, y0, x1, y1) = p.screen(self.app, self.title, dark=th["dark"])
        px = p.px
        side_w = px(230)
        fg_side = (187, 187, 187) if th["dark"] else (60, 60, 60)
        d.rectangle([x0, y0, side_w, y1], fill=th["side"])
        p.text(d, (px(12), y0 + px(8)), self.project, 13, fg_side)
        for i, f in enumerate(self.files):
            yy = y0 + px(34 + 22 * i)
            if f == self.file:
                d.rectangle([0, yy - px(3), side_w, yy + px(17)], fill=th["tab"])
            p.text(d, (px(30), yy), f, 12, fg_side)
        d.rectangle([side_w, y0, x1, y0 + px(32)], fill=th["side"])
        d.rectangle([side_w, y0, side_w + px(160), y0 + px(32)], fill=th["bg"])
        p.text(d, (side_w + px(14), y0 + px(9)), self.file, 12, fg_side)
        cx0, cy0, cx1, cy1 = self._code_rect()
        d.rectangle([cx0, cy0, cx1, cy1], fill=th["bg"])
        d.rectangle([cx0, cy0, cx0 + px(52), cy1], fill=th["gutter"])
        # the lines: code[:cursor] + typed (revealed by keys) + code[cursor:]
        lines: list[tuple[int, list[tuple[int, int]], float | None]] = []
        body = self.code[self.first:]
        lines += [(i, toks, None) for i, toks in body[:self.cursor]]
        left = keys
        cur_line, cur_col = self.cursor, 0
        for ind, toks in self.typed:
            if left <= 0:
                break
            need = ind * 4 + sum(n + 1 for n, _ in toks)
            if left >= need + 1:
                lines.append((ind, toks, None))
                left -= need + 1
                cur_line += 1
                cur_col = 0
            else:
                lines.append((ind, toks, float(left)))
                cur_col = left
                left = 0
        if left == 0 and keys > 0 and (not lines or lines[-1][2] is None):
            ind = self.typed[min(cur_line - self.cursor, len(self.typed) - 1)][0]
            lines.append((ind, [], float(ind * 4)))
        lines += [(i, toks, None) for i, toks in body[self.cursor:]]
        visible = int((cy1 - cy0 - px(8)) / self.lh)
        first = max(0, cur_line - (visible - 4))
        cw = p.s * 7.4
        gh = self.lh * 0.52
        for row, (ind, toks, budget) in enumerate(lines[first:first + visible]):
            y = cy0 + px(6) + row * self.lh
            p.text(d, (cx0 + px(8), y + px(2)), f"{self.first + first + row + 1:>4}", 11, th["num"])
            x = cx0 + px(64) + ind * 4 * cw
            used = ind * 4.0
            for n, c in toks:
                if budget is not None and used >= budget:
                    break
                w = n if budget is None else min(n, budget - used)
                d.rectangle([int(x), int(y + (self.lh - gh) / 2), int(x + w * cw),
                             int(y + (self.lh + gh) / 2)], fill=th["fg"][c])
                x += (n + 1) * cw
                used += n + 1
            if budget is not None:
                cx = cx0 + px(64) + budget * cw
                d.rectangle([int(cx), int(y + px(2)), int(cx + px(2)), int(y + self.lh - px(2))],
                            fill=th["fg"][1])
        d.rectangle([x0, cy1, x1, y1], fill=th["status"])
        p.text(d, (x1 - px(330), cy1 + px(5)),
               f"Ln {self.first + cur_line + 1}, Col {cur_col + 1}   UTF-8   LF   Python", 11,
               (200, 200, 200) if th["dark"] else (70, 70, 70))
        return img


# -- terminal

class Terminal(Activity):
    kind = "typing"
    role = "terminal"

    def __init__(self, p, rng, app, title, label, prompt: str):
        super().__init__(p, rng, app, title, label)
        self.prompt = prompt
        r = random.Random(f"{p.seed}|term|{app}")
        self.history = [(r.randint(8, 40), r.randint(1, 12)) for _ in range(r.randint(4, 9))]
        self.commands = [(r.randint(6, 38), r.randint(1, 25)) for _ in range(12)]
        self.bg = {"iTerm2": (0, 0, 0), "Alacritty": (29, 31, 33)}.get(app, (48, 10, 36))

    def place(self, t0, t1):
        super().place(t0, t1)
        rng = self.rng
        self.spans = _bursts(rng, t0 + rng.uniform(2, 5), t1 - self.settle, rng.randint(2, 4),
                             cps=(3.0, 6.0), length=(3.0, 10.0))
        self.inputs = _key_events(rng, self.spans)

    def view(self, t):
        k = _keys_at(self.spans, t)
        return f"{self.seg}|terminal|{k}", lambda: self._draw(k)

    def _draw(self, keys):
        p = self.p
        img, d, (x0, y0, x1, y1) = p.screen(self.app, self.title, dark=True)
        d.rectangle([x0, y0, x1, y1], fill=self.bg)
        rows: list[tuple[str, int | float, int]] = []  # (kind, chars, seed)
        for i, (n, out) in enumerate(self.history):
            rows.append(("prompt", n, i))
            rows += [("out", 0, i * 100 + j) for j in range(out)]
        left = keys
        for i, (n, out) in enumerate(self.commands):
            if left >= n + 1:
                rows.append(("prompt", n, 50 + i))
                rows += [("out", 0, (50 + i) * 100 + j) for j in range(out)]
                left -= n + 1
            else:
                rows.append(("cursor", left, 50 + i))
                break
        lh = p.s * 18
        visible = int((y1 - y0 - p.px(10)) / lh)
        cw = p.s * 7.6
        green, fg, grey = (80, 220, 100), (220, 220, 220), (150, 150, 150)
        for row, (kind, n, sd) in enumerate(rows[-visible:]):
            y = y0 + p.px(6) + row * lh
            r = random.Random(f"{p.seed}|tline|{sd}")
            if kind in ("prompt", "cursor"):
                p.text(d, (x0 + p.px(8), y), self.prompt, 12, green)
                x = x0 + p.px(8) + (len(self.prompt) + 1) * cw
                end = p.words(d, x, y + lh * 0.25, x1, lh * 0.5, r, fg, unit=cw, budget=n)
                if kind == "cursor":
                    d.rectangle([int(end), int(y + p.px(2)), int(end + cw), int(y + lh - p.px(2))],
                                fill=fg)
            else:
                colour = r.choice((grey, grey, fg, green, (230, 200, 80)))
                p.words(d, x0 + p.px(8), y + lh * 0.25, x0 + (x1 - x0) * r.uniform(0.2, 0.9),
                        lh * 0.5, r, colour, unit=cw)
        return img


# -- browser

_PAGES = ("article", "dashboard", "search", "repo", "videos", "docs")
_PAGE_TITLES = {"article": "The quiet rise of local-first software",
                "dashboard": "Grafana — API latency",
                "search": "rust async cancellation - Search", "repo": "acme/ingest: pipeline",
                "videos": "Home - VidTube", "docs": "pandas.DataFrame.merge — docs"}
_PAGE_URLS = {"article": "longreads.example.com/local-first", "dashboard": "grafana.acme.io/d/api",
              "search": "duckduckgo.com/?q=rust+async+cancellation",
              "repo": "github.com/acme/ingest", "videos": "vidtube.example/home",
              "docs": "pandas.pydata.org/docs/reference/api/merge"}


class BrowserWindow:
    """The pages of one browser window, drawn once each, and its tab strip."""

    def __init__(self, p: Painter, rng: random.Random, app: str, pages: list[str]):
        self.p, self.app = p, app
        self.pages = pages
        others = [k for k in _PAGES if k not in pages]
        self.tabs = pages + rng.sample(others, rng.randint(1, min(3, len(others))))
        rng.shuffle(self.tabs)
        self.accent = {"Brave Browser": (251, 84, 43), "Vivaldi": (239, 57, 57),
                       "Microsoft Edge": (0, 120, 212)}.get(app, (26, 115, 232))
        self._canvas: dict[str, Image.Image] = {}

    def content_rect(self):
        x0, y0, x1, y1 = self.p.content_rect()
        return (x0, y0 + self.p.px(74), x1, y1)

    def canvas(self, page: str) -> Image.Image:
        if page not in self._canvas:
            x0, y0, x1, y1 = self.content_rect()
            self._canvas[page] = _draw_page(self.p, page, x1 - x0, int((y1 - y0) * 1.8))
        return self._canvas[page]

    def draw(self, title: str, page: str, offset: int) -> Image.Image:
        p, px = self.p, self.p.px
        img, d, (x0, y0, x1, _y1) = p.screen(self.app, title)
        d.rectangle([x0, y0, x1, y0 + px(38)], fill=(222, 225, 230))
        tw = min(px(220), (x1 - px(60)) // len(self.tabs))
        for i, k in enumerate(self.tabs):
            tx = x0 + px(8) + i * tw
            if k == page:
                d.rounded_rectangle([tx, y0 + px(6), tx + tw - px(4), y0 + px(40)], radius=px(8),
                                    fill=(255, 255, 255))
            d.rectangle([tx + px(10), y0 + px(15), tx + px(24), y0 + px(29)],
                        fill=_mix(self.accent, (200, 200, 200), 0.3 * (i % 3)))
            label = _PAGE_TITLES[k]
            p.text(d, (tx + px(30), y0 + px(14)), label[: max(4, tw // px(8) - 4)], 12,
                   (40, 40, 40))
        d.rectangle([x0, y0 + px(38), x1, y0 + px(74)], fill=(255, 255, 255))
        d.rounded_rectangle([x0 + px(110), y0 + px(43), x1 - px(120), y0 + px(69)], radius=px(13),
                            fill=(241, 243, 244))
        p.text(d, (x0 + px(130), y0 + px(49)), _PAGE_URLS[page], 13, (60, 64, 67))
        for i in range(3):
            d.ellipse([x0 + px(14 + 30 * i), y0 + px(48), x0 + px(30 + 30 * i), y0 + px(64)],
                      fill=(150, 150, 150))
        d.line([x0, y0 + px(74), x1, y0 + px(74)], fill=(210, 210, 210), width=px(1))
        cx0, cy0, cx1, cy1 = self.content_rect()
        img.paste(self.canvas(page).crop((0, offset, cx1 - cx0, offset + cy1 - cy0)), (cx0, cy0))
        return img


def _draw_page(p: Painter, kind: str, w: int, h: int) -> Image.Image:
    px = p.px
    r = random.Random(f"{p.seed}|page|{kind}")
    if kind == "videos":
        img = Image.new("RGB", (w, h), (15, 15, 15))
    elif kind == "dashboard":
        img = Image.new("RGB", (w, h), (244, 246, 250))
    else:
        img = Image.new("RGB", (w, h), (255, 255, 255))
    d = ImageDraw.Draw(img)
    ink, grey = (32, 33, 36), (95, 99, 104)
    if kind == "article":
        d.rectangle([0, 0, w, px(56)], fill=(20, 20, 20))
        p.text(d, (px(30), px(16)), "LONGREADS", 20, (255, 255, 255))
        col0, col1 = int(w * 0.27), int(w * 0.73)
        p.text(d, (col0, px(90)), _PAGE_TITLES[kind], 30, ink)
        p.words(d, col0, px(140), col1 * 0.8, px(10), r, grey)
        hero = px(170) + int((col1 - col0) * 0.45)
        d.rectangle([col0, px(170), col1, hero], fill=(120, 160, 190))
        d.polygon([(col0, hero), (col0 + (col1 - col0) // 2, px(250)), (col1, hero)],
                  fill=(70, 110, 90))
        y = hero + px(30)
        while y < h - px(30):
            for _ in range(r.randint(3, 7)):
                p.words(d, col0, y, col1 if r.random() > 0.2 else col0 + (col1 - col0) * 0.6,
                        px(9), r, (60, 60, 60))
                y += px(26)
            y += px(18)
            if r.random() < 0.2:
                d.rectangle([col0, y, col0 + px(4), y + px(70)], fill=(200, 60, 60))
                p.words(d, col0 + px(20), y + px(10), col1, px(14), r, (120, 40, 40))
                p.words(d, col0 + px(20), y + px(40), col1 * 0.8, px(14), r, (120, 40, 40))
                y += px(100)
    elif kind == "dashboard":
        d.rectangle([0, 0, px(210), h], fill=(24, 27, 31))
        for i in range(14):
            item = r.choice(["Home", "Alerts", "Explore", "Dashboards", "Logs", "Traces", "Admin"])
            p.text(d, (px(24), px(30 + 34 * i)), item, 13, (200, 200, 210))
        x0 = px(240)
        cw = (w - x0 - px(30)) // 4
        for i in range(4):
            cx = x0 + i * cw
            d.rounded_rectangle([cx, px(24), cx + cw - px(20), px(124)], radius=px(6),
                                fill=(255, 255, 255))
            p.text(d, (cx + px(16), px(36)), ["p50 ms", "p99 ms", "req/s", "errors"][i], 12, grey)
            p.text(d, (cx + px(16), px(62)), str(r.randint(12, 9800)), 32,
                   [(50, 120, 220), (220, 120, 40), (40, 160, 90), (200, 50, 50)][i])
        for row in range(3):
            y = px(150) + row * px(330)
            for col in range(2):
                cx = x0 + col * (w - x0) // 2
                cx1 = cx + (w - x0) // 2 - px(30)
                d.rounded_rectangle([cx, y, cx1, y + px(300)], radius=px(6), fill=(255, 255, 255))
                p.text(d, (cx + px(16), y + px(12)), f"panel {row * 2 + col + 1}", 12, grey)
                if (row + col) % 2 == 0:
                    pts, v = [], r.uniform(0.3, 0.7)
                    for i in range(60):
                        v = min(0.95, max(0.05, v + r.uniform(-0.08, 0.08)))
                        pts.append((cx + px(16) + i * (cx1 - cx - px(32)) / 59,
                                    y + px(290) - v * px(240)))
                    d.line(pts, fill=(50, 120, 220), width=px(2))
                else:
                    n = 14
                    bw = (cx1 - cx - px(32)) / n
                    for i in range(n):
                        bh = r.uniform(0.1, 0.9) * px(230)
                        d.rectangle([cx + px(16) + i * bw + px(3), y + px(290) - bh,
                                     cx + px(16) + (i + 1) * bw - px(3), y + px(290)],
                                    fill=(240, 150, 60))
    elif kind == "search":
        d.rounded_rectangle([px(160), px(20), int(w * 0.6), px(64)], radius=px(22),
                            outline=(220, 220, 220), width=px(2))
        p.text(d, (px(190), px(32)), "rust async cancellation", 16, ink)
        y = px(100)
        while y < h - px(130):
            p.words(d, px(160), y, int(w * 0.45), px(6), r, (0, 110, 60))
            hit = r.choice(["Cancellation in async Rust", "tokio::select! and drop",
                            "Async cancellation safety", "futures::Abortable",
                            "Graceful shutdown in Tokio"])
            p.text(d, (px(160), y + px(16)), hit, 19, (26, 13, 171))
            for j in range(2):
                p.words(d, px(160), y + px(50 + 22 * j), int(w * 0.58), px(8), r, (77, 81, 86))
            y += px(130)
        d.rounded_rectangle([int(w * 0.66), px(100), w - px(40), px(520)], radius=px(8),
                            outline=(218, 220, 224), width=px(1))
        d.rectangle([int(w * 0.66) + px(20), px(120), w - px(60), px(280)], fill=(200, 120, 60))
        for j in range(8):
            p.words(d, int(w * 0.66) + px(20), px(300 + 24 * j), w - px(60), px(8), r, grey)
    elif kind == "repo":
        d.rectangle([0, 0, w, px(64)], fill=(36, 41, 47))
        d.ellipse([px(20), px(16), px(52), px(48)], fill=(255, 255, 255))
        p.text(d, (px(80), px(22)), "acme / ingest", 18, (255, 255, 255))
        x0, x1 = int(w * 0.12), int(w * 0.68)
        d.rounded_rectangle([x0, px(100), x1, px(100 + 36 * 14)], radius=px(6),
                            outline=(208, 215, 222),
                            width=px(1))
        for i in range(13):
            y = px(112 + 36 * i)
            d.rectangle([x0 + px(16), y, x0 + px(30), y + px(12)],
                        fill=(84, 174, 255) if i < 5 else (140, 150, 160))
            entry = r.choice(["src", "tests", "docs", "scripts", ".github", "Cargo.toml",
                              "README.md", "LICENSE", "build.rs", "Makefile"])
            p.text(d, (x0 + px(44), y - px(2)), entry, 13, (9, 105, 218))
            p.words(d, x0 + int((x1 - x0) * 0.35), y + px(2), x0 + int((x1 - x0) * 0.8), px(8), r,
                    grey)
        d.rounded_rectangle([x0, px(640), x1, h - px(20)], radius=px(6), outline=(208, 215, 222),
                            width=px(1))
        p.text(d, (x0 + px(24), px(660)), "ingest", 28, ink)
        y = px(720)
        while y < h - px(60):
            if r.random() < 0.2:
                d.rectangle([x0 + px(24), y, x1 - px(24), y + px(90)], fill=(246, 248, 250))
                y += px(110)
            p.words(d, x0 + px(24), y, x1 - px(24), px(8), r, (50, 50, 50))
            y += px(24)
        for j in range(10):
            p.words(d, int(w * 0.72), px(110 + 26 * j), w - px(40), px(8), r, grey)
    elif kind == "videos":
        d.rectangle([0, 0, w, px(56)], fill=(33, 33, 33))
        d.rounded_rectangle([int(w * 0.3), px(12), int(w * 0.65), px(44)], radius=px(16),
                            fill=(18, 18, 18))
        cols = 4
        tw = (w - px(80)) // cols
        y = px(80)
        while y < h - px(40):
            for c in range(cols):
                x = px(40) + c * tw
                col = (r.randint(40, 220), r.randint(40, 220), r.randint(40, 220))
                th = int(tw * 0.56)
                d.rounded_rectangle([x, y, x + tw - px(20), y + th], radius=px(10), fill=col)
                mx, my = x + tw // 2, y + th // 2
                d.polygon([(mx - px(14), my - px(16)), (mx - px(14), my + px(16)),
                           (mx + px(18), my)], fill=(255, 255, 255))
                d.ellipse([x, y + th + px(10), x + px(32), y + th + px(42)],
                          fill=_mix(col, (0, 0, 0), 0.4))
                p.words(d, x + px(42), y + th + px(14), x + tw - px(30), px(9), r, (241, 241, 241))
                p.words(d, x + px(42), y + th + px(34), x + tw * 0.6, px(7), r, (170, 170, 170))
            y += int(tw * 0.56) + px(80)
    else:  # docs
        d.rectangle([0, 0, w, px(50)], fill=(19, 2, 89))
        p.text(d, (px(24), px(14)), "pandas", 18, (255, 255, 255))
        d.rectangle([0, px(50), px(280), h], fill=(246, 246, 250))
        for i in range(40):
            p.text(d, (px(24 + 12 * (i % 3 == 1)), px(70 + 26 * i)),
                   r.choice(["DataFrame", "merge", "join", "concat", "pivot", "groupby", "melt",
                             "read_csv", "to_parquet", "Series"]), 12, (50, 50, 120))
        x0, x1 = px(330), int(w * 0.78)
        p.text(d, (x0, px(80)), "pandas.DataFrame.merge", 28, ink)
        y = px(140)
        while y < h - px(40):
            if r.random() < 0.25:
                d.rectangle([x0, y, x1, y + px(26 * r.randint(3, 7))], fill=(40, 44, 52))
                yy = y + px(12)
                while yy < y + px(26 * 3):
                    p.words(d, x0 + px(16), yy, x1 * 0.8, px(8), r, (152, 195, 121))
                    yy += px(22)
                y += px(26 * 7) + px(20)
                continue
            p.words(d, x0, y, x1, px(8), r, (60, 60, 60))
            y += px(24)
    return img


class BrowserTab(Activity):
    role = "browser"

    def __init__(self, p, rng, window: BrowserWindow, title, label, page: str, wheel: bool):
        super().__init__(p, rng, window.app, title, label)
        self.window, self.page = window, page
        self.wheel = wheel
        self.kind = "app"

    def place(self, t0, t1):
        super().place(t0, t1)
        self.steps: list[tuple[float, int]] = []  # (t, offset): mouse-wheel notches
        if self.wheel and t1 - t0 > 12:
            _, y0, _, y1 = self.window.content_rect()
            most = int((y1 - y0) * 0.75)
            times = sorted(self.rng.uniform(t0 + 5, t1 - max(3, self.settle))
                           for _ in range(self.rng.randint(1, 2)))
            pos = 0
            for t in times:
                pos = min(most, pos + self.rng.randint(2, 5) * self.p.px(48))
                self.steps.append((t, pos))

    def view(self, t):
        off = 0
        for ts, pos in self.steps:
            if t >= ts:
                off = pos
        return (f"{self.seg}|page|{self.page}|{off}",
                lambda: self.window.draw(self.title, self.page, off))


# -- document reader

class Reader(Activity):
    kind = "read"
    role = "reader"

    def __init__(self, p, rng, app, title, label, doc: str, read: float, scroll: float):
        super().__init__(p, rng, app, title, label)
        self.doc, self.read, self.scroll = doc, read, scroll
        x0, y0, x1, y1 = self._rect()
        self.pw = int(min((x1 - x0) * 0.62, (y1 - y0) * 1.05))
        self.ph = int(self.pw * 1.414)
        self.gap = p.px(14)
        self._pages: dict[int, Image.Image] = {}

    def _rect(self):
        _x0, y0, x1, y1 = self.p.content_rect()
        return (self.p.px(170) if self.app != "Evince" else 0, y0 + self.p.px(40), x1, y1)

    def place(self, t0, t1):
        super().place(t0, t1)
        rng = self.rng
        self.ts = t0 + self.read  # the scroll starts
        pitch = self.ph + self.gap
        # trackpad flicks with inertia: the position eases toward each flick's target
        flicks = []
        t = self.ts
        while t < t1 - self.settle - 1.5:
            dist = rng.uniform(0.05, 0.22) * pitch
            if rng.random() < 0.08:
                dist = -dist * 0.5  # back up to re-read a line
            flicks.append((t, dist, rng.uniform(0.6, 1.5)))
            t += rng.uniform(1.0, 4.5) if rng.random() < 0.8 else rng.uniform(5, 9)
        self.flicks = flicks
        self.npages = int(max(0.0, self._pos(t1)) / pitch) + 3

    def _pos(self, t):
        pos = 0.0
        for tf, dist, glide in self.flicks:  # a flick, then its inertia easing out
            if t > tf:
                pos += dist * (1 - (1 - min(1.0, (t - tf) / glide)) ** 3)
        return max(0.0, pos)

    def silent_spans(self):
        return [(self.ts, self.t1)]

    def view(self, t):
        off = round(self._pos(t))
        return f"{self.seg}|doc|{off}", lambda: self._draw(off)

    def _page(self, i):
        if i not in self._pages:
            if len(self._pages) > 4:
                self._pages.pop(min(self._pages))
            self._pages[i] = self._draw_page(i)
        return self._pages[i]

    def _draw_page(self, i):
        p, px = self.p, self.p.px
        img = Image.new("RGB", (self.pw, self.ph), (255, 255, 255))
        d = ImageDraw.Draw(img)
        r = random.Random(f"{p.seed}|pdf|{self.doc}|{i}")
        m = int(self.pw * 0.1)
        y = m
        if i == 0:
            heading = self.doc.replace(".pdf", "").replace("_", " ").title()
            p.text(d, (m, y), heading, 24, (20, 20, 20))
            y += px(50)
            p.words(d, m, y, self.pw * 0.6, px(8), r, (90, 90, 90))
            y += px(50)
        two_col = r.random() < 0.5
        cols = [(m, self.pw // 2 - m // 3), (self.pw // 2 + m // 3, self.pw - m)] if two_col \
            else [(m, self.pw - m)]
        lh = px(16)
        for cx0, cx1 in cols:
            yy = y
            while yy < self.ph - m - px(20):
                roll = r.random()
                if roll < 0.06:
                    fh = int((cx1 - cx0) * r.uniform(0.4, 0.7))
                    if yy + fh > self.ph - m:
                        break
                    d.rectangle([cx0, yy, cx1, yy + fh], outline=(120, 120, 120), width=px(1))
                    pts = [(cx0 + k * (cx1 - cx0) / 20, yy + fh * (0.8 - 0.6 * r.random()))
                           for k in range(21)]
                    d.line(pts, fill=r.choice(((200, 40, 40), (40, 90, 200))), width=px(2))
                    yy += fh + lh
                elif roll < 0.12:
                    p.text(d, (cx0, yy), f"{r.randint(1, 9)}.{r.randint(1, 9)} "
                           + r.choice(["Method", "Results", "Related work", "Evaluation", "Setup"]),
                           14, (20, 20, 20))
                    yy += lh * 2
                else:
                    for _ in range(r.randint(4, 9)):
                        p.words(d, cx0, yy, cx1, px(6), r, (70, 70, 70), unit=p.s * 5)
                        yy += lh
                    yy += lh // 2
        p.text(d, (self.pw // 2 - px(6), self.ph - m // 2 - px(8)), str(i + 1), 10, (90, 90, 90))
        return img

    def _draw(self, off):
        p, px = self.p, self.p.px
        img, d, (x0, y0, x1, _y1) = p.screen(self.app, self.title)
        d.rectangle([x0, y0, x1, y0 + px(40)], fill=(245, 245, 245))
        pitch = self.ph + self.gap
        page = min(self.npages, off // pitch + 1)
        p.text(d, (px(16), y0 + px(12)), f"{page} / {self.npages}", 13, (40, 40, 40))
        p.text(d, (x1 // 2, y0 + px(12)), "125%", 13, (40, 40, 40))
        for i in range(5):
            d.rectangle([x1 - px(40 + 34 * i), y0 + px(10), x1 - px(20 + 34 * i), y0 + px(30)],
                        fill=(120, 120, 120))
        cx0, cy0, cx1, cy1 = self._rect()
        if cx0 > 0:  # thumbnails
            d.rectangle([0, cy0, cx0, cy1], fill=(230, 230, 232))
            for i in range(min(self.npages, int((cy1 - cy0) / px(150)))):
                ty = cy0 + px(14) + i * px(150)
                here = i + 1 == page
                d.rectangle([px(40), ty, cx0 - px(40), ty + px(126)], fill=(255, 255, 255),
                            outline=(60, 120, 220) if here else (180, 180, 180),
                            width=px(3) if here else 1)
        view = Image.new("RGB", (cx1 - cx0, cy1 - cy0),
                         (82, 86, 89) if self.app == "Adobe Acrobat Reader" else (200, 200, 204))
        left = (cx1 - cx0 - self.pw) // 2
        i = max(0, (off - self.gap) // pitch)
        while i < self.npages:
            top = self.gap + i * pitch - off
            if top >= cy1 - cy0:
                break
            view.paste(self._page(i), (left, top))
            i += 1
        img.paste(view, (cx0, cy0))
        return img


# -- spreadsheet

class Sheet(Activity):
    kind = "clicks"
    role = "sheet"

    def __init__(self, p, rng, app, title, label, book: str):
        super().__init__(p, rng, app, title, label)
        self.book = book
        self.theme = {"Microsoft Excel": (33, 115, 70),
                      "Numbers": (250, 250, 250)}.get(app, (230, 230, 230))
        self._base = None
        px = p.px
        _x0, y0, _x1, y1 = p.content_rect()
        self.fy = y0 + px(70)  # the formula bar
        self.gx, self.gy = px(46), self.fy + px(28)  # the grid's top left
        self.cw, self.ch = px(100), px(24)
        self.bottom = y1 - px(28)  # above the sheet tabs
        shown = (self.bottom - self.gy - self.ch) // self.ch  # whole rows on screen
        r = random.Random(f"{p.seed}|sheet|{book}")
        self.ncols, self.nrows = r.randint(5, 9), min(r.randint(18, 40), shown)
        self.values = {(i, j): r.choice([str(r.randint(1, 99999)), f"{r.uniform(0, 999):.2f}",
                                         f"{r.randint(1, 100)}%"])
                       for i in range(1, self.nrows) for j in range(self.ncols)}
        self.heads = [r.choice(["Region", "Q1", "Q2", "Q3", "Q4", "Total", "Owner", "Status",
                                "Delta", "Budget", "Actual"]) for _ in range(self.ncols)]

    def place(self, t0, t1):
        super().place(t0, t1)
        rng = self.rng
        t = t0 + rng.uniform(2, 5)
        self.steps = []  # (t, (row, col), typed value or None)
        cell = (rng.randint(1, self.nrows - 1), rng.randint(0, self.ncols - 1))
        while t < t1 - self.settle:
            moved = cell
            while moved == cell:
                moved = (max(1, min(self.nrows - 1, cell[0] + rng.randint(-3, 4))),
                         max(0, min(self.ncols - 1, cell[1] + rng.randint(-2, 2))))
            cell = moved
            self.steps.append((t, cell, None))  # a click selects the cell
            self.inputs.append((t, 0, 1))
            if rng.random() < 0.3:  # … and a value is typed into it (Enter commits it)
                value = str(rng.randint(10, 9999))
                tv = t + rng.uniform(1.0, 1.8)
                self.steps.append((tv, cell, value))
                self.inputs.append((tv, len(value) + 1, 0))
            t += rng.uniform(2.0, 6.5)

    def view(self, t):
        k = sum(1 for ts, _, _ in self.steps if ts <= t)
        return f"{self.seg}|sheet|{k}", lambda: self._draw(k)

    def base(self):
        if self._base is None:
            p, px = self.p, self.p.px
            img, d, (x0, y0, x1, y1) = p.screen(self.app, self.title, bar=self.theme
                                                if self.app == "Microsoft Excel" else None)
            d.rectangle([x0, y0, x1, y0 + px(70)], fill=self.theme)
            fg = (255, 255, 255) if self.app == "Microsoft Excel" else (40, 40, 40)
            menus = ("Home", "Insert", "Page Layout", "Formulas", "Data", "Review", "View")
            for i, m in enumerate(menus):
                p.text(d, (px(16 + 90 * i), y0 + px(8)), m, 12, fg)
            for i in range(24):
                d.rectangle([px(16 + 36 * i), y0 + px(34), px(42 + 36 * i), y0 + px(60)],
                            fill=_mix(self.theme, (255, 255, 255) if self.app == "Microsoft Excel"
                                      else (120, 120, 120), 0.5))
            d.rectangle([x0, self.fy, x1, self.fy + px(28)], fill=(255, 255, 255),
                        outline=(210, 210, 210))
            d.rectangle([x0, self.gy, x1, self.gy + self.ch], fill=(240, 240, 240))
            d.rectangle([x0, self.gy, self.gx, self.bottom], fill=(240, 240, 240))
            ncols = (x1 - self.gx) // self.cw + 1
            nrows = (self.bottom - self.gy - self.ch) // self.ch + 1
            for j in range(ncols):
                x = self.gx + j * self.cw
                d.line([x, self.gy, x, self.bottom], fill=(218, 220, 224))
                p.text(d, (x + self.cw // 2 - px(4), self.gy + px(5)), chr(65 + j % 26), 11,
                       (80, 80, 80))
            for i in range(nrows):
                y = self.gy + self.ch + i * self.ch
                d.line([x0, y, x1, y], fill=(218, 220, 224))
                p.text(d, (px(10), y + px(5)), str(i + 1), 11, (80, 80, 80))
            for j, h in enumerate(self.heads):
                self._cell(d, 0, j, h, bold=True)
            for (i, j), v in self.values.items():
                self._cell(d, i, j, v)
            d.rectangle([x0, self.bottom, x1, y1], fill=(245, 245, 245))
            for i, n in enumerate(("Summary", "Q-data", "Raw")):
                d.rectangle([px(60 + 110 * i), self.bottom, px(160 + 110 * i), y1],
                            fill=(255, 255, 255) if i == 0 else (230, 230, 230))
                p.text(d, (px(72 + 110 * i), self.bottom + px(7)), n, 11, (40, 40, 40))
            self._base = img
        return self._base

    def _xy(self, i, j):
        return self.gx + j * self.cw, self.gy + self.ch + i * self.ch

    def _cell(self, d, i, j, v, bold=False, fill=None):
        x, y = self._xy(i, j)
        if fill:
            d.rectangle([x + 1, y + 1, x + self.cw - 1, y + self.ch - 1], fill=fill)
        self.p.text(d, (x + self.p.px(6), y + self.p.px(5)), v, 12 if bold else 11,
                    (0, 0, 0) if bold else (40, 40, 40))

    def _draw(self, k):
        img = self.base().copy()
        d = ImageDraw.Draw(img)
        px = self.p.px
        edits = {}
        cell = None
        for _, c, v in self.steps[:k]:
            cell = c
            if v:
                edits[c] = v
        for (i, j), v in edits.items():
            self._cell(d, i, j, v, fill=(255, 255, 255))
        if cell:
            i, j = cell
            x, y = self._xy(i, j)
            d.rectangle([x, y, x + self.cw, y + self.ch], outline=(16, 124, 65), width=px(2))
            hx, hy = x + self.cw, y + self.ch  # the fill handle
            d.rectangle([hx - px(3), hy - px(3), hx + px(3), hy + px(3)],
                        fill=(16, 124, 65))
            ref = f"{chr(65 + j)}{i + 1}"
            self.p.text(d, (px(12), self.fy + px(7)), ref, 12, (40, 40, 40))
            shown = edits.get(cell, self.values.get(cell, ""))
            self.p.text(d, (px(120), self.fy + px(7)), shown, 12, (40, 40, 40))
        return img


# -- design tool

class Design(Activity):
    kind = "clicks"
    role = "design"

    def __init__(self, p, rng, app, title, label):
        super().__init__(p, rng, app, title, label)
        r = random.Random(f"{p.seed}|design")
        self.dark = app != "Inkscape"
        W, H = p.W, p.H
        self.shapes = []
        for _ in range(r.randint(7, 11)):
            w, h = r.uniform(0.04, 0.12) * W, r.uniform(0.04, 0.14) * H
            self.shapes.append([r.uniform(0.26, 0.6) * W, r.uniform(0.2, 0.7) * H, w, h,
                                r.choice(("rect", "ellipse", "text")),
                                (r.randint(30, 240), r.randint(30, 240), r.randint(30, 240))])
        self._base = None

    def place(self, t0, t1):
        super().place(t0, t1)
        rng = self.rng
        self.steps = []  # (t, shape, dx, dy)
        t = t0 + rng.uniform(2, 6)
        sel = None
        while t < t1 - self.settle:
            i = rng.randrange(len(self.shapes))
            drag = rng.random() < 0.5 or i == sel
            sel = i
            dx = rng.choice((-1, 1)) * rng.uniform(0.01, 0.05) * self.p.W if drag else 0.0
            dy = rng.uniform(-0.05, 0.05) * self.p.H if drag else 0.0
            self.steps.append((t, i, dx, dy))
            self.inputs.append((t + 0.4, 0, 1))
            t += rng.uniform(2.5, 7.0)

    def view(self, t):
        k = sum(1 for ts, *_ in self.steps if ts <= t)
        return f"{self.seg}|design|{k}", lambda: self._draw(k)

    def base(self):
        if self._base is None:
            p, px = self.p, self.p.px
            panel = (44, 44, 44) if self.dark else (240, 240, 240)
            fg = (220, 220, 220) if self.dark else (40, 40, 40)
            img, d, (x0, y0, x1, y1) = p.screen(self.app, self.title, dark=self.dark)
            d.rectangle([x0, y0, x1, y0 + px(44)],
                        fill=(30, 30, 30) if self.dark else (225, 225, 225))
            for i in range(9):
                d.rectangle([px(16 + 40 * i), y0 + px(12), px(36 + 40 * i), y0 + px(32)], fill=fg)
            self.canvas = (px(240), y0 + px(44), x1 - px(260), y1)
            d.rectangle([x0, y0 + px(44), px(240), y1], fill=panel)
            for i in range(len(self.shapes) + 4):
                p.text(d, (px(20 + 14 * (i % 2)), y0 + px(60 + 26 * i)),
                       ["Frame 1", "Header", "Card", "Button", "Icon", "Label", "Avatar", "Hero",
                        "Footer", "Nav", "Badge", "Input", "Chip", "Menu", "Tab"][i % 15], 12, fg)
            d.rectangle([x1 - px(260), y0 + px(44), x1, y1], fill=panel)
            d.rectangle(self.canvas, fill=(229, 229, 229) if not self.dark else (30, 30, 30))
            cx0, cy0, cx1, cy1 = self.canvas
            d.rectangle([cx0 + (cx1 - cx0) * 0.08, cy0 + px(40), cx0 + (cx1 - cx0) * 0.92,
                         cy1 - px(40)],
                        fill=(255, 255, 255))
            self._base = img
        return self._base

    def _draw(self, k):
        img = self.base().copy()
        d = ImageDraw.Draw(img)
        p, px = self.p, self.p.px
        shapes = [list(s) for s in self.shapes]
        sel = None
        for _, i, dx, dy in self.steps[:k]:
            shapes[i][0] += dx
            shapes[i][1] += dy
            sel = i
        for j, (x, y, w, h, kind, col) in enumerate(shapes):
            box = [int(x), int(y), int(x + w), int(y + h)]
            if kind == "rect":
                d.rounded_rectangle(box, radius=px(8), fill=col)
            elif kind == "ellipse":
                d.ellipse(box, fill=col)
            else:
                r = random.Random(f"{p.seed}|dtext|{j}")
                yy = y
                while yy < y + h - px(10):
                    p.words(d, x, yy, x + w, px(8), r, _mix(col, (0, 0, 0), 0.5))
                    yy += px(18)
        fg = (220, 220, 220) if self.dark else (40, 40, 40)
        if sel is not None:
            x, y, w, h = shapes[sel][:4]
            blue = (24, 160, 251)
            d.rectangle([int(x) - px(2), int(y) - px(2), int(x + w) + px(2), int(y + h) + px(2)],
                        outline=blue, width=px(2))
            for hx, hy in ((x, y), (x + w, y), (x, y + h), (x + w, y + h)):
                d.rectangle([int(hx) - px(4), int(hy) - px(4), int(hx) + px(4), int(hy) + px(4)],
                            fill=(255, 255, 255), outline=blue)
            x1 = p.W
            y0 = self.canvas[1]
            for n, (lab, v) in enumerate((("X", x), ("Y", y), ("W", w), ("H", h))):
                p.text(d, (x1 - px(240) + (n % 2) * px(120), y0 + px(20 + 30 * (n // 2))),
                       f"{lab}  {int(v)}", 12, fg)
            d.rectangle([x1 - px(240), y0 + px(90), x1 - px(200), y0 + px(120)],
                        fill=shapes[sel][5])
        return img


# -- chat (also the private screen while paused)

_CHAT = {
    "Microsoft Teams": {"rail": (68, 71, 145), "side": (240, 240, 244), "bg": (245, 245, 245),
                        "fg": (36, 36, 36)},
    "Discord": {"rail": (32, 34, 37), "side": (47, 49, 54), "bg": (54, 57, 63),
                "fg": (220, 221, 222)},
    "Element": {"rail": (255, 255, 255), "side": (244, 246, 250), "bg": (255, 255, 255),
                "fg": (23, 25, 28)},
    "Signal": {"rail": (27, 27, 27), "side": (40, 40, 40), "bg": (18, 18, 18),
               "fg": (230, 230, 230)},
}


class Chat(Activity):
    kind = "chat"
    role = "chat"

    def __init__(self, p, rng, app, title, label, channel: str, private: bool = False):
        super().__init__(p, rng, app, title, label)
        self.channel, self.private = channel, private
        self.th = _CHAT[app]
        self.names = ["Priya", "Jonas", "Mei", "Tomás", "Aïcha", "Lars", "Dana", "Kofi"]

    def place(self, t0, t1):
        super().place(t0, t1)
        rng = self.rng
        if self.private:
            self.arrivals, self.spans, self.posts = [], [], []
            return
        self.arrivals = sorted(rng.uniform(t0 + 3, t1 - self.settle)
                               for _ in range(rng.randint(1, 3)))
        self.spans = _bursts(rng, t0 + rng.uniform(6, 10), t1 - self.settle - 1, rng.randint(1, 2),
                             cps=(3.0, 5.5), length=(4.0, 12.0))
        self.posts = [t1_ + rng.uniform(0.3, 1.0) for _, t1_, _ in self.spans]
        self.inputs = _key_events(rng, self.spans) + [(t, 1, 0) for t in self.posts]

    def view(self, t):
        n_in = sum(a <= t for a in self.arrivals)
        posted = sum(q <= t for q in self.posts)
        draft = 0
        for i, (a, b, c) in enumerate(self.spans):
            if a < t and (i >= posted):
                draft = int((min(t, b) - a) * c)
                break
        return (f"{self.seg}|chat|{n_in}|{posted}|{draft}",
                lambda: self._draw(n_in, posted, draft))

    def _draw(self, n_in, posted, draft):
        p, px, th = self.p, self.p.px, self.th
        dark = th["bg"][0] < 100
        img, d, (x0, y0, x1, y1) = p.screen(self.app, self.title, dark=dark)
        d.rectangle([x0, y0, px(64), y1], fill=th["rail"])
        for i in range(6):
            d.rounded_rectangle([px(12), y0 + px(14 + 56 * i), px(52), y0 + px(54 + 56 * i)],
                                radius=px(12),
                                fill=_mix(th["rail"], (255, 255, 255), 0.25 + 0.1 * i))
        d.rectangle([px(64), y0, px(300), y1], fill=th["side"])
        r0 = random.Random(f"{p.seed}|chatside|{self.app}")
        for i in range(16):
            name = self.channel if i == 2 else r0.choice(["general", "random", "deploys", "design",
                                                          "support", "standup", "oncall", "books"])
            if i == 2:
                yy = y0 + px(16 + 30 * i)
                d.rectangle([px(64), yy - px(4), px(300), yy + px(22)],
                            fill=_mix(th["side"], th["fg"], 0.15))
            p.text(d, (px(84), y0 + px(16 + 30 * i)), ("" if self.private else "# ") + name, 13,
                   th["fg"])
        d.rectangle([px(300), y0, x1, y1], fill=th["bg"])
        d.rectangle([px(300), y0, x1, y0 + px(48)], fill=_mix(th["bg"], th["fg"], 0.05))
        p.text(d, (px(320), y0 + px(14)), self.channel, 16, th["fg"])
        # messages, newest at the bottom
        msgs = [("them", i) for i in range(14)]
        order = []
        k_in, k_out = 0, 0
        # interleave: arrivals then posts, in time order
        events = sorted([(a, "in") for a in self.arrivals[:n_in]]
                        + [(q, "out") for q in self.posts[:posted]])
        for _, kind in events:
            if kind == "in":
                order.append(("them", 100 + k_in))
                k_in += 1
            else:
                order.append(("me", 200 + k_out))
                k_out += 1
        msgs += order
        comp_h = px(90)
        y = y1 - comp_h - px(10)
        for who, i in reversed(msgs):
            r = random.Random(f"{p.seed}|msg|{self.seg}|{i}")
            nlines = r.randint(1, 4)
            h = px(30) + nlines * px(20)
            y -= h
            if y < y0 + px(50):
                break
            col = (0, 140, 220) if who == "me" else \
                (r.randint(60, 220), r.randint(60, 220), r.randint(60, 220))
            d.ellipse([px(320), y, px(356), y + px(36)], fill=col)
            p.text(d, (px(370), y), "you" if who == "me" else r.choice(self.names), 13, th["fg"])
            for j in range(nlines):
                p.words(d, px(370), y + px(24 + 20 * j),
                        px(370) + (x1 - px(420)) * r.uniform(0.3, 0.95),
                        px(8), r, _mix(th["fg"], th["bg"], 0.35))
        d.rectangle([px(300), y1 - comp_h, x1, y1], fill=th["bg"])
        d.rounded_rectangle([px(320), y1 - comp_h + px(10), x1 - px(20), y1 - px(14)], radius=px(8),
                            outline=_mix(th["fg"], th["bg"], 0.6), width=px(1))
        if draft:
            r = random.Random(f"{p.seed}|draft|{self.seg}|{posted}")
            end = p.words(d, px(336), y1 - comp_h + px(28), x1 - px(40), px(8), r, th["fg"],
                          unit=p.s * 6, budget=draft)
            d.rectangle([int(end), y1 - comp_h + px(24), int(end) + px(2), y1 - comp_h + px(40)],
                        fill=th["fg"])
        else:
            p.text(d, (px(336), y1 - comp_h + px(24)), f"Message {self.channel}", 13,
                   _mix(th["fg"], th["bg"], 0.55))
        return img


# -- video call

class Call(Activity):
    kind = "call"
    role = "call"

    def __init__(self, p, rng, app, title, label):
        super().__init__(p, rng, app, title, label)
        r = random.Random(f"{p.seed}|call")
        self.n = r.randint(4, 9)
        self.people = [{"bg": (r.randint(40, 120), r.randint(40, 120), r.randint(40, 120)),
                            "skin": r.choice(((241, 194, 125), (224, 172, 105), (141, 85, 36),
                                              (198, 134, 66),
                                           (255, 219, 172))),
                            "shirt": (r.randint(20, 230), r.randint(20, 230), r.randint(20, 230)),
                            "phase": r.uniform(0, 6.28), "speed": r.uniform(0.4, 1.3),
                            "name": r.choice(["Ana", "Bilal", "Chen", "Dmitri", "Eve", "Farah",
                                              "Gus", "Hana",
                                           "Ivo", "Jun"])}
                       for _ in range(self.n)]

    def place(self, t0, t1):
        super().place(t0, t1)
        rng = self.rng
        self.turns = []  # who speaks from when
        t = t0
        while t < t1:
            self.turns.append((t, rng.randrange(self.n)))
            t += rng.uniform(3, 10)

    def view(self, t):
        q = round(t * 10)
        return f"{self.seg}|call|{q}", lambda: self._draw(q / 10)

    def _draw(self, t):
        p, px = self.p, self.p.px
        img, d, (x0, y0, x1, y1) = p.screen(self.app, self.title, dark=True)
        d.rectangle([x0, y0, x1, y1], fill=(26, 26, 26))
        bar = px(64)
        cols = math.ceil(math.sqrt(self.n))
        rows = math.ceil(self.n / cols)
        gw = (x1 - x0 - px(16)) / cols
        gh = (y1 - y0 - bar - px(16)) / rows
        speaker = [s for ts, s in self.turns if ts <= t + 1e-9]
        speaker = speaker[-1] if speaker else 0
        noise = random.Random(f"{p.seed}|noise|{t:.1f}")
        for i, who in enumerate(self.people):
            c, rr = i % cols, i // cols
            tx0, ty0 = x0 + px(8) + c * gw, y0 + px(8) + rr * gh
            tx1, ty1 = tx0 + gw - px(8), ty0 + gh - px(8)
            d.rectangle([tx0, ty0, tx1, ty1], fill=who["bg"])
            for _ in range(12):  # sensor noise and lighting flicker
                nx, ny = noise.uniform(tx0, tx1 - px(30)), noise.uniform(ty0, ty1 - px(30))
                d.rectangle([nx, ny, nx + px(30), ny + px(30)],
                            fill=_mix(who["bg"], (255, 255, 255), noise.uniform(0.02, 0.09)))
            w = tx1 - tx0
            h = ty1 - ty0
            sway = math.sin(t * who["speed"] + who["phase"])
            nod = math.sin(t * who["speed"] * 2.3 + who["phase"])
            cx = tx0 + w / 2 + sway * w * 0.05
            cy = ty0 + h * 0.42 + nod * h * 0.02
            rad = min(w, h) * 0.16
            d.ellipse([cx - rad * 2.2, cy + rad * 1.1, cx + rad * 2.2, cy + rad * 4.5],
                      fill=who["shirt"])
            d.ellipse([cx - rad, cy - rad, cx + rad, cy + rad * 1.2], fill=who["skin"])
            if i == speaker:  # a mouth that moves while talking
                m = abs(math.sin(t * 9.1 + i)) * rad * 0.25
                d.ellipse([cx - rad * 0.3, cy + rad * 0.5, cx + rad * 0.3, cy + rad * 0.6 + m],
                          fill=(90, 30, 30))
                d.rectangle([tx0, ty0, tx1, ty1], outline=(35, 209, 96), width=px(3))
            d.rectangle([tx0 + px(6), ty1 - px(26), tx0 + px(110), ty1 - px(6)], fill=(0, 0, 0))
            p.text(d, (tx0 + px(12), ty1 - px(24)), who["name"], 12, (255, 255, 255))
        d.rectangle([x0, y1 - bar, x1, y1], fill=(18, 18, 18))
        mid = (x0 + x1) // 2
        for i in range(6):
            bx = mid - px(200) + i * px(64)
            d.rounded_rectangle([bx, y1 - bar + px(12), bx + px(40), y1 - px(12)], radius=px(6),
                                fill=(220, 50, 50) if i == 5 else (60, 60, 60))
        return img


# -- blips and glances: apps seen in passing

class Passing(Activity):
    """An app shown briefly (alt-tabbing past it, or a glance): one static screen."""

    kind = "blip"
    role = "blip"

    def view(self, t):
        return f"{self.seg}|passing", self._draw

    def _draw(self):
        p, px = self.p, self.p.px
        r = random.Random(f"{p.seed}|passing|{self.app}")
        layout = {"Files": "files", "Spotify": "music", "Thunderbird": "mail", "Calendar": "cal",
                  "Notes": "notes"}.get(self.app, "settings")
        dark = layout == "music"
        img, d, (x0, y0, x1, y1) = p.screen(self.app, self.title, dark=dark)
        if layout == "music":
            d.rectangle([x0, y0, x1, y1], fill=(18, 18, 18))
            d.rectangle([x0, y0, px(260), y1 - px(90)], fill=(0, 0, 0))
            for i in range(12):
                p.words(d, px(20), y0 + px(30 + 30 * i), px(220), px(9), r, (180, 180, 180))
            tw = (x1 - px(300)) // 5
            for i in range(10):
                x, y = px(290) + (i % 5) * tw, y0 + px(40) + (i // 5) * (tw + px(60))
                d.rectangle([x, y, x + tw - px(24), y + tw - px(24)],
                            fill=(r.randint(40, 250), r.randint(40, 250), r.randint(40, 250)))
            d.rectangle([x0, y1 - px(90), x1, y1], fill=(24, 24, 24))
            mid = x1 // 2
            d.rectangle([mid - px(250), y1 - px(30), mid + px(250), y1 - px(26)], fill=(90, 90, 90))
            d.ellipse([mid - px(18), y1 - px(80), mid + px(18), y1 - px(44)], fill=(255, 255, 255))
        elif layout == "cal":
            d.rectangle([x0, y0, x1, y1], fill=(255, 255, 255))
            gx = px(70)
            cw = (x1 - gx) / 7
            for i in range(8):
                d.line([gx + i * cw, y0 + px(50), gx + i * cw, y1], fill=(225, 225, 225))
            for h in range(24):
                y = y0 + px(50) + h * (y1 - y0 - px(50)) / 12
                d.line([x0, y, x1, y], fill=(235, 235, 235))
            for _ in range(r.randint(8, 14)):
                c = r.randrange(7)
                y = y0 + px(60) + r.uniform(0, 0.85) * (y1 - y0 - px(60))
                col = r.choice(((3, 155, 229), (121, 134, 203), (51, 182, 121), (246, 191, 38)))
                d.rounded_rectangle([gx + c * cw + px(4), y, gx + (c + 1) * cw - px(4),
                                     y + px(r.randint(30, 90))],
                                    radius=px(4), fill=col)
        elif layout == "mail":
            d.rectangle([x0, y0, px(220), y1], fill=(243, 243, 243))
            for i in range(10):
                p.words(d, px(20), y0 + px(20 + 30 * i), px(200), px(9), r, (60, 60, 60))
            for i in range(int((y1 - y0) / px(52))):
                y = y0 + i * px(52)
                d.line([px(220), y, int(x1 * 0.5), y], fill=(225, 225, 225))
                p.words(d, px(236), y + px(10), int(x1 * 0.45), px(9), r,
                        (20, 20, 20) if i % 3 else (0, 90, 200))
                p.words(d, px(236), y + px(30), int(x1 * 0.48), px(7), r, (120, 120, 120))
            y = y0 + px(30)
            while y < y1 - px(40):
                p.words(d, int(x1 * 0.52), y, x1 - px(30), px(8), r, (50, 50, 50))
                y += px(22)
        else:  # files, notes, settings: a sidebar and a body
            side = {"files": (246, 245, 244), "notes": (250, 243, 200),
                    "settings": (236, 236, 236)}[layout]
            d.rectangle([x0, y0, px(240), y1], fill=side)
            for i in range(14):
                d.rectangle([px(20), y0 + px(22 + 32 * i), px(36), y0 + px(38 + 32 * i)],
                            fill=(120, 120, 120))
                p.words(d, px(48), y0 + px(25 + 32 * i), px(220), px(9), r, (60, 60, 60))
            if layout == "files":
                tw = px(120)
                per_row = int((x1 - px(260)) / tw)
                for i in range(per_row * 4):
                    x, y = px(260) + (i % per_row) * tw, y0 + px(20) + (i // per_row) * px(120)
                    d.rounded_rectangle([x + px(20), y, x + px(90), y + px(56)], radius=px(6),
                                        fill=r.choice(((98, 160, 234), (246, 211, 45),
                                                       (200, 200, 200))))
                    p.words(d, x + px(14), y + px(66), x + px(100), px(8), r, (40, 40, 40))
            else:
                y = y0 + px(30)
                while y < y1 - px(40):
                    if layout == "settings" and r.random() < 0.3:
                        on = r.random() < 0.5
                        d.rounded_rectangle([x1 - px(90), y - px(4), x1 - px(44), y + px(18)],
                                            radius=px(11),
                                            fill=(53, 132, 228) if on else (190, 190, 190))
                    p.words(d, px(270), y, x1 * r.uniform(0.5, 0.8), px(9), r, (40, 40, 40))
                    y += px(36 if layout == "settings" else 24)
        return img


class Idle(Activity):
    """Nobody at the keyboard: the screen stays exactly as the activity before left it."""

    kind = "idle"

    def __init__(self, before: Activity):
        super().__init__(before.p, before.rng, before.app, before.title, "idle")
        self.before = before
        self.window_event = False

    def view(self, t):
        return self.before.last_view()


class Return(Activity):
    """Back, far later, to an earlier screen exactly as it was left (its own segment)."""

    def __init__(self, target: Activity):
        super().__init__(target.p, target.rng, target.app, target.title, target.label)
        self.target = target

    def view(self, t):
        return self.target.last_view()


# ---------------------------------------------------------------- the story

_POOLS = {
    "editor": ["PyCharm", "Sublime Text", "Zed"],
    "browser": ["Google Chrome", "Brave Browser", "Vivaldi", "Microsoft Edge"],
    "reader": ["Okular", "Adobe Acrobat Reader", "Evince"],
    "terminal": ["iTerm2", "Alacritty", "GNOME Terminal"],
    "sheet": ["LibreOffice Calc", "Microsoft Excel", "Numbers"],
    "design": ["Figma", "Penpot", "Inkscape"],
    "chat": ["Microsoft Teams", "Discord", "Element"],
    "call": ["zoom.us", "Webex", "Jitsi Meet"],
}
_PASSING = ["Files", "Spotify", "Thunderbird", "Calendar", "Notes", "Settings"]


def _fit(units, fixed: float, total: float) -> None:
    """Scale the flexible durations (in place) so everything adds up to `total`; none
    goes below its own `lo`."""
    for _ in range(6):
        flex = [u for u in units if u["flex"] and u["secs"] > u["lo"] + 1e-6]
        pinned = sum(u["secs"] for u in units if u["flex"] and u["secs"] <= u["lo"] + 1e-6)
        room = total - fixed - pinned
        have = sum(u["secs"] for u in flex)
        if not flex or have <= 0:
            return
        f = room / have
        for u in flex:
            u["secs"] = max(u["lo"], u["secs"] * f)
        if abs(sum(u["secs"] for u in units if u["flex"]) + fixed - total) < 0.01:
            return


def _story(rng: random.Random, p: Painter, apps: dict[str, str]):
    """The ordered list of activities (timeless) plus which one the idle follows and which
    one the return comes back to."""
    ed, br, rd = apps["editor"], apps["browser"], apps["reader"]
    project = rng.choice(["acme-api", "ledger", "tinyrouter", "photon", "harbor"])
    files = rng.sample(["parser.py", "scheduler.py", "handlers.py", "billing.py", "auth.py",
                        "test_models.py", "migrate.py"], 2)
    sep = " – " if ed == "PyCharm" else " — "
    doc = rng.choice(["attention_is_all_you_need.pdf", "q3_board_report.pdf",
                      "raft_consensus.pdf", "ISO_27001_controls.pdf", "thesis_draft_v7.pdf"])
    pages = rng.sample(list(_PAGES), 2)
    window = BrowserWindow(p, rng, br, pages)
    btitle = rng.choice([br, f"Work — {br}", f"Personal — {br}"])
    term_title = f"dev@{rng.choice(['lab', 'mbp', 'ws-7'])}: ~/{project}"
    book = rng.choice(["budget_2027", "hiring_plan", "churn_cohorts", "inventory"])
    channel = rng.choice(["release-train", "incident-042", "design-crit", "platform"])

    def unit(*acts, flex=True):
        return {"acts": list(acts), "flex": flex}

    e1 = Editor(p, rng, ed, f"{files[0]}{sep}{project}", f"{ed}: typing in {files[0]}",
                files[0], project)
    ta = BrowserTab(p, rng, window, btitle, f"{br} tab: {_PAGE_TITLES[pages[0]]}", pages[0],
                    wheel=rng.random() < 0.5)
    tb = BrowserTab(p, rng, window, btitle, f"{br} tab: {_PAGE_TITLES[pages[1]]}", pages[1],
                    wheel=False)
    tb.window_event = False
    tb.kind = "tab"
    read, scroll = rng.uniform(20, 60), rng.uniform(90, 240)
    reader = Reader(p, rng, rd, f"{doc} — {rd}" if rd != "Evince" else doc,
                    f"{rd}: reading {doc}",
                    doc, read, scroll)
    term = Terminal(p, rng, apps["terminal"], term_title,
                    f"{apps['terminal']}: commands in {project}",
                    f"dev@{project}$")
    sheet = Sheet(p, rng, apps["sheet"], f"{book}.xlsx", f"{apps['sheet']}: editing {book}", book)
    artboard = rng.choice(["Onboarding v3", "Pricing page", "Mobile nav"])
    design = Design(p, rng, apps["design"], f"{artboard}"
                    f" – {apps['design']}", f"{apps['design']}: moving shapes")
    chat = Chat(p, rng, apps["chat"], f"{channel} | {apps['chat']}", f"{apps['chat']}: #{channel}",
                channel)
    call = Call(p, rng, apps["call"], {"zoom.us": "Zoom Meeting", "Webex": "Webex Meeting"}.get(
        apps["call"], "Jitsi Meet — standup"), f"{apps['call']}: video call")

    units = {
        "e1": unit(e1), "browser": unit(ta, tb), "read": unit(reader, flex=False),
        "term": unit(term),
        "sheet": unit(sheet), "design": unit(design), "chat": unit(chat), "call": unit(call),
    }
    secs = {e1: (50, 120), ta: (25, 70), tb: (25, 70), term: (40, 100), sheet: (40, 100),
            design: (40, 100), chat: (30, 80), call: (60, 150)}
    if rng.random() < 0.6:
        e2 = Editor(p, rng, ed, f"{files[1]}{sep}{project}", f"{ed}: typing in {files[1]}",
                    files[1], project)
        units["e2"] = unit(e2)
        secs[e2] = (30, 80)
    if rng.random() < 0.25:  # a seed without the design tool
        del units["design"]
    for u in units.values():
        u["secs"] = 0.0
    for a, (lo, hi) in secs.items():
        a.secs = rng.uniform(lo, hi)
    reader.secs = read + scroll
    order = list(units)
    while True:
        rng.shuffle(order)
        if "e2" in order and abs(order.index("e1") - order.index("e2")) == 1:
            continue
        # the return comes back to something static seen early
        early = [k for k in order[:3] if k in ("browser", "sheet", "design", "e1")]
        if early:
            break
    return units, order, early[0]


def _build(rng: random.Random, p: Painter, apps: dict[str, str], total: float, interval: float):
    units, order, back_to = _story(rng, p, apps)
    gaps: dict[int, list[str]] = {}  # gap after order[i] → inserts
    n = len(order)
    # the return: in the last third, after at least 4 minutes (checked after timing)
    ret_gap = rng.randint(max(3, n - 3), n - 1)
    gaps.setdefault(ret_gap, []).append("return")
    free = [i for i in range(n - 1) if i != ret_gap]
    rng.shuffle(free)
    n_blips = rng.randint(2, 3)
    glance = rng.random() < 0.5
    # at most 15 segments: units (+1 for two tabs) + blips + glance + idle + paused
    n_seg = n + 1 + n_blips + glance + 2
    while n_seg > 15:
        if glance:
            glance = False
        else:
            n_blips -= 1
        n_seg -= 1
    inserts = ["paused"] + ["blip"] * n_blips + (["glance"] if glance else [])
    for ins, gi in zip(inserts, free):
        gaps.setdefault(gi, []).append(ins)
    idle_after = rng.choice([i for i in range(n)
                             if order[i] in ("read", "sheet", "design", "e1", "e2", "chat")])
    gaps.setdefault(idle_after, []).insert(0, "idle")

    passing = rng.sample(_PASSING, len(_PASSING))
    seq: list[Activity] = []
    fixed_acts: list[Activity] = []
    target = units[back_to]["acts"][-1]
    settle = interval * 1.25 + 0.5  # at least one capture lands in a settled stretch
    target.settle = settle
    private = Chat(p, rng, "Signal", "Signal", "private chat (paused)", "Mum", private=True)
    private.kind = "paused"
    for i, key in enumerate(order):
        seq += units[key]["acts"]
        for ins in gaps.get(i, []):
            if ins == "idle":
                a = Idle(seq[-1])
                a.secs = rng.uniform(40, 110)
                seq[-1].settle = settle
            elif ins == "return":
                a = Return(target)
                a.secs = rng.uniform(15, 40)
                fixed_acts.append(a)
            elif ins == "paused":
                a = private
                a.secs = rng.uniform(30, 80)
                fixed_acts.append(a)
            else:
                app = passing.pop()
                a = Passing(p, rng, app, app, f"{app} ({ins})")
                a.kind = ins
                a.secs = rng.uniform(2, 6) if ins == "blip" else rng.uniform(8, 13)
                fixed_acts.append(a)
            seq.append(a)
    # durations: the reader, blips, glance, pause, return are fixed; the rest stretch
    items = [{"a": a, "secs": a.secs, "flex": not (a in fixed_acts or isinstance(a, Reader)),
              "lo": 35.0 if isinstance(a, Idle) else 30.0 if a.settle > 2.0 else 18.0} for a in seq]
    fixed = sum(it["secs"] for it in items if not it["flex"])
    _fit(items, fixed, total)

    def ends(items):
        t, out = 0.0, {}
        for it in items:
            out[id(it["a"])] = (t, t + it["secs"])
            t += it["secs"]
        return out

    # the return must come ≥ 240 s after its target was left: else it moves to the end
    ret = next(it for it in items if isinstance(it["a"], Return))
    at = ends(items)
    if at[id(ret["a"])][0] - at[id(target)][1] < 240:
        items.remove(ret)
        items.append(ret)
        seq = [it["a"] for it in items]
        at = ends(items)
    for a in seq:
        a.place(*at[id(a)])
    return seq, target


# ---------------------------------------------------------------- writing a session

def make_session(root: Path | str, seed: int = 0, *, start: float | None = None,
                 size: tuple[int, int] | None = None, interval: float | None = None,
                 quality: int = 80) -> Session:
    """Write one session under `root` (keyframes/, events/*.mcap) and return its truth.

    Everything is drawn from `seed` (the same seed writes the same bytes); `start` (unix
    seconds), `size` and `interval` override the seed's choices (and change nothing else).
    `root`'s keyframes/ and events/ must be new or empty.
    """
    rng = random.Random(f"sessions_alt|{seed}")
    # every draw happens whatever is overridden, so an override changes nothing else
    drawn_interval = round(rng.uniform(2.0, 8.0), 2)
    # a past day (Oct 2025 – Mar 2026), never the future: files carry these times too
    drawn_start = 1_760_000_000.0 + (seed % 50) * 300_000 + rng.randrange(0, 36_000)
    drawn_desktop = rng.choice(("gnome", "win"))
    size = tuple(size) if size else SIZES[seed % len(SIZES)]
    interval = float(interval) if interval else drawn_interval
    start = drawn_start if start is None else float(start)
    total = rng.uniform(720, 960)
    desktop = "mac" if size in ((1440, 900), (3024, 1964)) else drawn_desktop
    apps = {role: rng.choice(pool) for role, pool in _POOLS.items()}
    dock = list(dict.fromkeys([*apps.values(), *_PASSING[:3]]))
    p = Painter(size, seed, desktop, dock)
    seq, _target = _build(rng, p, apps, total, interval)
    total = seq[-1].t1
    # PNG on some seeds, not on the largest screens (a 6-megapixel PNG is slow to write)
    image_format = "png" if rng.random() < 0.25 and size[0] * size[1] <= 2_100_000 else "jpg"
    naming = rng.choices(["ms", "prefix", "iso", "dayfolder"], weights=(4, 2, 2, 2))[0]
    on_switch = rng.random() < 0.4
    split = rng.random() < 0.35
    status_topic = rng.random() < 0.5

    # segment ids in time order; a return shares its target's id
    segs: dict[str, Segment] = {}
    n = 0
    for a in seq:
        if isinstance(a, Return):
            continue
        if isinstance(a, Idle):
            a.seg = "idle"
        elif a.kind == "paused":
            a.seg = "paused"
        else:
            n += 1
            a.seg = f"s{n:02d}-{a.kind if isinstance(a, Passing) else a.role}"
    for a in seq:
        if isinstance(a, Return):
            a.seg = a.target.seg
    on_screen: dict[str, float] = {}
    for a in seq:
        on_screen[a.seg] = on_screen.get(a.seg, 0.0) + (a.t1 - a.t0)
    for a in seq:
        if a.seg not in segs:
            kind = a.kind
            segs[a.seg] = Segment(a.seg, kind, a.label,
                                  kind not in NOT_SIGNIFICANT
                                  and on_screen[a.seg] >= SIGNIFICANT_SECS)

    # events (relative times first)
    events: list[tuple[float, str, dict]] = []
    prev = None
    paused: list[tuple[float, float]] = []
    for a in seq:
        if a.kind == "paused":
            events.append((a.t0 - 0.2, "/cue/pause", {"state": "paused"}))
            events.append((a.t1, "/cue/pause", {"state": "resumed"}))
            paused.append((a.t0, a.t1))
        elif a.window_event:
            lag = rng.uniform(0.05, 0.45)
            if prev is not None and prev.kind != "paused":
                if rng.random() < 0.65:
                    events.append((a.t0 - 0.08, "/cue/input", {"keys": 2, "clicks": 0}))  # alt-tab
                else:
                    events.append((a.t0 - 0.05, "/cue/input", {"keys": 0, "clicks": 1}))
            after = 0.01 if prev is None else 0.05 if prev.kind == "paused" else lag
            events.append((a.t0 + after, "/cue/window", {"app": a.app, "title": a.title}))
        elif isinstance(a, BrowserTab) and rng.random() < 0.7:  # ctrl+tab or a click on the tab
            events.append((a.t0 - 0.05, "/cue/input",
                           {"keys": 2, "clicks": 0} if rng.random() < 0.5
                           else {"keys": 0, "clicks": 1}))
        for t, k, c in a.inputs:
            events.append((t, "/cue/input", {"keys": k, "clicks": c}))
        prev = a
    if status_topic:
        t = rng.uniform(5, 60)
        while t < total:
            events.append((t, "/recorder/status",
                           {"cpu": round(rng.uniform(1, 9), 1), "frames": int(t)}))
            t += 60
    events = [(max(0.001, min(total, t)), topic, data) for t, topic, data in events]
    events.sort(key=lambda e: e[0])
    abs_events = [(start + t, topic, data) for t, topic, data in events]

    root = Path(root)
    kdir, edir = root / "keyframes", root / "events"
    for folder in (kdir, edir):
        if folder.is_dir() and any(folder.iterdir()):
            raise FileExistsError(f"{folder} is not empty; write a session into a new folder")
    kdir.mkdir(parents=True, exist_ok=True)
    edir.mkdir(parents=True, exist_ok=True)
    if split:
        cut = rng.uniform(0.3, 0.7) * total + start
        parts = [("part1.mcap", [e for e in abs_events if e[0] < cut]),
                 ("part2.mcap", [e for e in abs_events if e[0] >= cut])]
    else:
        parts = [("session.mcap", abs_events)]
    for name, evs in parts:
        with EventWriter(edir / name, flush_secs=3600.0) as log:
            for ts, topic, data in evs:
                log.write(topic, data, ts)
        last = evs[-1][0] if evs else start
        os.utime(edir / name, (last + 0.5, last + 0.5))  # as if written as it happened

    # capture times: a jittered interval, plus (some seeds) a frame after each window event
    times = []
    t = rng.uniform(0.2, interval)
    while t < total:
        times.append(t)
        t += interval * rng.uniform(0.75, 1.25)
    if on_switch:
        times += [e[0] + rng.uniform(0.2, 0.8) for e in events if e[1] == "/cue/window"]
    stamps = sorted({round((start + t) * 1000) for t in times if t < total})
    kept: list[int] = []
    for ms in stamps:
        if not kept or ms - kept[-1] >= 100:
            kept.append(ms)

    cache: dict[str, bytes] = {}
    frames: list[Frame] = []
    bounds = [a.t1 for a in seq]
    for ms in kept:
        rel = ms / 1000.0 - start
        a = seq[min(bisect.bisect_right(bounds, rel), len(seq) - 1)]
        key, draw = a.view(rel)
        if key not in cache:
            cache[key] = _encode(draw(), image_format, quality)
        path = kdir / _name(ms, naming, image_format)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.parent / f".{path.name}.tmp"
        tmp.write_bytes(cache[key])
        os.utime(tmp, (ms / 1000.0, ms / 1000.0))
        os.replace(tmp, path)
        frames.append(Frame(ts=ms / 1000.0, path=path, segment=a.seg, view=key))

    spans = [(start + a.t0, start + a.t1, a.seg) for a in seq]
    silent = sorted((start + x, start + y) for a in seq for x, y in a.silent_spans())
    return Session(root=root, keyframes_dir=kdir, events_dir=edir, start=start, end=start + total,
                   seed=seed, interval=interval, frames=frames, segments=segs, spans=spans,
                   paused=[(start + x, start + y) for x, y in paused], silent=silent,
                   size=tuple(size), image_format=image_format, naming=naming, on_switch=on_switch,
                   events=abs_events)


def _name(ms: int, naming: str, ext: str) -> str:
    if naming == "prefix":
        return f"display1-{ms}.{ext}"
    if naming == "iso":
        stamp = time.strftime("%Y-%m-%dT%H-%M-%S", time.gmtime(ms // 1000))
        return f"{stamp}.{ms % 1000:03d}Z.{ext}"
    if naming == "dayfolder":
        return time.strftime("%Y-%m-%d", time.gmtime(ms // 1000)) + f"/{ms:013d}.{ext}"
    return f"{ms:013d}.{ext}"


def outline(s: Session) -> str:
    """The session in a few lines: its settings and its segments in time order."""
    lines = [(f"seed {s.seed}: {s.size[0]}x{s.size[1]}, {s.window_secs / 60:.1f} min, "
             f"interval {s.interval:.2f} s, {len(s.frames)} frames ({s.image_format}, {s.naming}"
             f"{', +frame on switch' if s.on_switch else ''}), {len(s.events)} events, "
             f"{len(s.significant())}/{len(s.segments)} segments significant")]
    for a, b, seg in s.spans:
        sg = s.segments[seg]
        nf = sum(1 for f in s.frames if a <= f.ts < b)
        lines.append(f"  {a - s.start:6.1f}–{b - s.start:6.1f}  {seg:<16} {sg.kind:<7} "
                     f"{'*' if sg.significant else ' '} {nf:3d} frames  {sg.label}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.sessions_alt",
                                 description="Write one synthetic screen session "
                                             "(keyframes + MCAP).")
    ap.add_argument("dir", type=Path)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true", help="print the ground truth as JSON")
    args = ap.parse_args(argv)
    t = time.perf_counter()
    try:
        s = make_session(args.dir, args.seed)
    except FileExistsError as exc:
        print(exc, file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({
            "start": s.start, "end": s.end, "keyframes": str(s.keyframes_dir),
            "events": str(s.events_dir),
            "segments": {k: vars(v) for k, v in s.segments.items()},
            "spans": s.spans, "paused": s.paused,
            "frames": [{"ts": f.ts, "path": str(f.path), "segment": f.segment, "view": f.view}
                       for f in s.frames]}, indent=1))
    else:
        print(outline(s))
        print(f"written to {args.dir} in {time.perf_counter() - t:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
