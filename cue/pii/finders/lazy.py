"""Regular expressions compiled on first use.

A cold scrub pays for every pattern it compiles, and most finders never run on a given
text: their cheap trigger (a Hangul syllable, "://", a card word) is not in it. Korean
names and addresses alone were ~35 ms of compiling at import. `lazy_re` stands in for
`re.compile`: the same pattern and flags, compiled the first time it is used, then that
`re.Pattern` answers (`search`, `finditer`, `groupindex`, `pattern` …). Two threads that
use it first at once both compile it; both results are the same pattern.
"""
from __future__ import annotations

import re


class LazyPattern:
    __slots__ = ("_args", "_compiled")

    def __init__(self, pattern: str, flags: int = 0):
        self._args = (pattern, flags)
        self._compiled: re.Pattern | None = None

    def compiled(self) -> re.Pattern:
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(*self._args)
        return compiled

    def __getattr__(self, name: str):
        return getattr(self.compiled(), name)

    def __repr__(self) -> str:
        return f"lazy_re({self._args[0]!r})"


def lazy_re(pattern: str, flags: int = 0) -> LazyPattern:
    """`re.compile(pattern, flags)`, done when the pattern is first used."""
    return LazyPattern(pattern, flags)
