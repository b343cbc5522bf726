"""Every CTX_* setting, read in one place (stdlib only: hooks import it).

Each function reads the environment when called (tests and `ctx --traceback` change it at
run time), and a value that cannot be used falls back to the default instead of failing:
a hook must never break Claude Code over a typo in someone's shell profile: a number that is
zero, negative or not a number means the default. (CTX_SECRETS is the exception:
ctx.core.guard refuses an unknown policy rather than store a secret under a policy nobody
chose.) `--db`, `--project` and `--session` read CTX_DB, CTX_PROJECT and CTX_SESSION
through Typer too; everything else reads them here.

| variable | meaning | default |
|---|---|---|
| CTX_HOME | ctx's folder | ~/.ctx |
| CTX_DB | the database (the `--db` option wins) | $CTX_HOME/store.db |
| CTX_DEFAULT_BUDGET | token budget for `ctx compose` without --budget | the view's |
| CTX_HOOK_MAX_CHARS | cap on what a hook injects (UTF-16 units) | 9500 |
| CTX_HOOK_BUSY_TIMEOUT_MS | how long a hook waits for a locked database | 5000 |
| CTX_HOOK_SERVER | 0/off: every hook runs in its own process (no hook server) | on |
| CTX_HOOK_SERVER_IDLE | seconds a hook server waits for a hook before it exits | 1800 |
| CTX_RUN_DIR | where hook servers listen (only you may enter it) | $XDG_RUNTIME_DIR/cue-ctx |
| CTX_DEBUG | 1: tracebacks instead of one `Error:` line (`--traceback`) | off |
| CTX_SEMANTIC | 0/off: no semantic selection in hooks | on |
| CTX_SEMANTIC_FLOOR | minimum score for prompt-submit to inject | the model's (e5: 0.27 en, 0.28 ko) |
| CTX_SEMANTIC_TOP_K / _TOP_N | chunks ranked / memories injected per prompt | 20 / 5 |
| CTX_SEMANTIC_INCLUDE_SCORE | score injected even past top N | 0.7 |
| CTX_SEMANTIC_DEADLINE | seconds before prompt-submit falls back to keywords | 1.5 |
| CTX_EMBED_THREADS | onnxruntime threads for embedding | onnxruntime's |
| CTX_MODEL | the embedding model: multilingual-e5-small or all-MiniLM-L6-v2 | multilingual-e5-small |
| CTX_ENGLISH_FUSION | 0/off: English questions ranked by e5 alone, not also by MiniLM (docs/retrieval.md) | on |
| CTX_MODEL_DIR | the folder the models are built in (one subfolder each) | inside the venv |
| CTX_PROJECT | the project (a name; `global` = none), instead of the folder's | - |
| CTX_SECRETS | what writes do with credentials: redact, refuse, allow | redact |
| CTX_SESSION | the session `ctx session`/`ctx requests` read | the latest |
| CTX_REQUESTS_KEEP | days request records (and ended sessions) are kept; `0` = forever | 90 |
| CTX_DEDUPE | a close restatement of a live memory: skip, keep (store it too), ask | ask |
| CTX_DOCTOR_STALE_DAYS | `ctx doctor`: working-tier nodes untouched this long are stale | 14 |
| CTX_REVIEW_MODEL | the model `ctx doctor --review` asks | claude-haiku-4-5 |
| CTX_CAPTURE | off: no session records from transcripts | on |
| CTX_CAPTURE_MAX_CHARS | the cap on one session record | 1600 |
| CTX_CAPTURE_KEEP_DAYS | session records older than this are folded into the project's digest | 30 |
"""
from __future__ import annotations

import os

# The table above as data: every CTX_* variable, with a value other than its default (for
# the tests that run every hook with each one set). A test keeps it equal to the names
# ctx's code mentions, so a new setting cannot be left out of snapshot().
EXAMPLES = {
    "CTX_HOME": "~/ctx-elsewhere",
    "CTX_DB": "~/other-store.db",
    "CTX_DEFAULT_BUDGET": "60",
    "CTX_HOOK_MAX_CHARS": "300",
    "CTX_HOOK_BUSY_TIMEOUT_MS": "100",
    "CTX_HOOK_SERVER": "0",
    "CTX_HOOK_SERVER_IDLE": "5",
    "CTX_RUN_DIR": "~/run",
    "CTX_DEBUG": "1",
    "CTX_SEMANTIC": "off",
    "CTX_SEMANTIC_FLOOR": "0.95",
    "CTX_SEMANTIC_TOP_K": "2",
    "CTX_SEMANTIC_TOP_N": "1",
    "CTX_SEMANTIC_INCLUDE_SCORE": "0.1",
    "CTX_SEMANTIC_DEADLINE": "0.001",
    "CTX_EMBED_THREADS": "1",
    "CTX_MODEL": "all-MiniLM-L6-v2",
    "CTX_ENGLISH_FUSION": "0",
    "CTX_MODEL_DIR": "~/no-models",
    "CTX_PROJECT": "global",
    "CTX_SECRETS": "refuse",
    "CTX_SESSION": "some-session",
    "CTX_REQUESTS_KEEP": "1",
    "CTX_DEDUPE": "skip",
    "CTX_DOCTOR_STALE_DAYS": "3",
    "CTX_REVIEW_MODEL": "claude-opus-4-1",
    "CTX_CAPTURE": "off",
    "CTX_CAPTURE_MAX_CHARS": "200",
    "CTX_CAPTURE_KEEP_DAYS": "1",
}
NAMES = tuple(EXAMPLES)
# Besides CTX_*, what the plain path reads from its environment: the clock's zone.
OTHER_INPUTS = ("TZ",)


def locale_inputs() -> tuple[str, int]:
    """The text encoding this interpreter runs with: its LC_CTYPE locale as in effect (after
    Python's coercion of a C locale to C.UTF-8, so a coerced and a set C.UTF-8 are one) and
    UTF-8 mode. Nothing in ctx reads another locale category."""
    import _locale
    import sys

    try:
        ctype = _locale.setlocale(_locale.LC_CTYPE)
    except _locale.Error:
        ctype = "?"
    return ctype, sys.flags.utf8_mode


def snapshot(env: dict | None = None) -> list:
    """Everything the plain path reads from its environment, as one value: every setting in
    the table (unset ones as None), TZ, and the locale's encoding. Every cache of an answer
    keys on it (the cached session start, the MCP handshake), so none can forget one."""
    env = os.environ if env is None else env
    return [[name, env.get(name)] for name in (*NAMES, *OTHER_INPUTS)] + [list(locale_inputs())]


DEFAULT_HOOK_MAX_CHARS = 9500
DEFAULT_HOOK_BUSY_MS = 5000
OFF_WORDS = ("0", "off", "false", "no")


def _text(name: str, env: dict | None = None) -> str | None:
    """The variable's value, stripped; None when unset or blank."""
    raw = (os.environ if env is None else env).get(name)
    return raw.strip() or None if raw is not None else None


def home() -> str | None:
    """$CTX_HOME: ctx's folder (ctx.core.paths resolves it)."""
    return _text("CTX_HOME")


def home_dir() -> str:
    """ctx's folder: $CTX_HOME, else ~/.ctx (as text: the hook path does without pathlib)."""
    env = home()
    return os.path.expanduser(env) if env else os.path.expanduser("~/.ctx")


def db_file(explicit: str | os.PathLike | None = None) -> str:
    """The database: --db, else $CTX_DB, else `home_dir()`/store.db."""
    if explicit:
        return os.path.expanduser(os.fspath(explicit))
    env = db()
    return os.path.expanduser(env) if env else os.path.join(home_dir(), "store.db")


def db() -> str | None:
    """$CTX_DB: the database file (ctx.core.paths resolves it)."""
    return _text("CTX_DB")


def project(env: dict | None = None) -> str | None:
    """$CTX_PROJECT: a project name (or `global`) instead of the folder's repository."""
    return _text("CTX_PROJECT", env)


def secrets_policy() -> str | None:
    """$CTX_SECRETS as written (ctx.core.guard checks it)."""
    return _text("CTX_SECRETS")


def _positive_int(name: str) -> int | None:
    raw = os.environ.get(name, "").strip()
    return int(raw) if raw.isdigit() and int(raw) > 0 else None


def hook_max_chars() -> int:
    """$CTX_HOOK_MAX_CHARS, else 9,500 (under Claude Code's 10,000-character limit)."""
    return _positive_int("CTX_HOOK_MAX_CHARS") or DEFAULT_HOOK_MAX_CHARS


def hook_busy_timeout_ms() -> int:
    raw = os.environ.get("CTX_HOOK_BUSY_TIMEOUT_MS", "").strip()
    return int(raw) if raw.isdigit() else DEFAULT_HOOK_BUSY_MS


DEFAULT_HOOK_SERVER_IDLE_S = 1800.0


def hook_server_enabled() -> bool:
    """$CTX_HOOK_SERVER: hooks may be answered by a hook server (ctx/claude/hooks/client.py)."""
    return os.environ.get("CTX_HOOK_SERVER", "").strip().lower() not in OFF_WORDS


def hook_server_idle_s() -> float:
    """$CTX_HOOK_SERVER_IDLE: seconds a hook server waits for the next hook (default 1800)."""
    try:
        value = float(os.environ.get("CTX_HOOK_SERVER_IDLE", "").strip())
    except ValueError:
        return DEFAULT_HOOK_SERVER_IDLE_S
    return value if 0 < value < float("inf") else DEFAULT_HOOK_SERVER_IDLE_S


def run_dir() -> str:
    """Where hook servers listen: $CTX_RUN_DIR (absolute, or from ~; a relative one is
    ignored), else $XDG_RUNTIME_DIR/cue-ctx (the per-user runtime folder), else
    <tmp>/cue-ctx-<uid>."""
    explicit = os.path.expanduser(os.environ.get("CTX_RUN_DIR", "").strip())
    if os.path.isabs(explicit):  # a relative one would be a run dir (and a server) per folder
        return os.path.normpath(explicit)
    runtime = os.environ.get("XDG_RUNTIME_DIR", "").strip()
    if runtime and os.path.isabs(runtime):
        return os.path.join(runtime, "cue-ctx")
    tmp = os.environ.get("TMPDIR", "").strip() or "/tmp"
    return os.path.join(tmp, f"cue-ctx-{os.getuid()}")


def default_budget() -> int | None:
    """$CTX_DEFAULT_BUDGET as an int, or None when unset/invalid."""
    return _positive_int("CTX_DEFAULT_BUDGET")


def debug() -> bool:
    return os.environ.get("CTX_DEBUG", "").strip() not in ("", "0")


def semantic_enabled() -> bool:
    return os.environ.get("CTX_SEMANTIC", "").strip().lower() not in OFF_WORDS


DEFAULT_REQUESTS_KEEP_DAYS = 90


def requests_keep_days() -> int | None:
    """$CTX_REQUESTS_KEEP days of request records to keep (default 90); `0` or `forever`: keep
    all (None). Anything else unusable falls back to the default."""
    raw = os.environ.get("CTX_REQUESTS_KEEP", "").strip().lower()
    if raw in ("0", "forever", "never", "off"):
        return None
    return int(raw) if raw.isdigit() else DEFAULT_REQUESTS_KEEP_DAYS


def embed_threads() -> int | None:
    return _positive_int("CTX_EMBED_THREADS")


def model_dir() -> str | None:
    """$CTX_MODEL_DIR: the folder the models are built in (one subfolder each), or None."""
    return os.environ.get("CTX_MODEL_DIR", "").strip() or None


def model_name() -> str | None:
    """$CTX_MODEL (None: the default model). Checked by ctx.semantic.model.current_name."""
    return os.environ.get("CTX_MODEL", "").strip() or None


def english_fusion() -> bool:
    """$CTX_ENGLISH_FUSION (on by default; 0/off/false turns it off): an English query's
    ranking averages multilingual-e5's similarity with the English MiniLM's
    (ctx.semantic.search)."""
    return os.environ.get("CTX_ENGLISH_FUSION", "").strip().lower() not in OFF_WORDS


def semantic_number(name: str) -> float | None:
    """A CTX_SEMANTIC_* number; None (the documented default) when unset, not a number, zero
    or negative — a 0 floor or a negative top N is never what someone meant."""
    raw = os.environ.get(name, "").strip()
    try:
        value = float(raw)
    except ValueError:
        return None
    import math

    return value if math.isfinite(value) and value > 0 else None


DEDUPE_POLICIES = ("skip", "keep", "ask")
DEFAULT_STALE_DAYS = 14


def dedupe_policy(value: str | None = None) -> str:
    """What a write does with a *likely* duplicate (exact and near-exact ones are never stored
    again): `value` if given, else $CTX_DEDUPE, else ask (asked on a terminal; elsewhere not
    stored, and the writer is told how to store it anyway)."""
    raw = (value if value is not None else os.environ.get("CTX_DEDUPE", "")).strip().lower()
    return raw if raw in DEDUPE_POLICIES else "ask"


def stale_days() -> int:
    return _positive_int("CTX_DOCTOR_STALE_DAYS") or DEFAULT_STALE_DAYS


def review_model() -> str | None:
    """$CTX_REVIEW_MODEL: the model `ctx doctor --review` asks (None: the backend's default)."""
    return os.environ.get("CTX_REVIEW_MODEL", "").strip() or None


DEFAULT_CAPTURE_MAX_CHARS = 1600
DEFAULT_CAPTURE_KEEP_DAYS = 30


def capture_enabled() -> bool:
    """$CTX_CAPTURE: session records from transcripts (SPEC §2.12); 0/off turns them off."""
    return os.environ.get("CTX_CAPTURE", "").strip().lower() not in OFF_WORDS


def capture_max_chars() -> int:
    return _positive_int("CTX_CAPTURE_MAX_CHARS") or DEFAULT_CAPTURE_MAX_CHARS


def capture_keep_days() -> int:
    return _positive_int("CTX_CAPTURE_KEEP_DAYS") or DEFAULT_CAPTURE_KEEP_DAYS
