"""Properties of frame selection, keyframe names and pause intervals (hypothesis)."""
from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from cue.frame_select import DEDUPE_HAMMING, choose
from cue.inputs.events import Event
from cue.inputs.keyframes import Keyframe, capture_time_from_name
from cue.inputs.pauses import contains, merge
from cue.select.features import FrameFeatures, hamming

frame_sets = st.lists(
    st.tuples(st.integers(0, 2**64 - 1), st.floats(0, 0.4), st.sampled_from(["A", "B", "C"])),
    min_size=0, max_size=40)


@settings(max_examples=200, deadline=None)
@given(frame_sets, st.integers(1, 12), st.randoms(use_true_random=False))
def test_choose_invariants(frames, budget, rnd):
    usable = []
    events = []
    for i, (h, dens, app) in enumerate(frames):
        ts = 1000.0 + i * 5
        usable.append((Keyframe(Path(f"/k/{i}.jpg"), ts), FrameFeatures(h, dens)))
        events.append(Event(ts - 1, "/cue/window", {"app": app, "title": "t"}))
        events.append(Event(ts - 0.5, "/cue/input", {"keys": rnd.randint(0, 20), "clicks": 0}))
    out = choose(usable, events, 1000.0, budget)
    n = len(usable)
    assert len(out) == min(n, budget)
    assert [f.ts for f in out] == sorted({f.ts for f in out})  # chronological, no repeats
    assert [f.index for f in out] == list(range(len(out)))
    if n:
        ends = {usable[0][0].ts, usable[-1][0].ts}
        if budget >= 2:
            assert ends <= {f.ts for f in out}  # first and last anchors always kept
        assert out[-1].ts == usable[-1][0].ts
        assert sum(f.anchor for f in out) == min(n, budget, 3) or n < 3
    hashes = {k.ts: f.dhash for k, f in usable}
    chosen = [f for f in out if not f.anchor and not f.reason.startswith("top-up")]
    for i, a in enumerate(chosen):
        for b in chosen[i + 1:]:
            assert hamming(hashes[a.ts], hashes[b.ts]) > DEDUPE_HAMMING
    # Non-anchors are distinct from the anchors too.
    for c in chosen:
        for a in (f for f in out if f.anchor):
            assert hamming(hashes[c.ts], hashes[a.ts]) > DEDUPE_HAMMING
    # Top-up only happens when distinct frames ran out.
    if any(f.reason.startswith("top-up") for f in out):
        shown = [f for f in out if not f.reason.startswith("top-up")]
        left = [k.ts for k, _ in usable if k.ts not in {f.ts for f in out}]
        for ts in left:
            assert any(hamming(hashes[ts], hashes[c.ts]) <= DEDUPE_HAMMING for c in shown)


@given(st.integers(1_000_000_000_000, 9_999_999_999_000))  # 2001 … 2286
def test_millisecond_names_round_trip(ms):
    assert capture_time_from_name(f"{ms}.jpg") == ms / 1000


@given(st.datetimes(min_value=datetime(2001, 9, 10), max_value=datetime(2286, 1, 1)))
def test_iso_names_round_trip(dt):
    dt = dt.replace(tzinfo=UTC, microsecond=dt.microsecond // 1000 * 1000)
    name = dt.strftime("%Y-%m-%dT%H-%M-%S.") + f"{dt.microsecond // 1000:03d}Z.png"
    assert abs(capture_time_from_name(name) - dt.timestamp()) < 1e-3


spans = st.lists(st.tuples(st.floats(-50, 150), st.floats(0, 60)).map(lambda t: (t[0], t[0] + t[1])),
                 max_size=12)


@given(spans, st.floats(0, 100))
def test_merge_keeps_exactly_the_covered_points(raw, probe):
    merged = merge(raw, 0.0, 100.0)
    assert all(a <= b for a, b in merged)
    assert all(merged[i][1] < merged[i + 1][0] for i in range(len(merged) - 1))
    assert contains(merged, probe) == any(a <= probe <= b for a, b in raw)
