"""`ctx mcp` answers the handshake before the SDK has loaded (issue 28).

Importing the official MCP SDK costs most of a second (it builds pydantic models for every
protocol version it speaks). A client waits for `initialize`, then lists tools, before it
calls anything — and a one-shot `claude -p` can finish before a slow server connects. Those
first answers never change between runs of the same ctx and SDK, so:

- the first run (or the first after an upgrade) serves through the SDK as usual and keeps
  its answers to the static requests — `initialize`, `server/discover` (the 2026-07-28
  protocol's handshake, which Claude Code 2.1.330 sends first) and the `*/list` requests
  without a cursor — in `$CTX_HOME/mcp-handshake.json`, keyed by the settings snapshot and
  stamped with the code that answered (ctx.core.code: every module the SDK's process had
  loaded — ctx's, the SDK's, pydantic's);
- later runs answer those requests from that file at once, from this stdlib-only module,
  while the SDK loads. Every message is still handed to the SDK in order (it must see
  the handshake to serve the rest); its own answers to the requests already answered are
  dropped. A request not in the file, a changed SDK or a damaged file: the SDK answers.

Each answer is kept under the protocol era that produced it, as the SDK decides it: the
connection's first request chooses (`initialize`: the legacy era, at the version and client
capabilities it names; a request whose `_meta` names a version: the modern era, at that
version and capabilities). A request of the other era than the first one chose — Claude
Code's `initialize` after its `server/discover` probe timed out — is left to the SDK, which
refuses it; the file never answers for an era the SDK is not serving. A modern client's
`subscriptions/listen` is acknowledged the same way (Claude Code 2.1.330 counts a server
connected only then), with the SDK's last acknowledgement of the same request; the stream
stays the SDK's.

The wire is newline-delimited JSON-RPC on fds 0 and 1: a reader thread copies the client's
stdin into a pipe the SDK reads as fd 0, and a writer thread copies what the SDK writes to a
pipe on fd 1 onto the real stdout, one whole line at a time under a lock.
"""
from __future__ import annotations

import json
import os
import threading
import time

STATIC = ("initialize", "server/discover", "tools/list", "prompts/list", "resources/list",
          "resources/templates/list")
FORMAT = 2
MAX_LINE = 16 << 20  # a longer line is dropped (and answered with a parse error)
EXIT_GRACE_S = 0.5  # after stdin closes, what is in flight has this long
VERSION_META = "io.modelcontextprotocol/protocolVersion"
SUBSCRIPTION_META = "io.modelcontextprotocol/subscriptionId"
LISTEN, ACKNOWLEDGED = "subscriptions/listen", "notifications/subscriptions/acknowledged"
CAPABILITIES_META = "io.modelcontextprotocol/clientCapabilities"


def handshake_file() -> str:
    from ctx.core import settings  # where every CTX_* is read (stdlib only)

    return os.path.join(settings.home_dir(), "mcp-handshake.json")


def fingerprint() -> list:
    """What the cached answers depend on besides code: the file's format and the settings
    snapshot (every CTX_* variable, TZ, the locale's encoding: ctx.core.settings)."""
    from ctx.core import settings

    return [FORMAT, settings.snapshot()]


def era_of(msg: dict) -> str | None:
    """Which protocol era a request speaks, with what the SDK's answers depend on: the
    modern era names its version and the client's capabilities in every request's `_meta`;
    the legacy era says them once, in `initialize`. None: neither (a legacy request)."""
    params = msg.get("params")
    params = params if isinstance(params, dict) else {}
    meta = params.get("_meta")
    if isinstance(meta, dict) and isinstance(meta.get(VERSION_META), str):
        caps = json.dumps(meta.get(CAPABILITIES_META), sort_keys=True)
        return f"modern:{meta[VERSION_META]}:{caps}"
    if msg.get("method") == "initialize" and isinstance(params.get("protocolVersion"), str):
        caps = json.dumps(params.get("capabilities"), sort_keys=True)
        return f"legacy:{params['protocolVersion']}:{caps}"
    return None


def request_key(msg: dict, era: str | None) -> str | None:
    """The cache key of a request whose answer never changes within `era` (the era this
    connection's first request chose, as the SDK decides it), else None."""
    method, params = msg.get("method"), msg.get("params") or {}
    if method not in STATIC or "id" not in msg or not isinstance(params, dict):
        return None
    if params.get("cursor") is not None or era is None:
        return None
    own = era_of(msg)
    if method == "initialize" or own is not None:
        if own != era:  # an `initialize` after a modern request, or the other way round:
            return None  # the SDK refuses it (the file must not answer it)
    elif not era.startswith("legacy:"):
        return None
    return f"{method}@{era}"


class Wire:
    def __init__(self, answers: dict, fingerprint_now: list):
        self.answers = answers            # key -> result (from the file)
        self.fingerprint = fingerprint_now
        self.learned: dict = {}           # key -> result (from the SDK, this run)
        self.pending: dict = {}           # request id (as JSON) -> key, waiting for the SDK
        self.answered: set[str] = set()   # request ids (as JSON) answered from the file
        self.lock = threading.Lock()
        self.out_fd = -1
        self.era: str | None = None       # what this connection's first request chose
        self.acked: set[str] = set()      # subscriptions (ids as JSON) acknowledged from the file
        self.listening: dict = {}         # subscription id (as JSON) -> key, waiting for the SDK

    def write(self, line: bytes) -> None:
        with self.lock:
            view = memoryview(line)
            while view:
                view = view[os.write(self.out_fd, view):]

    def from_client(self, line: bytes) -> None:
        """Answer it now if the file can; remember what to learn from the SDK."""
        try:
            msg = json.loads(line)
        except ValueError:
            return
        if not isinstance(msg, dict):
            return
        if self.era is None and "id" in msg:  # the first request decides the era (the SDK's
            self.era = era_of(msg) or "none"  # rule): `initialize`, or a modern envelope
        if msg.get("method") == LISTEN:
            self._listen(msg)
            return
        key = request_key(msg, self.era)
        if key is None:
            return
        rid = json.dumps(msg["id"])
        if key in self.answers:
            self.answered.add(rid)
            reply = {"jsonrpc": "2.0", "id": msg["id"], "result": self.answers[key]}
            self.write((json.dumps(reply, ensure_ascii=False, separators=(",", ":")) + "\n").encode())
        else:
            self.pending[rid] = key

    def _listen(self, msg: dict) -> None:
        """`subscriptions/listen` (the modern era's list-changed stream; Claude Code 2.1.330
        counts a server connected only once it is acknowledged): acknowledge it as the SDK
        did for the same request last time, with this request's id. The stream itself stays
        the SDK's; its own acknowledgement is dropped. (ctx's lists never change while it
        runs, so nothing is missed before the SDK has loaded.)"""
        params = msg.get("params")
        if "id" not in msg or not isinstance(params, dict) or era_of(msg) != self.era:
            return
        sid = json.dumps(msg["id"])
        key = (f"{LISTEN}@{self.era}@"
               f"{json.dumps(params.get('notifications'), sort_keys=True)}")
        if key not in self.answers:
            self.listening[sid] = key
            return
        ack = dict(self.answers[key])
        ack["_meta"] = {**(ack.get("_meta") or {}), SUBSCRIPTION_META: msg["id"]}
        self.acked.add(sid)
        note = {"jsonrpc": "2.0", "method": ACKNOWLEDGED, "params": ack}
        self.write((json.dumps(note, ensure_ascii=False, separators=(",", ":")) + "\n").encode())

    def _acknowledged(self, msg: dict) -> bool:
        """The SDK's acknowledgement of a subscription: False to drop it (given already)."""
        params = msg.get("params")
        meta = params.get("_meta") if isinstance(params, dict) else None
        if not isinstance(meta, dict) or SUBSCRIPTION_META not in meta:
            return True
        sid = json.dumps(meta[SUBSCRIPTION_META])
        if sid in self.acked:
            self.acked.discard(sid)
            return False
        key = self.listening.pop(sid, None)
        if key is not None:
            kept = {k: v for k, v in params.items() if k != "_meta"}
            rest = {k: v for k, v in meta.items() if k != SUBSCRIPTION_META}
            self.learned[key] = {**kept, **({"_meta": rest} if rest else {})}
            self.save()
        return True

    def from_server(self, line: bytes) -> bool:
        """True: pass the SDK's line on; False: drop it (already answered from the file)."""
        try:
            msg = json.loads(line)
        except ValueError:
            return True
        if isinstance(msg, dict) and msg.get("method") == ACKNOWLEDGED:
            return self._acknowledged(msg)
        if not isinstance(msg, dict) or "id" not in msg or "method" in msg:
            return True
        rid = json.dumps(msg["id"])
        if rid in self.answered:
            self.answered.discard(rid)
            return False
        key = self.pending.pop(rid, None)
        if key is not None and "result" in msg:
            self.learned[key] = msg["result"]
            self.save()  # now: clients end a stdio server with a signal, not a goodbye
        return True

    def save(self) -> None:
        if not self.learned:
            return
        # not written (a read-only home): the next run asks the SDK again
        from ctx.core import code
        from ctx.core.paths import save_cache

        # The code that answered: everything the SDK's process has loaded by now (the SDK,
        # pydantic, ctx.mcp, ctx.core.model whose node types are the tools' enums …).
        save_cache(handshake_file(),
                   {"fingerprint": self.fingerprint, "code": code.stamps(),
                    "answers": {**self.answers, **self.learned}})


def load(fingerprint_now: list) -> dict:
    try:
        with open(handshake_file(), encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("fingerprint") != fingerprint_now:
        return {}
    from ctx.core import code

    if code.changed(data.get("code")):
        return {}
    answers = data.get("answers")
    return answers if isinstance(answers, dict) else {}


def _lines(fd: int):
    """Whole lines from a file descriptor (the last one may lack its newline); a line longer
    than MAX_LINE comes as one `None` instead, its bytes dropped up to its newline."""
    buf = bytearray()  # appended in place: a long line is not copied once per read
    skipping = False
    while True:
        chunk = os.read(fd, 65536)
        if not chunk:
            if buf and not skipping:
                yield bytes(buf)
            return
        start = len(buf)  # only the new bytes can hold the next newline
        buf += chunk
        while (nl := buf.find(b"\n", start)) >= 0:
            if skipping:
                skipping = False
            else:
                yield bytes(buf[:nl + 1])
            del buf[:nl + 1]
            start = 0
        if len(buf) > MAX_LINE and not skipping:
            yield None
            skipping = True
            buf.clear()
        elif skipping:
            buf.clear()


PARSE_ERROR = (b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,'
               b'"message":"Parse error: not one JSON-RPC message per line"}}\n')


def usable(line: bytes | None) -> str | None:
    """Why the SDK must not be handed this line (None: it may): too long, not UTF-8, not
    JSON — or JSON nested deeper than Python's parser goes (5,000 `[`: RecursionError)."""
    if line is None:
        return f"a line longer than {MAX_LINE} bytes"
    if not line.strip():
        return None
    try:
        json.loads(line.decode("utf-8"))
    except UnicodeDecodeError:
        return "a line that is not UTF-8"
    except (ValueError, RecursionError, MemoryError):
        return "a line that is not JSON"
    return None


def run(serve) -> None:
    """Run `serve()` (the SDK's stdio server, which reads fd 0 and writes fd 1) behind the
    wire described above."""
    import signal

    # Clients stop a stdio server with SIGINT (Claude Code after its connection timeout):
    # end at once, also while the SDK is still loading — not with a KeyboardInterrupt.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    fp = fingerprint()
    wire = Wire(load(fp), fp)
    wire.out_fd = os.dup(1)
    client_in = os.dup(0)
    to_sdk_r, to_sdk_w = os.pipe()
    from_sdk_r, from_sdk_w = os.pipe()

    def reader() -> None:
        try:
            for line in _lines(client_in):
                why = usable(line)
                if why is not None:  # answered here; the SDK's reader never sees it
                    os.write(2, f"ctx mcp: dropped {why}\n".encode())
                    wire.write(PARSE_ERROR)
                    continue
                try:
                    wire.from_client(line)
                except Exception as exc:  # noqa: BLE001 — the line still goes to the SDK
                    os.write(2, f"ctx mcp: {type(exc).__name__} reading a request\n".encode())
                view = memoryview(line)
                while view:
                    view = view[os.write(to_sdk_w, view):]
        except OSError:
            pass
        finally:
            os.close(to_sdk_w)  # the client is gone: the SDK sees end of input
            # and gets EXIT_GRACE_S to finish what is in flight; then the process ends
            time.sleep(EXIT_GRACE_S)
            os._exit(0)

    def writer() -> None:
        try:
            for line in _lines(from_sdk_r):
                if wire.from_server(line):
                    wire.write(line)
        except OSError:
            pass

    os.dup2(to_sdk_r, 0)
    os.dup2(from_sdk_w, 1)
    os.close(to_sdk_r)
    os.close(from_sdk_w)
    threading.Thread(target=reader, daemon=True, name="mcp-wire-in").start()
    out = threading.Thread(target=writer, daemon=True, name="mcp-wire-out")
    out.start()
    try:
        serve()
    finally:
        # The SDK has stopped writing: end our end of its pipe (fd 1 and its private copy go
        # with the process) and let the writer drain what is left.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.close(devnull)
        out.join(timeout=0.5)
