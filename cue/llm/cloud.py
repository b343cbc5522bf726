"""The cloud backend: Anthropic's Messages API through the anthropic SDK (imported here,
lazily — it costs ~1 s), image content blocks, Haiku unless configured otherwise."""
from __future__ import annotations

import time

from cue.core.config import Config, api_key
from cue.llm.deadline import DeadlineExceeded, call_with_deadline
from cue.llm.errors import CLOUD_KEY_MISSING, CloudUnavailable
from cue.llm.request import FrameImage, Part, Reply, clean_reply

_clients: dict[tuple, object] = {}


def anthropic_content(parts: list[Part]) -> list[dict]:
    import base64

    return [
        {"type": "text", "text": p} if isinstance(p, str) else {
            "type": "image",
            "source": {"type": "base64", "media_type": "image/jpeg",
                       "data": base64.b64encode(p.jpeg).decode("ascii")},
        }
        for p in parts
    ]


class CloudVisionBackend:
    name = "cloud"

    def __init__(self, config: Config):
        self.config = config
        self.model = config["cloud.model"]
        self.base_url = config["cloud.base_url"] or None
        self.max_tokens = config["cloud.max_tokens"]
        self.timeout = config["cloud.timeout"]
        self.max_retries = config["cloud.max_retries"]

    def _client(self):
        key = api_key(self.config)
        if not key:
            raise CloudUnavailable("no Anthropic API key: set ANTHROPIC_API_KEY or put the key "
                                   "in a 0600 file named by cloud.api_key_file",
                                   category=CLOUD_KEY_MISSING)
        cache_key = (key, self.base_url, self.timeout, self.max_retries)
        if cache_key not in _clients:
            import anthropic

            _clients[cache_key] = anthropic.Anthropic(
                api_key=key, base_url=self.base_url, timeout=self.timeout,
                max_retries=self.max_retries)
        return _clients[cache_key]

    def _where(self) -> str:
        return f"at {self.base_url}" if self.base_url else "(api.anthropic.com)"

    def complete(self, parts: list[Part]) -> Reply:
        client = self._client()
        import anthropic

        content = anthropic_content(parts) if any(isinstance(p, FrameImage) for p in parts) \
            else "\n\n".join(parts)  # type: ignore[arg-type]
        t0 = time.perf_counter()
        # The SDK retries; the deadline bounds the whole call, retries included.
        deadline = self.timeout * (self.max_retries + 1) + 1
        try:
            message = call_with_deadline(
                lambda: client.messages.create(
                    model=self.model, max_tokens=self.max_tokens,
                    messages=[{"role": "user", "content": content}]),
                deadline)
        except DeadlineExceeded:
            raise CloudUnavailable(f"cloud model gave no answer within {deadline:g}s: raise "
                                   "cloud.timeout") from None
        except anthropic.APIStatusError as exc:
            hint = {401: ": the key in ANTHROPIC_API_KEY (or cloud.api_key_file) was refused",
                    403: ": the key may not use this model (cloud.model)",
                    404: f": is cloud.model {self.model!r} a model name?",
                    429: ": rate limited, try again later"}.get(exc.status_code, "")
            raise CloudUnavailable(f"cloud API {self._where()} answered HTTP {exc.status_code} "
                                   f"({type(exc).__name__}){hint}") from None
        except anthropic.APIConnectionError as exc:
            raise CloudUnavailable(f"cannot reach the cloud API {self._where()}: "
                                   f"{type(exc).__name__}: {exc}") from None
        except anthropic.APIError as exc:
            raise CloudUnavailable(f"cloud API {self._where()} failed: "
                                   f"{type(exc).__name__}: {exc}") from None
        model_ms = (time.perf_counter() - t0) * 1000
        text = "".join(getattr(block, "text", "") for block in message.content
                       if getattr(block, "type", "") == "text")
        return Reply(
            text=clean_reply(text),
            backend=self.name,
            model=message.model or self.model,
            input_tokens=getattr(message.usage, "input_tokens", None),
            output_tokens=getattr(message.usage, "output_tokens", None),
            model_ms=model_ms,
        )
