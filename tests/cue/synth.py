"""Synthetic screen activity for cue's tests and benchmarks: Pillow-drawn screens in a
keyframe folder plus an MCAP event log, with the moments that matter known in advance.

    from tests.cue.synth import make_activity
    act = make_activity(tmp_path, start=1_763_766_000.0)
    frames = select_digest_frames(act.keyframes_dir, act.window_secs, end=act.end,
                                  events_dir=act.events_dir)

The 15-minute script (seconds after `start`):

    0    Code, "main.py — cue"; typing bursts at 30–40 s and 80–95 s
    120  app switch → Firefox, "Mozilla Firefox", a docs page
    200  tab switch inside Firefox, title unchanged (no window event), a dashboard
    280  app switch → Preview, "design.pdf", page 1
    320  scrolling the long PDF, one step per frame, until 400
    400  idle: nothing changes, no input, until 520
    520  paused (/cue/pause) — a private chat is on screen; frames still land on disk
    600  resumed; app switch → Terminal, "zsh — cue"; typing at 620–640 s and 680–700 s
    760  app switch → Slack, "#general"
    900  end

Frames are captured every `interval` seconds at `start + phase + k·interval` (phase 2 s,
so a frame lands shortly after each transition) and named by unix milliseconds.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path

from PIL import Image, ImageDraw

from cue.inputs.events import EventWriter

DURATION = 900.0
PAUSE = (520.0, 600.0)
IDLE = (400.0, 520.0)
TYPING = [(30.0, 40.0), (80.0, 95.0), (620.0, 640.0), (680.0, 700.0)]
SCROLL = (320.0, 400.0)


@dataclass(frozen=True)
class Transition:
    ts: float  # unix seconds
    kind: str  # app_switch | tab_switch | scroll | resume
    label: str


@dataclass(frozen=True)
class Frame:
    ts: float
    path: Path
    scene: str  # editor | docs | dashboard | pdf | private | terminal | chat


@dataclass
class Activity:
    root: Path
    keyframes_dir: Path
    events_dir: Path
    start: float
    end: float
    frames: list[Frame]
    transitions: list[Transition]
    paused: list[tuple[float, float]]
    idle: list[tuple[float, float]]
    typing: list[tuple[float, float]] = field(default_factory=list)

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
        moved = [Frame(f.ts, root / "keyframes" / f.path.name, f.scene) for f in self.frames]
        return Activity(root, root / "keyframes", root / "events", self.start, self.end, moved,
                        self.transitions, self.paused, self.idle, self.typing)


def make_activity(root: Path, start: float, *, interval: float = 5.0, phase: float = 2.0,
                  size: tuple[int, int] = (640, 400), fmt: str = "jpg", quality: int = 85,
                  pause_in_log: bool = True, crashed_log: bool = False, text: bool = False,
                  seed: int = 7) -> Activity:
    """Write the script above under `root` (keyframes/, events/activity.mcap).

    `pause_in_log=False` leaves the pause out of the event log (record it with
    `cue.inputs.pauses.pause` instead); `crashed_log=True` leaves the log as a writer that died
    after its last flush would (no summary, no footer). `text=True` lays real rendered
    text over every screen, so JPEG sizes and decode times look like real screenshots
    (~0.6 MB at 2560×1600, q85) — for benchmarks.
    """
    root = Path(root)
    kdir, edir = root / "keyframes", root / "events"
    kdir.mkdir(parents=True, exist_ok=True)
    edir.mkdir(parents=True, exist_ok=True)
    screens = _Screens(size, seed, text)
    frames: list[Frame] = []
    t = phase
    while t <= DURATION:
        scene, img = screens.at(t)
        ts = start + t
        path = kdir / f"{round(ts * 1000)}.{fmt}"
        _save(img, path, fmt, quality)
        frames.append(Frame(ts, path, scene))
        t += interval

    transitions = [
        Transition(start + 120, "app_switch", "Code → Firefox"),
        Transition(start + 200, "tab_switch", "Firefox tab, same title"),
        Transition(start + 280, "app_switch", "Firefox → Preview"),
        Transition(start + SCROLL[0], "scroll", "scrolling design.pdf"),
        Transition(start + PAUSE[1], "resume", "resumed into Terminal"),
        Transition(start + 760, "app_switch", "Terminal → Slack"),
    ]
    _write_log(edir / "activity.mcap", start, pause_in_log, crashed_log, seed)
    return Activity(root, kdir, edir, start, start + DURATION, frames, transitions,
                    [(start + PAUSE[0], start + PAUSE[1])], [(start + IDLE[0], start + IDLE[1])],
                    [(start + a, start + b) for a, b in TYPING])


def _save(img: Image.Image, path: Path, fmt: str, quality: int) -> None:
    tmp = path.with_name("." + path.name + ".tmp")
    if fmt in ("jpg", "jpeg"):
        img.save(tmp, "JPEG", quality=quality)
    elif fmt == "webp":
        img.save(tmp, "WEBP", quality=quality)
    else:
        img.save(tmp, "PNG")
    tmp.rename(path)  # the way a capture tool should write: never a half-written keyframe


def _write_log(path: Path, start: float, pause_in_log: bool, crashed: bool, seed: int) -> None:
    rng = random.Random(seed)
    windows = [
        (0.5, "Code", "main.py — cue"),
        (120.0, "Firefox", "Mozilla Firefox"),
        (280.0, "Preview", "design.pdf"),
        (530.0, "Signal", "private chat"),  # inside the pause: must never surface
        (600.5, "Terminal", "zsh — cue"),
        (760.0, "Slack", "#general"),
    ]
    log = EventWriter(path, flush_secs=0.0 if crashed else 1.0)
    events: list[tuple[float, str, dict]] = []
    for rel, app, title in windows:
        events.append((rel, "window", {"app": app, "title": title}))
    t = 1.0
    while t <= DURATION:
        if IDLE[0] <= t < PAUSE[1]:
            t += 1.0
            continue
        typing = any(a <= t < b for a, b in TYPING)
        keys = rng.randint(6, 11) if typing else rng.choice([0, 0, 0, 1])
        clicks = rng.choice([0, 0, 1]) if not typing else 0
        if any(abs(t - rel) < 1.0 for rel, _, _ in windows):
            clicks += 1
        events.append((t, "input", {"keys": keys, "clicks": clicks}))
        t += 1.0
    if pause_in_log:
        events.append((PAUSE[0], "pause", {"state": "paused"}))
        events.append((PAUSE[1], "pause", {"state": "resumed"}))
    events.sort(key=lambda e: e[0])
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


class _Screens:
    """Draws each scene; the same moment always gives the same pixels."""

    def __init__(self, size: tuple[int, int], seed: int, text: bool = False):
        self.w, self.h = size
        self.s = self.w / 640  # scale factor for layouts designed at 640×400
        self.seed = seed
        self.doc = self._long_doc()
        self.text = self._text_layer() if text else None

    def at(self, t: float) -> tuple[str, Image.Image]:
        scene, img = self._scene(t)
        if self.text is not None:
            shift = (hash(scene) % 7) * int(40 * self.s) + int(t) % 3
            mask = self.text.crop((0, shift, self.w, shift + self.h))
            img.paste((150, 150, 150), (0, 0), mask)
        return scene, img

    def _text_layer(self) -> Image.Image:
        from PIL import ImageFont

        rng = random.Random(self.seed + 9)
        words = ("def select frames keyframe window return score anchor import cue json "  # noqa: SIM905
                 "self path event title app time float list dict none true false for in if "
                 "else while print error message 0 1 42 3.14 == != <= >= ( ) [ ] { } : ,").split()
        font = ImageFont.load_default(size=max(9, int(3.2 * self.s)))
        layer = Image.new("L", (self.w, self.h + int(400 * self.s)), 0)
        d = ImageDraw.Draw(layer)
        step = max(10, int(5.5 * self.s))
        for y in range(int(24 * self.s), layer.height - step, step):
            line = " ".join(rng.choice(words) for _ in range(rng.randint(10, 70)))
            d.text((int(6 * self.s) + rng.randint(0, 60), y), line, fill=255, font=font)
        return layer

    def _scene(self, t: float) -> tuple[str, Image.Image]:
        if t < 120:
            typed = sum(min(max(t - a, 0), b - a) for a, b in TYPING[:2])
            return "editor", self._editor(int(typed))
        if t < 200:
            return "docs", self._browser(page="docs")
        if t < 280:
            return "dashboard", self._browser(page="dashboard")
        if t < PAUSE[0]:
            if t < SCROLL[0]:
                offset = 0
            else:
                offset = int((min(t, SCROLL[1]) - SCROLL[0]) / 5.0 * 0.15 * self.h)
            return "pdf", self._pdf(offset)
        if t < PAUSE[1]:
            return "private", self._private()
        if t < 760:
            typed = sum(min(max(t - a, 0), b - a) for a, b in TYPING[2:])
            return "terminal", self._terminal(int(typed))
        return "chat", self._chat()

    # -- scenes
    def _frame(self, bar: tuple[int, int, int], title: str, bg: tuple[int, int, int]):
        img = Image.new("RGB", (self.w, self.h), bg)
        d = ImageDraw.Draw(img)
        bar_h = int(22 * self.s)
        d.rectangle([0, 0, self.w, bar_h], fill=bar)
        d.text((int(8 * self.s), int(5 * self.s)), title, fill=(255, 255, 255),
               font_size=max(10, int(12 * self.s)))
        return img, d, bar_h

    def _lines(self, d, x0, y0, x1, y1, rng, color, line_h, word=(3, 14)):
        s = self.s
        y = y0
        while y + line_h <= y1:
            x = x0
            while True:
                wd = int(rng.randint(*word) * 5 * s)
                if x + wd > x1:
                    break
                d.rectangle([x, y, x + wd, y + max(2, int(line_h * 0.55))], fill=color)
                x += wd + int(5 * s)
            y += line_h

    def _editor(self, typed: int):
        img, d, top = self._frame((40, 90, 160), "Code — main.py — cue", (30, 30, 36))
        rng = random.Random(self.seed + 1)
        s = self.s
        d.rectangle([0, top, int(120 * s), self.h], fill=(45, 45, 52))  # file tree
        self._lines(d, int(8 * s), top + int(8 * s), int(110 * s), self.h, rng,
                    (120, 120, 130), int(14 * s), (2, 5))
        n_lines = 10 + typed // 2
        y = top + int(8 * s)
        colors = [(86, 156, 214), (206, 145, 120), (181, 206, 168), (220, 220, 170)]
        for _ in range(n_lines):
            if y > self.h - 10:
                break
            x = int(130 * s) + int(rng.randint(0, 3) * 16 * s)
            for _ in range(rng.randint(1, 6)):
                wd = int(rng.randint(3, 12) * 6 * s)
                d.rectangle([x, y, x + wd, y + int(7 * s)], fill=rng.choice(colors))
                x += wd + int(6 * s)
            y += int(13 * s)
        return img

    def _browser(self, page: str):
        img, d, top = self._frame((70, 70, 80), "Mozilla Firefox", (250, 250, 250))
        s = self.s
        d.rectangle([0, top, self.w, top + int(26 * s)], fill=(225, 225, 230))  # tabs
        d.rectangle([int(8 * s), top + int(4 * s), int(150 * s), top + int(26 * s)],
                    fill=(250, 250, 250) if page == "docs" else (200, 200, 205))
        d.rectangle([int(154 * s), top + int(4 * s), int(300 * s), top + int(26 * s)],
                    fill=(250, 250, 250) if page == "dashboard" else (200, 200, 205))
        body = top + int(34 * s)
        if page == "docs":
            rng = random.Random(self.seed + 2)
            d.rectangle([0, body, self.w, body + int(110 * s)], fill=(20, 110, 200))  # hero
            d.text((int(30 * s), body + int(40 * s)), "Documentation", fill=(255, 255, 255),
                   font_size=int(28 * s))
            self._lines(d, int(40 * s), body + int(130 * s), self.w - int(40 * s), self.h,
                        rng, (60, 60, 60), int(16 * s))
        else:
            rng = random.Random(self.seed + 3)
            d.rectangle([0, body, int(150 * s), self.h], fill=(35, 40, 60))  # dark nav
            cw, ch = int(225 * s), int(150 * s)
            for r in range(2):
                for c in range(2):
                    x0 = int(165 * s) + c * (cw + int(10 * s))
                    y0 = body + int(10 * s) + r * (ch + int(10 * s))
                    d.rectangle([x0, y0, x0 + cw, y0 + ch], outline=(180, 180, 190),
                                fill=(255, 255, 255))
                    for b in range(8):
                        bh = int(rng.randint(10, 120) * s)
                        bx = x0 + int(10 * s) + b * int(26 * s)
                        d.rectangle([bx, y0 + ch - bh - int(6 * s), bx + int(18 * s),
                                     y0 + ch - int(6 * s)], fill=(230, 120, 40))
        return img

    def _long_doc(self):
        s = self.s
        doc = Image.new("RGB", (self.w, self.h * 6), (255, 255, 255))
        d = ImageDraw.Draw(doc)
        rng = random.Random(self.seed + 4)
        y = int(20 * s)
        while y < doc.height - int(60 * s):
            kind = rng.random()
            if kind < 0.15:
                d.rectangle([int(60 * s), y, int(60 * s) + int(rng.randint(120, 300) * s),
                             y + int(18 * s)], fill=(20, 20, 20))
                y += int(34 * s)
            elif kind < 0.3:
                fh = int(rng.randint(80, 160) * s)
                d.rectangle([int(90 * s), y, self.w - int(90 * s), y + fh],
                            fill=tuple(rng.randint(60, 220) for _ in range(3)))
                y += fh + int(20 * s)
            else:
                n = rng.randint(3, 8)
                self._lines(d, int(60 * s), y, self.w - int(60 * s), y + n * int(14 * s), rng,
                            (70, 70, 70), int(14 * s))
                y += n * int(14 * s) + int(12 * s)
        return doc

    def _pdf(self, offset: int):
        img, _d, top = self._frame((120, 120, 125), "Preview — design.pdf", (90, 90, 95))
        view = self.doc.crop((0, offset, self.w, offset + self.h - top))
        img.paste(view, (0, top))
        return img

    def _private(self):
        img, d, top = self._frame((180, 30, 30), "Signal — private chat", (255, 235, 235))
        rng = random.Random(self.seed + 5)
        for i in range(8):
            y = top + int((20 + i * 42) * self.s)
            x0 = int(30 * self.s) if i % 2 else int(260 * self.s)
            d.rounded_rectangle([x0, y, x0 + int(340 * self.s), y + int(30 * self.s)],
                                radius=int(8 * self.s), fill=(200, 60, 60))
            d.text((x0 + int(8 * self.s), y + int(8 * self.s)), "PRIVATE " * 3,
                   fill=(255, 255, 255), font_size=int(11 * self.s))
        del rng
        return img

    def _terminal(self, typed: int):
        img, d, top = self._frame((60, 60, 60), "Terminal — zsh — cue", (8, 8, 8))
        rng = random.Random(self.seed + 6)
        s = self.s
        y = top + int(6 * s)
        for i in range(3 + typed // 2):
            if y > self.h - 10:
                break
            wd = int(rng.randint(10, 90) * 5 * s)
            d.rectangle([int(8 * s), y, min(self.w - 8, int(8 * s) + wd), y + int(7 * s)],
                        fill=(60, 220, 90) if i % 3 else (200, 200, 200))
            y += int(12 * s)
        return img

    def _chat(self):
        img, d, top = self._frame((74, 21, 75), "Slack — #general", (255, 255, 255))
        s = self.s
        d.rectangle([0, top, int(170 * s), self.h], fill=(63, 14, 64))
        rng = random.Random(self.seed + 7)
        self._lines(d, int(12 * s), top + int(12 * s), int(160 * s), self.h, rng,
                    (200, 170, 200), int(20 * s), (3, 8))
        y = top + int(16 * s)
        while y < self.h - int(40 * s):
            d.rectangle([int(185 * s), y, int(215 * s), y + int(30 * s)],
                        fill=tuple(rng.randint(80, 230) for _ in range(3)))
            self._lines(d, int(225 * s), y, self.w - int(20 * s), y + int(30 * s), rng,
                        (40, 40, 40), int(14 * s))
            y += int(44 * s)
        return img
