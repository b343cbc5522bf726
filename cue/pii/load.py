"""Loading Presidio (imported only by cue.pii.engine's first build).

Presidio is imported through its public package, as its documentation shows; the version
range cue was tested with is pinned in pyproject.toml. The one thing done around the
import: numpy's OpenBLAS held to one thread while it loads (see below).
"""
from __future__ import annotations

import os
import sys
import threading


def import_presidio(spacy_model: str | None = None) -> None:
    """Import Presidio (`spacy_model`: the engine's spaCy pipeline, None for none; the import
    is the same either way) with numpy's OpenBLAS held to one thread. A scrubber does no
    linear algebra (spaCy's own math goes through blis), and OpenBLAS starting its thread
    pool when numpy loads costs ~50 ms of CPU in a cold `cue scrub`. OpenBLAS reads the
    variable once, as it loads, so it is set only for the import and only when nothing else
    decided: the person's own setting, numpy already loaded, or other threads running (the
    environment is not theirs to change under them)."""
    if ("OPENBLAS_NUM_THREADS" in os.environ or "numpy" in sys.modules
            or threading.active_count() > 1):
        import presidio_analyzer
        return
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    try:
        import presidio_analyzer  # noqa: F401
    finally:
        del os.environ["OPENBLAS_NUM_THREADS"]
