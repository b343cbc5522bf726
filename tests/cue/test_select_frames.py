"""Frame selection on synthetic activity (bench/sessions.py, the fixed script) with known transitions."""
from __future__ import annotations

import itertools
import shutil
from pathlib import Path

import pytest
from PIL import Image

from bench.sessions import make_activity
from cue.core.db import connect
from cue.core.errors import CueError
from cue.frame_select import (
    DEDUPE_HAMMING,
    anchor_indexes,
    choose,
    select_digest_frames,
    select_frames,
    user_event_spike_score,
    visual_change_score,
    window_app_title_change_score,
)
from cue.inputs.events import Event
from cue.inputs.keyframes import Keyframe
from cue.inputs.pauses import pause, resume
from cue.select import features as frame_cache
from cue.select.features import FrameFeatures, hamming

START = 1_763_766_000.0


@pytest.fixture(scope="module")
def activity(tmp_path_factory):
    return make_activity(tmp_path_factory.mktemp("act"), START)


def _select(act, **kw):
    kw.setdefault("end", act.end)
    kw.setdefault("events_dir", act.events_dir)
    return select_frames(act.keyframes_dir, act.window_secs, kw.pop("max_frames", 10), **kw)


def _covers(frames, t, act, slack=None):
    slack = 2 * 5.0 if slack is None else slack
    return any(t <= f.ts <= t + slack for f in frames)


def _shown(frames, t, act):
    """Some frame shows the stretch a transition at `t` starts (up to the next one or the
    pause): the frame need not be the first after the switch (SPEC §4.2: an anchor inside
    the stretch already shows it)."""
    marks = sorted({tr.ts for tr in act.transitions} | {a for a, _ in act.paused} | {act.end})
    nxt = next(m for m in marks if m > t)
    return any(t <= f.ts < nxt or f.ts == nxt == act.end for f in frames)


def test_selection_covers_every_transition_keeps_anchors_and_is_chronological(activity):
    sel = _select(activity)
    frames = sel.frames
    assert len(frames) == 10
    for tr in activity.transitions:
        assert _shown(frames, tr.ts, activity), f"missed {tr.kind} at +{tr.ts - START:.0f}s"
    live = [f for f in activity.frames if not any(a <= f.ts <= b for a, b in activity.paused)]
    anchors = [f for f in frames if f.anchor]
    assert next(a.path for a in anchors) == live[0].path
    assert [a.path for a in anchors][-1] == live[-1].path
    mid = (live[0].ts + live[-1].ts) / 2
    assert any(abs(a.ts - mid) <= 5.0 for a in anchors)
    assert [f.ts for f in frames] == sorted(f.ts for f in frames)
    assert [f.index for f in frames] == list(range(10))
    for f in frames:
        assert f.offset_secs == pytest.approx(f.ts - sel.start, abs=1e-3)
        assert set(f.scores) == {"window_app_title_change", "user_event_spike",
                                 "visual_change", "text_density", "combined"}
        assert all(0.0 <= v <= 1.0 for v in f.scores.values())
        assert f.reason


def test_reasons_name_what_happened(activity):
    frames = _select(activity).frames
    by_offset = {round(f.ts - START): f for f in frames}
    assert by_offset[122].reason.startswith("app switch Code → Firefox; new segment")
    assert by_offset[122].app == "Firefox"
    assert by_offset[202].reason.startswith("screen changed")  # tab switch: no title change
    assert by_offset[202].scores["window_app_title_change"] == 0.0
    assert by_offset[202].scores["visual_change"] > 0.5
    assert next(f.reason for f in frames if f.anchor).startswith("anchor: first frame")
    typing = [f for f in frames if f.reason.startswith("input burst")]
    assert typing and any(a <= f.ts <= b + 2 for f in typing for a, b in activity.typing)


def test_paused_frames_and_events_never_surface(activity):
    sel = _select(activity)
    assert sel.paused == [activity.paused[0]]
    assert sel.paused_frames == len(activity.frames_in(*activity.paused[0])) == 16
    a, b = activity.paused[0]
    assert not any(a <= f.ts <= b for f in sel.frames)
    scenes = {f.path: f.segment for f in activity.frames}
    assert "private" not in {scenes[f.path] for f in sel.frames}
    # The Signal window event inside the pause is dropped: the switch reads Preview → Terminal.
    assert not any("Signal" in f.reason or f.app == "Signal" for f in sel.frames)
    after = [f for f in sel.frames if b <= f.ts < b + 160]  # the Terminal stretch
    assert any("app switch Preview → Terminal" in f.reason for f in after)
    # The events handed on for a timeline carry nothing from inside the pause either.
    assert sel.event_log and not any(a <= e.ts <= b for e in sel.event_log)
    assert {e.topic for e in sel.event_log} == {"/cue/window", "/cue/input"}


def test_pause_recorded_with_cue_pause_is_honoured(tmp_path):
    act = make_activity(tmp_path, START, pause_in_log=False)
    conn = connect()
    unpaused = _select(act, conn=conn)
    assert unpaused.paused_frames == 0  # the log alone says nothing about the pause
    pause(conn, now=act.start + 520)
    assert resume(conn, now=act.start + 600)
    sel = _select(act, conn=conn)
    assert sel.paused == [(act.start + 520, act.start + 600)]
    assert sel.paused_frames == 16
    assert not any(act.start + 520 <= f.ts <= act.start + 600 for f in sel.frames)
    # A pause --for that ran out ends by itself.
    pause(conn, for_secs=50, now=act.start + 100)
    sel = _select(act, conn=conn)
    assert (act.start + 100, act.start + 150) in sel.paused
    assert not any(act.start + 100 <= f.ts <= act.start + 150 for f in sel.frames)
    conn.close()


def test_non_anchors_are_not_near_duplicates_of_each_other(activity):
    frames = _select(activity).frames
    hashes = {f.path: frame_cache.compute_features(f.path).dhash for f in frames}
    picked = [f for f in frames if not f.anchor and not f.reason.startswith("top-up")]
    for i, a in enumerate(picked):
        for b in picked[i + 1:]:
            assert hamming(hashes[a.path], hashes[b.path]) > DEDUPE_HAMMING


def test_idle_window_is_topped_up_with_duplicates_spread_in_time(activity):
    # 400–520 s: nothing changes, so every non-anchor is a near-duplicate (the first
    # seconds still see the clicks from just before the idle stretch began).
    a, b = activity.idle[0]
    frames = select_digest_frames(activity.keyframes_dir, b - a - 15, 6, end=b - 1,
                                  events_dir=activity.events_dir)
    assert not any("app switch" in f.reason for f in frames)  # earlier switches stay earlier
    assert len(frames) == 6
    assert sum(f.anchor for f in frames) == 3
    topped = [f for f in frames if f.reason.startswith("top-up")]
    # Every stretch is shown by an anchor; what is left is near-duplicates, topped up.
    assert 2 <= len(topped) <= 3
    gaps = [y.ts - x.ts for x, y in itertools.pairwise(frames)]
    assert min(gaps) >= 10  # spread over the window, not bunched together


def test_window_with_fewer_frames_than_budget_returns_them_all(activity):
    frames = select_digest_frames(activity.keyframes_dir, 30, 10, end=START + 31,
                                  events_dir=activity.events_dir)
    assert [round(f.ts - START) for f in frames] == [2, 7, 12, 17, 22, 27]


@pytest.mark.parametrize("budget,anchors", [(1, 1), (2, 2), (3, 3), (4, 3)])
def test_small_budgets(activity, budget, anchors):
    frames = _select(activity, max_frames=budget).frames
    assert len(frames) == budget
    assert sum(f.anchor for f in frames) == anchors
    assert frames[-1].anchor and round(frames[-1].ts - START) == 897
    if budget >= 4:
        # The one free slot goes to the most telling segment no anchor shows: the
        # typing in Terminal, by its settled end rather than the switch into it.
        free = next(f for f in frames if not f.anchor)
        assert free.reason.startswith("input burst") and "settled end" in free.reason


def test_bad_arguments():
    with pytest.raises(CueError, match="at least 1"):
        select_frames(None, 900, 0)
    with pytest.raises(CueError, match="positive"):
        select_frames(None, -5)


def test_empty_window_and_missing_default_folders():
    sel = select_frames(None, 900, end=START)
    assert sel.frames == [] and sel.considered == 0
    assert any("no keyframe folder" in n for n in sel.notes)


def test_named_missing_folders_are_errors(tmp_path, activity):
    with pytest.raises(CueError, match="does not exist"):
        select_frames(tmp_path / "nope", 900, end=activity.end)
    with pytest.raises(CueError, match="does not exist"):
        select_frames(activity.keyframes_dir, 900, end=activity.end,
                      events_dir=tmp_path / "nope")


def test_no_event_log_selects_on_pixels_alone(activity):
    sel = select_frames(activity.keyframes_dir, activity.window_secs, end=activity.end)
    assert sel.events == 0
    # Without the log the pause is unknown, so only the pixels speak.
    # Without the log, typing is only small pixel changes, so the editor's stretches
    # compete with the switches; most switches are still shown.
    switches = [tr for tr in activity.transitions if tr.kind in ("app_switch", "tab_switch")]
    assert sum(_shown(sel.frames, tr.ts, activity) for tr in switches) >= len(switches) - 1


def test_crashed_event_log_is_read_as_far_as_it_got(tmp_path):
    act = make_activity(tmp_path, START, crashed_log=True)
    sel = _select(act)
    assert any("not closed cleanly" in n for n in sel.notes)
    assert sel.paused_frames == 16
    assert any(f.reason.startswith("app switch Code → Firefox") for f in sel.frames)


def test_unreadable_keyframe_is_skipped_not_fatal(activity, tmp_path):
    act = activity.clone(tmp_path)
    victim = act.frames_in(act.start + 120, act.start + 125)[0].path
    victim.write_bytes(victim.read_bytes()[:300])  # a truncated JPEG
    sel = _select(act)
    assert sel.unreadable == [victim]
    assert victim not in [f.path for f in sel.frames]
    assert any("could not be read" in n for n in sel.notes)
    assert _covers(sel.frames, act.start + 120, act, slack=15)


def test_hashes_are_cached_and_invalidated_when_a_file_changes(activity, tmp_path, monkeypatch):
    act = activity.clone(tmp_path)
    conn = connect()
    first = _select(act, conn=conn)
    assert conn.execute("SELECT count(*) FROM frame_cache").fetchone()[0] == 164

    def boom(path):
        raise AssertionError(f"decoded {path} again")

    monkeypatch.setattr(frame_cache, "compute_features", boom)
    again = _select(act, conn=conn)
    assert [f.path for f in again.frames] == [f.path for f in first.frames]

    changed = act.frames[10].path
    Image.new("RGB", (640, 400), (0, 200, 0)).save(changed, "JPEG")
    seen = []
    monkeypatch.setattr(frame_cache, "compute_features",
                        lambda p: seen.append(p) or FrameFeatures(0, 0.0, 640, 400))
    _select(act, conn=conn)
    assert seen == [changed]
    conn.close()


def test_cache_survives_a_relative_path(activity, tmp_path, monkeypatch):
    act = activity.clone(tmp_path)
    monkeypatch.chdir(tmp_path)
    conn = connect()
    a = select_frames(Path("keyframes"), act.window_secs, end=act.end, conn=conn)
    assert all(f.path.is_absolute() for f in a.frames)
    monkeypatch.setattr(frame_cache, "compute_features",
                        lambda p: pytest.fail("cache missed for an absolute path"))
    select_frames(act.keyframes_dir, act.window_secs, end=act.end, conn=conn)
    conn.close()


def test_mixed_formats_select_the_same_transitions(tmp_path):
    act = make_activity(tmp_path, START, fmt="png", interval=10.0)
    webp = tmp_path / "keyframes" / "x.webp"
    shutil.copy(act.frames[0].path, webp)  # a png named .webp: Pillow reads by content
    sel = _select(act)
    for tr in act.transitions:
        if tr.kind == "app_switch":
            assert _shown(sel.frames, tr.ts, act), tr


# ---------------------------------------------------------------- scorers, directly

def test_window_change_scorer():
    ev = [Event(1.0, "/cue/window", {"app": "A", "title": "x"}),
          Event(5.0, "/cue/window", {"app": "A", "title": "y"}),
          Event(9.0, "/cue/window", {"app": "B", "title": "y"}),
          Event(9.5, "/cue/input", {"keys": 3, "clicks": 0})]
    out = window_app_title_change_score([2.0, 6.0, 8.0, 10.0], ev)
    assert [s for s, _, _ in out] == [0.0, 0.6, 0.0, 1.0]
    assert out[3][1] == "app switch A → B" and out[3][2] == ("B", "y")
    # Events before the window's start set the scene but are not changes at its first frame.
    out = window_app_title_change_score([9.5, 10.0], ev, since=9.2)
    assert [s for s, _, _ in out] == [0.0, 0.0] and out[0][2] == ("B", "y")
    out = window_app_title_change_score([9.5], ev, since=8.0)
    assert out[0][0] == 1.0


def test_spike_scorer_is_relative_to_the_window():
    ev = [Event(float(t), "/cue/input", {"keys": 1, "clicks": 0}) for t in range(100)]
    ev += [Event(50.5, "/cue/input", {"keys": 40, "clicks": 2})]
    out = user_event_spike_score([20.0, 52.0, 80.0], sorted(ev, key=lambda e: e.ts))
    assert out[1][0] == 1.0 and out[0][0] == 0.0 and out[2][0] == 0.0
    assert out[1][1:] == (13 + 40, 2)  # 42 s … 54 s
    assert user_event_spike_score([1.0, 2.0], []) == [(0.0, 0, 0), (0.0, 0, 0)]


def test_visual_scorer():
    assert visual_change_score([0, 0, 0xFFFF_FFFF, 0xFFFF_FFFF]) == [
        (0.0, 0), (0.0, 0), (1.0, 32), (0.0, 0)]


def test_anchor_middle_is_nearest_the_midpoint_in_time():
    ts = [0.0, 1.0, 2.0, 3.0, 50.0, 100.0]
    assert anchor_indexes(ts, 10) == [0, 4, 5]
    assert anchor_indexes([5.0], 10) == [0]
    assert anchor_indexes([], 10) == []


def test_dedupe_beats_a_higher_score_then_top_up_fills_the_budget():
    def kf(t):
        return Keyframe(Path(f"/f/{t}.jpg"), float(t))

    a, x, y = 0, 0xFFFF_FFFF_0000_0000, 0x0000_0000_FFFF_FFFF
    x2 = x ^ 0b111  # Hamming distance 3 from x: a near-duplicate
    hashes = {0: a, 10: x, 20: a, 30: x2, 40: a, 50: y, 60: y, 70: a, 80: a}
    dense = {10, 30}
    usable = [(kf(t), FrameFeatures(h, 1.0 if t in dense else 0.0)) for t, h in hashes.items()]
    frames = choose(usable, [], 0.0, 5)
    assert [round(f.ts) for f in frames if f.anchor] == [0, 40, 80]
    picked = [round(f.ts) for f in frames if not f.anchor]
    # 30 scores as high as 10 but is its near-duplicate; 20 shows what the anchors at 0
    # and 40 already show (non-anchors are deduped against anchors too), so 50 is taken.
    assert picked == [10, 50]
    assert not any(f.reason.startswith("top-up") for f in frames)

    # Every non-anchor a duplicate of the first: dedupe under-fills, top-up refills.
    same = [(kf(t), FrameFeatures(x if t in (10, 30) else a, 0.0)) for t in (0, 10, 20, 30, 40)]
    frames = choose(same, [], 0.0, 7)
    assert len(frames) == 5
    assert [f.reason.startswith("top-up") for f in frames].count(True) == 1


def test_a_window_entirely_paused_selects_nothing(activity):
    a, b = activity.paused[0]
    sel = select_frames(activity.keyframes_dir, b - a - 10, end=b - 5,
                        events_dir=activity.events_dir)
    assert sel.frames == [] and sel.considered == sel.paused_frames > 0
    assert sel.event_log == [] or all(e.ts < a for e in sel.event_log)


def test_frame_cache_never_stores_keyframe_paths(tmp_path):
    """Privacy invariant: keyframe paths (they name the user) never enter the database."""
    from cue.core import db
    from cue.frame_select import select_digest_frames

    act = make_activity(tmp_path / "act", 1_700_000_000.0)
    bad = act.keyframes_dir / f"{int((act.start + 7) * 1000)}.jpg"
    bad.write_bytes(b"\xff\xd8 not really a jpeg")  # an unreadable frame: its error is cached too
    conn = db.connect(tmp_path / "cue.db")
    select_digest_frames(act.keyframes_dir, act.window_secs, end=act.end, events_dir=act.events_dir,
                         conn=conn)
    rows = conn.execute("SELECT * FROM frame_cache").fetchall()
    assert rows and any(r["error"] for r in rows)
    conn.close()
    raw = b"".join(p.read_bytes() for p in tmp_path.glob("cue.db*"))
    assert str(tmp_path).encode() not in raw
    assert bad.name.encode() not in raw
