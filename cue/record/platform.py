"""Which capture backend this machine has: `detect()` picks one or refuses with a sentence
naming what is supported (and the input contract other capture tools can write)."""
from __future__ import annotations

import os
import sys

from cue.record.backend import CONTRACT_HINT, CaptureBackend, CaptureUnavailable
from cue.record.x11 import X11Backend


def detect(environ: dict[str, str] | None = None, platform: str | None = None) -> CaptureBackend:
    """The backend for this session, or CaptureUnavailable naming what is supported."""
    env = os.environ if environ is None else environ
    platform = sys.platform if platform is None else platform
    supported = "cue record supports Linux with an X11 session (DISPLAY set)"
    if platform == "darwin":
        raise CaptureUnavailable(f"macOS capture is not built yet; {supported}; {CONTRACT_HINT}")
    if platform.startswith(("win", "cygwin", "msys")):
        raise CaptureUnavailable(f"Windows capture is not built yet; {supported}; {CONTRACT_HINT}")
    if not platform.startswith("linux"):
        raise CaptureUnavailable(f"{platform} is not supported; {supported}; {CONTRACT_HINT}")
    if env.get("XDG_SESSION_TYPE", "").lower() == "wayland" or (
            env.get("WAYLAND_DISPLAY") and not env.get("DISPLAY")):
        raise CaptureUnavailable(
            "this is a Wayland session, which has no global screenshot or window API; "
            f"{supported}; {CONTRACT_HINT}")
    if not env.get("DISPLAY"):
        raise CaptureUnavailable(f"no X display (DISPLAY is not set); {supported}; "
                                 f"{CONTRACT_HINT}")
    return X11Backend(env["DISPLAY"])
