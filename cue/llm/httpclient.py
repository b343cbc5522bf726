"""JSON over HTTP for the server backend and its preflight, on the standard library.

One POST (or GET) to a server that is usually on this machine does not need httpx: importing
it and httpcore cost ~0.13–0.3 s of every digest, a fifth of its budget beyond the model.
`http.client` does the same here: no proxies from the environment (httpx's
`trust_env=False`), `timeout` for the connection and for each read, and for https the
certificate checked against certifi's bundle (the one httpx used) where certifi is
installed, else the system's.

    client = Client(timeout=30)
    response = client.post_json(url, body)   # Response(status, text); .json()
    client.close()                           # from any thread: an abandoned call ends

A request that does not complete raises `HttpError` (`HttpTimeout` when time ran out);
`describe(exc)` says what happened in a person's words: "connection refused
(ConnectionRefusedError)".
"""
from __future__ import annotations

import contextlib
import http.client
import json
import socket
from typing import Self
from urllib.parse import urlsplit

from cuectx.value import Value


class HttpError(Exception):
    """The request did not complete: unreachable, reset, refused TLS, a bad URL."""


class HttpTimeout(HttpError):
    """The server did not connect or answer within the timeout."""


class Response(Value):
    __slots__ = ("status", "text")

    def __init__(self, status: int, text: str) -> None:
        self.status = status
        self.text = text

    def json(self):
        return json.loads(self.text)


class Client:
    def __init__(self, timeout: float):
        self.timeout = timeout
        self._conn: http.client.HTTPConnection | None = None

    def get(self, url: str) -> Response:
        return self._request("GET", url, None)

    def post_json(self, url: str, body: object) -> Response:
        return self._request("POST", url, json.dumps(body).encode("utf-8"))

    def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(OSError):
                conn.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _request(self, method: str, url: str, data: bytes | None) -> Response:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise HttpError(f"not an http(s) URL: {url!r}")
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        headers = {"accept": "application/json"}
        if data is not None:
            headers["content-type"] = "application/json"
        try:
            self.close()
            self._conn = _connection(parts.scheme, parts.hostname, parts.port, self.timeout)
            self._conn.request(method, path, body=data, headers=headers)
            response = self._conn.getresponse()
            text = response.read().decode("utf-8", errors="replace")
        except TimeoutError as exc:  # socket.timeout is TimeoutError
            raise HttpTimeout(describe(exc)) from exc
        except (OSError, http.client.HTTPException, ValueError) as exc:
            raise HttpError(describe(exc)) from exc
        finally:
            self.close()
        return Response(response.status, text)


def _connection(scheme: str, host: str, port: int | None,
                timeout: float) -> http.client.HTTPConnection:
    if scheme == "http":
        return http.client.HTTPConnection(host, port, timeout=timeout)
    import ssl

    try:
        import certifi
    except ImportError:  # pragma: no cover - certifi comes with cue's dependencies
        context = ssl.create_default_context()
    else:
        context = ssl.create_default_context(cafile=certifi.where())
    return http.client.HTTPSConnection(host, port, timeout=timeout, context=context)


def describe(exc: BaseException) -> str:
    """"connection refused (ConnectionRefusedError)" rather than "[Errno 111] Connection
    refused"; the exception's own text when it has one, its name always."""
    if isinstance(exc, HttpError) and exc.__cause__ is not None:
        exc = exc.__cause__
    text = "timed out" if isinstance(exc, socket.timeout) and not str(exc) else str(exc)
    if "]" in text and text.startswith("[Errno"):
        text = text.split("]", 1)[1]
    text = " ".join(text.split()).strip().rstrip(".")
    return f"{text[:1].lower()}{text[1:]} ({type(exc).__name__})" if text else type(exc).__name__
