"""Finder patterns compile on first use (cue.pii.finders.lazy): a cold scrub compiles only
what its text reaches past a trigger. Every pattern is still checked — here, not at import."""
from __future__ import annotations

import importlib
import pkgutil
import re

from cue.pii.finders.lazy import LazyPattern, lazy_re


def test_every_finder_pattern_compiles():
    """Lazy patterns are checked here rather than at import."""
    from cue.pii import finders

    seen = 0
    for info in pkgutil.iter_modules(finders.__path__):
        module = importlib.import_module(f"cue.pii.finders.{info.name}")
        for value in vars(module).values():
            for pattern in _patterns(value):
                assert isinstance(pattern.compiled(), re.Pattern)
                seen += 1
    assert seen > 50


def _patterns(value):
    if isinstance(value, LazyPattern):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _patterns(item)
    elif isinstance(value, type):
        for attr in vars(value).values():
            if isinstance(attr, LazyPattern):
                yield attr


def test_a_lazy_pattern_is_the_pattern():
    lazy = lazy_re(r"(?P<v>\d+)-x", re.IGNORECASE)
    assert lazy._compiled is None
    assert [m.group("v") for m in lazy.finditer("1-X 22-x")] == ["1", "22"]
    assert lazy.pattern == r"(?P<v>\d+)-x" and lazy.groupindex == {"v": 1}
    assert lazy.flags == re.compile(r"(?P<v>\d+)-x", re.IGNORECASE).flags


def test_every_recognizer_pattern_compiles():
    from cue.pii.engine import context_recognizers
    from cue.pii.finders.recognizers import custom_recognizers

    checked = 0
    for recognizer in [*custom_recognizers("en"), *context_recognizers("en")]:
        for pattern in (getattr(recognizer, "regex", None), getattr(recognizer, "trigger", None)):
            if pattern is not None:
                assert isinstance(pattern.compiled(), re.Pattern), recognizer.name
                checked += 1
    assert checked > 20
