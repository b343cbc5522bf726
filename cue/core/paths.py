"""Where cue keeps its files. One module, one environment override: CUE_HOME."""
from __future__ import annotations

import os
from pathlib import Path


def home() -> Path:
    """The data folder: $CUE_HOME, else ~/.cue. Not created here."""
    env = os.environ.get("CUE_HOME")
    return Path(env).expanduser() if env else Path.home() / ".cue"


def ensure_home() -> Path:
    h = home()
    h.mkdir(parents=True, exist_ok=True, mode=0o700)
    return h


def db_path() -> Path:
    return home() / "cue.db"


def digest_md() -> Path:
    return home() / "digest.md"


def memory_md() -> Path:
    return home() / "memory.md"


def privacy_log() -> Path:
    return home() / "privacy.log"


def config_path() -> Path:
    return home() / "config.toml"


def keyframes_dir() -> Path:
    """Default keyframe folder (a capture tool writes screenshots here)."""
    return home() / "keyframes"


def events_dir() -> Path:
    """Default folder of MCAP event logs."""
    return home() / "events"
