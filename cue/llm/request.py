"""What a backend is asked and what it answers, independent of any wire format.

A request is a list of parts: text, and images as JPEG bytes labelled only with their
frame index and offset in seconds — never a file path.
"""
from __future__ import annotations

import base64

from cuectx.value import Value


class FrameImage(Value):
    """One prepared screenshot: JPEG bytes (never written to disk) and what the model may
    know about it — its position in the digest and seconds since the window began."""

    __slots__ = ("index", "jpeg", "offset_secs")

    def __init__(self, index: int, offset_secs: float, jpeg: bytes) -> None:
        self.index = index
        self.offset_secs = offset_secs
        self.jpeg = jpeg

    @property
    def label(self) -> str:
        return f"Frame {self.index} (+{self.offset_secs:.0f}s):"

    def data_url(self) -> str:
        return "data:image/jpeg;base64," + base64.b64encode(self.jpeg).decode("ascii")

    def __repr__(self) -> str:  # keep image bytes out of tracebacks and logs
        return f"FrameImage(index={self.index}, offset_secs={self.offset_secs}, " \
               f"jpeg=<{len(self.jpeg)} bytes>)"


Part = str | FrameImage


class Reply(Value):
    __slots__ = ("backend", "decode_ms", "input_tokens", "model", "model_ms", "output_tokens",
                 "text")

    def __init__(self, text: str, backend: str, model: str, input_tokens: int | None = None,
                 output_tokens: int | None = None, model_ms: float = 0.0,
                 decode_ms: float | None = None) -> None:
        self.text = text
        self.backend = backend
        self.model = model
        self.input_tokens = input_tokens
        self.output_tokens = output_tokens
        self.model_ms = model_ms  # the whole call: prompt and images in, tokens out
        self.decode_ms = decode_ms  # token generation alone, where the backend says

    @property
    def tokens_per_sec(self) -> float | None:
        """Output tokens per second of the whole call."""
        if not self.output_tokens or not self.model_ms:
            return None
        return self.output_tokens / (self.model_ms / 1000)

    @property
    def decode_tokens_per_sec(self) -> float | None:
        """Generation speed alone (local backend only)."""
        if not self.output_tokens or not self.decode_ms:
            return None
        return self.output_tokens / (self.decode_ms / 1000)


def digest_parts(prompt: str, frames: list[FrameImage], timeline: str) -> list[Part]:
    """The digest request: instructions, the timeline, then each frame after its label."""
    parts: list[Part] = [prompt.strip() + "\n\n" + timeline.strip()]
    for frame in frames:
        parts.append(frame.label)
        parts.append(frame)
    return parts


def text_of(parts: list[Part]) -> str:
    """Every text part, as the model sees it (images shown as their label only)."""
    return "\n".join(p if isinstance(p, str) else f"[image {len(p.jpeg)} bytes]" for p in parts)


def clean_reply(text: str | None) -> str:
    """Strip the reply; control characters other than newline and tab are dropped."""
    text = text or ""
    return "".join(c for c in text if c in "\n\t" or c >= " " and c != "\x7f").strip()


def openai_content(parts: list[Part]) -> str | list[dict]:
    """OpenAI chat-completions `content` (also what llama-cpp-python's handlers take):
    a plain string for text-only requests, else text and image_url data-URL blocks."""
    if all(isinstance(p, str) for p in parts):
        return "\n\n".join(parts)  # type: ignore[arg-type]
    return [
        {"type": "text", "text": p} if isinstance(p, str)
        else {"type": "image_url", "image_url": {"url": p.data_url()}}
        for p in parts
    ]
