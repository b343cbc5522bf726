"""`cue doctor` / `cue digest --check`: which backend a digest would use and whether it can
run — calling no model, writing nothing.

Each Check is one line a person reads: ok, or what to fix. `blocking` checks are the ones
without which the configured digest cannot run (the exit status of a check run is 5 when
one of them fails — ExitCode.BACKEND, as for a skipped digest). What is looked at:
- the backend and the policy (digest.backend, digest.allow_cloud_fallback: whether a local
  failure may send screenshots to the cloud — or is blocked from it);
- cloud: an API key is present (ANTHROPIC_API_KEY or the 0600 key file; never shown);
- server: reachable — one GET of `{server.url}/models` — and serving server.model;
- local: llama-cpp-python importable; the model and projector files present, GGUF, the
  text model not a projector and the projector a CLIP projector (the header is read, the
  weights are not loaded);
- disk headroom where CUE_HOME lives (`cue doctor` adds the recorder, from cue.record).
File names are shown without their folders, keys never.
"""
from __future__ import annotations

import shutil
import struct
from pathlib import Path

from cue.core import paths
from cue.core.config import Config
from cuectx.value import Value

SERVER_PROBE_SECS = 5.0
MIN_FREE_BYTES = 1 << 30


class Check(Value):
    __slots__ = ("blocking", "detail", "fix", "name", "ok")

    def __init__(self, name: str, ok: bool, detail: str, fix: str = "",
                 blocking: bool = False) -> None:
        self.name = name
        self.ok = ok
        self.detail = detail  # what was found
        self.fix = fix  # what to do (when not ok)
        self.blocking = blocking  # the digest cannot run without it

    def to_dict(self) -> dict:
        return self.as_dict()


def preflight(config: Config, *, digest_only: bool = False) -> list[Check]:
    backend = config["digest.backend"]
    fallback = config["digest.allow_cloud_fallback"]
    checks = [_backend_line(backend, fallback)]
    if backend == "server":
        checks += server_checks(config)
    elif backend == "local":
        checks += local_checks(config)
    if backend == "cloud" or fallback:
        checks.append(cloud_key_check(config, blocking=backend == "cloud"))
        checks.append(cloud_consent_check(config, blocking=backend == "cloud"))
    if not digest_only:
        checks.append(disk_check(config))  # (the recorder check is added by cue.cli.doctor)
    return checks


def exit_status(checks: list[Check], *, digest_only: bool = False) -> int:
    """0 all ok; 5 a blocking check failed; 1 something else needs a fix (doctor only)."""
    if any(c.blocking and not c.ok for c in checks):
        return 5
    if not digest_only and any(not c.ok for c in checks):
        return 1
    return 0


def _backend_line(backend: str, fallback: bool) -> Check:
    what = {"cloud": "cloud: Anthropic's API (screenshots leave this machine)",
            "local": "local: llama-cpp-python in a worker process (nothing leaves this machine)",
            "server": "server: an OpenAI-compatible HTTP server (llama-server, Ollama, LM Studio)"}
    detail = f"digest.backend = {what[backend]}"
    if backend != "cloud":
        detail += ("; if it fails the cloud answers instead (digest.allow_cloud_fallback = true)"
                   if fallback else "; cloud blocked by policy (digest.allow_cloud_fallback = "
                   "false): if it fails the digest is skipped and nothing is sent")
    return Check("backend", True, detail)


# ------------------------------------------------------------------ cloud
def cloud_key_check(config: Config, *, blocking: bool) -> Check:
    from cue.core.config import api_key, api_key_source
    from cue.core.errors import CueError

    try:
        key = api_key(config)
    except CueError as exc:
        return Check("cloud key", False, str(exc), "fix the key file's mode", blocking)
    if key:
        return Check("cloud key", True, f"Anthropic API key present ({api_key_source(config)})")
    return Check("cloud key", False, "no Anthropic API key",
                 "export ANTHROPIC_API_KEY=sk-ant-… (or put the key in a 0600 file and "
                 "`cue config set cloud.api_key_file PATH`)", blocking)


def cloud_consent_check(config: Config, *, blocking: bool) -> Check:
    """Whether screenshots may leave this machine: the user's yes, given once."""
    if config["cloud.send_images"]:
        return Check("cloud consent", True, "screenshots WILL leave this machine: up to "
                     f"{config['digest.max_frames']} per digest go to Anthropic "
                     f"({config['cloud.model']}); you said yes (cloud.send_images = true)")
    return Check("cloud consent", False, "no screenshot leaves this machine: you have not said "
                 "yes to the cloud yet (cloud.send_images = false), so cloud digests are skipped",
                 "`cue digest` on a terminal asks once; or `cue config set cloud.send_images "
                 "true` (cloud), `cue config set digest.backend local` (this machine) or "
                 "`server` (a model server you run)", blocking)


# ------------------------------------------------------------------ server
def server_checks(config: Config) -> list[Check]:
    from cue.llm.httpclient import Client, HttpError

    url = config["server.url"].rstrip("/")
    want = config["server.model"]
    try:
        with Client(timeout=SERVER_PROBE_SECS) as client:
            response = client.get(f"{url}/models")
    except HttpError as exc:
        return [Check("server", False, f"{url} unreachable: {exc}",
                      "start the server (`ollama serve`, or `llama-server -hf "
                      "ggml-org/gemma-3-4b-it-GGUF --port 8080`) or fix server.url", True)]
    if response.status >= 400:
        return [Check("server", False, f"{url}/models answered HTTP {response.status}",
                      "is server.url the API root (ending in /v1)?", True)]
    try:
        served = [m["id"] for m in response.json()["data"]]
    except (ValueError, KeyError, TypeError):
        return [Check("server", False, f"{url}/models is not an OpenAI model list",
                      "point server.url at an OpenAI-compatible API (…/v1)", True)]
    names = [_short(m) for m in served]
    checks = [Check("server", True, f"{url} reachable, serving {', '.join(names) or 'nothing'}")]
    if want:
        if any(want in (m, _short(m)) for m in served):
            checks.append(Check("server model", True, f"server.model {want!r} is served"))
        else:
            checks.append(Check("server model", False, f"server.model {want!r} is not served",
                                f"`cue config set server.model {names[0]}`" if names else
                                f"load it (e.g. `ollama pull {want}`)", True))
    elif len(served) != 1:
        checks.append(Check("server model", False, "server.model is not set and the server "
                            f"serves {len(served)} models",
                            f"`cue config set server.model {names[0]}`" if names else
                            "load a vision model into the server", True))
    return checks


def _short(model_id: str) -> str:
    """llama-server names its model by file path: keep the file name only."""
    from cue.llm.server import _model_name

    return _model_name(model_id)


# ------------------------------------------------------------------ local
def local_checks(config: Config) -> list[Check]:
    from cue.llm.local import NOT_INSTALLED, llama_installed, missing_files

    checks = []
    if not llama_installed():
        checks.append(Check("llama-cpp-python", False, "llama_cpp is not installed",
                            NOT_INSTALLED, True))
    else:
        checks.append(Check("llama-cpp-python", True, "llama_cpp importable"))
    problems = missing_files(config["local.model"], config["local.mmproj"])
    for problem in problems:
        name = "model file" if problem.startswith(("model", "local.model")) else "projector file"
        checks.append(Check(name, False, problem.split(":")[0], problem.split(":", 1)[1].strip(),
                            True))
    for key, want_clip, name in (("local.model", False, "model file"),
                                 ("local.mmproj", True, "projector file")):
        value = config[key]
        if not value or not Path(value).expanduser().is_file():
            continue  # reported by missing_files above (or a FIFO/device: not read here)
        path = Path(value).expanduser()
        arch, error = gguf_architecture(path)
        size = f"{path.stat().st_size / 1e9:.2f} GB" if path.stat().st_size >= 1e8 else \
            f"{path.stat().st_size / 1e3:.0f} KB"
        if error:
            checks.append(Check(name, False, f"{path.name} ({key}) is not loadable: {error}",
                                "download the file again (a GGUF from the model's page)", True))
        elif want_clip and arch != "clip":
            checks.append(Check(name, False, f"{path.name} ({key}) is a {arch} model, not a "
                                "vision projector", "set local.mmproj to the mmproj-….gguf "
                                "that comes with the model", True))
        elif not want_clip and arch == "clip":
            checks.append(Check(name, False, f"{path.name} ({key}) is a vision projector",
                                "local.model and local.mmproj look swapped", True))
        else:
            checks.append(Check(name, True, f"{path.name} ({key}): GGUF, {arch}, {size}"))
    return checks


_GGUF_TYPES = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}


def gguf_architecture(path: Path, max_keys: int = 64) -> tuple[str | None, str | None]:
    """(general.architecture, None) from a GGUF header, or (None, why it is not a GGUF)."""
    try:
        with path.open("rb") as fh:
            if fh.read(4) != b"GGUF":
                return None, "not a GGUF file (wrong magic)"
            version, _tensors, kv_count = struct.unpack("<IQQ", fh.read(20))
            if version not in (2, 3):
                return None, f"GGUF version {version} is not supported"
            for _ in range(min(kv_count, max_keys)):
                key = fh.read(struct.unpack("<Q", fh.read(8))[0]).decode("utf-8", "replace")
                vtype = struct.unpack("<I", fh.read(4))[0]
                if vtype == 8:  # string
                    value = fh.read(struct.unpack("<Q", fh.read(8))[0])
                    if key == "general.architecture":
                        return value.decode("utf-8", "replace"), None
                elif vtype == 9:  # array: element type, count, elements
                    etype, count = struct.unpack("<IQ", fh.read(12))
                    if etype == 8:
                        for _ in range(count):
                            fh.seek(struct.unpack("<Q", fh.read(8))[0], 1)
                    elif etype in _GGUF_TYPES:
                        fh.seek(_GGUF_TYPES[etype] * count, 1)
                    else:
                        break
                elif vtype in _GGUF_TYPES:
                    fh.seek(_GGUF_TYPES[vtype], 1)
                else:
                    break
    except (OSError, struct.error) as exc:
        return None, f"unreadable header ({type(exc).__name__})"
    return None, "no general.architecture in its header"


# ------------------------------------------------------------------ capture
def disk_check(config: Config) -> Check:
    from cue.core.sizes import human_size, parse_size

    home = paths.home()
    where = next((p for p in (home, *home.parents) if p.exists()), Path("/"))
    free = shutil.disk_usage(where).free
    budget = parse_size(config["record.max_disk"])
    need = min(budget, MIN_FREE_BYTES)
    if free >= need:
        return Check("disk", True, f"{human_size(free)} free where CUE_HOME lives "
                     f"(record.max_disk {human_size(budget)})")
    return Check("disk", False, f"only {human_size(free)} free where CUE_HOME lives",
                 f"free some space or lower record.max_disk (now {human_size(budget)})")
