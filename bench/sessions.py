"""Scripted 15-minute screen sessions: the one generator of synthetic screen activity.

Keyframes drawn with Pillow plus an MCAP event log, in the README's input contract, with
what happened known in advance. Two scripts share one painter and one log writer:

- `make_session(root, seed)`: a story whose timings each seed draws, with ground-truth
  segments — for judging `cue select` (bench/bench_cue_select.py, tests/cue/
  test_select_segments.py) and `make demo` (`python -m bench.sessions DIR`);
- `make_activity(root, start)`: one fixed script whose moments are known to the second
  (below, "The fixed script") — for the tests of selection, timeline, digest, the CLI,
  and the digest and selection benchmarks.

    from bench.sessions import make_session
    s = make_session(tmp_path, seed=3)
    sel = select_frames(s.keyframes_dir, s.window_secs, 10, end=s.end, events_dir=s.events_dir)
    score = s.score([f.path for f in sel.frames])   # coverage, anchors, paused, duplicates

Every seed draws the same story with other timings (stretched, shuffled, other capture
interval and phase), in the README's input contract (keyframes named by unix ms, an MCAP
log of /cue/window, /cue/input and /cue/pause events). The story covers the hard cases:

- app switches (Code, Firefox, Preview, Terminal, Calendar, Slack);
- two tabs of one browser whose logged title never changes (no window event between them);
- a PDF switched to and read on arrival for 16–30 s, then scrolled slowly for 2.5–4 minutes
  with no event at all (no window event, no input): the arrival and the settled end of
  the scroll are two moments;
- a typing burst in a window switched to only seconds before (Terminal; Code later);
- blips: a window seen for 2–6 s while cmd-tabbing past it;
- an idle stretch of byte-identical frames (no input) after the scroll;
- a paused stretch (/cue/pause) whose frames are still on disk (a private chat);
- the dashboard tab again, pixel for pixel, far from where it was first seen;
- an app switch a little before the middle of the window, so the middle anchor already
  shows the segment that switch starts.

Ground truth: each frame knows its segment. A *significant* segment is something the user
did for a while (≥ 15 s, not a blip, not paused, not the few seconds of a window arrival
before typing in it, not idle time). The returning dashboard belongs to the dashboard's
segment: the same screen seen twice is one thing to show, not two.

The fixed script (`make_activity`, seconds after `start`):

    0    Code, "main.py — cue"; typing bursts at 30–40 s and 80–95 s
    120  app switch → Firefox, "Mozilla Firefox", a docs page
    200  tab switch inside Firefox, title unchanged (no window event), a dashboard
    280  app switch → Preview, "design.pdf", page 1
    320  scrolling the long PDF, one step per 5 s, until 400
    400  idle: nothing changes, no input, until 520
    520  paused (/cue/pause) — a private chat is on screen; frames still land on disk
    600  resumed; app switch → Terminal, "zsh — cue"; typing at 620–640 s and 680–700 s
    760  app switch → Slack, "#general"
    900  end

Its frames are captured every `interval` seconds at `start + phase + k·interval` (phase
2 s, so a frame lands shortly after each transition) and named by unix milliseconds.
"""
from __future__ import annotations

import itertools
import random
from pathlib import Path

from PIL import Image, ImageDraw

from cue.inputs.events import EventWriter
from cuectx.value import Value

DURATION = 900.0
SIGNIFICANT_SECS = 15.0
SEEDS = (1, 2, 3, 4, 5, 6)  # the benchmark's seeds; tests use a few others (held out)


class Segment(Value):
    __slots__ = ("id", "kind", "label", "significant")

    def __init__(self, id: str, kind: str, label: str, significant: bool) -> None:
        self.id = id
        self.kind = kind  # app | tab | scroll | typing | blip | arrival | idle | paused
        self.label = label
        self.significant = significant


class Frame(Value):
    __slots__ = ("path", "segment", "ts", "view")

    def __init__(self, ts: float, path: Path, segment: str, view: str) -> None:
        self.ts = ts
        self.path = path
        self.segment = segment  # Segment.id (the fixed script: the scene — editor, docs, pdf, …)
        self.view = view  # what is on screen; equal views are identical pixels


class Session(Value):
    __slots__ = ("_paths", "end", "events_dir", "frames", "interval", "keyframes_dir", "paused", "root",
                 "seed", "segments", "silent", "spans", "start")

    def __init__(self, root: Path, keyframes_dir: Path, events_dir: Path, start: float, end: float,
                 seed: int, interval: float, frames: list[Frame], segments: dict[str, Segment],
                 spans: list[tuple[float, float, str]],
                 paused: list[tuple[float, float]] | None = None,
                 silent: list[tuple[float, float]] | None = None) -> None:
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
        # (start, end) of the spans entered with no window event (a tab, a scroll, typing
        # that follows its window's arrival, an idle stretch)
        self.silent = [] if silent is None else silent

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

    def score(self, chosen: list[Path]) -> dict:
        """Coverage of significant segments, anchors, paused frames, duplicates."""
        picked = [self.frame_of(p) for p in chosen]
        sig = {s.id for s in self.significant()}
        covered = {f.segment for f in picked} & sig
        live = [f for f in self.frames if f.segment != "paused"]
        anchors = 0
        if live:
            first, last = live[0], live[-1]
            mid_t = (first.ts + last.ts) / 2
            mid = min(live, key=lambda f: (abs(f.ts - mid_t), f.ts))
            anchors = sum(a.path in set(chosen) for a in {first.path: first, mid.path: mid,
                                                          last.path: last}.values())
        views = [f.view for f in picked]
        by_kind: dict[str, list[bool]] = {}
        for seg in self.significant():
            by_kind.setdefault(seg.kind, []).append(seg.id in covered)
        return {
            "by_kind": {k: (sum(v), len(v)) for k, v in by_kind.items()},
            "coverage": len(covered) / len(sig) if sig else 1.0,
            "covered": len(covered), "significant": len(sig),
            "missed": sorted(self.segments[i].label for i in sig - covered),
            "anchors": anchors,
            "paused": sum(f.segment == "paused" for f in picked),
            "duplicates": len(views) - len(set(views)),  # the same screen twice
            # frames beyond the first in one segment (not counting blips/arrivals)
            "same_segment": len(picked) - len({f.segment for f in picked}),
            "blips": sum(self.segments[f.segment].kind == "blip" for f in picked),
            "frames": len(picked),
        }


# ---------------------------------------------------------------- the script

class _Block(Value):
    __slots__ = ("app", "fixed", "keys", "kind", "label", "secs", "seg", "sparse", "title", "view")

    def __init__(self, seg: str, kind: str, label: str, secs: float, app: str | None,
                 title: str = "", view: object = None, keys: tuple[float, float] = (0.0, 0.0),
                 sparse: bool = True, fixed: bool = False) -> None:
        self.seg = seg
        self.kind = kind
        self.label = label
        self.secs = secs
        self.app = app  # window event at the block's start (None: none)
        self.title = title
        self.view = view  # callable(t_in_block, secs) -> view key
        self.keys = keys  # typing: keys per second (lo, hi)
        self.sparse = sparse  # occasional clicks and keys
        self.fixed = fixed  # duration is not stretched (blips, arrivals)


def _static(key):
    return lambda t, secs: key


def _script(rng: random.Random) -> tuple[list[_Block], list[_Block]]:
    """The two halves of the story, durations drawn, groups shuffled."""
    u = rng.uniform
    code = [_Block("code", "app", "Code: main.py", u(50, 100), "Code", "main.py — cue",
                   _static("editor:0"))]
    browser = [
        _Block("docs", "tab", "Firefox: docs tab", u(45, 80), "Firefox", "Mozilla Firefox",
               _static("browser:docs")),
        _Block("dashboard", "tab", "Firefox: dashboard tab (same title)", u(45, 80), None,
               view=_static("browser:dashboard")),
    ]
    # Switched to, read on arrival (page 1), then scrolled for minutes with no event at all:
    # the arrival and the settled end are two moments (issue 25). Both durations are fixed
    # (not stretched to fit): a short read and a long, slow scroll are the hard case.
    pdf = [
        _Block("pdf", "app", "Preview: design.pdf page 1, read on arrival", u(16, 30), "Preview",
               "design.pdf", _static("pdf:0"), fixed=True),
        _Block("scroll", "scroll", "Preview: long slow scroll, no events", u(150, 240), None,
               view=lambda t, secs: f"pdf:{int(1 + 24 * min(t, secs) / secs)}", sparse=False,
               fixed=True),
        _Block("scroll", "idle", "idle after the scroll", u(40, 100), None,
               view=lambda t, secs: "pdf:25", sparse=False),
    ]
    typing_secs = u(30, 50)
    terminal = [
        _Block("terminal-arrival", "arrival", "Terminal: arrival", u(2, 8), "Terminal",
               "zsh — cue", _static("terminal:0"), fixed=True),
        _Block("terminal", "typing", "Terminal: typing burst", typing_secs, None,
               view=lambda t, secs: f"terminal:{int(min(t, secs) / 2)}", keys=(4, 9)),
    ]
    first = [code[0]] + _shuffled(rng, [browser, pdf, terminal])
    middle = _Block("calendar", "app", "Calendar (the middle anchor's segment)", u(60, 90),
                    "Calendar", "Week 47", _static("calendar"))
    pause = [_Block("paused", "paused", "paused (private chat)", u(40, 80), "Signal",
                    "private chat", _static("private"), sparse=False)]
    chat = [_Block("chat", "app", "Slack: #general", u(40, 70), "Slack", "#general",
                   _static("chat"))]
    back = [_Block("dashboard", "tab", "Firefox: dashboard again", u(20, 40), "Firefox",
                   "Mozilla Firefox", _static("browser:dashboard"))]
    editor_secs = u(35, 60)
    editor = [
        _Block("code-arrival", "arrival", "Code: arrival", u(2, 8), "Code", "main.py — cue",
               _static("editor:0"), fixed=True),
        _Block("code-typing", "typing", "Code: typing burst", editor_secs, None,
               view=lambda t, secs: f"editor:{1 + int(min(t, secs) / 2)}", keys=(3, 8)),
    ]
    second = _shuffled(rng, [pause, chat, back, editor], last_not=pause)
    return first, [middle] + second


def _shuffled(rng, groups, last_not=None):
    groups = list(groups)
    rng.shuffle(groups)
    if groups[-1] is last_not:  # a pause at the very end would move the middle anchor
        groups[-1], groups[0] = groups[0], groups[-1]
    out = []
    for g in groups:
        if out and rng.random() < 0.6:  # cmd-tab past something on the way
            app, title, view = rng.choice([("Finder", "Downloads", "blip:finder"),
                                           ("Mail", "Inbox (3)", "blip:mail"),
                                           ("Spotify", "Daily Mix", "blip:music")])
            out.append(_Block(f"blip-{rng.randrange(10**9)}", "blip", f"blip: {app}", rng.uniform(2, 6),
                              app, title, _static(view), sparse=False, fixed=True))
        out.extend(g)
    return out


def _fit(blocks: list[_Block], total: float) -> None:
    fixed = sum(b.secs for b in blocks if b.fixed)
    free = sum(b.secs for b in blocks if not b.fixed)
    k = (total - fixed) / free
    for b in blocks:
        if not b.fixed:
            b.secs *= k


def make_session(root: Path | str, seed: int = 1, *, start: float = 1_763_766_000.0,
                 size: tuple[int, int] = (480, 300), interval: float | None = None,
                 quality: int = 80, lag: float = 0.3, skip_identical: bool = False,
                 loading: float = 0.0, popups: bool = False) -> Session:
    """Write one session under `root` (keyframes/, events/session.mcap).

    Stress variants (off by default): `lag` seconds between a switch and its window event;
    `skip_identical` writes no frame identical to the last one written for up to 30 s (as
    recorders that skip idle screens do); `loading` seconds after each switch or tab change
    show a half-drawn screen (mid-transition frames); `popups` opens a dialog halfway
    through each long app segment (the same segment, a little more on screen).
    """
    rng = random.Random(seed)
    first, second = _script(rng)
    mid = DURATION / 2
    lead = rng.uniform(12, 40)  # the middle app arrives this long before the middle
    _fit(first, mid - lead)
    _fit(second, DURATION - (mid - lead))
    blocks = first + second
    interval = interval or rng.choice([2.0, 3.0, 4.0, 5.0])
    phase = rng.uniform(0.3, interval - 0.2)

    root = Path(root)
    kdir, edir = root / "keyframes", root / "events"
    kdir.mkdir(parents=True, exist_ok=True)
    edir.mkdir(parents=True, exist_ok=True)

    spans: list[tuple[float, float, str, _Block]] = []
    t = 0.0
    for b in blocks:
        spans.append((t, t + b.secs, b.seg, b))
        t += b.secs
    segments: dict[str, Segment] = {}
    for _a, _b, seg, b in spans:
        dur = sum(y - x for x, y, s, blk in spans if s == seg and blk.kind != "idle")
        significant = b.kind in ("app", "tab", "scroll", "typing") and dur >= SIGNIFICANT_SECS
        if seg not in segments or (significant and not segments[seg].significant):
            segments[seg] = Segment(seg, b.kind if seg not in segments else segments[seg].kind,
                                    b.label if seg not in segments else segments[seg].label,
                                    significant)

    screens = _Screens(size, seed)
    frames: list[Frame] = []
    t = phase
    j = 0
    last_view, last_t = None, -1e9
    while t < DURATION:
        while spans[j][1] <= t:
            j += 1
        a, _b, seg, blk = spans[j]
        view = blk.view(t - a, blk.secs)
        if loading and t - a < loading and blk.kind in ("app", "tab", "blip", "arrival"):
            view = f"loading:{view}"
        if popups and blk.kind == "app" and blk.secs > 40 and t - a > blk.secs / 2:
            view = f"popup:{view}"
        if not (skip_identical and view == last_view and t - last_t < 30):
            path = kdir / f"{round((start + t) * 1000)}.jpg"
            screens.save(view, path, quality)
            frames.append(Frame(start + t, path, "paused" if blk.kind == "paused" else seg,
                                view))
            last_view, last_t = view, t
        t += interval * rng.uniform(0.85, 1.15)  # capture jitter

    paused = []
    _write_log(edir / "session.mcap", start, spans, rng, paused, lag)
    return Session(root, kdir, edir, start, start + DURATION, seed, interval, frames, segments,
                   [(start + a, start + b, s) for a, b, s, _ in spans], paused,
                   [(start + a, start + b) for a, b, _, blk in spans if blk.app is None])


def _write_log(path: Path, start: float, spans, rng: random.Random, paused: list,
               lag: float = 0.3) -> None:
    events: list[tuple[float, str, dict]] = []
    for a, b, _seg, blk in spans:
        if blk.app is not None:
            events.append((a + lag, "window", {"app": blk.app, "title": blk.title}))
        if blk.kind == "paused":
            events.append((a, "pause", {"state": "paused"}))
            events.append((b, "pause", {"state": "resumed"}))
            paused.append((start + a, start + b))
            continue
        s = a + 1.0
        while s < b:
            if blk.keys != (0.0, 0.0):
                keys = round(rng.uniform(*blk.keys))
                events.append((s, "input", {"keys": keys, "clicks": 0}))
                s += 1.0
            elif blk.sparse:
                if rng.random() < 0.25:
                    events.append((s, "input", {"keys": rng.choice([0, 0, 1, 2]),
                                                "clicks": rng.choice([1, 1, 2])}))
                s += 2.0
            else:
                break  # scroll, idle, blips: no input at all
    _write_events(path, start, events)


def _write_events(path: Path, start: float, events: list[tuple[float, str, dict]], *,
                  crashed: bool = False) -> None:
    """(seconds after start, window|input|pause, data) into one MCAP log, in time order.
    `crashed`: the log as a writer that died after its last flush would leave it (no
    summary, no footer)."""
    events.sort(key=lambda e: e[0])
    log = EventWriter(path, flush_secs=0.0 if crashed else 1.0)
    for rel, kind, data in events:
        if kind == "window":
            log.window(data["app"], data["title"], ts=start + rel)
        elif kind == "input":
            log.input(data["keys"], data["clicks"], ts=start + rel)
        else:
            log.pause(data["state"], ts=start + rel)
    log.flush()
    flushed_size = path.stat().st_size
    log.close()
    if crashed:
        with open(path, "r+b") as f:
            f.truncate(flushed_size)


# ---------------------------------------------------------------- the screens

class _Screens:
    """Draws a view key; the same key always gives the same pixels (and JPEG bytes)."""

    def __init__(self, size: tuple[int, int], seed: int):
        self.w, self.h = size
        self.s = self.w / 480
        self.seed = seed
        self._cache: dict[tuple[str, str], bytes] = {}
        self._doc = None
        self._text = None

    def save(self, view: str, path: Path, quality: int, fmt: str = "jpg") -> None:
        """Write the view's image atomically (a capture tool never leaves a half-written
        keyframe); the same view and format give the same bytes."""
        data = self._cache.get((view, fmt))
        if data is None:
            import io

            buf = io.BytesIO()
            kind = {"jpg": "JPEG", "jpeg": "JPEG", "webp": "WEBP"}.get(fmt, "PNG")
            self.draw(view).save(buf, kind, **({"quality": quality} if kind != "PNG" else {}))
            data = self._cache[(view, fmt)] = buf.getvalue()
        tmp = path.with_name("." + path.name + ".tmp")
        tmp.write_bytes(data)
        tmp.rename(path)

    def draw(self, view: str) -> Image.Image:
        kind, _, arg = view.partition(":")
        if kind.startswith("text"):  # rendered text over the view, shifted (benchmarks)
            img = self.draw(arg)
            shift = int(kind[4:])
            layer = self._text_layer()
            img.paste((150, 150, 150), (0, 0), layer.crop((0, shift, self.w, shift + self.h)))
            return img
        if kind == "loading":  # the top third drawn, the rest still blank
            img = self.draw(arg)
            img.paste((235, 235, 235), (0, self.h // 3, self.w, self.h))
            return img
        if kind == "popup":  # a dialog over the middle of the screen
            img = self.draw(arg)
            d = ImageDraw.Draw(img)
            x0, y0 = int(self.w * 0.3), int(self.h * 0.35)
            d.rectangle([x0, y0, self.w - x0, self.h - y0], fill=(250, 250, 250),
                        outline=(90, 90, 90), width=2)
            self._lines(d, x0 + 8, y0 + 10, self.w - x0 - 8, self.h - y0 - 8,
                        random.Random(self.seed), (90, 90, 90), int(10 * self.s))
            return img
        return getattr(self, "_" + kind)(arg)

    # -- helpers
    def _window(self, bar, title, bg):
        img = Image.new("RGB", (self.w, self.h), bg)
        d = ImageDraw.Draw(img)
        top = int(18 * self.s)
        d.rectangle([0, 0, self.w, top], fill=bar)
        d.text((int(6 * self.s), int(3 * self.s)), title, fill=(255, 255, 255),
               font_size=max(9, int(11 * self.s)))
        return img, d, top

    def _lines(self, d, x0, y0, x1, y1, rng, color, line_h, word=(3, 12)):
        y = y0
        while y + line_h <= y1:
            x = x0
            while True:
                wd = int(rng.randint(*word) * 4 * self.s)
                if x + wd > x1:
                    break
                d.rectangle([x, y, x + wd, y + max(2, int(line_h * 0.5))], fill=color)
                x += wd + int(4 * self.s)
            y += line_h

    # -- views
    def _editor(self, arg):
        typed = int(arg or 0)
        img, d, top = self._window((40, 90, 160), "Code — main.py — cue", (30, 30, 36))
        s = self.s
        rng = random.Random(self.seed * 31 + 1)
        d.rectangle([0, top, int(90 * s), self.h], fill=(48, 48, 56))
        self._lines(d, int(6 * s), top + int(6 * s), int(84 * s), self.h, rng, (120, 120, 130),
                    int(11 * s), (2, 5))
        colors = [(86, 156, 214), (206, 145, 120), (181, 206, 168), (220, 220, 170)]
        y = top + int(6 * s)
        for _ in range(8 + typed):
            if y > self.h - int(8 * s):
                break
            x = int(98 * s) + int(rng.randint(0, 3) * 12 * s)
            for _ in range(rng.randint(1, 6)):
                wd = int(rng.randint(3, 12) * 5 * s)
                d.rectangle([x, y, x + wd, y + int(6 * s)], fill=rng.choice(colors))
                x += wd + int(5 * s)
            y += int(10 * s)
        return img

    def _browser(self, page):
        img, d, top = self._window((70, 70, 80), "Mozilla Firefox", (250, 250, 250))
        s = self.s
        d.rectangle([0, top, self.w, top + int(20 * s)], fill=(225, 225, 230))
        for k, name in enumerate(("docs", "dashboard")):
            x0 = int((6 + 116 * k) * s)
            d.rectangle([x0, top + int(3 * s), x0 + int(110 * s), top + int(20 * s)],
                        fill=(250, 250, 250) if page == name else (200, 200, 205))
        body = top + int(26 * s)
        if page == "docs":
            rng = random.Random(self.seed * 31 + 2)
            d.rectangle([0, body, self.w, body + int(80 * s)], fill=(20, 110, 200))
            d.text((int(20 * s), body + int(28 * s)), "Documentation", fill=(255, 255, 255),
                   font_size=int(22 * s))
            self._lines(d, int(30 * s), body + int(95 * s), self.w - int(30 * s), self.h, rng,
                        (60, 60, 60), int(12 * s))
        else:
            rng = random.Random(self.seed * 31 + 3)
            d.rectangle([0, body, int(110 * s), self.h], fill=(35, 40, 60))
            cw, ch = int(170 * s), int(110 * s)
            for r in range(2):
                for c in range(2):
                    x0 = int(122 * s) + c * (cw + int(8 * s))
                    y0 = body + int(8 * s) + r * (ch + int(8 * s))
                    d.rectangle([x0, y0, x0 + cw, y0 + ch], outline=(180, 180, 190),
                                fill=(255, 255, 255))
                    for k in range(8):
                        bh = int(rng.randint(8, 90) * s)
                        bx = x0 + int(8 * s) + k * int(20 * s)
                        d.rectangle([bx, y0 + ch - bh - int(5 * s), bx + int(13 * s),
                                     y0 + ch - int(5 * s)], fill=(230, 120, 40))
        return img

    def _pdf(self, arg):
        step = float(arg or 0)
        img, _d, top = self._window((120, 120, 125), "Preview — design.pdf", (90, 90, 95))
        doc = self._long_doc()
        offset = int(step * 0.16 * self.h)
        img.paste(doc.crop((0, offset, self.w, offset + self.h - top)), (0, top))
        return img

    def _text_layer(self) -> Image.Image:
        """Small rendered text over a whole screen: real JPEG sizes and decode times."""
        if self._text is not None:
            return self._text
        from PIL import ImageFont

        rng = random.Random(self.seed + 9)
        words = ("def select frames keyframe window return score anchor import cue json "  # noqa: SIM905
                 "self path event title app time float list dict none true false for in if "
                 "else while print error message 0 1 42 3.14 == != <= >= ( ) [ ] { } : ,").split()
        s = self.w / 640
        font = ImageFont.load_default(size=max(9, int(3.2 * s)))
        layer = Image.new("L", (self.w, self.h + int(400 * s)), 0)
        d = ImageDraw.Draw(layer)
        step = max(10, int(5.5 * s))
        for y in range(int(24 * s), layer.height - step, step):
            line = " ".join(rng.choice(words) for _ in range(rng.randint(10, 70)))
            d.text((int(6 * s) + rng.randint(0, 60), y), line, fill=255, font=font)
        self._text = layer
        return layer

    def _long_doc(self):
        if self._doc is not None:
            return self._doc
        s = self.s
        doc = Image.new("RGB", (self.w, self.h * 6), (255, 255, 255))
        d = ImageDraw.Draw(doc)
        rng = random.Random(self.seed * 31 + 4)
        y = int(14 * s)
        while y < doc.height - int(40 * s):
            kind = rng.random()
            if kind < 0.15:
                d.rectangle([int(40 * s), y, int(40 * s) + int(rng.randint(90, 220) * s),
                             y + int(14 * s)], fill=(20, 20, 20))
                y += int(26 * s)
            elif kind < 0.35:
                fh = int(rng.randint(60, 120) * s)
                d.rectangle([int(60 * s), y, self.w - int(60 * s), y + fh],
                            fill=tuple(rng.randint(40, 230) for _ in range(3)))
                y += fh + int(14 * s)
            else:
                n = rng.randint(3, 8)
                self._lines(d, int(40 * s), y, self.w - int(40 * s), y + n * int(11 * s), rng,
                            (70, 70, 70), int(11 * s))
                y += n * int(11 * s) + int(9 * s)
        self._doc = doc
        return doc

    def _terminal(self, arg):
        typed = int(arg or 0)
        img, d, top = self._window((60, 60, 60), "Terminal — zsh — cue", (8, 8, 8))
        rng = random.Random(self.seed * 31 + 6)
        s = self.s
        y = top + int(5 * s)
        for i in range(2 + typed):
            if y > self.h - int(8 * s):
                break
            wd = int(rng.randint(10, 90) * 4 * s)
            d.rectangle([int(6 * s), y, min(self.w - 6, int(6 * s) + wd), y + int(6 * s)],
                        fill=(60, 220, 90) if i % 3 else (200, 200, 200))
            y += int(10 * s)
        return img

    def _calendar(self, _arg):
        img, d, top = self._window((200, 60, 50), "Calendar — Week 47", (245, 245, 240))
        s = self.s
        rng = random.Random(self.seed * 31 + 8)
        cw = (self.w - int(40 * s)) // 7
        for c in range(7):
            x0 = int(40 * s) + c * cw
            d.line([x0, top, x0, self.h], fill=(200, 200, 200))
            for _ in range(rng.randint(1, 3)):
                y0 = top + int(rng.randint(10, 200) * s)
                d.rectangle([x0 + 3, y0, x0 + cw - 3, y0 + int(rng.randint(20, 60) * s)],
                            fill=rng.choice([(90, 160, 230), (240, 170, 60), (120, 200, 120)]))
        return img

    def _chat(self, _arg):
        img, d, top = self._window((74, 21, 75), "Slack — #general", (255, 255, 255))
        s = self.s
        d.rectangle([0, top, int(120 * s), self.h], fill=(63, 14, 64))
        rng = random.Random(self.seed * 31 + 7)
        self._lines(d, int(8 * s), top + int(8 * s), int(112 * s), self.h, rng,
                    (200, 170, 200), int(15 * s), (3, 8))
        y = top + int(12 * s)
        while y < self.h - int(30 * s):
            d.rectangle([int(130 * s), y, int(152 * s), y + int(22 * s)],
                        fill=tuple(rng.randint(80, 230) for _ in range(3)))
            self._lines(d, int(160 * s), y, self.w - int(14 * s), y + int(22 * s), rng,
                        (40, 40, 40), int(10 * s))
            y += int(32 * s)
        return img

    def _private(self, _arg):
        img, d, top = self._window((180, 30, 30), "Signal — private chat", (255, 235, 235))
        for i in range(7):
            y = top + int((14 + i * 36) * self.s)
            x0 = int(20 * self.s) if i % 2 else int(190 * self.s)
            d.rounded_rectangle([x0, y, x0 + int(260 * self.s), y + int(24 * self.s)],
                                radius=int(6 * self.s), fill=(200, 60, 60))
        return img

    def _blip(self, arg):
        colors = {"finder": ((150, 150, 160), (235, 235, 240)),
                  "mail": ((30, 100, 200), (240, 246, 255)),
                  "music": ((20, 20, 20), (30, 200, 90))}
        bar, bg = colors.get(arg, ((0, 0, 0), (128, 128, 128)))
        img, d, top = self._window(bar, arg.title(), bg)
        rng = random.Random(self.seed * 31 + sum(map(ord, arg)))
        self._lines(d, int(20 * self.s), top + int(20 * self.s), self.w - int(20 * self.s),
                    self.h, rng, bar, int(18 * self.s), (4, 14))
        return img


# ---------------------------------------------------------------- the fixed script

PAUSE = (520.0, 600.0)
IDLE = (400.0, 520.0)
TYPING = [(30.0, 40.0), (80.0, 95.0), (620.0, 640.0), (680.0, 700.0)]
SCROLL = (320.0, 400.0)
_WINDOWS = [
    (0.5, "Code", "main.py — cue"),
    (120.0, "Firefox", "Mozilla Firefox"),
    (280.0, "Preview", "design.pdf"),
    (530.0, "Signal", "private chat"),  # inside the pause: must never surface
    (600.5, "Terminal", "zsh — cue"),
    (760.0, "Slack", "#general"),
]


class Transition(Value):
    __slots__ = ("kind", "label", "ts")

    def __init__(self, ts: float, kind: str, label: str) -> None:
        self.ts = ts  # unix seconds
        self.kind = kind  # app_switch | tab_switch | scroll | resume
        self.label = label


class Activity(Value):
    __slots__ = ("end", "events_dir", "frames", "idle", "keyframes_dir", "paused", "root", "start",
                 "transitions", "typing")

    def __init__(self, root: Path, keyframes_dir: Path, events_dir: Path, start: float, end: float,
                 frames: list[Frame], transitions: list[Transition],
                 paused: list[tuple[float, float]], idle: list[tuple[float, float]],
                 typing: list[tuple[float, float]] | None = None) -> None:
        self.root = root
        self.keyframes_dir = keyframes_dir
        self.events_dir = events_dir
        self.start = start
        self.end = end
        self.frames = frames  # Frame.segment is the scene: editor, docs, dashboard, pdf, …
        self.transitions = transitions
        self.paused = paused
        self.idle = idle
        self.typing = [] if typing is None else typing

    @property
    def window_secs(self) -> float:
        return self.end - self.start

    def frames_in(self, a: float, b: float) -> list[Frame]:
        return [f for f in self.frames if a <= f.ts <= b]

    def clone(self, root: Path) -> Activity:
        """A copy under `root` (cheaper than drawing it again) for tests that change files."""
        import shutil

        root = Path(root)
        for sub in ("keyframes", "events"):
            shutil.copytree(self.root / sub, root / sub, dirs_exist_ok=True)
        moved = [Frame(f.ts, root / "keyframes" / f.path.name, f.segment, f.view)
                 for f in self.frames]
        return Activity(root, root / "keyframes", root / "events", self.start, self.end, moved,
                        self.transitions, self.paused, self.idle, self.typing)


def make_activity(root: Path | str, start: float, *, interval: float = 5.0, phase: float = 2.0,
                  size: tuple[int, int] = (640, 400), fmt: str = "jpg", quality: int = 85,
                  pause_in_log: bool = True, crashed_log: bool = False, text: bool = False,
                  seed: int = 7) -> Activity:
    """Write the fixed script (module docstring) under `root` (keyframes/, events/activity.mcap).

    `pause_in_log=False` leaves the pause out of the event log (record it with
    `cue.inputs.pauses.pause` instead); `crashed_log=True` leaves the log as a writer that
    died after its last flush would. `text=True` lays real rendered text over every screen,
    so JPEG sizes and decode times look like real screenshots (~0.6 MB at 2560×1600, q85) —
    for benchmarks.
    """
    root = Path(root)
    kdir, edir = root / "keyframes", root / "events"
    kdir.mkdir(parents=True, exist_ok=True)
    edir.mkdir(parents=True, exist_ok=True)
    screens = _Screens(size, seed)
    frames: list[Frame] = []
    t = phase
    while t <= DURATION:
        scene, view = _fixed_view(t)
        if text:  # the text layer shifts a little per scene and second: no two alike
            view = f"text{sum(map(ord, scene)) % 7 * int(40 * size[0] / 640) + int(t) % 3}:{view}"
        ts = start + t
        path = kdir / f"{round(ts * 1000)}.{fmt}"
        screens.save(view, path, quality, fmt)
        frames.append(Frame(ts, path, scene, view))
        t += interval

    transitions = [
        Transition(start + 120, "app_switch", "Code → Firefox"),
        Transition(start + 200, "tab_switch", "Firefox tab, same title"),
        Transition(start + 280, "app_switch", "Firefox → Preview"),
        Transition(start + SCROLL[0], "scroll", "scrolling design.pdf"),
        Transition(start + PAUSE[1], "resume", "resumed into Terminal"),
        Transition(start + 760, "app_switch", "Terminal → Slack"),
    ]
    _write_events(edir / "activity.mcap", start, _fixed_events(pause_in_log, seed),
                  crashed=crashed_log)
    return Activity(root, kdir, edir, start, start + DURATION, frames, transitions,
                    [(start + PAUSE[0], start + PAUSE[1])], [(start + IDLE[0], start + IDLE[1])],
                    [(start + a, start + b) for a, b in TYPING])


def _fixed_view(t: float) -> tuple[str, str]:
    """(scene, view key) on screen `t` seconds into the fixed script."""
    def typed(spans):  # seconds typed so far in these bursts
        return int(sum(min(max(t - a, 0), b - a) for a, b in spans))

    if t < 120:
        return "editor", f"editor:{typed(TYPING[:2]) // 2 + 2}"
    if t < 200:
        return "docs", "browser:docs"
    if t < 280:
        return "dashboard", "browser:dashboard"
    if t < PAUSE[0]:
        step = 0.0 if t < SCROLL[0] else (min(t, SCROLL[1]) - SCROLL[0]) / 5.0
        return "pdf", f"pdf:{step:g}"
    if t < PAUSE[1]:
        return "private", "private"
    if t < 760:
        return "terminal", f"terminal:{typed(TYPING[2:]) // 2 + 1}"
    return "chat", "chat"


def _fixed_events(pause_in_log: bool, seed: int) -> list[tuple[float, str, dict]]:
    rng = random.Random(seed)
    events: list[tuple[float, str, dict]] = [
        (rel, "window", {"app": app, "title": title}) for rel, app, title in _WINDOWS]
    t = 1.0
    while t <= DURATION:
        if IDLE[0] <= t < PAUSE[1]:
            t += 1.0
            continue
        typing = any(a <= t < b for a, b in TYPING)
        keys = rng.randint(6, 11) if typing else rng.choice([0, 0, 0, 1])
        clicks = rng.choice([0, 0, 1]) if not typing else 0
        if any(abs(t - rel) < 1.0 for rel, _, _ in _WINDOWS):
            clicks += 1
        events.append((t, "input", {"keys": keys, "clicks": clicks}))
        t += 1.0
    if pause_in_log:
        events.append((PAUSE[0], "pause", {"state": "paused"}))
        events.append((PAUSE[1], "pause", {"state": "resumed"}))
    return events


def main(argv: list[str]) -> int:
    """`python -m bench.sessions DIR [SEED]`: write one session, print its window."""
    import json

    if not argv:
        print("usage: python -m bench.sessions DIR [SEED]")
        return 2
    s = make_session(argv[0], int(argv[1]) if len(argv) > 1 else 1)
    print(json.dumps({"keyframes": str(s.keyframes_dir), "events": str(s.events_dir),
                      "start": s.start, "end": s.end, "frames": len(s.frames),
                      "segments": [g.label for g in s.significant()]}))
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main(sys.argv[1:]))


# ---------------------------------------------------------------- selectors to compare

def run_selectors(session: Session, db_path: Path, max_frames: int = 10) -> dict[str, dict]:
    """Score cue's selector and two baselines on one session: {name: Session.score()}.

    - `cue select`: cue.frame_select.select_frames, with the event log.
    - `uniform-10`: `max_frames` frames at even steps through the frames not paused.
    - `dhash-only`: the anchors, then the frames most unlike their predecessor (dhash),
      deduped ≤ 4 among non-anchors — the seed's visual scorer alone.
    """
    from cue.core.db import connect
    from cue.frame_select import DEDUPE_HAMMING, anchor_indexes, select_frames
    from cue.inputs.keyframes import list_keyframes
    from cue.select.features import features_for, hamming

    conn = connect(db_path)
    try:
        sel = select_frames(session.keyframes_dir, session.window_secs, max_frames,
                            end=session.end, events_dir=session.events_dir, conn=conn)
        live = [k for k in list_keyframes(session.keyframes_dir, session.start, session.end)
                if not any(a <= k.ts <= b for a, b in session.paused)]
        feats = features_for(conn, live)
    finally:
        conn.close()
    n = len(live)
    uniform = [live[round(k * (n - 1) / (max_frames - 1))].path
               for k in range(max_frames)] if n >= max_frames else [k.path for k in live]

    hashes = [feats[k.path].dhash for k in live]
    anchors = anchor_indexes([k.ts for k in live], max_frames)
    dist = [0] + [hamming(a, b) for a, b in itertools.pairwise(hashes)]
    picked: list[int] = []
    for i in sorted((i for i in range(n) if i not in anchors), key=lambda i: (-dist[i], i)):
        if len(picked) >= max_frames - len(anchors):
            break
        if all(hamming(hashes[i], hashes[j]) > DEDUPE_HAMMING for j in picked):
            picked.append(i)
    dhash_only = [live[i].path for i in sorted({*anchors, *picked})]
    return {"cue select": session.score([f.path for f in sel.frames]),
            "uniform-10": session.score(uniform),
            "dhash-only": session.score(dhash_only)}
