"""The fail-closed policy gate: which backend answers, and what happens when it can't.

    digest.backend = cloud         → cloud; its failure → cloud tombstone
    digest.backend = local|server  → on-device; LocalUnavailable / LocalTimeout →
        allow_cloud_fallback = false → skip: nothing is sent anywhere, local tombstone
        allow_cloud_fallback = true  → cloud (opt-in); its failure → cloud tombstone

No screenshot goes to the cloud before the user has said yes once (`cloud.send_images`,
asked by `cue digest` on a terminal): without it the cloud step is a skip
(CloudNotAllowed) — nothing is sent.

An empty reply counts as that backend failing. The detail of every failure goes to
privacy.log (scrubbed there) and nowhere else; callers get the fixed tombstone, the fixed
`category` (cue.llm.errors.CATEGORIES: the only "why" that is stored or written to
digest.md) and `reason`: the failures' person-facing sentences (which setting, URL or file
— by name — and what happened), scrubbed, for the terminal's `Error:` line only. Neither
holds model output, image bytes or a keyframe path.
"""
from __future__ import annotations

from cue.core.config import Config
from cue.llm.errors import (
    BackendError,
    CloudNotAllowed,
    CloudUnavailable,
    LocalTimeout,
    LocalUnavailable,
)
from cue.llm.request import FrameImage, Part, Reply
from cuectx.value import Value

LOCAL_TOMBSTONE = "[skipped: local vision model unavailable]"
CLOUD_TOMBSTONE = "[skipped: cloud vision model unavailable]"


class Outcome(Value):
    __slots__ = ("backend", "category", "failures", "fell_back", "reason", "reply", "tombstone")

    def __init__(self, reply: Reply | None, backend: str, fell_back: bool = False,
                 tombstone: str | None = None, failures: tuple[str, ...] = (),
                 reason: str | None = None, category: str | None = None) -> None:
        self.reply = reply
        self.backend = backend  # the backend that answered, or the last one that failed
        self.fell_back = fell_back
        self.tombstone = tombstone
        self.failures = failures  # exception class names, in order (no details)
        self.reason = reason  # why it was skipped, scrubbed, for the terminal only
        self.category = category  # why it was skipped, a fixed phrase: what is stored

    @property
    def text(self) -> str | None:
        return self.reply.text if self.reply else None


def make_backend(name: str, config: Config):
    if name == "local":
        from cue.llm.local import LocalVisionBackend

        return LocalVisionBackend(config)
    if name == "server":
        from cue.llm.server import ServerVisionBackend

        return ServerVisionBackend(config)
    from cue.llm.cloud import CloudVisionBackend

    return CloudVisionBackend(config)


def gate(parts: list[Part], *, config: Config, purpose: str = "digest") -> Outcome:
    """Ask the configured backend, applying the fail-closed policy."""
    primary = config["digest.backend"]
    if primary == "cloud":
        return _cloud(parts, config, purpose, fell_back=False, failures=())
    try:
        return Outcome(reply=_ask(make_backend(primary, config), parts, LocalUnavailable),
                       backend=primary)
    except (LocalUnavailable, LocalTimeout) as exc:
        _log(f"{purpose}_local_failed", backend=primary, error=type(exc).__name__,
             detail=str(exc), cloud_fallback=config["digest.allow_cloud_fallback"])
        failures = (type(exc).__name__,)
        reasons = (exc.reason,)
        if not config["digest.allow_cloud_fallback"]:
            _log(f"{purpose}_skipped", backend=primary, reason="local model unavailable; "
                 "allow_cloud_fallback is false, nothing was sent to the cloud")
            return Outcome(reply=None, backend=primary, tombstone=LOCAL_TOMBSTONE,
                           failures=failures, reason=_reason(reasons), category=exc.category)
    return _cloud(parts, config, purpose, fell_back=True, failures=failures, reasons=reasons)


def _reason(reasons: tuple[str, ...]) -> str:
    from cue.pii.privacy_log import redact

    return redact("; then ".join(reasons))


def cloud_images_allowed(config: Config) -> bool:
    return bool(config["cloud.send_images"])


NOT_ALLOWED = ("screenshots would go to the cloud model, and you have not said yes yet: "
               "choose `cue config set cloud.send_images true` (cloud), "
               "`cue config set digest.backend local` (on this machine) or `server` "
               "(a model server you run); `cue doctor` shows what will run")


def _cloud(parts, config, purpose, *, fell_back, failures, reasons=()) -> Outcome:
    try:
        if not cloud_images_allowed(config) and any(isinstance(p, FrameImage) for p in parts):
            raise CloudNotAllowed("cloud.send_images is false: no consent to send screenshots",
                                  NOT_ALLOWED)
        reply = _ask(make_backend("cloud", config), parts, CloudUnavailable)
        return Outcome(reply=reply, backend="cloud", fell_back=fell_back, failures=failures)
    except CloudUnavailable as exc:
        _log(f"{purpose}_cloud_failed", backend="cloud", error=type(exc).__name__,
             detail=str(exc), fell_back=fell_back)
        return Outcome(reply=None, backend="cloud", fell_back=fell_back,
                       tombstone=CLOUD_TOMBSTONE, failures=failures + (type(exc).__name__,),
                       reason=_reason(reasons + (exc.reason,)), category=exc.category)


def _ask(backend, parts: list[Part], empty_error: type[BackendError]) -> Reply:
    reply = backend.complete(parts)
    if not reply.text:
        raise empty_error(f"the {backend.name} model returned an empty answer")
    return reply


def _log(event: str, **fields) -> None:
    from cue.pii.privacy_log import privacy_log

    privacy_log(event, **fields)
