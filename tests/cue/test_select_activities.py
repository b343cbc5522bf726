"""Every activity before any second frame (issue 37 item 3), on real rendered frames.

A session drawn here (not by bench/sessions.py): a spreadsheet edited cell by cell, a
document arrived at on top and then read with a long trackpad scroll (no title change, no
key or click), a PR diff in a browser, a tab switch in that browser whose title does not
change, a terminal and a chat. Each is one activity; with a budget of N frames each gets
one before any gets a second.
"""
from __future__ import annotations

import itertools
import random

import pytest
from PIL import Image, ImageDraw

from bench.sessions import SEEDS, make_session, run_selectors
from cue.core.db import connect
from cue.frame_select import select_frames
from cue.inputs.events import EventWriter
from cue.select.features import compute_features, layout_distance
from cue.select.segments import SAME_LAYOUT

START = 1_763_766_000.0
W, H = 1280, 800
STEP = 3.0  # seconds between captures
# (app, title, seconds, scene, input per capture: (keys, clicks))
SCRIPT = [
    ("Numbers", "budget.numbers", 120, "sheet", (6, 1)),
    ("Preview", "handbook.pdf", 150, "read", (0, 0)),
    ("Firefox", "GitHub", 110, "diff", (0, 2)),
    ("Firefox", "GitHub", 90, "issues", (0, 0)),  # another tab, same logged title
    ("Terminal", "zsh", 80, "term", (9, 0)),
    ("Slack", "general", 90, "chat", (3, 1)),
]


def _lines(d, x0, y0, x1, y1, rng, color, step=14):
    y = y0
    while y < y1 - step:
        x = x0 + rng.randint(0, 30)
        while x < x1 - 40:
            w = rng.randint(12, 70)
            d.rectangle([x, y, min(x + w, x1), y + step // 2], fill=color)
            x += w + 8
        y += step


def _doc_image() -> Image.Image:
    doc = Image.new("RGB", (W, H * 5), (255, 255, 255))
    d = ImageDraw.Draw(doc)
    rng = random.Random(7)
    y = 20
    while y < doc.height - 60:
        if rng.random() < 0.2:
            fh = rng.randint(80, 180)
            d.rectangle([160, y, W - 160, y + fh], fill=tuple(rng.randint(60, 220) for _ in "rgb"))
            y += fh + 16
        else:
            n = rng.randint(3, 9)
            _lines(d, 160, y, W - 160, y + n * 14, rng, (60, 60, 60))
            y += n * 14 + 12
    return doc


DOC = _doc_image()


def _draw(scene: str, k: int) -> Image.Image:
    """Frame k (0, 1, …) of a scene: what changes is what the activity changes."""
    rng = random.Random(scene)
    if scene == "read":  # a grey viewer, the page scrolled further every capture
        img = Image.new("RGB", (W, H), (80, 80, 84))
        off = min(k * 55, DOC.height - H)
        img.paste(DOC.crop((0, off, W, off + H - 30)), (0, 30))
        return img
    bg = {"sheet": (255, 255, 255), "diff": (246, 248, 250), "issues": (255, 255, 255),
          "term": (12, 12, 12), "chat": (74, 21, 75)}[scene]
    img = Image.new("RGB", (W, H), bg)
    d = ImageDraw.Draw(img)
    d.rectangle([0, 0, W, 30], fill=(210, 210, 215))
    if scene == "sheet":  # a grid, cells filled in one by one
        for x in range(0, W, 110):
            d.line([x, 60, x, H], fill=(200, 200, 200))
        for y in range(60, H, 28):
            d.line([0, y, W, y], fill=(200, 200, 200))
        for c in range(min(k, 90)):
            x, y = 110 * (c % 11), 60 + 28 * (c // 11)
            d.rectangle([x + 8, y + 8, x + 20 + rng.randint(20, 80), y + 20], fill=(30, 30, 30))
    elif scene == "diff":  # a PR diff: red and green lines, the reviewer scrolls a little
        y = 60 - (k % 6) * 20
        while y < H:
            kind = rng.random()
            color = (230, 255, 236) if kind < 0.3 else (255, 235, 233) if kind < 0.5 else bg
            d.rectangle([60, y, W - 60, y + 18], fill=color)
            d.rectangle([80, y + 5, 80 + rng.randint(100, 900), y + 12], fill=(40, 40, 40))
            y += 20
    elif scene == "issues":  # an issue list: a sidebar, rows with labels
        d.rectangle([0, 30, 260, H], fill=(36, 41, 47))
        for r in range(14):
            y = 80 + r * 48
            d.rectangle([300, y, 300 + rng.randint(300, 700), y + 14], fill=(9, 105, 218))
            d.rectangle([1050, y, 1120, y + 16], fill=(rng.choice([(215, 58, 74), (14, 138, 22)])))
    elif scene == "term":  # output grows as they type
        _lines(d, 10, 40, W - 10, min(H, 60 + 14 * k), rng, (200, 200, 200))
    else:  # chat: messages arrive now and then
        d.rectangle([0, 30, 240, H], fill=(63, 14, 64))
        _lines(d, 270, 40, W - 20, min(H - 60, 120 + 40 * (k // 5)), rng, (240, 240, 240), 20)
    return img


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    root = tmp_path_factory.mktemp("activities")
    kdir, edir = root / "keyframes", root / "events"
    kdir.mkdir()
    edir.mkdir()
    log = EventWriter(edir / "events.mcap", flush_secs=1.0)
    spans, t = [], START
    for app, title, secs, scene, (keys, clicks) in SCRIPT:
        if scene != "issues":  # the tab switch: the browser logs nothing new
            log.window(app, title, ts=t - 1.0 if t == START else t)
        k, c = 0, t + 1.0
        while c < t + secs:
            _draw(scene, k).save(kdir / f"{int(c * 1000)}.jpg", quality=85)
            if keys or clicks:
                log.input(keys, clicks, ts=c - 1.0)
            k += 1
            c += STEP
        spans.append((t, t + secs, scene))
        t += secs
    log.close()
    return root, spans, t


def _select(session, n, tmp_path):
    root, spans, end = session
    conn = connect(tmp_path / "cue.db")
    try:
        sel = select_frames(root / "keyframes", end - START, n, end=end,
                            events_dir=root / "events", conn=conn)
    finally:
        conn.close()
    shown = [next(s for a, b, s in spans if a <= f.ts < b) for f in sel.frames]
    return sel, shown


@pytest.mark.parametrize("n", [len(SCRIPT), len(SCRIPT) + 2, 10])
def test_every_activity_gets_a_frame_before_any_gets_a_second(session, n, tmp_path):
    sel, shown = _select(session, n, tmp_path)
    assert len(sel.frames) <= n
    assert set(shown) == {scene for _, _, _, scene, _ in SCRIPT}, shown  # the read and the tab included
    if n == len(SCRIPT):
        assert len(shown) == len(set(shown))  # one each: no activity got two


def test_the_long_read_and_scroll_gets_a_frame_after_the_arrival(session, tmp_path):
    """A two-minute read with no title change and no input is one activity, and shown."""
    sel, shown = _select(session, len(SCRIPT), tmp_path)
    read = [f for f, s in zip(sel.frames, shown, strict=True) if s == "read"]
    assert len(read) == 1


def test_a_tab_change_with_an_unchanged_title_is_found_from_the_pixels(session, tmp_path):
    sel, shown = _select(session, len(SCRIPT), tmp_path)
    (tab,) = [f for f, s in zip(sel.frames, shown, strict=True) if s == "issues"]
    assert tab.title == "GitHub"  # the log never said the tab changed
    assert any(s.kind == "screen" and abs(s.start - tab.ts) < 100 for s in sel.segments)


def test_layout_tells_a_scroll_step_from_another_page(session):
    """The statistic the segments rely on, on the frames above: consecutive frames of one
    document scrolled are within SAME_LAYOUT, the tab change is not."""
    root, spans, _ = session
    frames = sorted((root / "keyframes").iterdir())
    feats = {p: compute_features(p) for p in frames}

    def span_of(p):
        ts = int(p.stem) / 1000
        return next(s for a, b, s in spans if a <= ts < b)

    read = [feats[p].layout for p in frames if span_of(p) == "read"]
    steps = [layout_distance(a, b) for a, b in itertools.pairwise(read)]
    assert max(steps) <= SAME_LAYOUT
    diff = [feats[p].layout for p in frames if span_of(p) == "diff"][-1]
    issues = next(feats[p].layout for p in frames if span_of(p) == "issues")
    assert layout_distance(diff, issues) > SAME_LAYOUT


@pytest.mark.parametrize("seed", SEEDS)
def test_coverage_on_every_benchmark_seed(seed, tmp_path):
    s = make_session(tmp_path / "s", seed)
    score = run_selectors(s, tmp_path / "cue.db", 10)["cue select"]
    assert score["frames"] == 10
    assert score["coverage"] >= 0.95, score["missed"]
