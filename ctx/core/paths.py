"""Where ctx keeps its files: one module, environment overrides."""
from __future__ import annotations

import os
from pathlib import Path

from ctx.core import settings


def home() -> Path:
    """~/.ctx (CTX_HOME overrides)."""
    return Path(settings.home_dir())


def db_path(explicit: str | os.PathLike | None = None) -> Path:
    """--db, else $CTX_DB, else ~/.ctx/store.db."""
    return Path(settings.db_file(explicit))


def default_budget() -> int | None:
    """$CTX_DEFAULT_BUDGET as an int, or None when unset/invalid (ctx.core.settings)."""
    return settings.default_budget()


def write_private(path: str | os.PathLike, data, *, encoding: str = "utf-8") -> Path:
    """Write a file that holds memory (an export, a backup, a share file) — `data` is text,
    bytes, or an iterable of either written as it comes (an export streams): mode 0600 from the
    first byte (created that way, not chmod-ed after), atomically (a temporary file in the
    same folder, then renamed over `path`), so no other user can read it even while it is
    written and a crash leaves the old file. Returns the path written."""
    target = Path(path).expanduser()
    chunks = [data] if isinstance(data, (str, bytes)) else data  # or an iterable: streamed
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    except OSError as exc:  # name the file asked for, not the temporary one
        raise type(exc)(exc.errno, exc.strerror, str(target)) from None
    try:
        with os.fdopen(fd, "wb") as f:
            for chunk in chunks:
                f.write(chunk.encode(encoding) if isinstance(chunk, str) else chunk)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o600)  # a umask cannot widen it, but be explicit on odd filesystems
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return target
