"""What a capture platform provides (which one this machine has: cue.record.platform).

A backend grabs screens, reports foreground-window changes as they happen (no polling
where the platform can push), and counts key presses and clicks — counts only. The loop
(cue.record.loop) does everything else: change detection, exclusions, pause, writing.
Linux X11 is implemented (cue.record.x11); Wayland, macOS and Windows are named in
`cue.record.platform.detect()`'s refusal so another capture tool can write cue's input
contract instead.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable

from cue.core.errors import CueError, ExitCode
from cuectx.value import Value

CONTRACT_HINT = ("other capture tools can feed cue through its input contract "
                 "(README: \"Input contract\": a keyframe folder and an MCAP event log)")


class CaptureUnavailable(CueError):
    """This platform or session cannot be recorded by cue (a backend that is not there)."""

    exit_code = ExitCode.BACKEND


class WindowInfo(Value):
    """The foreground window: `app` is the application class (X11 WM_CLASS), `title` its
    window title. `app == ""` means no window has focus (the desktop)."""

    __slots__ = ("app", "exact", "instance", "other_titles", "title")

    def __init__(self, app: str, title: str, instance: str = "", exact: bool = True,
                 other_titles: tuple[str, ...] = ()) -> None:
        self.app = app
        self.title = title
        self.instance = instance  # X11 WM_CLASS instance name (xterm's `-name`); matched by exclusions
        self.exact = exact  # False: the title or class could not be fully decoded (best-effort text)
        # Other names the window carries (X11: WM_NAME when _NET_WM_NAME differs): never shown or
        # logged, only matched by exclusions — a window manager may display either.
        self.other_titles = other_titles


class Monitor(Value):
    __slots__ = ("height", "index", "left", "top", "width")

    def __init__(self, index: int, left: int, top: int, width: int, height: int) -> None:
        self.index = index  # 1-based, as the platform numbers them
        self.left = left
        self.top = top
        self.width = width
        self.height = height


class Grab:
    """One grabbed monitor. `small()` is a small grayscale copy for change detection (how
    it is made is the backend's business: it is only compared with other grabs from the
    same backend); `rgb()` the full image, built only when a keyframe is written."""

    def __init__(self, image):
        self._image = image

    @property
    def size(self) -> tuple[int, int]:
        return self._image.size

    def small(self):
        factor = max(1, min(8, min(self._image.size) // 64))
        small = self._image.reduce(factor) if factor > 1 else self._image
        return small.convert("L")

    def rgb(self):
        return self._image if self._image.mode == "RGB" else self._image.convert("RGB")


class CaptureBackend(ABC):
    """One platform's capture primitives. Used from one thread (the loop's), except that
    `start` may run its own threads that feed `window_changes` and the input counters."""

    name: str = "?"

    @abstractmethod
    def start(self, excluded: Callable[[WindowInfo], bool]) -> None:
        """Connect and begin following windows and input. `excluded(window)` is consulted
        as soon as the foreground changes: input is not counted while it is true."""

    @abstractmethod
    def stop(self) -> None:
        """Stop threads and close connections. Safe to call twice."""

    @abstractmethod
    def describe(self) -> str:
        """One line for people: display and monitors."""

    @abstractmethod
    def monitors(self) -> list[Monitor]:
        """The monitors to capture (one keyframe stream each)."""

    @abstractmethod
    def grab(self, monitor: Monitor) -> Grab:
        """One monitor, now."""

    @abstractmethod
    def active_window(self) -> WindowInfo:
        """The foreground window, read now (the pre-capture check)."""

    def visible_windows(self) -> list[WindowInfo]:
        """Windows that would appear in a screenshot (for exclusions); default: none known."""
        return []

    @abstractmethod
    def window_changes(self) -> list[tuple[float, WindowInfo]]:
        """(unix time, window) for each foreground/title change since the last call."""

    @abstractmethod
    def take_input_counts(self) -> tuple[int, int]:
        """(key presses, clicks) since the last call. Which keys is never known here."""

    @abstractmethod
    def set_input_paused(self, paused: bool) -> None:
        """While paused, input is not counted at all (counts are dropped at the source)."""

    @property
    def input_available(self) -> bool:
        return True
