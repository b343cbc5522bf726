"""Backend failures. Messages may hold details (paths, ports, stderr): they go to
privacy.log (scrubbed) and never into a digest, the database or stdout."""
from __future__ import annotations

from cue.core.errors import CueError, ExitCode


class BackendError(CueError):
    exit_code = ExitCode.BACKEND


class LocalUnavailable(BackendError):
    """The on-device model (in-process GGUF or local server) could not answer."""


class LocalTimeout(BackendError):
    """The on-device model did not answer in time and was abandoned."""


class CloudUnavailable(BackendError):
    """The cloud model could not answer (no key, network, API error, timeout)."""
