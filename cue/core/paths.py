"""Where cue keeps its files: all under CUE_HOME (read in cue.core.settings)."""
from __future__ import annotations

from pathlib import Path

from cue.core import settings


def home() -> Path:
    """The data folder: $CUE_HOME, else ~/.cue. Not created here."""
    return settings.home()


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
