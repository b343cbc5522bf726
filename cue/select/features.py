"""Per-keyframe features (dhash, text density) and their cache in SQLite.

A keyframe is decoded once: JPEGs at 1/8 scale in grayscale with `Image.draft('L', …)`
(a 2560×1600 screenshot in ~5 ms instead of ~25 ms), other formats reduced after
decoding. Both features come from that one small grayscale image. Rows are keyed by a
hash of the path (keyframe paths reveal user names and never enter the database) and stay
valid while the file's size and mtime are unchanged, so re-running a window only stats the
files. Unreadable images are cached too (with the reason) until the file
changes — a capture tool may still be writing it.
"""
from __future__ import annotations

import hashlib
import os
import sqlite3
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from cue.inputs.keyframes import Keyframe
from cuectx.value import Value

# Rows for frames captured this long before the newest frame written (or now) are dropped.
RETENTION_SECS = 30 * 86400
_SMALL_WIDTH = 320  # width of the grayscale image both features are computed on
_EDGE = 24  # a horizontal step of more than this (0..255) counts as an edge
LAYOUT_COLS = 32
LAYOUT_BINS = 16


class FrameFeatures(Value):
    __slots__ = ("dhash", "error", "height", "layout", "text_density", "width")

    def __init__(self, dhash: int | None, text_density: float, width: int = 0, height: int = 0,
                 error: str | None = None, layout: bytes = b"") -> None:
        self.dhash = dhash  # 64-bit difference hash as an unsigned int; None if unreadable
        self.text_density = text_density  # share of strong horizontal edges in the small grayscale image
        self.width = width
        self.height = height
        self.error = error
        # A scroll-invariant picture of the screen's layout (LAYOUT_COLS column means, then a
        # LAYOUT_BINS-bin gray histogram, one byte each): scrolling one document keeps both,
        # another tab, page or view changes them. b"" = not computed (an old cache row).
        self.layout = layout


def path_key(path: Path) -> str:
    """The cache key for a keyframe: a hash, so the database never holds its path."""
    return hashlib.blake2b(os.fsencode(path), digest_size=16, person=b"cue-frame-cache").hexdigest()


def hamming(a: int, b: int) -> int:
    return (a ^ b).bit_count()


def compute_features(path: Path) -> FrameFeatures:
    """Decode one keyframe small and grayscale; never raises for a bad image."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path) as im:
            width, height = im.size
            if im.format == "JPEG":
                tw = min(width, _SMALL_WIDTH)
                im.draft("L", (tw, max(1, tw * height // max(width, 1))))
            im.load()
            small = im if im.mode == "L" else im.convert("L")
            if small.width >= 2 * _SMALL_WIDTH:
                small = small.reduce(small.width // _SMALL_WIDTH)
            return FrameFeatures(_dhash(small), _text_density(small), width, height,
                                 layout=_layout(small))
    except (OSError, SyntaxError, ValueError, UnidentifiedImageError,
            Image.DecompressionBombError) as exc:
        reason = str(exc).replace(str(path), "<keyframe>").replace(path.name, "<keyframe>")
        return FrameFeatures(None, 0.0, error=f"{type(exc).__name__}: {reason}"[:200])


def _dhash(small) -> int:
    import imagehash

    bits = imagehash.dhash(small).hash.flatten()
    value = 0
    for bit in bits:
        value = (value << 1) | int(bit)
    return value


def _layout(small) -> bytes:
    """Column means (the layout across the screen, whatever is scrolled into view) and a
    gray-level histogram (the page's palette), one byte each."""
    import numpy as np

    a = np.asarray(small, dtype=np.uint8)
    if a.size == 0 or a.ndim != 2:
        return b""
    edges = np.linspace(0, a.shape[1], LAYOUT_COLS + 1).astype(int)
    widths = np.maximum(np.diff(edges), 1)
    col_sums = a.sum(axis=0, dtype=np.int64)
    cols = np.add.reduceat(col_sums, np.minimum(edges[:-1], a.shape[1] - 1)) / (
        widths * a.shape[0])
    hist = np.bincount((a >> 4).ravel(), minlength=LAYOUT_BINS)[:LAYOUT_BINS] / a.size
    return bytes(np.clip(np.round(cols), 0, 255).astype(np.uint8)) + \
        bytes(np.clip(np.round(np.sqrt(hist) * 255), 0, 255).astype(np.uint8))


def layout_distance(a: bytes, b: bytes) -> float | None:
    """0..1: how unlike two screens' layouts are (the mean column difference, or half the
    histogram difference if larger: a figure scrolled into view moves the palette more than
    the layout); None if either is unknown."""
    if len(a) != LAYOUT_COLS + LAYOUT_BINS or len(b) != len(a):
        return None
    cols = sum(abs(x - y) for x, y in zip(a[:LAYOUT_COLS], b[:LAYOUT_COLS])) / LAYOUT_COLS / 255
    hist = sum(abs(x - y) for x, y in zip(a[LAYOUT_COLS:], b[LAYOUT_COLS:])) / LAYOUT_BINS / 255
    return max(cols, hist / 2)


def _text_density(small) -> float:
    import numpy as np

    a = np.asarray(small, dtype=np.int16)
    if a.shape[1] < 2:
        return 0.0
    return float((np.abs(np.diff(a, axis=1)) > _EDGE).mean())


def features_for(conn: sqlite3.Connection, frames: list[Keyframe], *,
                 workers: int | None = None) -> dict[Path, FrameFeatures]:
    """Features for each keyframe, from the cache where still valid, else computed."""
    if not frames:
        return {}
    lo = min(k.ts for k in frames)
    hi = max(k.ts for k in frames)
    cached = {
        row[0]: row
        for row in conn.execute(
            "SELECT path_key, size, mtime_ns, dhash, text_density, width, height, error, layout "
            "FROM frame_cache WHERE ts BETWEEN ? AND ?", (lo, hi))
    }
    out: dict[Path, FrameFeatures] = {}
    todo: list[tuple[Keyframe, os.stat_result]] = []
    for kf in frames:
        try:
            st = kf.path.stat()
        except OSError:
            continue  # gone since it was listed
        row = cached.get(path_key(kf.path))
        if row is not None and row[1] == st.st_size and row[2] == st.st_mtime_ns \
                and (row[3] is None or row[8] is not None):  # rows from before `layout`: redo
            dh = row[3]
            out[kf.path] = FrameFeatures(
                None if dh is None else dh & 0xFFFFFFFFFFFFFFFF, row[4] or 0.0,
                row[5] or 0, row[6] or 0, row[7], bytes(row[8] or b""))
        else:
            todo.append((kf, st))
    if todo:
        paths = [kf.path for kf, _ in todo]
        n = workers or min(4, _cpus())
        if n > 1 and len(paths) > 4:
            with ThreadPoolExecutor(max_workers=n) as pool:  # Pillow decodes without the GIL
                computed = list(pool.map(compute_features, paths))
        else:
            computed = [compute_features(p) for p in paths]
        rows = []
        for (kf, st), feat in zip(todo, computed):
            out[kf.path] = feat
            dh = None if feat.dhash is None else _signed(feat.dhash)
            rows.append((path_key(kf.path), st.st_size, st.st_mtime_ns, kf.ts, dh,
                         feat.text_density, feat.width, feat.height, feat.error,
                         feat.layout or None))
        _store(conn, rows)
    return out


def cached_frame_count(conn: sqlite3.Connection) -> int:
    """How many frames have cached features (`cue status`)."""
    return conn.execute("SELECT count(*) FROM frame_cache").fetchone()[0]


def _store(conn: sqlite3.Connection, rows: list[tuple]) -> None:
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.executemany(
            "INSERT OR REPLACE INTO frame_cache"
            "(path_key, size, mtime_ns, ts, dhash, text_density, width, height, error, layout) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
        # Forget frames long before both now and this batch (re-running an old window
        # keeps its rows; a cron run over fresh frames clears out the old ones).
        newest = max(r[3] for r in rows)
        conn.execute("DELETE FROM frame_cache WHERE ts < ?",
                     (min(time.time(), newest) - RETENTION_SECS,))
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def _signed(value: int) -> int:
    return value - (1 << 64) if value >= (1 << 63) else value


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # macOS
        return os.cpu_count() or 1
