"""Keyframe thumbnails, made on the fly and kept in memory — never for a file outside
$CUE_HOME, never for a frame inside a paused interval, never for a path a browser chose.

A page asks `cue select` which frames a digest's window holds; each frame it returns is
registered here under an opaque key (an HMAC of the path with the run's token). The
thumbnail route takes only such a key, so a request cannot name a file at all; the checks
below run again when the image is made, in case the folder changed meanwhile.
"""
from __future__ import annotations

import hashlib
import hmac
import io
import threading
from collections import OrderedDict
from pathlib import Path

from cuectx.value import Value

THUMB_SIZE = (360, 225)
MAX_FRAMES = 5000
MAX_THUMBS = 300


class Frame(Value):
    __slots__ = ("excluded", "path", "paused", "ts")

    def __init__(self, path: str, ts: float | None, paused: tuple[tuple[float, float], ...] = (),
                 excluded: bool = False) -> None:
        self.path = path
        self.ts = ts
        self.paused = paused
        self.excluded = excluded


EXCLUDED_MARK = "[excluded]"  # what cue record writes for a window it must never capture


def frame_from_selection(item: dict, paused) -> Frame:
    """A Frame from one entry of `cue select --format json`: excluded when cue says so, or
    when the window it shows is one cue's recorder marks as never to be captured."""
    excluded = bool(item.get("excluded")) or EXCLUDED_MARK in (item.get("app"), item.get("title"))
    ts = item.get("ts")
    return Frame(str(item.get("path", "")), float(ts) if isinstance(ts, (int, float)) else None,
                 tuple((float(a), float(b)) for a, b in paused or []), excluded)


class Refused(Exception):
    """This frame may not be shown (the reason is for the log and tests, not the page)."""


class Thumbnails:
    def __init__(self, secret: str, cue_home: Path):
        self.secret = secret.encode()
        self.cue_home = cue_home
        self.frames: OrderedDict[str, Frame] = OrderedDict()
        self.cache: OrderedDict[str, bytes] = OrderedDict()
        self.lock = threading.Lock()

    def register(self, frame: Frame) -> str:
        key = hmac.new(self.secret, frame.path.encode("utf-8", "surrogateescape"),
                       hashlib.sha256).hexdigest()[:24]
        with self.lock:
            self.frames[key] = frame
            self.frames.move_to_end(key)
            while len(self.frames) > MAX_FRAMES:
                self.frames.popitem(last=False)
        return key

    def allowed(self, frame: Frame) -> Path:
        """The frame's real path, or Refused."""
        if frame.excluded:
            raise Refused("excluded frame")
        if frame.ts is not None and any(a <= frame.ts <= b for a, b in frame.paused):
            raise Refused("frame inside a paused interval")
        try:
            home = self.cue_home.resolve(strict=True)
            path = Path(frame.path).resolve(strict=True)
        except (OSError, RuntimeError):
            raise Refused("no such file") from None
        if not path.is_relative_to(home):
            raise Refused("outside $CUE_HOME")
        if not path.is_file():
            raise Refused("not a file")
        return path

    def jpeg(self, key: str) -> bytes:
        with self.lock:
            frame = self.frames.get(key)
        if frame is None:
            raise Refused("unknown frame")
        path = self.allowed(frame)
        stat = path.stat()
        cache_key = f"{key}:{stat.st_size}:{stat.st_mtime_ns}"
        with self.lock:
            if cache_key in self.cache:
                self.cache.move_to_end(cache_key)
                return self.cache[cache_key]
        data = _make(path)
        with self.lock:
            self.cache[cache_key] = data
            while len(self.cache) > MAX_THUMBS:
                self.cache.popitem(last=False)
        return data


def _make(path: Path) -> bytes:
    from PIL import Image

    try:
        with Image.open(path) as im:
            im.draft("RGB", (THUMB_SIZE[0] * 2, THUMB_SIZE[1] * 2))  # JPEG: decode smaller
            im = im.convert("RGB")
            im.thumbnail(THUMB_SIZE)
            buf = io.BytesIO()
            im.save(buf, "JPEG", quality=80)
            return buf.getvalue()
    except (OSError, ValueError, Image.DecompressionBombError) as exc:
        raise Refused(f"unreadable image: {exc}") from None
