"""Which windows are never captured: decided from the window's app and title, before any
screenshot is taken (a frame that is never grabbed cannot leak).

`record.exclude_apps` is a comma-separated list matched case-insensitively against the
whole app class or instance (X11 WM_CLASS: `KeePassXC`, `keepassxc`); `record.exclude_titles`
is one regular expression searched in the title (case-insensitive unless it says
otherwise), against the title as decoded and against its NFKC form (full-width letters,
compatibility characters) — and against every other title the window carries (X11's
WM_NAME beside _NET_WM_NAME). A window whose title or class could not be decoded
(`WindowInfo.exact` false) is matched on its legible text and, with
`record.exclude_undecodable` (the default), excluded outright. Title markers for private
browsing are not reliable (a browser may not put one in the title), so the defaults (in
cue.core.config, with the settings) lean towards excluding too much.
"""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from cue.core.config import compile_titles
from cue.record.backend import WindowInfo
from cuectx.value import Value

EXCLUDED = "[excluded]"


def split_apps(text: str) -> list[str]:
    return [a.strip() for a in text.split(",") if a.strip()]


class Exclusions(Value):
    __slots__ = ("apps", "titles", "undecodable")

    def __init__(self, apps: frozenset[str], titles: re.Pattern[str] | None,
                 undecodable: bool = True) -> None:
        self.apps = apps
        self.titles = titles
        self.undecodable = undecodable  # exclude a window whose title/class cue could not decode

    @classmethod
    def from_settings(cls, apps: str, titles: str, undecodable: bool = True) -> Exclusions:
        return cls(frozenset(a.casefold() for a in split_apps(apps)), compile_titles(titles),
                   undecodable)

    def __call__(self, window: WindowInfo) -> bool:
        return self.excludes(window)

    def excludes(self, window: WindowInfo) -> bool:
        if self.undecodable and not window.exact:
            return True
        for name in (window.app, window.instance):
            if name and (name.casefold() in self.apps
                         or unicodedata.normalize("NFKC", name).casefold() in self.apps):
                return True
        if self.titles is None:
            return False
        return any(self.titles.search(t) or self.titles.search(unicodedata.normalize("NFKC", t))
                   for t in (window.title, *window.other_titles) if t)

    def any_excluded(self, windows: Iterable[WindowInfo]) -> bool:
        return any(self.excludes(w) for w in windows)
