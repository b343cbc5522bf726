"""Where ctx keeps its files: one module, environment overrides."""
from __future__ import annotations

import json
import os

from ctx.core import settings
from cuectx.files import replace_file

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
    """Write a file that holds memory (an export, a backup) — `data` is text, bytes, or an
    iterable of either written as it comes (an export streams): mode 0600 from the first byte
    (created that way, not chmod-ed after), atomically and synced (`cuectx.files.replace_file`), so no other
    user can read it even while it is written and a crash leaves the old file. Returns the
    path written."""
    from pathlib import Path

    target = Path(path).expanduser()
    chunks = [data] if isinstance(data, (str, bytes)) else data  # or an iterable: streamed
    replace_file(str(target), (c.encode(encoding) if isinstance(c, str) else c for c in chunks))
    return target


def save_cache(path: str, data) -> bool:
    """Write a cache of ctx's (`data` as JSON) to `path`: mode 0600 from the first byte,
    atomically (a temporary file renamed over it), its folder made 0700 if missing. False
    when it cannot be written (a read-only home): a cache is never worth an error. os.path
    only: `ctx mcp` and `ctx --help` keep theirs before anything heavy loads."""
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        replace_file(path, [json.dumps(data, ensure_ascii=False).encode("utf-8")], sync=False)
    except OSError:
        return False
    return True
