"""Backend failures. Each carries three texts:
- `str(exc)`, the detail (may hold paths, ports, a worker's stderr): privacy.log only,
  scrubbed there;
- `exc.reason`, one sentence a person can act on — which setting or environment variable,
  which URL and what happened, which model file is missing (by file name, never its
  folder). It is scrubbed before it is shown (`Error:` line), stored (the `digests` row's
  `reason`) or written (digest.md "skipped: …"); it never holds a keyframe path, image
  bytes or model output.
- `exc.category`, a fixed phrase from `CATEGORIES` (the seed's tombstone: "so file paths /
  ports / stderr can't leak"). Only the category is stored (the `digests` row's `reason`)
  or written (digest.md); the sentence above goes to the terminal's `Error:` line, which
  is not kept.
"""
from __future__ import annotations

from cue.core.errors import CueError, ExitCode

LOCAL_UNAVAILABLE = "local vision model unavailable"
LOCAL_TIMEOUT = "local vision model timed out"
CLOUD_UNAVAILABLE = "cloud vision model unavailable"
CLOUD_KEY_MISSING = "cloud API key missing"
CLOUD_NOT_ALLOWED = "cloud not allowed: screenshots need your consent once"
CATEGORIES = (LOCAL_UNAVAILABLE, LOCAL_TIMEOUT, CLOUD_UNAVAILABLE, CLOUD_KEY_MISSING,
              CLOUD_NOT_ALLOWED)


class BackendError(CueError):
    exit_code = ExitCode.BACKEND
    category = LOCAL_UNAVAILABLE

    def __init__(self, detail: str, reason: str | None = None, *,
                 category: str | None = None):
        super().__init__(detail)
        self.reason = reason or detail
        if category is not None:
            assert category in CATEGORIES, category
            self.category = category


class LocalUnavailable(BackendError):
    """The on-device model (in-process GGUF or local server) could not answer."""


class LocalTimeout(BackendError):
    """The on-device model did not answer in time and was abandoned."""

    category = LOCAL_TIMEOUT


class CloudUnavailable(BackendError):
    """The cloud model could not answer (no key, network, API error, timeout)."""

    category = CLOUD_UNAVAILABLE


class CloudNotAllowed(CloudUnavailable):
    """Screenshots would go to the cloud, and the user has not said yes yet
    (`cloud.send_images`)."""

    category = CLOUD_NOT_ALLOWED
