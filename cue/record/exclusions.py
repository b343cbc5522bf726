"""Which windows are never captured: decided from the window's app and title, before any
screenshot is taken (a frame that is never grabbed cannot leak).

`record.exclude_apps` is a comma-separated list matched case-insensitively against the
whole app class or instance (X11 WM_CLASS: `KeePassXC`, `keepassxc`); `record.exclude_titles`
is one regular expression searched in the title (case-insensitive unless it says
otherwise). Title markers for private browsing are not reliable (a browser may not put one
in the title), so the defaults (in cue.core.config, with the settings) lean towards
excluding too much.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from cue.core.config import compile_titles
from cue.record.backend import WindowInfo

EXCLUDED = "[excluded]"

def split_apps(text: str) -> list[str]:
    return [a.strip() for a in text.split(",") if a.strip()]


@dataclass(frozen=True)
class Exclusions:
    apps: frozenset[str]
    titles: re.Pattern[str] | None

    @classmethod
    def from_settings(cls, apps: str, titles: str) -> Exclusions:
        return cls(frozenset(a.casefold() for a in split_apps(apps)), compile_titles(titles))

    def __call__(self, window: WindowInfo) -> bool:
        return self.excludes(window)

    def excludes(self, window: WindowInfo) -> bool:
        if window.app and window.app.casefold() in self.apps:
            return True
        if window.instance and window.instance.casefold() in self.apps:
            return True
        return bool(self.titles and window.title and self.titles.search(window.title))

    def any_excluded(self, windows: Iterable[WindowInfo]) -> bool:
        return any(self.excludes(w) for w in windows)
