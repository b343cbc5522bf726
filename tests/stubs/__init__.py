"""Stub model servers on 127.0.0.1 that speak the real wire protocols, for tests.

    with AnthropicStub(reply="…") as stub:   # POST /v1/messages (Messages API)
        ... base_url=stub.url ...
        assert stub.count == 1
    with OpenAIStub(reply="…") as stub:      # POST /v1/chat/completions
        ... server.url = stub.url + "/v1"

Every request is recorded (path, headers, JSON body) before anything else happens, so
`count` is exact even for requests the stub then fails or stalls. Set `status` to answer
with an error, `delay` to stall before answering. OpenAIStub also answers GET /v1/models
with `models` (what `cue doctor` asks a server).
"""
from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Self


class StubServer:
    paths: tuple[str, ...] = ()

    def __init__(self, reply: str = "The user edited code in a terminal.", *, status: int = 200,
                 delay: float = 0.0, models: tuple[str, ...] = ("stub",)):
        self.reply = reply
        self.models = models  # what GET /v1/models lists (OpenAI-compatible servers)
        self.status = status
        self.delay = delay
        self.requests: list[dict] = []
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    # ---------------------------------------------------------------- lifecycle
    def __enter__(self) -> Self:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output quiet
                pass

            def do_GET(self):
                with stub._lock:
                    stub.requests.append({"path": self.path, "method": "GET", "body": None,
                                          "headers": {k.lower(): v
                                                      for k, v in self.headers.items()}})
                listing = stub.model_list()
                if listing is None or self.path != "/v1/models":
                    return self._send(404, {"error": f"no route {self.path}"})
                self._send(200, listing)

            def do_POST(self):
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = None
                with stub._lock:
                    headers = {k.lower(): v for k, v in self.headers.items()}
                    stub.requests.append({"path": self.path, "headers": headers,
                                          "body": body, "raw": raw})
                if stub.delay:
                    time.sleep(stub.delay)
                if self.path not in stub.paths:
                    return self._send(404, {"error": f"no route {self.path}"})
                if stub.status != 200:
                    return self._send(stub.status, stub.error_body())
                self._send(200, stub.answer(body))

            def _send(self, status: int, payload: dict) -> None:
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()

    @property
    def url(self) -> str:
        assert self._server is not None
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def count(self) -> int:
        with self._lock:
            return len(self.requests)

    # ---------------------------------------------------------------- protocol
    def answer(self, body: dict) -> dict:
        raise NotImplementedError

    def error_body(self) -> dict:
        return {"error": {"message": "stub error"}}

    def model_list(self) -> dict | None:
        return None


class AnthropicStub(StubServer):
    """Anthropic Messages API: POST /v1/messages → a `message` object."""

    paths = ("/v1/messages",)

    def answer(self, body: dict) -> dict:
        return {
            "id": f"msg_stub_{self.count}",
            "type": "message",
            "role": "assistant",
            "model": body.get("model", "claude-stub"),
            "content": [{"type": "text", "text": self.reply}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 100, "output_tokens": len(self.reply.split())},
        }

    def error_body(self) -> dict:
        return {"type": "error", "error": {"type": "api_error", "message": "stub error"}}


class OpenAIStub(StubServer):
    """OpenAI chat completions (llama-server, Ollama /v1, LM Studio)."""

    paths = ("/v1/chat/completions",)

    def model_list(self) -> dict:
        return {"object": "list", "data": [{"id": m, "object": "model", "owned_by": "stub"}
                                            for m in self.models]}

    def answer(self, body: dict) -> dict:
        return {
            "id": f"chatcmpl-stub-{self.count}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "stub"),
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": self.reply}}],
            "usage": {"prompt_tokens": 100, "completion_tokens": len(self.reply.split()),
                      "total_tokens": 100 + len(self.reply.split())},
        }
