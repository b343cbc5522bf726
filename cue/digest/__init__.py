"""cue.digest: from screen activity to text — the digest and what is built on digests.

    run.py               the digest pipeline (plan_digest, run_digest) and its `digests` rows
    timeline.py          the event log as a compact, title-scrubbed timeline for the prompt
    image_preprocess.py  a keyframe → the JPEG bytes a vision model gets
    memory.py            digests folded into memory.md (`cue memory`)
    suggest.py           next steps from the memory and recent digests (`cue suggest`)
    backfill.py          re-scrubs stored digests and memory when the scrubber changes

The seed's `cue.digest` names (run_digest, plan_digest, …) are re-exported here.
"""
from __future__ import annotations

from cue.digest.run import (
    NO_ACTIVITY,
    PROMPT,
    Digest,
    DigestPlan,
    PlannedFrame,
    get_digest,
    latest_digest,
    list_digests,
    plan_digest,
    run_digest,
    store_digest,
    write_digest_md,
)

__all__ = ["NO_ACTIVITY", "PROMPT", "Digest", "DigestPlan", "PlannedFrame", "get_digest",
           "latest_digest", "list_digests", "plan_digest", "run_digest", "store_digest",
           "write_digest_md"]
