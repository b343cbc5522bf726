"""cue's settings: a small TOML file in CUE_HOME, environment overrides, typed defaults.

Keys are `section.name` (`digest.backend`, `local.model`, …). The environment variable
for a key is `CUE_` + the key upper-cased with dots as underscores (`CUE_DIGEST_BACKEND`,
`CUE_LOCAL_TIMEOUT`); it wins over the file, which wins over the default.

The Anthropic API key is never a setting: it comes from ANTHROPIC_API_KEY or from a file
only its owner can read (`cloud.api_key_file`, default CUE_HOME/anthropic-api-key).
"""
from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from cue.core import paths, settings
from cue.core.errors import CueError
from cue.core.settings import env_name
from cue.core.timespec import parse_duration
from cuectx.files import replace_file
from cuectx.value import Value

BACKENDS = ("cloud", "local", "server")


class ConfigError(CueError):
    """The config file or a setting is missing or invalid."""


class Setting(Value):
    __slots__ = ("check", "choices", "default", "help", "key", "type")

    def __init__(self, key: str, type: type, default: Any, help: str, choices: tuple[str, ...] = (),
                 check: Any = None) -> None:
        self.key = key
        self.type = type
        self.default = default
        self.help = help
        self.choices = choices
        self.check = check  # extra validation: a callable that raises CueError with a sentence


# `cue record`'s exclusions by default: password managers, private browsing, password
# prompts (cue.record.exclusions applies them).
_PASSWORD_MANAGERS = (
    "1Password", "Bitwarden", "KeePassXC", "KeePass", "KeePass2", "KeeWeb", "Enpass",
    "LastPass", "Dashlane", "NordPass", "Proton Pass", "RoboForm", "Keeper",
    "Seahorse", "gnome-keyring", "Kwalletmanager5", "KWalletManager", "qtpass",
    "Gpg-crypter", "Pinentry", "pinentry-gtk-2", "pinentry-qt",
    "Polkit-gnome-authentication-agent-1",
)
DEFAULT_EXCLUDE_APPS = ", ".join(_PASSWORD_MANAGERS)
DEFAULT_EXCLUDE_TITLES = (
    r"private browsing|incognito|inprivate|\bprivate\b|tor browser"
    r"|password|passwort|passphrase|contraseña|mot de passe|비밀번호|パスワード"
)


def compile_titles(pattern: str) -> re.Pattern[str] | None:
    """The title regex (case-insensitive), or None for an empty setting. Raises re.error."""
    return re.compile(pattern, re.IGNORECASE) if pattern.strip() else None



def _check_record(key: str, value: Any) -> None:
    """record.* values: what makes sense for a recorder left running all day."""
    from cue.core.sizes import parse_size

    limits = {"record.interval": (0.2, 3600), "record.heartbeat": (0, 86400),
              "record.change_threshold": (0, 256), "record.max_width": (320, 16384),
              "record.quality": (10, 95)}
    if key in limits:
        lo, hi = limits[key]
        if not lo <= value <= hi:
            raise CueError(f"must be between {lo:g} and {hi:g}, not {value!r}")
    elif key == "record.keep":
        if parse_duration(value) < 3600:
            raise CueError(f"must be at least 1h, not {value!r}")
    elif key == "record.max_disk":
        if parse_size(value) < 10**7:
            raise CueError(f"must be at least 10MB, not {value!r}")
    elif key == "record.exclude_titles":
        try:
            compile_titles(value)
        except re.error as exc:
            raise CueError(f"is not a valid regular expression ({exc})") from None


def _record(name: str, type_: type, default: Any, help_: str) -> Setting:
    return Setting(f"record.{name}", type_, default, help_,
                   check=lambda v, _k=f"record.{name}": _check_record(_k, v))


def _record_settings() -> tuple[Setting, ...]:
    return (
        _record("interval", float, 2.0, "`cue record`: seconds between screen grabs"),
        _record("heartbeat", float, 60.0, "`cue record`: while you are active, a keyframe at "
                "least this often (seconds) even if the screen barely changed; 0 = off"),
        _record("change_threshold", int, 6, "`cue record`: a grab becomes a keyframe when its "
                "256-bit dhash differs from the last keyframe's in more bits than this"),
        _record("max_width", int, 1920, "`cue record`: keyframes wider than this are scaled down"),
        _record("quality", int, 70, "`cue record`: JPEG quality of keyframes (10-95)"),
        _record("exclude_apps", str, DEFAULT_EXCLUDE_APPS, "`cue record`: comma-separated "
                "app classes never captured (case-insensitive; e.g. KeePassXC)"),
        _record("exclude_titles", str, DEFAULT_EXCLUDE_TITLES, "`cue record`: a regular "
                "expression (case-insensitive); windows whose title matches are never captured"),
        _record("exclude_undecodable", bool, True, "`cue record`: never capture a window whose "
                "title or class cue cannot decode (an unknown encoding may hide a title "
                "record.exclude_titles would match)"),
        _record("keep", str, "7d", "`cue record`/`cue prune`: delete keyframes and event logs "
                "older than this"),
        _record("max_disk", str, "2GB", "`cue record`/`cue prune`: keep keyframes and event "
                "logs under this size, oldest removed first"),
    )


RECORD_SETTINGS = _record_settings()

SETTINGS: tuple[Setting, ...] = (
    Setting("digest.backend", str, "cloud",
            "which model writes digests: cloud (Anthropic), local (in-process GGUF) "
            "or server (OpenAI-compatible HTTP)", BACKENDS),
    Setting("digest.allow_cloud_fallback", bool, False,
            "when the local/server model fails, send the frames to the cloud instead "
            "of skipping the digest"),
    Setting("digest.window", str, "15m", "default window for `cue digest` (e.g. 15m, 1h)"),
    Setting("digest.max_frames", int, 10, "at most this many screenshots per digest"),
    Setting("digest.keyframes", str, "", "keyframe folder (default CUE_HOME/keyframes)"),
    Setting("digest.events", str, "", "MCAP event folder (default CUE_HOME/events)"),
    Setting("local.model", str, "", "path to the text model .gguf"),
    Setting("local.mmproj", str, "", "path to the vision projector (mmproj) .gguf"),
    Setting("local.threads", int, 0, "n_threads for generation (0 = number of CPUs)"),
    Setting("local.threads_batch", int, 0, "n_threads_batch for prompt/image processing "
            "(0 = same as local.threads)"),
    Setting("local.n_ctx", int, 8192, "context window in tokens"),
    Setting("local.gpu_layers", int, 0, "layers to offload to a GPU (-1 = all)"),
    Setting("local.max_tokens", int, 400, "cap on generated tokens"),
    Setting("local.timeout", float, 120.0, "seconds before the local model is abandoned"),
    Setting("server.url", str, "http://127.0.0.1:8080/v1",
            "base URL of an OpenAI-compatible server (llama-server, Ollama, LM Studio)"),
    Setting("server.model", str, "", "model name sent to the server (Ollama needs one)"),
    Setting("server.max_tokens", int, 400, "cap on generated tokens"),
    Setting("server.timeout", float, 120.0, "seconds before the server request is abandoned"),
    Setting("cloud.send_images", bool, False,
            "your consent, once, to send screenshots to the cloud model (Anthropic): "
            "`cue digest` asks on a terminal; set it true for unattended runs (cron)"),
    Setting("cloud.model", str, "claude-haiku-4-5", "Anthropic model"),
    Setting("cloud.base_url", str, "", "Anthropic API base URL (default: the SDK's)"),
    Setting("cloud.max_tokens", int, 400, "cap on generated tokens"),
    Setting("cloud.timeout", float, 60.0, "seconds before the cloud request is abandoned"),
    Setting("cloud.max_retries", int, 1, "SDK retries on connection errors and 5xx"),
    Setting("cloud.api_key_file", str, "",
            "file holding the API key, mode 0600 (default CUE_HOME/anthropic-api-key)"),
    Setting("memory.backend", str, "digest",
            "which model writes memory.md and suggestions: digest (the same as "
            "digest.backend), cloud, local or server", ("digest",) + BACKENDS),
    Setting("memory.model", str, "claude-opus-4-5",
            "Anthropic model for `cue memory` and `cue suggest` (more capable than the "
            "digest's)"),
    Setting("memory.local_model", str, "",
            "GGUF for `cue memory` and `cue suggest` on the local backend "
            "(default: local.model)"),
    Setting("memory.max_tokens", int, 1500, "cap on generated tokens for memory.md"),
    Setting("memory.window", str, "24h",
            "digests the first `cue memory` reads (later runs read what is new since)"),
    *RECORD_SETTINGS,
)
BY_KEY = {s.key: s for s in SETTINGS}


class Config(Value):
    """Effective settings: `values[key]` typed, `sources[key]` in {default, file, env}."""

    __slots__ = ("sources", "values")

    def __init__(self, values: dict[str, Any], sources: dict[str, str] | None = None) -> None:
        self.values = values
        self.sources = {} if sources is None else sources

    def __getitem__(self, key: str) -> Any:
        return self.values[key]

    def replace(self, **changes: Any) -> Config:
        """A copy with `section__name=value` changes (for tests and `--backend`)."""
        values = dict(self.values)
        sources = dict(self.sources)
        for name, value in changes.items():
            key = name.replace("__", ".")
            values[key] = _check(BY_KEY[key], value)
            sources[key] = "override"
        return Config(values, sources)


def load(path: Path | None = None, env: dict[str, str] | None = None) -> Config:
    """Read the config file (if any) and the environment; raise ConfigError on bad input."""
    path = path or paths.config_path()
    raw = read_file(path)
    overridden = settings.overrides([s.key for s in SETTINGS], env)
    values, sources = {}, {}
    for s in SETTINGS:
        values[s.key], sources[s.key] = s.default, "default"
        section, name = s.key.split(".")
        if name in raw.get(section, {}):
            values[s.key] = _check(s, raw[section][name], where=f"{path}")
            sources[s.key] = "file"
        if s.key in overridden:
            values[s.key] = parse_value(s.key, overridden[s.key], where=env_name(s.key))
            sources[s.key] = "env"
    return Config(values, sources)


def read_file(path: Path) -> dict[str, dict[str, Any]]:
    """The file's tables, or {} when there is no file. Unknown keys are an error."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ConfigError(f"cannot read config file {path}: {exc.strerror}") from exc
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config file {path} is not valid TOML: {exc}") from exc
    for section, table in data.items():
        if not isinstance(table, dict):
            raise ConfigError(f"config file {path}: `{section}` must be a [table]; "
                              f"known keys: {', '.join(BY_KEY)}")
        for name in table:
            if f"{section}.{name}" not in BY_KEY:
                raise ConfigError(f"config file {path}: unknown setting `{section}.{name}`; "
                                  f"known keys: {', '.join(BY_KEY)}")
    return data


def parse_value(key: str, text: str, *, where: str = "value") -> Any:
    """Turn command-line/env text into the setting's type."""
    s = _setting(key)
    if s.type is bool:
        low = text.strip().lower()
        if low in ("1", "true", "yes", "on"):
            return True
        if low in ("0", "false", "no", "off"):
            return False
        raise ConfigError(f"{where}: `{s.key}` must be true or false, not {text!r}")
    if s.type in (int, float):
        try:
            return _check(s, s.type(text.strip()), where=where)
        except ValueError:
            raise ConfigError(f"{where}: `{s.key}` must be a number, not {text!r}") from None
    return _check(s, text, where=where)


def set_value(key: str, text: str, path: Path | None = None) -> Any:
    """Validate and write one setting to the file (0600, atomic); return the typed value."""
    return set_values([(key, text)], path)[0]


def set_values(pairs: list[tuple[str, str]], path: Path | None = None) -> list[Any]:
    """Validate every (key, text) first, then write them all in one atomic rewrite."""
    values = []
    for key, text in pairs:
        if key in ("cloud.api_key", "anthropic_api_key", "api_key"):
            raise ConfigError("the API key is not stored in config.toml; set ANTHROPIC_API_KEY "
                              "or put it in a file only you can read and set cloud.api_key_file")
        values.append(parse_value(key, text))
    path = path or paths.config_path()
    raw = read_file(path)
    for (key, _), value in zip(pairs, values, strict=True):
        section, name = key.split(".")
        raw.setdefault(section, {})[name] = value
    write_file(path, raw)
    return values


def unset_value(key: str, path: Path | None = None) -> None:
    _setting(key)
    path = path or paths.config_path()
    raw = read_file(path)
    section, name = key.split(".")
    if name in raw.get(section, {}):
        del raw[section][name]
        if not raw[section]:
            del raw[section]
        write_file(path, raw)


def write_file(path: Path, data: dict[str, dict[str, Any]]) -> None:
    """Write tables of str/int/float/bool as TOML (our own values only, so a tiny writer)."""
    lines = ["# cue settings — `cue config show` lists every key with its default.", ""]
    for section in sorted(data):
        lines.append(f"[{section}]")
        for name in sorted(data[section]):
            lines.append(f"{name} = {_toml_value(data[section][name])}")
        lines.append("")
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    replace_file(path, ["\n".join(lines).encode("utf-8")])


def api_key(config: Config, env: dict[str, str] | None = None) -> str | None:
    """The Anthropic key: ANTHROPIC_API_KEY, else the key file (which must be 0600)."""
    from_env = settings.anthropic_api_key(env)
    if from_env:
        return from_env
    path = api_key_path(config)
    if not path.exists():
        return None
    mode = path.stat().st_mode & 0o777
    if mode & 0o077:
        raise ConfigError(f"API key file {path} can be read by others (mode {mode:o}); "
                          f"run `chmod 600 {path}`")
    key = path.read_text(encoding="utf-8").strip()
    return key or None


def api_key_path(config: Config) -> Path:
    configured = config["cloud.api_key_file"]
    return Path(configured).expanduser() if configured else paths.home() / "anthropic-api-key"


def api_key_source(config: Config) -> str:
    """Where the key would come from, for `cue config show` (never the key itself)."""
    if settings.anthropic_api_key():
        return "env ANTHROPIC_API_KEY"
    path = api_key_path(config)
    return f"file {path}" if path.exists() else "not set"


def _setting(key: str) -> Setting:
    try:
        return BY_KEY[key]
    except KeyError:
        raise ConfigError(f"unknown setting `{key}`; known keys: {', '.join(BY_KEY)}") from None


def _check(s: Setting, value: Any, *, where: str = "value") -> Any:
    if s.type is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, s.type) or (s.type is int and isinstance(value, bool)):
        raise ConfigError(f"{where}: `{s.key}` must be {s.type.__name__}, not {value!r}")
    if s.choices and value not in s.choices:
        raise ConfigError(f"{where}: `{s.key}` must be one of {', '.join(s.choices)}, "
                          f"not {value!r}")
    if s.type in (int, float) and s.key.endswith(("timeout", "max_tokens", "max_frames",
                                                  "n_ctx")) and value <= 0:
        raise ConfigError(f"{where}: `{s.key}` must be positive, not {value!r}")
    if s.check is not None:
        try:
            s.check(value)
        except CueError as exc:
            raise ConfigError(f"{where}: `{s.key}` {exc}") from None
    if s.key in ("digest.window", "memory.window"):
        try:
            parse_duration(value)
        except CueError as exc:
            raise ConfigError(f"{where}: `{s.key}`: {exc}") from None
    return value


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    escaped = str(value).replace("\\", "\\\\").replace('"', '\\"')
    escaped = "".join(c if c >= " " else f"\\u{ord(c):04x}" for c in escaped)
    return f'"{escaped}"'


def capture_folders(config: Config) -> tuple[Path, Path]:
    """The keyframe and event folders the recorder writes and `cue digest` reads."""
    k, e = config["digest.keyframes"], config["digest.events"]
    return (Path(k).expanduser() if k else paths.keyframes_dir(),
            Path(e).expanduser() if e else paths.events_dir())
