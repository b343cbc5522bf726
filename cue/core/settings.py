"""Every CUE_* environment variable cue reads is read here (and ANTHROPIC_API_KEY).

| variable              | default                          | a bad value                          |
|-----------------------|----------------------------------|--------------------------------------|
| CUE_HOME              | ~/.cue                           | empty or blanks: the default         |
| CUE_DEBUG             | off                              | anything but empty or `0` means on   |
| CUE_SPACY_MODEL       | the first en_core_web_* installed | `none`: no model; empty: the default; |
|                       |                                  | not installed: an `Error:` (no download) |
| CUE_<SECTION>_<KEY>   | config.toml, else the default    | an `Error:` naming the variable      |
| ANTHROPIC_API_KEY     | the key file (cloud.api_key_file) | empty: the key file                 |

The last two belong to `cue config` (cue.core.config): each setting `section.key` can be
overridden by `CUE_SECTION_KEY`; an empty one counts as unset. The README's "Environment"
table says the same. Tests clear every CUE_* variable (tests/conftest.py).
"""
from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path

HOME = "CUE_HOME"
DEBUG = "CUE_DEBUG"
SPACY_MODEL = "CUE_SPACY_MODEL"
API_KEY = "ANTHROPIC_API_KEY"


def home() -> Path:
    """$CUE_HOME (`~` expanded), else ~/.cue."""
    value = os.environ.get(HOME, "").strip()
    return Path(value).expanduser() if value else Path.home() / ".cue"


def debug() -> bool:
    """CUE_DEBUG: show tracebacks instead of one `Error:` line."""
    return os.environ.get(DEBUG, "").strip() not in ("", "0")


def spacy_model() -> str | None:
    """CUE_SPACY_MODEL as given: a model name or path, `none`, or None when unset/empty."""
    return os.environ.get(SPACY_MODEL, "").strip() or None


def anthropic_api_key(env: Mapping[str, str] | None = None) -> str | None:
    """ANTHROPIC_API_KEY, stripped; None when unset or empty."""
    env = os.environ if env is None else env
    return (env.get(API_KEY) or "").strip() or None


def env_name(key: str) -> str:
    """The variable that overrides setting `key`: digest.backend → CUE_DIGEST_BACKEND."""
    return "CUE_" + key.upper().replace(".", "_")


def overrides(keys: Iterable[str], env: Mapping[str, str] | None = None) -> dict[str, str]:
    """{key: raw value} for each setting overridden in the environment (empty = not set)."""
    env = os.environ if env is None else env
    return {k: env[env_name(k)] for k in keys if env.get(env_name(k)) not in (None, "")}
