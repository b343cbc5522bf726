"""The seed's name for frame selection: everything is in `cue.select` (features, scores,
segments, choose); this module re-exports it so the seed still reads as a map of the code."""
from __future__ import annotations

from cue.select.choose import (
    SIMILAR_DISCOUNT,
    SIMILAR_HAMMING,
    WINDOW_LOOKBACK_SECS,
    SelectedFrame,
    Selection,
    anchor_indexes,
    choose,
    choose_with_segments,
    select_digest_frames,
    select_frames,
)
from cue.select.features import FrameFeatures, features_for, hamming
from cue.select.scores import (
    BLIP_DISCOUNT,
    BLIP_SECS,
    WEIGHTS,
    text_density_score,
    user_event_spike_score,
    visual_change_score,
    window_app_title_change_score,
)
from cue.select.segments import DEDUPE_HAMMING, FrameSegment, find_segments, score_frames

__all__ = [
    "BLIP_DISCOUNT", "BLIP_SECS", "DEDUPE_HAMMING", "SIMILAR_DISCOUNT", "SIMILAR_HAMMING",
    "WEIGHTS", "WINDOW_LOOKBACK_SECS", "FrameFeatures", "FrameSegment", "SelectedFrame",
    "Selection", "anchor_indexes", "choose", "choose_with_segments", "features_for",
    "find_segments", "hamming", "score_frames", "select_digest_frames", "select_frames",
    "text_density_score", "user_event_spike_score", "visual_change_score",
    "window_app_title_change_score",
]
