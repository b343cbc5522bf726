"""Loading Presidio (imported only by cue.pii.engine's first build).

`import presidio_analyzer` costs ~0.8 s cold, and most of it is spaCy (with thinc, numpy,
and spaCy's command line), which Presidio's package imports for its spaCy, Stanza and
transformers NLP engines — whether or not an NLP engine is ever used. cue's engine uses
none without a spaCy model (the default: none is installed), so `import_presidio(None)`
imports Presidio without spaCy (`without_spacy`), and every recognizer and the
AnalyzerEngine are Presidio's own, unchanged. With a model, or wherever that cannot
apply, Presidio is imported as usual: slower, never weaker.
"""
from __future__ import annotations

import importlib
import os
import sys
import threading
import types


def import_presidio(spacy_model: str | None = None) -> None:
    """Import Presidio for an engine with `spacy_model` (None: no spaCy pipeline) — without
    spaCy when there is no model and it can (`_import_without_spacy`), else as usual."""
    if spacy_model is None and _import_without_spacy():
        return
    _import_with_one_blas_thread()


def _import_with_one_blas_thread() -> None:
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


# ------------------------------------------------------------ Presidio without spaCy
# What Presidio 2.2's modules take from spaCy as they are imported, all in its
# `presidio_analyzer.nlp_engine` package: Doc, Span, Token and Language name types in
# annotations; `blank` and `registry` are for the Stanza engine (which registers a spaCy
# tokenizer as it loads); the rest (`spacy.load`, `spacy.util.is_package`, `spacy.cli`) is
# looked up on the module only when a spaCy engine is built or used.
_SERVED = {
    "spacy": ("Language", "blank"),
    "spacy.tokens": ("Doc", "Span", "Token"),
    "spacy.language": ("Language",),
    "spacy.util": ("registry",),
}
# The modules allowed to hold a stand-in once the import is done: the NLP engines cue's
# engine does not build without a model, and the artifacts type that annotates with spaCy's.
_HOLDERS = frozenset(f"presidio_analyzer.nlp_engine.{name}" for name in (
    "nlp_artifacts", "spacy_nlp_engine", "stanza_nlp_engine", "transformers_nlp_engine"))

_importing = False  # the stand-ins are in sys.modules: nothing may reach through them yet


class _SpacyStandIn(types.ModuleType):
    """A spaCy module while Presidio imports: it serves only the names in `_SERVED`; any
    other name fails the import (which is then done as usual). Afterwards, out of
    sys.modules, any other name is looked up on the real module, imported then — so a spaCy
    engine built later in this process (CUE_SPACY_MODEL set in a test) is real spaCy's."""

    def __getattr__(self, name: str):
        if _importing or name.startswith("__"):
            raise AttributeError(f"{self.__name__}.{name}: cue imports Presidio without spaCy "
                                 "(cue.pii.load)")
        return getattr(importlib.import_module(self.__name__), name)


class _Named:
    """A spaCy name Presidio binds as it loads but cue's engine never uses (see _SERVED)."""


class _Registry:
    """spaCy's function registry, as Presidio's Stanza engine decorates with it at import:
    the decorator leaves the function as it is and registers nothing (cue builds no Stanza
    engine, and Stanza is not installed with cue)."""

    def __getattr__(self, kind: str):
        if kind.startswith("__"):
            raise AttributeError(kind)
        return lambda *args, **kwargs: (lambda func: func)


def _blank(*args, **kwargs):
    if _importing:
        raise RuntimeError("spacy.blank called while cue imports Presidio without spaCy")
    return importlib.import_module("spacy").blank(*args, **kwargs)


def _stand_ins() -> dict[str, _SpacyStandIn]:
    doc = "A stand-in while Presidio imports without spaCy: see cue.pii.load."
    modules = {name: _SpacyStandIn(name, doc) for name in _SERVED}
    for name, names in _SERVED.items():
        module = modules[name]
        for attr in names:
            value = {"blank": _blank, "registry": _Registry()}.get(attr)
            if value is None:
                value = type(attr, (_Named,), {"__module__": name, "__doc__": _Named.__doc__})
            setattr(module, attr, value)
    for name in ("tokens", "language", "util"):
        setattr(modules["spacy"], name, modules[f"spacy.{name}"])
    modules["spacy"].Language = modules["spacy.language"].Language
    return modules


def _import_without_spacy() -> bool:
    """Import Presidio with stand-ins for the spaCy modules it imports; True if that worked.

    Applies only in a process with nothing else running that could import spaCy meanwhile
    (one thread; spaCy and Presidio not imported yet). If the import fails with the
    stand-ins (a Presidio that wants more of spaCy), or leaves one anywhere but in
    Presidio's NLP-engine modules (`_HOLDERS`), every module it imported is forgotten and
    the caller imports as usual. Either way the stand-ins leave sys.modules: a later
    `import spacy` is real spaCy.
    """
    global _importing
    if (threading.active_count() > 1 or "spacy" in sys.modules
            or "presidio_analyzer" in sys.modules):
        return False
    before = set(sys.modules)
    stand_ins = _stand_ins()
    sys.modules.update(stand_ins)
    _importing = True
    try:
        import presidio_analyzer  # noqa: F401
        ok = not _stand_ins_held(set(sys.modules) - before - set(stand_ins), stand_ins)
    except Exception:  # noqa: BLE001 - any failure here means: import as usual
        ok = False
    finally:
        _importing = False
        for name in stand_ins:
            if sys.modules.get(name) is stand_ins[name]:
                del sys.modules[name]
    if not ok:
        for name in set(sys.modules) - before:
            del sys.modules[name]
    return ok


def _stand_ins_held(new_modules: set[str], stand_ins: dict) -> bool:
    """Whether a module imported with the stand-ins, other than `_HOLDERS`, holds one."""
    held = {id(m) for m in stand_ins.values()}
    held |= {id(v) for m in stand_ins.values() for v in vars(m).values()
             if isinstance(v, type) and issubclass(v, _Named) or isinstance(v, _Registry)}
    held.add(id(_blank))
    for name in new_modules - _HOLDERS:
        module = sys.modules.get(name)
        namespace = getattr(module, "__dict__", None) or {}
        if any(id(value) in held for value in namespace.values()):
            return True
    return False
