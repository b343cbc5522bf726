"""The timeline the model reads: window segments, input counts, pauses, frame numbers."""
from __future__ import annotations

import pytest

from bench.sessions import make_activity
from cue.digest.timeline import build_timeline
from cue.inputs.events import Event, read_events

START = 1_763_766_000.0


@pytest.fixture(scope="module")
def activity(tmp_path_factory):
    return make_activity(tmp_path_factory.mktemp("act"), start=START, interval=30.0)


def test_segments_follow_the_window_changes_and_the_pause(activity):
    events = read_events(activity.events_dir, START - 900, activity.end)
    tl = build_timeline(events, START, activity.end, paused=activity.paused,
                        frames=[(0, START + 2), (1, START + 125), (2, START + 610)])
    kinds = [(s.kind, s.app) for s in tl.segments]
    # (the half-second before the first window event is too short to mention)
    assert kinds == [("window", "Code"), ("window", "Firefox"), ("window", "Preview"),
                     ("paused", ""), ("window", "Terminal"), ("window", "Slack")]
    code = tl.segments[0]
    assert code.start_offset == pytest.approx(0.5) and code.end_offset == pytest.approx(120)
    assert code.keys > 100  # the two typing bursts
    assert [s.frames for s in tl.segments] == [(0,), (1,), (), (), (2,), ()]
    assert tl.segments[3].start_offset == 520 and tl.segments[3].end_offset == 600
    text = tl.render()
    assert "Signal" not in text and "private chat" not in text  # inside the pause
    assert "capture paused" in text
    assert "+0s" in text and "+900s" in text
    assert "2026" not in text and str(activity.root) not in text  # no clock times, no paths


def test_frames_are_attached_by_index_only():
    events = [Event(START + 10, "/cue/window", {"app": "Code", "title": "a.py"}),
              Event(START + 50, "/cue/input", {"keys": 7, "clicks": 2}),
              Event(START + 100, "/cue/window", {"app": "Firefox", "title": "Docs"})]
    tl = build_timeline(events, START, START + 200,
                        frames=[(0, START + 12), (1, START + 60), (2, START + 150)])
    assert [s.frames for s in tl.segments] == [(), (0, 1), (2,)]
    lines = tl.render().splitlines()
    assert lines[2] == '+10s–+100s  Code — "a.py"  (7 keys, 2 clicks: 5 keystrokes a minute; frames 0, 1)'
    assert lines[3] == '+100s–+200s  Firefox — "Docs"  (no keystrokes or clicks; frames 2)'
    assert tl.event_count == 3


def test_window_in_front_before_the_start_carries_over_and_long_titles_are_cut():
    long = "x" * 500
    events = [Event(START - 300, "/cue/window", {"app": "Code", "title": long})]
    tl = build_timeline(events, START, START + 60)
    assert len(tl.segments) == 1 and tl.segments[0].app == "Code"
    assert len(tl.segments[0].title) == 120
    assert tl.empty  # nothing happened *inside* the window


def test_no_events_renders_a_plain_note():
    tl = build_timeline([], START, START + 900)
    assert tl.empty
    assert "15-minute window" in tl.render()


def test_activity_with_no_window_event_is_listed_under_its_window():
    events = [Event(START + 10, "/cue/window", {"app": "Firefox", "title": "Mozilla Firefox"}),
              Event(START + 100, "/cue/window", {"app": "Code", "title": "a.py"})]
    tl = build_timeline(events, START, START + 200, paused=[(START + 150, START + 170)],
                        frames=[(0, START + 60), (1, START + 120)],
                        activity=[(START + 50, START + 100, "screen changed with no window event"),
                                  (START + 110, START + 140, "typing burst: 90 keys, 0 clicks"),
                                  (START + 155, START + 165, "inside the pause")])
    lines = tl.render().splitlines()
    assert lines[2].startswith("+10s–+100s  Firefox")
    assert lines[3] == "  · +50s–+100s  screen changed with no window event (frames 0)"
    assert lines[4].startswith("+100s–+150s  Code")
    assert lines[5] == "  · +110s–+140s  typing burst: 90 keys, 0 clicks (frames 1)"
    assert "inside the pause" not in tl.render()


def test_the_time_before_the_recorder_started_is_said_so():
    events = [Event(START + 300, "/cue/window", {"app": "Code", "title": "a.py"}),
              Event(START + 400, "/cue/input", {"keys": 30, "clicks": 0})]
    tl = build_timeline(events, START, START + 900, frames=[(0, START + 310)])
    assert [s.kind for s in tl.segments] == ["before", "window"]
    lines = tl.render().splitlines()
    assert lines[1] == "+0s–+300s  before recording started"
    assert "unknown window" not in tl.render()
    # recorded before the window (an input event, no window event): an unknown window, not
    # "before recording started"
    earlier = [Event(START - 60, "/cue/input", {"keys": 1, "clicks": 0}), *events]
    tl = build_timeline(earlier, START, START + 900, frames=[(0, START + 310)])
    assert tl.segments[0].kind == "unknown" and "before recording" not in tl.render()
