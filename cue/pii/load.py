"""Loading Presidio (imported only by cue.pii.engine's first build).

`import presidio_analyzer` costs ~0.9 s cold, and most of it is what cue's engine never
uses without a spaCy model (the default: none is installed): spaCy (with thinc, numpy and
spaCy's command line), which Presidio's package imports for its NLP engines whether or not
one is used; its URL recognizer's patterns, checked as the class is defined; and the
pydantic models that validate configuration files. So `import_presidio(None)` imports
Presidio with stand-ins for those modules (`_import_with_stand_ins`, `_SERVED`), and every
recognizer cue registers and the AnalyzerEngine are Presidio's own, unchanged. With a
model, or wherever that cannot apply, Presidio is imported as usual: slower, never weaker.
"""
from __future__ import annotations

import importlib
import os
import sys
import threading
import types


def import_presidio(spacy_model: str | None = None) -> None:
    """Import Presidio for an engine with `spacy_model` (None: no spaCy pipeline) — with
    stand-ins for what such an engine never uses when there is no model and it can
    (`_import_with_stand_ins`), else as usual."""
    if spacy_model is None and _import_with_stand_ins():
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


# ------------------------------------------------------------ Presidio with stand-ins
# What Presidio 2.2's modules take, as they are imported, from the modules it is imported
# without. From spaCy, all in `presidio_analyzer.nlp_engine`: Doc, Span, Token and Language
# name types in annotations; `blank` and `registry` are for the Stanza engine (which
# registers a spaCy tokenizer as it loads); the rest (`spacy.load`, `spacy.util.is_package`,
# `spacy.cli`) is looked up on the module only when a spaCy engine is built or used.
# From Presidio itself, classes cue's engine never uses, each costly to define:
# - its URL recognizer (a URL is not PII; cue's own finders take the URLs that are): the
#   class body compiles four patterns over ~1,500 top-level domains, case-insensitively,
#   to check them (~0.1–0.15 s);
# - the pydantic models that validate configuration files and an NLP engine's NER settings
#   (cue builds its engine in code, with no NLP engine unless a spaCy model is set): with
#   pydantic itself, ~0.1 s.
# Those stand-ins are classes that are the real class when used (cue.pii.load._Deferred).
_PRESIDIO = "presidio_analyzer."
_URL = _PRESIDIO + "predefined_recognizers.generic.url_recognizer"
_SERVED = {
    "spacy": ("Language", "blank"),
    "spacy.tokens": ("Doc", "Span", "Token"),
    "spacy.language": ("Language",),
    "spacy.util": ("registry",),
    _URL: ("UrlRecognizer",),
    _PRESIDIO + "nlp_engine.ner_model_configuration": ("NerModelConfiguration",),
    _PRESIDIO + "input_validation": ("ConfigurationValidator",),
}
# The modules allowed to hold a stand-in once the import is done: the NLP engines and their
# provider (cue's engine builds none without a model), the artifacts type that annotates
# with spaCy's, the packages that list Presidio's recognizers, the GLiNER recognizer (not
# cue's), and the providers that build an engine from configuration files.
_HOLDERS = frozenset(_PRESIDIO + name for name in (
    "nlp_engine", "nlp_engine.nlp_artifacts", "nlp_engine.spacy_nlp_engine",
    "nlp_engine.stanza_nlp_engine", "nlp_engine.transformers_nlp_engine",
    "nlp_engine.nlp_engine_provider", "predefined_recognizers",
    "predefined_recognizers.generic", "predefined_recognizers.ner.gliner_recognizer",
    "analyzer_engine_provider", "recognizer_registry.recognizer_registry_provider"))

_importing = False  # the stand-ins are in sys.modules: nothing may reach through them yet


class _StandIn(types.ModuleType):
    """A module while Presidio imports: it serves only the names in `_SERVED`; any other
    name (or a submodule) fails the import, which is then done as usual. Afterwards, out of
    sys.modules, any other name is looked up on the real module, imported then — so a spaCy
    engine built later in this process (a spaCy model set in a test) is real spaCy's."""

    def __getattr__(self, name: str):
        if _importing or name.startswith("__"):
            raise AttributeError(f"{self.__name__}.{name}: cue imports Presidio without it "
                                 "(cue.pii.load)")
        return getattr(_real(self.__name__), name)


def _real(module: str) -> types.ModuleType:
    if _importing:
        raise RuntimeError(f"{module} used while cue imports Presidio without it")
    return importlib.import_module(module)


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
    return _real("spacy").blank(*args, **kwargs)


class _DeferredType(type):
    def __getattr__(cls, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(cls._real_class(), name)


class _Deferred(metaclass=_DeferredType):
    """A Presidio class whose module is imported when the class is first used: calling it
    (`UrlRecognizer(...)`) returns the real class's instance, and its attributes
    (`ConfigurationValidator.validate_file_path`) are the real class's. Not to subclass."""

    def __new__(cls, *args, **kwargs):
        return cls._real_class()(*args, **kwargs)

    @classmethod
    def _real_class(cls) -> type:
        return getattr(_real(cls.__module__), cls.__name__)

    def __init_subclass__(cls, **kwargs):
        if cls.__module__ not in _SERVED:  # only the stand-ins made below
            raise TypeError(f"cue.pii.load stands in for {cls.__name__}: not to subclass")


def _stand_ins() -> dict[str, _StandIn]:
    doc = "A stand-in while Presidio imports: see cue.pii.load."
    modules = {name: _StandIn(name, doc) for name in _SERVED}
    for name, names in _SERVED.items():
        for attr in names:
            if attr == "blank":
                value = _blank
            elif attr == "registry":
                value = _Registry()
            else:
                base = _Deferred if name.startswith(_PRESIDIO) else _Named
                value = type(base)(attr, (base,), {"__module__": name, "__doc__": base.__doc__})
            setattr(modules[name], attr, value)
    for name in ("tokens", "language", "util"):
        setattr(modules["spacy"], name, modules[f"spacy.{name}"])
    modules["spacy"].Language = modules["spacy.language"].Language
    return modules


def _import_with_stand_ins() -> bool:
    """Import Presidio with stand-ins for spaCy's modules and some of its own (`_SERVED`);
    True if that worked.

    Applies only in a process with nothing else running that could import those meanwhile
    (one thread; spaCy and Presidio not imported yet). If the import fails with the
    stand-ins (a Presidio that wants more of them), or leaves one anywhere but in the
    modules listed in `_HOLDERS`, every module it imported is forgotten and the caller
    imports as usual. Either way the stand-ins leave sys.modules: a later `import spacy` is
    real spaCy.
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
    return bool(_holders(new_modules, stand_ins) - _HOLDERS)


def _holders(new_modules: set[str], stand_ins: dict) -> set[str]:
    held = {id(m) for m in stand_ins.values()}
    held |= {id(v) for m in stand_ins.values() for v in vars(m).values()
             if not isinstance(v, (str, types.ModuleType)) and v is not None}
    return {name for name in new_modules
            if any(id(value) in held for value in
                   (getattr(sys.modules.get(name), "__dict__", None) or {}).values())}
