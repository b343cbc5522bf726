"""Where ctx keeps its files: one module, environment overrides."""
from __future__ import annotations

import os
from pathlib import Path


def home() -> Path:
    """~/.ctx (CTX_HOME overrides)."""
    env = os.environ.get("CTX_HOME")
    return Path(env).expanduser() if env else Path.home() / ".ctx"


def db_path(explicit: str | os.PathLike | None = None) -> Path:
    """--db, else $CTX_DB, else ~/.ctx/store.db."""
    if explicit:
        return Path(explicit).expanduser()
    env = os.environ.get("CTX_DB")
    return Path(env).expanduser() if env else home() / "store.db"


def default_budget() -> int | None:
    """$CTX_DEFAULT_BUDGET as an int, or None when unset/invalid (ctx.core.settings)."""
    from ctx.core.settings import default_budget as setting

    return setting()
