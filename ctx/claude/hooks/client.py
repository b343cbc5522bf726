"""A hook answered by the hook server (ctx/claude/hooks/server.py), when one is running.

A hook is a new interpreter on every prompt: starting Python costs one "bare" unit, and
importing json, re, sqlite3 and the hook's own modules costs about two more, before any
work. The server is a process that has already imported them; for each hook it forks a child
that takes this process's stdin, stdout and stderr (passed over a Unix socket, SCM_RIGHTS),
its argv, environment, working directory and umask, runs exactly what `ctx hook …` runs in
process, and reports the exit code, which this process then exits with. What Claude Code sees
— the bytes on stdout and stderr, the exit code — is the same; only the imports are gone.

This module is what a hook process runs first, so it imports nothing but ctx.core.settings
and `_socket` (a C module; the `socket` package imports enum and selectors). `served()`
returns None whenever the server can't take the hook — none running yet (one is started,
detached, for the next hook), the socket's folder not private to this user, a server of
another version, odd interpreter flags — and the hook then runs in this process as before
(ctx/claude/hooks/run.py): the server may only make a hook faster, never different.
$CTX_HOOK_SERVER=0 turns it off.

The socket is `<run dir>/hooks-<key>.sock`. The run dir (ctx.core.settings.run_dir:
$CTX_RUN_DIR, else $XDG_RUNTIME_DIR/cue-ctx, else /tmp/cue-ctx-<uid>) must be a directory
of this user's that nobody else can enter, else no server is used: another user could
otherwise listen there and read what hooks are given. The key is a hash of what decides
which code a server runs and how: the interpreter, its flags and import path, the PYTHON*
variables and the locale's encoding.
"""
from __future__ import annotations

import os
import sys

from ctx.core import settings

PROTOCOL = b"ctx-hook-3"
WAIT_S = 0.3  # how long a hook waits for the server to start it before running it here
_ENV_FOR_KEY = ("PYTHON",)
_MAX_REPLY = 64


def private_dir(path: str) -> bool:
    """`path` is a real directory (not a link), this user's, closed to everybody else."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return (st.st_mode & 0o170000 == 0o040000 and st.st_uid == os.getuid()
            and st.st_mode & 0o077 == 0)


def key() -> str:
    """16 hex digits of FNV-1a over what decides a server's code and interpreter: the
    interpreter, its flags (UTF-8 mode among them), import path and PYTHON* variables, the
    user, and the locale's encoding as in effect (settings.locale_inputs: a C locale Python
    coerced to C.UTF-8 and a C.UTF-8 set by hand are the same key)."""
    env = sorted(f"{k}={v}" for k, v in os.environ.items() if k.startswith(_ENV_FOR_KEY))
    text = "\0".join([PROTOCOL.decode(), sys.executable, repr(sys.flags), str(os.getuid()),
                      *map(str, settings.locale_inputs()), *sys.path, "", *env])
    h = 0xCBF29CE484222325
    for byte in text.encode("utf-8", "surrogateescape"):
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def socket_path() -> str:
    return os.path.join(settings.run_dir(), f"hooks-{key()}.sock")


def usable() -> bool:
    """The server may serve this process's hooks: not turned off, and an interpreter without
    command-line options that change how code runs (a server could not reproduce them)."""
    if not settings.hook_server_enabled():
        return False
    if sys.platform == "win32" or sys._xoptions:  # `-X …` options (importtime, dev…)
        return False
    f = sys.flags
    return not (f.isolated or f.ignore_environment or f.no_site or f.inspect or f.interactive
                or f.verbose)


def request(argv: list[str], args: list[str]) -> bytes:
    """The request: protocol, working directory, umask, argv (sys.argv), the hook's arguments
    (ctx/__main__.py took ctx's global options off), environment — NUL-separated bytes
    (paths and variables need not be UTF-8), after a 4-byte length."""
    mask = os.umask(0o022)
    os.umask(mask)
    fields = [PROTOCOL, os.fsencode(os.getcwd()), b"%d" % mask, b"%d" % len(argv),
              b"%d" % len(args), *map(os.fsencode, argv), *map(os.fsencode, args),
              *(k + b"=" + v for k, v in os.environb.items())]
    body = b"\0".join(fields)
    return len(body).to_bytes(4, "big") + body


def served(argv: list[str], args: list[str]) -> int | None:
    """The exit code of `ctx hook ARGS…` (`argv`: this process's sys.argv) when the server
    ran it; None when it did not (run it here)."""
    if not usable():
        return None
    path = socket_path()
    if not private_dir(os.path.dirname(path)):
        start_server(path)  # creates the folder (0700) when it is missing
        return None
    if len(os.fsencode(path)) > 100:  # sun_path holds 108 bytes
        return None
    try:  # a closed stdin/stdout/stderr: the socket could take its number and be passed on
        for fd in (0, 1, 2):
            os.fstat(fd)
    except OSError:
        return None
    import _socket

    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(WAIT_S)
        try:
            sock.connect(path)
        except OSError:
            if not _is_socket_or_missing(path):
                return None  # a folder or file in its place: no server can listen there
            start_server(path)
            return None
        try:  # the child that took the connection says so before any fd is passed: fds
            if sock.recv(1) != b"A":  # in a connection nobody accepts would stay open there
                return None
        except OSError:  # nobody took it within WAIT_S (a stopped server): run it here
            return None
        try:
            data = request(argv, args)
            fds = b"".join(fd.to_bytes(4, sys.byteorder) for fd in (0, 1, 2))
            sent = sock.sendmsg([data], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, fds)])
            if sent < len(data):
                sock.sendall(data[sent:])
        except OSError:  # a closed stdin/stdout, a server that went away
            return None
        return _wait(sock)
    finally:
        sock.close()


def _is_socket_or_missing(path: str) -> bool:
    try:
        return os.lstat(path).st_mode & 0o170000 == 0o140000
    except OSError:
        return True


def _wait(sock) -> int | None:
    """Read the server's replies: `P<pid>` when the child is ready (answered `G`: from then on
    the hook is the child's, and signals that would end this process are passed to it),
    `X<code>` when it ended. `F`, a closed connection or WAIT_S without `P`: the hook did not
    start, and without `G` it never will (None: run it here);
    after `P`: the child died without a word (exit 1, which Claude Code reports and never
    reads as "block")."""
    buffer = b""
    child = 0
    while True:
        try:
            chunk = sock.recv(_MAX_REPLY)
        except InterruptedError:
            continue
        except OSError:  # a server that did not start the hook within WAIT_S: run it here
            chunk = b""
        if not chunk:
            if child and _FORWARDED:  # the child was ended by a signal: so is this process
                _die_of(_FORWARDED[-1])
            return 1 if child else None
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            kind, value = line[:1], line[1:]
            if kind == b"F" or not value.isdigit():
                return 1 if child else None
            if kind == b"P":
                try:  # go: from here the hook is the child's, however long it takes
                    sock.sendall(b"G")
                except OSError:
                    return None  # the child never runs it (it waits for this word)
                sock.settimeout(None)
                child = int(value)
                _forward_signals(child)
            elif kind == b"X":
                return int(value)


_FORWARDED: list[int] = []


def _forward_signals(pid: int) -> None:
    """SIGTERM, SIGINT and SIGHUP (Claude Code ending a hook that ran too long, a Ctrl-C)
    go to the child doing the work."""
    import _signal

    def forward(signum, _frame) -> None:
        _FORWARDED.append(signum)
        try:
            os.kill(pid, signum)
        except OSError:
            pass

    for signum in (_signal.SIGTERM, _signal.SIGINT, _signal.SIGHUP):
        _signal.signal(signum, forward)


def _flag_options() -> list[str]:
    """The command-line options that give a server this interpreter's sys.flags (part of its
    key). The environment, passed on whole, sets the rest; usable() refuses the others.
    UTF-8 mode is said outright: Python turns it on by itself in a C locale, which it then
    coerces to C.UTF-8 in the environment a server inherits, where it would stay off."""
    f = sys.flags
    return (["-B"] * f.dont_write_bytecode + ["-s"] * f.no_user_site + ["-O"] * f.optimize
            + ["-b"] * f.bytes_warning + ["-q"] * f.quiet + ["-P"] * getattr(f, "safe_path", 0)
            + ["-X", "utf8" if f.utf8_mode else "utf8=0"])


def _die_of(signum: int) -> None:
    import _signal

    _signal.signal(signum, _signal.SIG_DFL)
    os.kill(os.getpid(), signum)


# What a server is started with of this hook's environment: what decides its interpreter
# and key (PYTHON*, the locale), where it listens and for how long, and what it preloads
# (the embedding model's settings). Nothing else — no token, no $CTX_PROJECT: each hook's
# child is handed its own client's environment, and the server outlives them all.
_SERVER_ENV = ("PYTHON", "LC_", "LANG", "HOME", "PATH", "TMPDIR", "XDG_RUNTIME_DIR",
               "OPENBLAS_NUM_THREADS", "CTX_RUN_DIR", "CTX_HOOK_SERVER_IDLE", "CTX_SEMANTIC",
               "CTX_MODEL", "CTX_MODEL_DIR")


def server_environment() -> dict[str, str]:
    """The part of this environment a server is started with (see _SERVER_ENV)."""
    return {k: v for k, v in os.environ.items()
            if k.startswith(_SERVER_ENV) and not k.startswith("CTX_SEMANTIC_")}


def start_server(path: str) -> None:
    """Start a server for the next hooks on socket `path`, detached (its own session, stdio
    on /dev/null, cwd /), without waiting for it. It takes a lock first, so of several hooks
    that start one at once, one stays. Any failure: no server, nothing said (the hook runs
    here)."""
    directory = os.path.dirname(path)
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
        if not private_dir(directory):
            return
        boot = ("# ctx hook server (ctx/claude/hooks/server.py)\n"
                "import sys; sys.path[:] = sys.argv[2:]\n"
                "from ctx.claude.hooks.server import main; main(sys.argv[1])")
        null = os.devnull
        os.posix_spawn(sys.executable, [sys.executable, *_flag_options(), "-c", boot, path,
                                        *sys.path],
                       server_environment(), setsid=True,
                       file_actions=[(os.POSIX_SPAWN_OPEN, 0, null, os.O_RDONLY, 0),
                                     (os.POSIX_SPAWN_OPEN, 1, null, os.O_WRONLY, 0),
                                     (os.POSIX_SPAWN_OPEN, 2, null, os.O_WRONLY, 0)])
    except (OSError, AttributeError, NotImplementedError):  # no posix_spawn (macOS < 3.8 …)
        pass
