"""Backend failures. Each carries two texts:
- `str(exc)`, the detail (may hold paths, ports, a worker's stderr): privacy.log only,
  scrubbed there;
- `exc.reason`, one sentence a person can act on — which setting or environment variable,
  which URL and what happened, which model file is missing (by file name, never its
  folder). It is scrubbed before it is shown (`Error:` line), stored (the `digests` row's
  `reason`) or written (digest.md "skipped: …"); it never holds a keyframe path, image
  bytes or model output.
"""
from __future__ import annotations

from cue.core.errors import CueError, ExitCode


class BackendError(CueError):
    exit_code = ExitCode.BACKEND

    def __init__(self, detail: str, reason: str | None = None):
        super().__init__(detail)
        self.reason = reason or detail


class LocalUnavailable(BackendError):
    """The on-device model (in-process GGUF or local server) could not answer."""


class LocalTimeout(BackendError):
    """The on-device model did not answer in time and was abandoned."""


class CloudUnavailable(BackendError):
    """The cloud model could not answer (no key, network, API error, timeout)."""
