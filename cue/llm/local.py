"""The local backend: llama-cpp-python with a GGUF model and its vision projector.

The model runs in-process in a short-lived worker (local_worker.py) rather than in cue's
own process, so a timeout holds even if native code hangs: the worker is killed and
LocalTimeout raised. Threads and OpenMP are set explicitly (SPEC §4) and the model is
closed before the worker exits. Nothing leaves the machine.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from cue.core.config import Config
from cue.llm.errors import LocalTimeout, LocalUnavailable
from cue.llm.request import FrameImage, Part, Reply, clean_reply, openai_content

WORKER = Path(__file__).with_name("local_worker.py")
STDERR_TAIL = 1500
# llama-cpp-python is the optional extra `cue-ctx[local]` (it compiles llama.cpp from source).
NOT_INSTALLED = ("llama-cpp-python is not installed: the local backend is the optional extra "
                 "cue-ctx[local], which compiles llama.cpp (a C compiler, ~15 min on two cores): "
                 "`make install EXTRAS=semantic,local` (or `make setup`) in the cue-ctx checkout; "
                 "or run a local model server instead: `cue config set digest.backend server` "
                 "(README \"Local models\")")


def llama_installed() -> bool:
    import importlib.util

    return importlib.util.find_spec("llama_cpp") is not None


def default_threads() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # macOS
        return max(1, os.cpu_count() or 1)


class LocalVisionBackend:
    name = "local"

    def __init__(self, config: Config):
        self.model = config["local.model"]
        self.mmproj = config["local.mmproj"]
        self.n_threads = config["local.threads"] or default_threads()
        self.n_threads_batch = config["local.threads_batch"] or self.n_threads
        self.n_ctx = config["local.n_ctx"]
        self.gpu_layers = config["local.gpu_layers"]
        self.max_tokens = config["local.max_tokens"]
        self.timeout = config["local.timeout"]

    def complete(self, parts: list[Part]) -> Reply:
        has_images = any(isinstance(p, FrameImage) for p in parts)
        self._check_files(has_images)
        request = {
            "model": str(Path(self.model).expanduser()),
            "mmproj": str(Path(self.mmproj).expanduser()) if self.mmproj else "",
            "n_ctx": self.n_ctx,
            "n_threads": self.n_threads,
            "n_threads_batch": self.n_threads_batch,
            "gpu_layers": self.gpu_layers,
            "max_tokens": self.max_tokens,
            "messages": [{"role": "user", "content": openai_content(parts)}],
        }
        answer = self._run_worker(json.dumps(request).encode("utf-8"))
        return Reply(
            text=clean_reply(answer.get("text")),
            backend=self.name,
            model=Path(self.model).name,
            input_tokens=answer.get("prompt_tokens"),
            output_tokens=answer.get("completion_tokens"),
            model_ms=float(answer.get("gen_ms") or 0.0),
            decode_ms=answer.get("decode_ms"),
        )

    def _check_files(self, has_images: bool) -> None:
        if not llama_installed():
            raise LocalUnavailable(NOT_INSTALLED)
        for problem in missing_files(self.model, self.mmproj if has_images else None,
                                     need_mmproj=has_images):
            raise LocalUnavailable(problem)

    def _run_worker(self, payload: bytes) -> dict:
        env = dict(os.environ, OMP_WAIT_POLICY="PASSIVE")
        started = time.monotonic()
        proc = subprocess.Popen(
            [sys.executable, str(WORKER)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=env, start_new_session=True,
        )
        try:
            out, err = proc.communicate(payload, timeout=self.timeout)
        except subprocess.TimeoutExpired:
            _kill(proc)
            raise LocalTimeout(
                f"local model gave no answer within {self.timeout:g}s and was stopped "
                f"(model {self.model})",
                f"local model {Path(self.model).name} gave no answer within {self.timeout:g}s "
                "and was stopped: raise local.timeout or lower digest.max_frames") from None
        finally:
            if proc.poll() is None:  # KeyboardInterrupt and friends
                _kill(proc)
        tail = err.decode("utf-8", "replace")[-STDERR_TAIL:].strip()
        try:
            answer = json.loads(out.decode("utf-8"))
        except ValueError:
            raise LocalUnavailable(
                f"local model worker exited with status {proc.returncode} after "
                f"{time.monotonic() - started:.1f}s without an answer; stderr: {tail}",
                f"local model {Path(self.model).name} crashed (worker exit status "
                f"{proc.returncode}) without an answer; llama.cpp's output is in privacy.log"
            ) from None
        if not answer.get("ok"):
            raise LocalUnavailable(
                f"local model failed: {answer.get('error')}; stderr: {tail}",
                f"local model {Path(self.model).name} could not run: "
                f"{str(answer.get('error'))[:200]}")
        return answer


def missing_files(model: str, mmproj: str | None, *, need_mmproj: bool = True) -> list[str]:
    """What keeps the local model from loading, as sentences naming the setting and the
    file (its name only: a person's folders have no business in a digest or a log)."""
    problems = []
    if not model:
        problems.append("local.model is not set: download a GGUF model and its mmproj (README "
                        "\"Local models\") and `cue config set local.model PATH`")
    elif not _present(model):
        problems.append(f"model file {Path(model).name} (local.model) does not exist: "
                        "download it or fix the path with `cue config set local.model PATH`")
    if need_mmproj:
        if not mmproj:
            problems.append("local.mmproj is not set: screenshots need the model's vision "
                            "projector (mmproj-….gguf); `cue config set local.mmproj PATH`")
        elif not _present(mmproj):
            problems.append(f"projector file {Path(mmproj).name} (local.mmproj) does not "
                            "exist: download it or fix the path with "
                            "`cue config set local.mmproj PATH`")
    return problems


def _present(path: str) -> bool:
    p = Path(path).expanduser()
    return p.exists() and not p.is_dir()


def _kill(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()
    try:
        proc.communicate(timeout=2)
    except subprocess.TimeoutExpired:
        pass
