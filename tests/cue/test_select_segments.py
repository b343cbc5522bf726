"""Selection in context (SPEC §4.2) on scripted sessions with ground-truth segments
(bench/sessions.py). The seeds here are not the benchmark's: they are held out."""
from __future__ import annotations

import re

import pytest

from bench.sessions import SEEDS, make_session, run_selectors
from cue.core.db import connect
from cue.frame_select import DEDUPE_HAMMING, select_frames
from cue.select.features import compute_features, hamming

HELD_OUT = (101, 202, 303)
assert not set(HELD_OUT) & set(SEEDS)


@pytest.fixture(scope="module", params=HELD_OUT)
def case(request, tmp_path_factory):
    root = tmp_path_factory.mktemp(f"session{request.param}")
    session = make_session(root, request.param)
    conn = connect(root / "cue.db")
    sel = select_frames(session.keyframes_dir, session.window_secs, 10, end=session.end,
                        events_dir=session.events_dir, conn=conn)
    yield session, sel, conn
    conn.close()


def _segment(session, f):
    return session.segments[session.frame_of(f.path).segment]


def test_covers_every_significant_segment_with_anchors_no_pause_no_duplicate(case):
    session, sel, _ = case
    score = session.score([f.path for f in sel.frames])
    assert score["frames"] == 10
    assert score["coverage"] >= 0.95, score["missed"]
    assert score["anchors"] == 3
    assert score["paused"] == 0
    assert score["duplicates"] == 0 and score["same_segment"] == 0


def test_beats_both_baselines(case, tmp_path):
    session, _, _ = case
    scores = run_selectors(session, tmp_path / "cue.db")
    ours = scores["cue select"]["coverage"]
    assert ours > scores["uniform-10"]["coverage"] or ours == 1.0
    assert ours > scores["dhash-only"]["coverage"]


def test_input_burst_outranks_the_window_arrival_before_it(case):
    session, sel, _ = case
    arrivals = [f for f in sel.frames if _segment(session, f).kind == "arrival"]
    assert not arrivals  # neither Terminal's nor Code's few seconds before the typing
    typing = [f for f in sel.frames if _segment(session, f).kind == "typing"]
    assert len(typing) == 2
    for f in typing:
        if not f.anchor:
            assert f.reason.startswith("input burst") and "outranks the window arrival" in f.reason


def test_settled_end_of_the_scroll_is_the_frame_shown(case):
    session, sel, _ = case
    scroll = [f for f in sel.frames if _segment(session, f).kind in ("scroll", "idle")
              and session.frame_of(f.path).segment == "scroll"]
    assert len(scroll) == 1
    f = scroll[0]
    if not f.anchor:
        # pdf:25 is where the scroll stopped (then the idle stretch shows it unchanged)
        assert session.frame_of(f.path).view == "pdf:25"
        assert "settled end" in f.reason and "no window event" in f.reason


def test_the_arrival_before_a_long_scroll_and_its_settled_end_are_two_moments(case):
    """Preview is switched to and page 1 read for 16–30 s, then scrolled for minutes with no
    event: the screen read on arrival and where the scroll settled are both chosen — the
    scroll's many pieces no longer crowd the arrival out (issue 25)."""
    session, sel, _ = case
    views = {session.frame_of(f.path).view for f in sel.frames
             if session.frame_of(f.path).segment in ("pdf", "scroll")}
    assert views == {"pdf:0", "pdf:25"}
    # the timeline calls the whole scroll one stretch of scrolling, not a dozen
    pdf = [(a, b) for a, b, seg in session.spans if seg == "scroll"]
    scrolling = [x for x in sel.activity() if "screen kept changing" in x[2]
                 and pdf[0][0] - 10 <= x[0] <= pdf[-1][1]]
    assert len(scrolling) == 1, scrolling


@pytest.mark.parametrize("seed,stress", [
    (404, {"popups": True}),
    (505, {"lag": 1.5, "skip_identical": True, "loading": 3.0, "popups": True}),
])
def test_the_arrival_holds_under_stress(tmp_path, seed, stress):
    """Dialogs over long segments, late window events, half-drawn screens, skipped
    identical frames: the arrival still outranks a second frame of a window already shown."""
    session = make_session(tmp_path, seed, **stress)
    conn = connect(tmp_path / "cue.db")
    try:
        sel = select_frames(session.keyframes_dir, session.window_secs, 10, end=session.end,
                            events_dir=session.events_dir, conn=conn)
    finally:
        conn.close()
    score = session.score([f.path for f in sel.frames])
    assert score["coverage"] == 1.0, score["missed"]
    assert "pdf" in {session.frame_of(f.path).segment for f in sel.frames}


def test_tab_switch_with_an_unchanged_title_is_shown_by_its_pixels(case):
    session, sel, _ = case
    tabs = {session.frame_of(f.path).view for f in sel.frames
            if _segment(session, f).kind == "tab"}
    assert tabs == {"browser:docs", "browser:dashboard"}


def test_a_segment_an_anchor_shows_gets_no_second_frame(case):
    session, sel, _ = case
    middle = next(f for f in sel.frames if f.reason.startswith("anchor: middle"))
    seg = session.frame_of(middle.path).segment
    assert seg == "calendar"  # the app switch into it came before the middle
    assert [f for f in sel.frames if session.frame_of(f.path).segment == seg] == [middle]


def test_blips_only_take_a_slot_left_over_and_their_switch_is_discounted(case):
    session, sel, _ = case
    blips = [f for f in sel.frames if _segment(session, f).kind == "blip"]
    for f in blips:
        assert "extra: every longer segment is shown" in f.reason and "(a blip)" in f.reason
    # The switch into a blip scores as a change that did not last.
    from cue.frame_select import score_frames
    from cue.inputs.events import read_events
    from cue.inputs.keyframes import list_keyframes
    from cue.select.features import features_for

    _, _, conn = case
    kfs = [k for k in list_keyframes(session.keyframes_dir, session.start, session.end)
           if session.frame_of(k.path).segment != "paused"]
    feats = features_for(conn, kfs)
    events = read_events(session.events_dir, session.start - 900, session.end)
    scored = score_frames([(k, feats[k.path]) for k in kfs], events, session.start)
    for s in scored:
        if session.segments[session.frame_of(s.kf.path).segment].kind == "blip" \
                and s.scores["window_app_title_change"] > 0:
            assert s.scores["window_app_title_change"] <= 0.1
            assert "blip" in s.reason or not s.reason.startswith("app switch")


def test_non_anchors_are_distinct_from_every_frame_shown_including_anchors(case):
    _, sel, _ = case
    hashes = {f.path: compute_features(f.path).dhash for f in sel.frames}
    shown = [f for f in sel.frames if not f.reason.startswith("top-up")]
    for f in shown:
        if f.anchor:
            continue
        for g in shown:
            if g is not f:
                assert hamming(hashes[f.path], hashes[g.path]) > DEDUPE_HAMMING, (f, g)


def test_every_reason_says_which_rule_decided(case):
    _, sel, _ = case
    rules = re.compile(r"anchor: (first|middle|last) frame|new segment|settled end|"
                       r"last frame of the run|extra: |top-up: ")
    for f in sel.frames:
        assert rules.search(f.reason), f.reason
        assert set(f.scores) == {"window_app_title_change", "user_event_spike",
                                 "visual_change", "text_density", "combined"}


def test_digest_timeline_names_every_segment_the_selection_covers(case):
    """Item 4: each chosen frame's segment is named in the timeline the model reads."""
    from cue.digest import plan_digest

    session, _, conn = case
    plan, _ = plan_digest(conn, window_secs=session.window_secs, end=session.end,
                          keyframe_dir=session.keyframes_dir, events_dir=session.events_dir)
    lines = plan.timeline.render().splitlines()

    def lines_with(index):
        pat = re.compile(rf"frames? (\d+, )*{index}\b")
        return [ln for ln in lines if pat.search(ln)]

    named = 0
    for f in plan.frames:
        frame = session.frame_of(f.path)
        seg = session.segments[frame.segment]
        if not seg.significant:
            continue
        mine = lines_with(f.index)
        app = seg.label.split(":")[0].split(" ")[0]
        assert any(app in ln for ln in mine if not ln.startswith("  ·")), (seg.label, mine)
        silent = any(a <= frame.ts < b for a, b in session.silent)
        if seg.kind == "typing":
            assert any("typing burst" in ln for ln in mine), (seg.label, mine)
        elif seg.kind == "scroll":
            assert any("screen kept changing" in ln for ln in mine), (seg.label, mine)
        elif seg.kind == "tab" and silent:
            assert any("screen changed with no window event" in ln for ln in mine), mine
        named += 1
    assert named >= len(session.significant())
    text = "\n".join(lines)
    assert "Signal" not in text and "private" not in text  # nothing from the pause
    assert str(session.root) not in text


def test_an_anchor_on_the_start_of_a_typing_burst_leaves_its_settled_end_wanted():
    """The middle anchor lands on the arrival in a window where a typing burst follows:
    the anchor shows the empty start, so the burst's end still earns a slot."""
    from pathlib import Path

    from cue.frame_select import choose
    from cue.inputs.events import Event
    from cue.inputs.keyframes import Keyframe
    from cue.select.features import FrameFeatures

    hashes = {}
    for t in range(0, 201, 5):
        if t < 100:
            hashes[t] = 0
        elif t <= 150:  # each frame 5 bits more typed than the last
            hashes[t] = (1 << (5 * ((t - 100) // 5 + 1))) - 1
        else:
            hashes[t] = 0xAAAA_AAAA_AAAA_AAAA
    usable = [(Keyframe(Path(f"/k/{t}.jpg"), float(t)), FrameFeatures(h, 0.1))
              for t, h in hashes.items()]
    events = [Event(-1.0, "/cue/window", {"app": "Code", "title": "a.py"}),
              Event(99.0, "/cue/window", {"app": "Terminal", "title": "zsh"}),
              Event(152.0, "/cue/window", {"app": "Slack", "title": "#general"})]
    events += [Event(float(t), "/cue/input", {"keys": 6, "clicks": 0}) for t in range(100, 151)]
    frames = choose(usable, sorted(events, key=lambda e: e.ts), 0.0, 5)
    assert [round(f.ts) for f in frames if f.anchor] == [0, 100, 200]
    burst = [f for f in frames if "an anchor shows only its start" in f.reason]
    assert len(burst) == 1, [(f.ts, f.reason) for f in frames]
    assert 140 <= burst[0].ts <= 150 and burst[0].reason.startswith("input burst")
