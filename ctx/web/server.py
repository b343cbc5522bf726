"""Run the viewer: bind 127.0.0.1 (a free port unless one is given), make the run's token,
serve with uvicorn until Ctrl-C. The socket is bound here, before uvicorn starts, so the
printed URL's port is the one listening (no "find a free port, then race for it")."""
from __future__ import annotations

import secrets
import socket
from pathlib import Path

from cuectx.value import Value

HOST = "127.0.0.1"


class Running(Value):
    __slots__ = ("code", "port", "sock", "token")

    def __init__(self, sock: socket.socket, port: int, token: str, code: str = "") -> None:
        self.sock = sock
        self.port = port
        self.token = token
        self.code = code  # one-time: the browser is opened with it, so the token is in no argv

    @property
    def url(self) -> str:
        """The address printed for the person (stdout only; valid for the whole run)."""
        return f"http://{HOST}:{self.port}/?token={self.token}"

    @property
    def browser_url(self) -> str:
        """The address handed to the browser launcher (its argv is world-readable in /proc):
        a one-time code, dead once the browser used it and after two minutes."""
        return f"http://{HOST}:{self.port}/?code={self.code}"


def bind(port: int = 0) -> Running:
    """A listening socket on 127.0.0.1 and a fresh token. OSError if the port is taken."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((HOST, port))
        sock.listen(128)
        sock.set_inheritable(True)
    except OSError:
        sock.close()
        raise
    return Running(sock, sock.getsockname()[1], secrets.token_urlsafe(24), secrets.token_urlsafe(16))


def serve(running: Running, *, db_path: str | None = None, cue_home: Path | None = None,
          project: str | None = None, on_ready=None) -> None:
    """Serve until interrupted (Ctrl-C / SIGTERM: uvicorn finishes open requests and returns)."""
    import sys

    import uvicorn

    # The Health page's `ctx doctor` runs in a thread of this process (ctx/web/health.py), and
    # with the interpreter's default 5 ms switch interval a page rendered meanwhile waits for
    # the lock at every turn: 400-500 ms on the heavy-year bench store, 170 ms at 0.5 ms. A
    # viewer is for answering pages; the doctor takes a little longer.
    sys.setswitchinterval(0.0005)

    from ctx.web.app import create_app

    app = create_app(token=running.token, port=running.port, db_path=db_path, cue_home=cue_home,
                     codes=(running.code,) if running.code else (), project=project)
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off",
                            proxy_headers=False, server_header=False, date_header=False)
    server = uvicorn.Server(config)
    if on_ready is not None:
        original = server.startup

        async def startup(sockets=None):
            await original(sockets=sockets)
            on_ready()

        server.startup = startup
    try:
        server.run(sockets=[running.sock])
    finally:
        running.sock.close()
