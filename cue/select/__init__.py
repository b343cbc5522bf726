"""cue.select: pick the few keyframes worth showing a vision model for one time window.

The seed's algorithm, judged in context (SPEC §4.2; `select_frames`):

1. Keyframes captured in [end - window_secs, end]; frames inside paused intervals
   (`cue.inputs.pauses.paused_intervals`) and unreadable images are dropped first.
2. Protected anchors: the first frame, the frame nearest the middle of the time span,
   and the last frame. Anchors are never deduped or dropped.
3. Every frame is scored by the four scorers, each 0..1, combined with WEIGHTS:
   window_app_title_change_score (a blip's change discounted), user_event_spike_score,
   visual_change_score, text_density_score.
4. The frames are cut into segments — stretches between real changes (`find_segments`):
   window changes, screens that are no near-duplicate of the previous one, runs of small
   changes (scrolling, typing) that end on a settled screen. A frame's layout (column
   means + gray histogram) tells one document scrolled from another tab or page: a long
   scroll is one segment, a same-title tab change a new one. Each segment has a settled
   frame and a priority (its length, its input, whether it moved; blips discounted).
5. A segment an anchor is in is shown. Every activity gets a frame before any gets a
   second: a segment that continues what a taken frame shows (same window stretch, same
   layout) waits for the others. Within that, segments are taken by priority, each by its
   settled frame, skipping a frame within dhash ≤ 4 (and the same layout) of any frame
   taken (anchors too: the same screen again is shown already); a segment that looks like a frame taken in the
   same window ranks lower.
6. Slots left: stretches not shown yet (short ones, then blips), then the frame least like
   the chosen ones; then, only near-duplicates being left, the top-up (spread in time).
7. The result is sorted chronologically; each frame carries its scores and a reason that
   says which rule decided.

Modules, bottom to top: `features` (dhash, text density and layout per frame, cached in cue.db),
`scores` (the four scorers), `segments` (stretches between real changes), `choose`
(anchors, one frame per segment, extras; `select_frames`, the entry). `cue.frame_select`
re-exports them under the seed's name.
"""
