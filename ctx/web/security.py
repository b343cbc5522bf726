"""The viewer's front door: loopback Host only, the run's token on every request, POST for
changes with the token in the form (CSRF), and headers that keep the page to itself.

Written as a plain ASGI middleware so every route — pages, static files, thumbnails — passes
through it; a route cannot forget a check. claude-mem's viewer served an unauthenticated
API on a fixed port with path traversal (SPEC §6.1): this is the answer to each part.
"""
from __future__ import annotations

import hashlib
import hmac
import time
from urllib.parse import parse_qsl, quote, urlencode

TOKEN_PARAM = "token"
CODE_PARAM = "code"  # the one-time code the browser is opened with (the token stays out of argv)
CODE_SECONDS = 120.0
CSRF_FIELD = "csrf"
SAFE_METHODS = ("GET", "HEAD")
ALLOWED_METHODS = ("GET", "HEAD", "POST")

SECURITY_HEADERS = [
    # Everything comes from this server; no inline script, no framing, no referrer to other
    # sites (the first URL carries the token). same-origin, not no-referrer: with
    # no-referrer Chromium sends `Origin: null` on our own form POSTs.
    (b"content-security-policy",
     (b"default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
      b"object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
    (b"cache-control", b"no-store"),
]


def cookie_value(token: str, port: int) -> str:
    """The session cookie: an HMAC of this run's token over the port, never the token itself.
    Browsers send a 127.0.0.1 cookie to every port, so another local server the browser
    visits sees it — it learns neither the token nor a cookie for any other run or port."""
    return hmac.new(token.encode(), f"ctx-ui cookie for 127.0.0.1:{port}".encode(),
                    hashlib.sha256).hexdigest()


def same(a: str | None, b: str) -> bool:
    """Constant-time comparison of a presented secret with the real one."""
    if not isinstance(a, str) or not a:  # a form field sent as a file is not a token
        return False
    return hmac.compare_digest(a.encode("utf-8", "replace"), b.encode("utf-8"))


class Guard:
    """ASGI middleware: Host, token, method and Origin checks before any route runs."""

    def __init__(self, app, *, token: str, port: int, codes: tuple[str, ...] = ()):
        self.app = app
        self.token = token
        self.port = port
        self.cookie = f"ctx_ui_{port}"
        self.cookie_value = cookie_value(token, port)
        # one-time codes: each opens one browser session, once, within CODE_SECONDS
        self.codes = {c: time.monotonic() + CODE_SECONDS for c in codes}
        self.hosts = {f"127.0.0.1:{port}", f"localhost:{port}"}
        self.origins = {f"http://{h}" for h in self.hosts}

    async def __call__(self, scope, receive, send):
        if scope["type"] == "lifespan":
            return await self.app(scope, receive, send)
        if scope["type"] == "websocket":  # no websockets here: refuse the upgrade (403)
            message = await receive()
            if message.get("type") == "websocket.connect":
                await send({"type": "websocket.close", "code": 1008})
            return
        if scope["type"] != "http":
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers", [])}
        # DNS rebinding: a page from evil.example resolved to 127.0.0.1 still says its name.
        if headers.get("host", "").lower() not in self.hosts:
            return await _deny(send, 403, "Forbidden: this viewer answers only to "
                                          f"127.0.0.1:{self.port} or localhost:{self.port}.")
        method = scope["method"]
        if method not in ALLOWED_METHODS:
            return await _deny(send, 405, "Method not allowed.", allow="GET, HEAD, POST")
        query = parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
        presented = dict(query).get(TOKEN_PARAM)
        code = dict(query).get(CODE_PARAM)
        if code is not None and method in SAFE_METHODS and self._use_code(code):
            rest = urlencode([(k, v) for k, v in query if k != CODE_PARAM])
            path = "/" + quote(scope.get("path", "/")).lstrip("/")
            return await _redirect(send, path + (f"?{rest}" if rest else ""), self._set_cookie())
        if presented is not None and same(presented, self.token) and method in SAFE_METHODS:
            # First load: trade the token in the URL for a cookie, and drop it from the URL
            # (history, screenshots, the address bar).
            rest = urlencode([(k, v) for k, v in query if k != TOKEN_PARAM])
            # One leading slash: `//evil.example` would be another site.
            path = "/" + quote(scope.get("path", "/")).lstrip("/")
            location = path + (f"?{rest}" if rest else "")
            return await _redirect(send, location, self._set_cookie())
        if not (same(_cookie(headers.get("cookie", ""), self.cookie), self.cookie_value)
                or same(presented, self.token)):
            return await _deny(send, 403, "Forbidden: open the address `ctx ui` printed "
                                          "(it carries this run's token).")
        if method == "POST":
            origin = headers.get("origin")
            if origin is not None and origin not in self.origins:
                return await _deny(send, 403, "Forbidden: a change must come from this viewer's "
                                              "own pages.")

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                headers = list(message.get("headers") or [])
                have = {k.lower() for k, _ in headers}
                message["headers"] = headers + [h for h in SECURITY_HEADERS if h[0] not in have]
            await send(message)

        return await self.app(scope, receive, send_with_headers)

    def _use_code(self, code: str) -> bool:
        """True once for a live code (then it is gone); codes past their time are dropped."""
        now = time.monotonic()
        for known, until in list(self.codes.items()):
            if until < now:
                del self.codes[known]
            elif same(code, known):
                del self.codes[known]
                return True
        return False

    def _set_cookie(self) -> bytes:
        return (f"{self.cookie}={self.cookie_value}; Path=/; HttpOnly; SameSite=Strict"
                ).encode("latin-1")


def _cookie(header: str, name: str) -> str | None:
    for part in header.split(";"):
        key, _, value = part.strip().partition("=")
        if key == name:
            return value
    return None


async def _deny(send, status: int, text: str, allow: str | None = None) -> None:
    body = (text + "\n").encode()
    headers = [(b"content-type", b"text/plain; charset=utf-8"),
               (b"content-length", str(len(body)).encode())] + SECURITY_HEADERS
    if allow:
        headers.append((b"allow", allow.encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _redirect(send, location: str, cookie: bytes) -> None:
    await send({"type": "http.response.start", "status": 303, "headers": [
        (b"location", location.encode("latin-1")), (b"set-cookie", cookie),
        (b"content-length", b"0")] + SECURITY_HEADERS})
    await send({"type": "http.response.body", "body": b""})
