"""The capture loop: what to write, and when.

Every second: the pause state (`cue pause`), window changes the backend has pushed, and the
input counts of that second. Every `interval` (× IDLE_SLOWDOWN after IDLE_AFTER_SECS without
input or window changes; activity brings it back at once): the pre-capture privacy check,
then one grab per monitor; a keyframe is written only when the screen moved (dhash distance over
`change_threshold` from the last *written* frame), the foreground window changed, or — while
the user is active — `heartbeat` seconds have passed. A screen that keeps changing is
written when it settles (a grab equal to the one before), or every `min_gap` seconds. Every hour: `cue prune`.

Nothing is captured, counted or logged while paused, and no screenshot is taken while an
excluded window is in front or visible (its window event reads `[excluded]`).
"""
from __future__ import annotations

import io
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

from cue.core import paths
from cue.core.config import Config, capture_folders
from cue.core.sizes import human_size, parse_size
from cue.core.timespec import parse_duration
from cue.inputs.events import TOPIC_INPUT, TOPIC_PAUSE, TOPIC_WINDOW
from cue.record import prune
from cue.record.backend import CaptureBackend, Grab, Monitor, WindowInfo
from cue.record.exclusions import EXCLUDED, Exclusions
from cue.record.writer import HourlyLog, keyframe_path, private_dir, write_status
from cuectx.files import replace_file
from cuectx.value import Value

PRUNE_EVERY_SECS = 3600.0
IDLE_AFTER_SECS = 60.0  # no input or window change for this long: look less often…
IDLE_SLOWDOWN = 5  # …every interval × this (a changed screen is still caught, just later)
STATUS_EVERY_SECS = 5.0
HASH_SIZE = 16  # 16×16 dhash = 256 bits over the whole monitor


class RecordSettings(Value):
    __slots__ = ("change_threshold", "events", "exclusions", "heartbeat", "home", "interval",
                 "keep_secs", "keyframes", "max_bytes", "max_width", "min_gap", "quality")

    def __init__(self, keyframes: Path, events: Path, home: Path, exclusions: Exclusions,
                 interval: float = 2.0, heartbeat: float = 60.0, change_threshold: int = 6,
                 max_width: int = 1920, quality: int = 70, min_gap: float = 10.0,
                 keep_secs: float = 7 * 86400.0, max_bytes: int = 2 * 10**9) -> None:
        self.keyframes = keyframes
        self.events = events
        self.home = home
        self.exclusions = exclusions
        self.interval = interval
        self.heartbeat = heartbeat
        self.change_threshold = change_threshold
        self.max_width = max_width
        self.quality = quality
        self.min_gap = min_gap  # a screen still changing gets a keyframe at least this often
        self.keep_secs = keep_secs
        self.max_bytes = max_bytes


def record_settings(config: Config) -> RecordSettings:
    """The recorder's settings from cue's config (record.*, the capture folders)."""
    keyframes, events = capture_folders(config)
    return RecordSettings(
        keyframes=keyframes, events=events, home=paths.home(),
        exclusions=Exclusions.from_settings(config["record.exclude_apps"],
                                            config["record.exclude_titles"],
                                            config["record.exclude_undecodable"]),
        interval=config["record.interval"], heartbeat=config["record.heartbeat"],
        change_threshold=config["record.change_threshold"], max_width=config["record.max_width"],
        quality=config["record.quality"], keep_secs=parse_duration(config["record.keep"]),
        max_bytes=parse_size(config["record.max_disk"]))


class Stats(Value):
    __slots__ = ("events", "excluded_skips", "frame_bytes", "frames", "grabs", "last_event",
                 "last_frame", "notes", "paused_ticks", "pruned_bytes", "pruned_files", "started",
                 "unchanged")

    def __init__(self, started: float = 0.0, frames: int = 0, frame_bytes: int = 0, events: int = 0,
                 grabs: int = 0, unchanged: int = 0, excluded_skips: int = 0, paused_ticks: int = 0,
                 last_frame: float | None = None, last_event: float | None = None,
                 pruned_files: int = 0, pruned_bytes: int = 0,
                 notes: list[str] | None = None) -> None:
        self.started = started
        self.frames = frames
        self.frame_bytes = frame_bytes
        self.events = events
        self.grabs = grabs
        self.unchanged = unchanged
        self.excluded_skips = excluded_skips
        self.paused_ticks = paused_ticks
        self.last_frame = last_frame
        self.last_event = last_event
        self.pruned_files = pruned_files
        self.pruned_bytes = pruned_bytes
        self.notes = [] if notes is None else notes


def frame_hash(grab: Grab):
    """dhash (HASH_SIZE²) of the grab's small grayscale copy (dhash's own resize from full
    size would cost ~20× more)."""
    import imagehash

    return imagehash.dhash(grab.small(), hash_size=HASH_SIZE)


def encode_jpeg(image, max_width: int, quality: int) -> bytes:
    from PIL import Image

    if image.width > max_width:
        height = max(1, round(image.height * max_width / image.width))
        image = image.resize((max_width, height), Image.Resampling.LANCZOS, reducing_gap=2.0)
    buf = io.BytesIO()
    image.save(buf, format="JPEG", quality=quality)
    return buf.getvalue()


class Recorder:
    def __init__(self, backend: CaptureBackend, settings: RecordSettings, *,
                 is_paused: Callable[[], bool], clock: Callable[[], float] = time.time,
                 say: Callable[[str], None] = lambda _: None,
                 on_start: Callable[[], None] | None = None):
        self.backend = backend
        self.on_start = on_start
        self.s = settings
        self.is_paused = is_paused
        self.clock = clock
        self.say = say
        self.stats = Stats()
        self.paused = False
        self.logged: WindowInfo | None = None  # the window as last written ([excluded] or real)
        self.window_news = False  # the foreground changed since the last keyframe
        self.last_activity = float("-inf")
        self.hashes: dict[int, object] = {}  # per monitor: the last keyframe's hash
        self.previous: dict[int, object] = {}  # per monitor: the last grab's hash
        self.last_frame_at: dict[int, float] = {}
        self.log = HourlyLog(settings.events, on_open=self._restate)
        self._day_dirs: set[Path] = set()
        self.monitors: list[Monitor] = []

    # ------------------------------------------------------------------ events
    def _write(self, topic: str, data: dict, ts: float) -> None:
        self.log.write(topic, data, ts)
        self.stats.events += 1
        self.stats.last_event = ts

    def _restate(self, writer, ts: float) -> None:
        """Each new hourly file starts with the current pause state or window."""
        if self.paused:
            writer.write(TOPIC_PAUSE, {"state": "paused"}, ts)
        elif self.logged is not None:
            writer.write(TOPIC_WINDOW, {"app": self.logged.app, "title": self.logged.title}, ts)

    def _shown(self, window: WindowInfo) -> WindowInfo:
        if self.s.exclusions.excludes(window):
            return WindowInfo(EXCLUDED, EXCLUDED)
        if not window.app:
            return WindowInfo("(none)", "")
        return WindowInfo(window.app, window.title)

    def _window(self, ts: float, window: WindowInfo) -> None:
        shown = self._shown(window)
        if shown != self.logged:
            self.window_news = True
            self.last_activity = max(self.last_activity, ts)
            self._write(TOPIC_WINDOW, {"app": shown.app, "title": shown.title}, ts)
            self.logged = shown  # after the write: a new file restates the previous one

    # ------------------------------------------------------------------ screens
    def _capture(self, now: float) -> None:
        ex = self.s.exclusions
        front = self.backend.active_window()
        if ex.excludes(front) or ex.any_excluded(self.backend.visible_windows()):
            self.stats.excluded_skips += 1
            self.window_news = True  # when it goes away, the next screen is news
            return
        several = len(self.monitors)
        for mon in self.monitors:
            image = self.backend.grab(mon)
            self.stats.grabs += 1
            h = frame_hash(image)
            last = self.hashes.get(mon.index)
            previous = self.previous.get(mon.index)
            self.previous[mon.index] = h
            last_at = self.last_frame_at.get(mon.index, float("-inf"))
            changed = last is None or (h - last) > self.s.change_threshold
            # While the screen keeps moving (typing, scrolling, a build log) wait for it to
            # settle — the end of a burst shows more than its start — but not past min_gap.
            settled = previous is None or (h - previous) <= self.s.change_threshold
            heartbeat = (self.s.heartbeat > 0 and now - last_at >= self.s.heartbeat
                         and self.last_activity > last_at)
            due = changed and (settled or now - last_at >= self.s.min_gap)
            if not (due or self.window_news or heartbeat):
                self.stats.unchanged += 1
                continue
            data = encode_jpeg(image.rgb(), self.s.max_width, self.s.quality)
            path = keyframe_path(self.s.keyframes, now, mon.index, several)
            if path.parent not in self._day_dirs:
                private_dir(path.parent)
                self._day_dirs.add(path.parent)
            replace_file(path, [data], sync=False)  # readers skip the hidden temp file
            self.hashes[mon.index] = h
            self.last_frame_at[mon.index] = now
            self.stats.frames += 1
            self.stats.frame_bytes += len(data)
            self.stats.last_frame = now
        self.window_news = False

    # ------------------------------------------------------------------ upkeep
    def prune(self, now: float) -> None:
        folders = [self.s.keyframes, self.s.events]
        try:
            p = prune.plan(folders, keep_secs=self.s.keep_secs, max_bytes=self.s.max_bytes,
                           now=now, protect=[self.log.path] if self.log.path else [])
            files, size = prune.apply(p, folders)
        except OSError as exc:
            self.say(f"note: prune failed: {exc}")
            return
        self.stats.pruned_files += files
        self.stats.pruned_bytes += size
        if files:
            self.say(f"pruned {files} old capture files ({human_size(size)})")

    def status(self, running: bool = True) -> dict:
        return {
            "running": running, "pid": os.getpid(), "backend": self.backend.name,
            "keyframes_dir": str(self.s.keyframes), "events_dir": str(self.s.events),
            "events_file": str(self.log.path) if self.log.path else None,
            "paused": self.paused, "updated": self.clock(),
            **{k: v for k, v in self.stats.as_dict().items() if k != "notes"},
        }

    # ------------------------------------------------------------------ the loop
    def run(self, stop: threading.Event, until: float | None = None) -> Stats:
        start = self.clock()
        self.stats.started = start
        private_dir(self.s.keyframes)
        self.backend.start(self.s.exclusions)
        try:
            if self.on_start:
                self.on_start()
            self.monitors = self.backend.monitors()
            self.paused = self.is_paused()
            self.backend.set_input_paused(self.paused)
            self.log.writer(start)  # the first file; it starts with "paused" if we are
            self.prune(start)
            next_tick = start
            next_grab = start
            next_prune = start + PRUNE_EVERY_SECS
            next_status = start
            while not stop.is_set():
                now = self.clock()
                if until is not None and now >= until:
                    break
                self._tick(now)
                if self.last_activity >= now - 1.5 and next_grab > now + self.s.interval:
                    next_grab = now  # back from idle: look now
                if not self.paused and now >= next_grab:
                    self._capture(now)
                    idle = now - self.last_activity >= IDLE_AFTER_SECS
                    next_grab = now + self.s.interval * (IDLE_SLOWDOWN if idle else 1)
                if now >= next_prune:
                    self.prune(now)
                    next_prune = now + PRUNE_EVERY_SECS
                if now >= next_status:
                    self.log.flush()
                    write_status(self.s.home, self.status())
                    next_status = now + STATUS_EVERY_SECS
                next_tick = max(next_tick + 1.0, now + 0.05)
                wake = min(next_tick, next_grab if not self.paused else next_tick)
                if until is not None:
                    wake = min(wake, until)
                stop.wait(max(0.0, wake - self.clock()))
            self._tick(self.clock())  # what arrived in the last part-second
        finally:
            try:
                self.log.close()
            finally:
                self.backend.stop()
                try:
                    write_status(self.s.home, self.status(running=False))
                except OSError:
                    pass
        return self.stats

    def _tick(self, now: float) -> None:
        before = self.stats.events
        self._events_tick(now)
        if self.stats.events != before:
            self.log.flush()  # a crash (or a reader now) loses at most this second

    def _events_tick(self, now: float) -> None:
        paused = self.is_paused()
        if paused != self.paused:
            self.paused = paused
            self.backend.set_input_paused(paused)
            self.backend.window_changes()  # what happened while paused is not ours to log
            # A resume is stamped 2 ms back so the first frame after it (named in whole ms)
            # falls strictly outside the paused interval, which includes its ends.
            self._write(TOPIC_PAUSE, {"state": "paused" if paused else "resumed"},
                        now if paused else now - 0.002)
            if not paused:
                self.logged = None
                self._window(now, self.backend.active_window())
                self.hashes.clear()
                self.previous.clear()
            return
        if paused:
            self.stats.paused_ticks += 1
            self.backend.window_changes()
            self.backend.take_input_counts()
            return
        for ts, window in self.backend.window_changes():
            self._window(ts, window)
        keys, clicks = self.backend.take_input_counts()
        if keys or clicks:
            self.last_activity = now
            self._write(TOPIC_INPUT, {"keys": keys, "clicks": clicks}, now)
