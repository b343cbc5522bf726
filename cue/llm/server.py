"""An OpenAI-compatible chat-completions endpoint (over the standard library's http.client,
cue.llm.httpclient): llama-server, Ollama (`/v1`), LM Studio. Treated as an on-device backend
by the policy, so its failures are LocalUnavailable / LocalTimeout and fail closed like the
in-process model."""
from __future__ import annotations

import time

from cue.core.config import Config
from cue.llm.deadline import DeadlineExceeded, call_with_deadline
from cue.llm.errors import LocalTimeout, LocalUnavailable
from cue.llm.httpclient import Client, HttpError, HttpTimeout
from cue.llm.request import Part, Reply, clean_reply, openai_content


class ServerVisionBackend:
    name = "server"

    def __init__(self, config: Config):
        self.url = config["server.url"].rstrip("/")
        self.model = config["server.model"]
        self.max_tokens = config["server.max_tokens"]
        self.timeout = config["server.timeout"]

    def complete(self, parts: list[Part]) -> Reply:
        body = {
            "model": self.model or "local",
            "messages": [{"role": "user", "content": openai_content(parts)}],
            "max_tokens": self.max_tokens,
            "temperature": 0.2,
            "stream": False,
        }
        client = Client(timeout=self.timeout)
        t0 = time.perf_counter()
        try:
            response = call_with_deadline(
                lambda: client.post_json(f"{self.url}/chat/completions", body),
                self.timeout, on_abandon=client.close)
        except DeadlineExceeded:
            raise LocalTimeout(f"server {self.url} gave no answer within "
                               f"{self.timeout:g}s: raise server.timeout or lower "
                               "digest.max_frames") from None
        except HttpTimeout as exc:
            raise LocalTimeout(f"server {self.url} {exc}: raise server.timeout or lower "
                               "digest.max_frames") from None
        except HttpError as exc:
            raise LocalUnavailable(f"server {self.url} unreachable: {exc} — start "
                                   "llama-server or Ollama there, or set server.url") from None
        model_ms = (time.perf_counter() - t0) * 1000
        if response.status >= 400:
            hint = (f"; is server.model {self.model!r} one it serves? `cue doctor` lists them"
                    if response.status in (400, 404) else "")
            raise LocalUnavailable(f"server {self.url} answered HTTP {response.status}: "
                                   f"{response.text[:300]}",
                                   f"server {self.url} answered HTTP {response.status}: "
                                   f"{' '.join(response.text[:160].split())}{hint}")
        try:
            data = response.json()
            text = data["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise LocalUnavailable(f"server {self.url} sent an answer that is not a chat "
                                   f"completion: {response.text[:300]}") from None
        usage = data.get("usage") or {}
        return Reply(
            text=clean_reply(text),
            backend=self.name,
            model=_model_name(data.get("model") or self.model or ""),
            input_tokens=usage.get("prompt_tokens"),
            output_tokens=usage.get("completion_tokens"),
            model_ms=model_ms,
        )


def _model_name(name: str) -> str:
    """llama-server reports the model's file path; keep only the file name (a user's folder
    names have no business in the digests table or in ctx)."""
    if name.startswith(("/", "~")) or "\\" in name:
        return name.replace("\\", "/").rsplit("/", 1)[-1]
    return name
