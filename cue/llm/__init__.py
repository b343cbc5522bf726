"""Vision/text model backends behind one fail-closed policy gate.

    summarize_digest_with_policy(prompt, frames, timeline, *, config) -> str | None
    complete_text(prompt, *, config) -> str

`frames` are FrameImage(index, offset_secs, jpeg) — bytes and position only, never a
path. Backends: `local` (llama-cpp-python, GGUF + mmproj), `server` (OpenAI-compatible
HTTP), `cloud` (Anthropic). See cue.llm.policy for what happens when one fails.
"""
from __future__ import annotations

from cue.core.config import Config
from cue.llm.errors import BackendError, CloudUnavailable, LocalTimeout, LocalUnavailable
from cue.llm.policy import CLOUD_TOMBSTONE, LOCAL_TOMBSTONE, Outcome, gate
from cue.llm.request import FrameImage, Reply, digest_parts

__all__ = [
    "CLOUD_TOMBSTONE",
    "LOCAL_TOMBSTONE",
    "BackendError",
    "CloudUnavailable",
    "FrameImage",
    "LocalTimeout",
    "LocalUnavailable",
    "Outcome",
    "Reply",
    "complete_text",
    "complete_text_with_policy",
    "digest_with_policy",
    "summarize_digest_with_policy",
]


def digest_with_policy(prompt: str, frames: list[FrameImage], timeline: str, *,
                       config: Config) -> Outcome:
    """The digest call with everything the pipeline records (backend, fallback, timings)."""
    return gate(digest_parts(prompt, frames, timeline), config=config, purpose="digest")


def summarize_digest_with_policy(prompt: str, frames: list[FrameImage], timeline: str, *,
                                 config: Config) -> str | None:
    """The seed's single call site: the raw model output, or None when the policy skips."""
    return digest_with_policy(prompt, frames, timeline, config=config).text


def complete_text_with_policy(prompt: str, *, config: Config, purpose: str = "text") -> Outcome:
    """A text-only request under the same policy (cue memory / suggest)."""
    return gate([prompt], config=config, purpose=purpose)


def complete_text(prompt: str, *, config: Config, purpose: str = "text") -> str:
    """A text-only request; raises BackendError when the policy skips (reason logged)."""
    outcome = complete_text_with_policy(prompt, config=config, purpose=purpose)
    if outcome.text is None:
        raise BackendError(f"no {outcome.backend} model could answer ({purpose}); "
                           "details in privacy.log")
    return outcome.text
