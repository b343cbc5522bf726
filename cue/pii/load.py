"""Loading Presidio (imported only by cue.pii.engine's first build)."""
from __future__ import annotations

import os
import sys
import threading
import types


def import_presidio() -> None:
    """Import Presidio (and with it spaCy, thinc and numpy) with numpy's OpenBLAS held to one
    thread. A scrubber does no linear algebra (spaCy's own math goes through blis), and
    OpenBLAS starting its thread pool when numpy loads costs ~50 ms of CPU in a cold
    `cue scrub`. OpenBLAS reads the variable once, as it loads, so it is set only for the
    import and only when nothing else decided: the person's own setting, numpy already
    loaded, or other threads running (the environment is not theirs to change under them)."""
    if ("OPENBLAS_NUM_THREADS" in os.environ or "numpy" in sys.modules
            or threading.active_count() > 1):
        import presidio_analyzer
        return
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    try:
        import presidio_analyzer  # noqa: F401
    finally:
        del os.environ["OPENBLAS_NUM_THREADS"]


def without_spacy_cli() -> None:
    """Let `import spacy` skip spaCy's command-line package, in a process that only scrubs
    without a spaCy model (the scrubber's child, cue.pii.worker). `spacy/__init__.py`
    imports `spacy.cli.info` for its `spacy.info()` helper, and with it the whole command
    line — typer, weasel, requests, jinja2, the download and training commands: ~0.25 s of
    a ~0.8 s Presidio import, none of which scrubbing touches (spaCy's own code imports
    nothing else from it). Here `spacy.cli` is a plain module whose `info` says it is not
    loaded, so nothing can half-work: `import spacy.cli.download` fails, and so would
    Presidio's `spacy.cli.download(model)` — which never runs here (no model; and cue never
    downloads at run time anyway). Does nothing once spaCy is imported. If a later spaCy
    needs more of its command line at import, the build fails and the caller builds in its
    own process (cue.pii.worker): slower, never weaker."""
    if "spacy" in sys.modules or "spacy.cli" in sys.modules:
        return

    def info(*args, **kwargs):
        raise RuntimeError("spaCy's command line is not loaded in cue's scrubber process")

    cli = types.ModuleType("spacy.cli", "A stand-in: see cue.pii.load.without_spacy_cli.")
    cli_info = types.ModuleType("spacy.cli.info", cli.__doc__)
    cli_info.info = info
    cli.info = cli_info
    sys.modules["spacy.cli"] = cli
    sys.modules["spacy.cli.info"] = cli_info
