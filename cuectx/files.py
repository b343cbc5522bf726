"""Replacing a file: the one way ctx and cue write a file someone may be reading.

os.path only (no pathlib, no typing): the hooks and `ctx mcp` write their caches with it
before anything heavy has loaded.
"""
from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = ["replace_file"]


def replace_file(path: str | os.PathLike, chunks: Iterable[bytes], *, mode: int = 0o600,
                 sync: bool = True) -> None:
    """`chunks` go to a hidden temporary file beside `path`, created with `mode` (less the
    umask) from the first byte and never through a symlink, then renamed over `path`: readers
    see the old file or the new one (cue select skips hidden files), a crash leaves the old
    one, a failure removes the temporary file. `sync`: on disk before the rename (an export; a
    cache need not). Errors name `path`, not the temporary file."""
    path = os.fspath(path)
    tmp = os.path.join(os.path.dirname(path), f".{os.path.basename(path)}.{os.getpid()}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    try:
        try:
            fd = os.open(tmp, flags, mode)
        except FileExistsError:  # left by a crashed writer whose pid was ours (pids are reused)
            os.unlink(tmp)
            fd = os.open(tmp, flags, mode)
    except OSError as exc:  # name the file asked for, not the temporary one
        raise type(exc)(exc.errno, exc.strerror, path) from None
    try:
        with os.fdopen(fd, "wb") as f:
            for chunk in chunks:
                f.write(chunk)
            if sync:
                f.flush()
                os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
