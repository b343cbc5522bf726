"""Where ctx keeps its files: one module, environment overrides."""
from __future__ import annotations

import json
import os

from ctx.core import settings

TYPE_CHECKING = False  # pathlib loads where a Path is made: `save_cache` runs before it may
if TYPE_CHECKING:
    from pathlib import Path


def home() -> Path:
    """~/.ctx (CTX_HOME overrides)."""
    from pathlib import Path

    return Path(settings.home_dir())


def db_path(explicit: str | os.PathLike | None = None) -> Path:
    """--db, else $CTX_DB, else ~/.ctx/store.db."""
    from pathlib import Path

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
    from pathlib import Path

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


def save_cache(path: str, data) -> bool:
    """Write a cache of ctx's (`data` as JSON) to `path`: mode 0600 from the first byte,
    atomically (a temporary file renamed over it), its folder made 0700 if missing. False
    when it cannot be written (a read-only home): a cache is never worth an error. os.path
    only: `ctx mcp` and `ctx --help` keep theirs before anything heavy loads."""
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, ensure_ascii=False)
        os.replace(tmp, path)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        return False
    return True
