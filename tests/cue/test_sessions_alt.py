"""bench/sessions_alt.py writes sessions in the README's input contract, with sane truth.

One session (seed 0) is generated for the module; the checks read it back only through
cue's own input readers (cue/inputs/keyframes.py, cue/inputs/events.py) and Pillow.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from PIL import Image

from bench.sessions_alt import SIZES, _name, make_session
from cue.inputs.events import TOPIC_INPUT, TOPIC_PAUSE, TOPIC_WINDOW, read_events
from cue.inputs.keyframes import capture_time_from_name, list_keyframes


@pytest.fixture(scope="module")
def s(tmp_path_factory):
    return make_session(tmp_path_factory.mktemp("alt0"), 0)


def _digest(path: Path) -> str:
    return hashlib.sha1(path.read_bytes()).hexdigest()


def _kind_spans(s, kind):
    return [(a, b, seg) for a, b, seg in s.spans if s.segments[seg].kind == kind]


def test_keyframes_follow_the_contract(s):
    found = list_keyframes(s.keyframes_dir, s.start, s.end)
    assert [k.path for k in found] == [f.path for f in s.frames]
    assert all(k.time_source == "name" for k in found)
    assert all(abs(k.ts - f.ts) < 1e-3 for k, f in zip(found, s.frames, strict=True))
    assert not list(s.keyframes_dir.rglob(".*"))  # no .tmp left behind
    for f in s.frames[:: max(1, len(s.frames) // 25)]:
        with Image.open(f.path) as im:
            im.load()
            assert im.size == s.size
    gaps = [b.ts - a.ts for a, b in zip(s.frames, s.frames[1:])]
    assert max(gaps) <= s.interval * 1.25 + 0.01
    assert 2.0 <= s.interval <= 8.0


@pytest.mark.parametrize("naming", ["ms", "prefix", "iso", "dayfolder"])
@pytest.mark.parametrize("ext", ["jpg", "png"])
def test_every_naming_reads_back(naming, ext):
    ms = 1_780_123_456_789
    name = _name(ms, naming, ext)
    assert capture_time_from_name(Path(name).name) == ms / 1000


def test_events_follow_the_contract(s):
    got = read_events(s.events_dir, s.start, s.end)
    assert [(e.topic, e.data) for e in got] == [(t, d) for _, t, d in s.events]
    assert all(abs(e.ts - ts) < 1e-6 for e, (ts, _, _) in zip(got, s.events, strict=True))
    topics = {e.topic for e in got}
    assert {TOPIC_WINDOW, TOPIC_INPUT, TOPIC_PAUSE} <= topics
    pauses = [e.data["state"] for e in got if e.topic == TOPIC_PAUSE]
    assert pauses == ["paused", "resumed"]
    assert sum(e.data["keys"] for e in got if e.topic == TOPIC_INPUT) > 100


def test_the_story_is_all_there(s):
    assert 12 * 60 <= s.window_secs <= 16 * 60
    assert 10 <= len(s.segments) <= 15
    assert s.size in SIZES
    kinds = {seg.kind for seg in s.segments.values()}
    assert {"typing", "app", "tab", "read", "clicks", "call", "blip", "idle", "paused"} <= kinds
    # spans tile the window, in order
    assert s.spans[0][0] == s.start and abs(s.spans[-1][1] - s.end) < 1e-6
    assert all(abs(a[1] - b[0]) < 1e-6 for a, b in zip(s.spans, s.spans[1:]))
    frames_of = {}
    for f in s.frames:
        frames_of.setdefault(f.segment, []).append(f)
    for seg in s.significant():
        assert seg.kind not in ("blip", "glance", "idle", "paused")
        assert frames_of.get(seg.id), seg  # every significant segment has a frame
        secs = sum(b - a for a, b, sid in s.spans if sid == seg.id)
        assert secs >= 15
    for a, b, _ in _kind_spans(s, "blip"):
        assert 2 <= b - a <= 6
    # every frame lies in the span of its segment
    for f in s.frames:
        assert any(a <= f.ts < b and sid == f.segment for a, b, sid in s.spans)


def test_the_read_is_one_quiet_segment(s):
    (a, b, seg), = _kind_spans(s, "read")
    scroll = next((x, y) for x, y in s.silent if a < x < b)
    assert 20 <= scroll[0] - a <= 60 + 1e-6
    assert 90 <= b - scroll[0] <= 240 + 1e-6
    inside = [ev for ev in s.events if a + 0.5 < ev[0] < b - 0.5 and ev[1].startswith("/cue/")]
    assert inside == []  # no window event, no keys, no clicks while reading and scrolling
    frames = [f for f in s.frames if f.segment == seg]
    reading = {f.view for f in frames if f.ts < scroll[0]}
    scrolled = [f.view for f in frames if f.ts > scroll[0] + 5]
    assert len(reading) == 1  # arriving at the top and reading: one screen
    # the scroll: most frames moved (a reader pauses between flicks), and far
    assert len(set(scrolled)) >= 0.5 * len(scrolled)
    assert int(frames[-1].view.rsplit("|", 1)[1]) > 2 * s.size[1]


def test_tab_change_has_no_window_event(s):
    (a, _b, seg), = _kind_spans(s, "tab")[:1]
    before = next(sid for x, y, sid in s.spans if abs(y - a) < 1e-6)
    assert s.segments[before].kind == "app"  # the first tab, same browser
    windows = [ev for ev in s.events if ev[1] == TOPIC_WINDOW and a - 1 < ev[0] < a + 5]
    assert windows == []
    first = [f for f in s.frames if f.segment == before]
    second = [f for f in s.frames if f.segment == seg and f.ts < a + 60]
    assert first and second and first[-1].view != second[0].view


def test_identical_screens_are_identical_bytes(s):
    by_view = {}
    for f in s.frames:
        by_view.setdefault(f.view, set()).add(_digest(f.path))
    assert all(len(d) == 1 for d in by_view.values())
    (a, b, _), = _kind_spans(s, "idle")
    idle = [f for f in s.frames if a <= f.ts < b]
    assert len(idle) >= 3 and len({_digest(f.path) for f in idle}) == 1
    assert not [ev for ev in s.events if a + 0.5 < ev[0] < b - 0.5 and ev[1].startswith("/cue/")]
    before = [f for f in s.frames if f.ts < a][-1]
    # the screen as it was left: the segment before's own screen (a click between its last
    # capture and the idle start may have changed it once more)
    assert idle[0].view.split("|")[0] == before.segment
    assert idle[0].view.split("|")[:2] == before.view.split("|")[:2]


def test_a_screen_returns_far_apart(s):
    seen: dict[str, list[tuple[float, float]]] = {}
    for a, b, seg in s.spans:
        seen.setdefault(seg, []).append((a, b))
    twice = [seg for seg, spans in seen.items() if len(spans) == 2]
    assert len(twice) == 1
    (a1, b1), (a2, _b2) = seen[twice[0]]
    assert a2 - b1 >= 240
    left = [f for f in s.frames if a1 <= f.ts < b1][-1]
    back = [f for f in s.frames if f.ts >= a2 and f.segment == twice[0]]
    assert back and all(_digest(f.path) == _digest(left.path) for f in back)


def test_the_call_changes_without_input(s):
    (a, b, seg), = _kind_spans(s, "call")
    frames = [f for f in s.frames if f.segment == seg]
    assert len(frames) >= 3 and len({_digest(f.path) for f in frames}) == len(frames)
    assert not [ev for ev in s.events if a + 0.5 < ev[0] < b - 0.5 and ev[1] == TOPIC_INPUT]


def test_paused_frames_are_on_disk(s):
    (a, b), = s.paused
    frames = [f for f in s.frames if a <= f.ts < b]
    assert frames and all(f.segment == "paused" and f.path.exists() for f in frames)
    assert not s.segments["paused"].significant


def test_score(s):
    firsts = {}
    for f in s.frames:
        firsts.setdefault(f.segment, f)
    pick = [firsts[seg.id].path for seg in s.significant()]
    sc = s.score(pick)
    assert sc["coverage"] == 1.0 and sc["missed"] == [] and sc["duplicates"] == 0
    assert sc["wasted_while_missing"] == 0 and sc["paused"] == 0
    # the first frame of each of two segments, then a paused one: a segment is missing
    paused = next(f for f in s.frames if f.segment == "paused")
    sc = s.score(pick[:2] + [paused.path])
    assert sc["covered"] == 2 and sc["paused"] == 1 and sc["wasted_while_missing"] == 1
    # an idle frame shows the screen left before it, and counts for that segment
    (a, _b, _), = _kind_spans(s, "idle")
    idle = next(f for f in s.frames if f.segment == "idle")
    left = [f for f in s.frames if f.ts < a][-1]
    sc = s.score([idle.path])
    assert sc["idle"] == 1 and sc["covered"] == (1 if s.segments[left.segment].significant else 0)


def test_same_seed_same_session(tmp_path, s):
    small = (480, 300)
    one = make_session(tmp_path / "a", 0, size=small)
    two = make_session(tmp_path / "b", 0, size=small)
    def truth(x):
        return [(f.ts, f.segment, f.view) for f in x.frames]

    assert truth(one) == truth(two)
    assert [_digest(f.path) for f in one.frames] == [_digest(f.path) for f in two.frames]
    assert one.events == two.events
    # a size override changes the pixels, not the story
    assert [(f.ts, f.segment) for f in one.frames] == [(f.ts, f.segment) for f in s.frames]
