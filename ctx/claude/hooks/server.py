"""The hook server: a process that has imported the hooks, and forks one child per hook.

Started detached by the first hook that finds none (ctx/claude/hooks/client.py, which also
says what a client sends). It listens on a Unix socket in a folder only its user can enter,
and:

1. it keeps one spare child, forked after the last hook (so the fork is not on a hook's
   path), waiting to accept the next connection: the kernel hands it straight to the spare,
   which tells the server (`t`), and the server forks the next spare while this one works;
   when no hook is running (the child says `d` as it answers) the server tells the spare to
   rehearse one (`r`, see rehearse());
2. the spare checks that the peer is this user (SO_PEERCRED, where the platform has it) and
   that the code the server imported is still what is on disk (after a `git pull` or an
   upgrade it answers `F` and the server exits: the client runs the hook itself, and the
   next hook starts a fresh server);
3. it reads the request and the client's stdin, stdout and stderr, takes those as its own
   fds 0-2, and the client's environment, working directory, umask and argv, says
   `P<pid>`, runs the hook exactly as `ctx hook …` does in process (ctx.claude.hooks.run),
   flushes, lets go of the client's streams, says `X<code>` and exits. Hooks of several
   sessions run side by side.

The server itself never opens a database, reads a hook's input or holds memory contents
(it imports modules, compiles patterns and opens the query embedder on constant texts); a
child starts from that state, and everything it learns dies with it. The server exits after
$CTX_HOOK_SERVER_IDLE seconds without a hook (default 1800); within ORPHAN_TICK_S of its
socket being taken over or removed (the run dir deleted: a logout empties
$XDG_RUNTIME_DIR); when its code changed (checked by every hook, and every TICK_S).
`ctx hook-server status|stop` shows and ends it.
"""
from __future__ import annotations

import os
import select
import signal
import socket
import sys
import time

from ctx.claude.hooks import client
from ctx.core import code, settings

# What a hook imports (a test checks that no hook loads a module missing from here after
# them). A module left out still works — the child imports it — it just costs that hook.
PRELOAD = (
    "json", "re", "sqlite3", "hashlib", "datetime", "encodings.utf_16_le",
    "ctx.claude.hooks.run", "ctx.claude.hooks.entry", "ctx.claude.hooks.warm",
    "ctx.claude.hooks.session_start", "ctx.claude.hooks.prompt_submit", "ctx.claude.hooks.stop",
    "ctx.claude.actions", "ctx.claude.foreign", "ctx.claude.handoff", "ctx.claude.requests", "ctx.claude.sessions",
    "ctx.claude.session_record", "ctx.claude.tags", "ctx.claude.transcript",
    "ctx.claude.capture", "ctx.claude.capture_hook", "ctx.claude.capture_store",
    "ctx.doctor.paraphrase",
    "ctx.core.compose", "ctx.core.db", "ctx.core.dedupe", "ctx.core.fingerprint", "ctx.core.guard",
    "ctx.core.ids", "ctx.core.migrations", "ctx.core.model", "ctx.core.pending", "ctx.core.projects",
    "ctx.core.repo", "ctx.core.shared_files", "ctx.core.stamps", "ctx.core.store",
    "ctx.core.text", "ctx.core.trust", "ctx.query.parser", "ctx.query.sql", "ctx.semantic.select",
    "ctx.semantic.search", "ctx.semantic.centering", "ctx.semantic.model",
    "cuectx.secrets", "cuectx.migrations", "ctx.core.code", "_locale",
)
# What a prompt's semantic selection adds (the query is embedded in numpy: no onnxruntime,
# which starts a thread as it loads). Loaded only where numpy starts no threads of its own
# (OPENBLAS_NUM_THREADS=1, which ctx.semantic.search sets unless the user chose otherwise):
# a fork copies only the thread that calls it.
SEMANTIC_PRELOAD = (
    "numpy", "ctx.semantic.chunk", "ctx.semantic.embed", "ctx.semantic.index",
    "ctx.semantic.e5_tokenizer", "ctx.semantic.e5_graph", "ctx.semantic.e5_numpy",
    "ctx.semantic.minilm_numpy",
)
# Texts that exercise what a hook compiles on first use (regular expressions the re module
# then keeps, rules of the secret scanner): warmed once here, pure functions on constants.
WARM_REPLY = ('<ctx:remember type="decision" tags="tier:working">We use v1.2 of the API '
              'since 2026-01-31; 배포는 30s 안에 끝난다 (7701번).</ctx:remember> '
              '<ctx:recall query="type:decision AND tag:project:x AND created>=7d AND '
              'created<2026-01-31"/> <ctx:status/> <ctx:task>check the logs</ctx:task>')
WARM_SECRET_TEXT = ("export API_KEY=sk_live_0000 password: hunter2 "
                    "https://user:pass@example.com curl -u a:b 비밀번호는 x")
WARM_QUERY = "how do we retry a declined payment? 결제 재시도는 어떻게 하나요?"
TICK_S = 30.0  # how often an idle server checks its code (~0.4 ms: 70 files stat'ed)
ORPHAN_TICK_S = 1.0  # how often it checks that its socket is still there (one stat)
REHEARSE_AFTER_S = 0.2  # a spare left this long without a hook rehearses one (rehearse())
SCRATCH_MAX_BYTES = 384 << 10  # a scratch store (a new one: 272 KB) and its log past this start anew
READ_TIMEOUT_S = 5.0  # a client that connects and says nothing does not hold up the rest
MAX_REQUEST = 4 << 20
_SET_BY_IMPORTS: dict[bytes, bytes] = {}  # environment the preloaded modules set as they loaded
_SPARE_PIDS: dict[int, int] = {}  # our end of a spare's channel (its fd) -> the spare's pid


def preload() -> None:
    """Import what hooks use and compile what they would compile on first use."""
    _import(PRELOAD)
    if os.environ.get("OPENBLAS_NUM_THREADS", "").strip() == "1":  # ctx.semantic.search's
        _import(SEMANTIC_PRELOAD)
        _open_query_embedder()
    try:
        from ctx.claude import tags
        from ctx.core import fingerprint
        from ctx.query import parser
        from ctx.semantic import centering
        from cuectx import secrets

        for command in tags.parse(WARM_REPLY).commands:
            command.items("tags")
            if command.content:
                fingerprint.analyse(command.content)
                centering.hangul_share(command.content)
            if "query" in command.attrs:
                parser.parse(command.attrs["query"])
        secrets.find(WARM_SECRET_TEXT)
        for rule in secrets._RULES:  # compiled here, once, for every child
            rule.compiled()
    except Exception:  # noqa: BLE001, S110 — warming is an optimisation; the hook compiles what it needs
        pass


def _open_query_embedder() -> None:
    """Open the process-wide embedder (its tokenizer, memory maps, the numpy query encoder)
    and embed one constant text, so a prompt's child finds it open (~10 ms of each semantic
    prompt), and English fusion's MiniLM query encoder (numpy too: ctx.semantic.minilm_numpy).
    Only when the main model is multilingual-e5, whose query path is numpy alone: MiniLM as
    the main model opens an onnxruntime session, whose threads a fork would not copy. A child whose settings
    locate another model gets its own (ctx.semantic.embed caches by the model's files)."""
    from ctx.core.settings import semantic_enabled

    if not semantic_enabled():
        return
    try:
        from ctx.semantic.model import locate

        files = locate()
        if files is None or files.spec.kind != "e5":
            return
        from ctx.semantic.embed import get_embedder

        embedder = get_embedder()
        embedder.embed_query(WARM_QUERY)
        from ctx.semantic.embed import english_companion

        companion = english_companion(embedder.model_id)  # English fusion's MiniLM, numpy too
        if companion is not None:
            companion.embed_query(WARM_QUERY)
    except Exception:  # noqa: BLE001, S110 — an optimisation: the hook opens it (and says why not)
        pass


def _import(names: tuple[str, ...]) -> None:
    for name in names:
        try:
            __import__(name)
        except Exception:  # noqa: BLE001, S112 — a module that fails here fails in the hook, which says so
            continue


def main(path: str) -> None:
    """Serve hooks on `path` until idle, replaced or out of date (the boot line in client)."""
    os.chdir("/")
    _close_inherited_fds()
    if os.path.basename(path) != os.path.basename(client.socket_path()):
        return  # started with other flags or another import path than its name says
    directory = os.path.dirname(path)
    if not client.private_dir(directory):
        return
    import fcntl

    lock = os.open(path + ".lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        if os.fstat(lock).st_ino != os.stat(path + ".lock").st_ino:
            raise OSError("a server that was exiting removed this lock file")
    except OSError:
        os.close(lock)
        return  # another server has this socket (or just left it: the next hook starts one)
    os.ftruncate(lock, 0)
    os.write(lock, b"%d\n" % os.getpid())  # for `ctx hook-server status|stop`
    before = dict(os.environb)
    preload()
    # What the imports set (search.py: OPENBLAS_NUM_THREADS) they set in every hook process.
    _SET_BY_IMPORTS.update((k, v) for k, v in os.environb.items() if k not in before)
    files = code.stamps()  # every module loaded, ours and third-party (numpy), and the interpreter
    import gc

    gc.collect()
    gc.freeze()  # what the imports made is never traversed again: a child's pages stay shared
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old_mask = os.umask(0o177)
    try:
        listener.bind(path)
    finally:
        os.umask(old_mask)
    listener.listen(64)
    inode = os.stat(path).st_ino
    scratch = path.removesuffix(".sock") + ".rehearsal.db"
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel
    signal.signal(signal.SIGTERM, _exit_on_signal)  # `ctx hook-server stop`: tidy up first
    limit = settings.hook_server_idle_s()
    listener.setblocking(False)  # the spare waits in select(): it also watches its channel
    last = checked = time.monotonic()
    spare = None
    told = False  # the spare was told to rehearse
    working: list[socket.socket] = []  # channels of children running a hook (`d` when done)
    try:
        while True:
            if spare is None:
                spare, told = _fork_spare(listener, lock, files, scratch), False
                code.changed(files)  # its pages copied now (fork shares them), not in a hook
            if spare is not None and not working and not told:
                _send(spare, b"r")  # nobody is working: rehearse now (rehearse())
                told = True
            watched = [spare, *working] if spare is not None else working
            now = time.monotonic()
            ready = select.select(watched, [], [],
                                  max(0.0, min(ORPHAN_TICK_S, last + limit - now)))[0]
            if not ready:  # a tick without a hook (or a fork that failed: tried again)
                now = time.monotonic()
                if now - last >= limit or not _still_ours(path, inode):
                    return  # idle, or orphaned: its socket (or the run dir) was removed
                if now - checked >= TICK_S:
                    checked = now
                    if code.changed(files):
                        return
                continue
            for channel in ready:
                word = _receive(channel)
                if channel is not spare:  # a child done with its hook (or dead)
                    working.remove(channel)
                    channel.close()
                    continue
                # the spare took a connection (or died): the next is forked
                _SPARE_PIDS.pop(spare.fileno(), None)
                if word == b"t":
                    working.append(spare)
                else:
                    spare.close()
                spare = None
                last = time.monotonic()
                if word == b"s":
                    return  # the code changed under us: the client was told to run the hook
    finally:
        for channel in working:
            channel.close()
        if spare is not None:  # the spare reads end-of-file and exits — after a rehearsal
            _close_and_wait(spare)  # it may be in: its scratch store is removed below
        if _still_ours(path, inode):
            os.unlink(path)
        listener.close()
        _remove_store(scratch)
        try:  # while still holding it: nothing of this server is left in the run dir
            os.unlink(path + ".lock")
        except OSError:
            pass


def _close_and_wait(spare: socket.socket, timeout_s: float = 1.0) -> None:
    """Tell the spare to end (end-of-file on its channel) and wait, up to `timeout_s`, until
    its end closes too — it exits as soon as it reads ours, or after the rehearsal it is in.
    A spare still rehearsing then (a loaded machine) is killed and waited for, so that no
    rehearsal writes its scratch store after the server removed it."""
    pid = _SPARE_PIDS.pop(spare.fileno(), None)
    try:
        spare.shutdown(socket.SHUT_WR)
        spare.settimeout(timeout_s)
        while spare.recv(64):
            pass
    except TimeoutError:
        if pid is not None:
            try:
                os.kill(pid, signal.SIGKILL)
                spare.settimeout(timeout_s)
                while spare.recv(64):  # end of file: the spare is gone, its fds closed
                    pass
            except OSError:
                pass
    except OSError:
        pass
    finally:
        spare.close()


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def _remove_store(path: str) -> None:
    for name in (path, path + "-wal", path + "-shm"):
        try:
            os.unlink(name)
        except OSError:
            pass


def _receive(channel: socket.socket) -> bytes:
    try:
        return channel.recv(1)
    except OSError:
        return b""


def _close_inherited_fds() -> None:
    """Close what the hook that started this process left open beyond stdio (a pipe its
    caller reads to the end, say): a server living half an hour must not hold it."""
    try:
        fds = [int(fd) for fd in os.listdir("/proc/self/fd")]
    except OSError:  # no /proc (macOS): the usual limit
        fds = list(range(3, 256))
    for fd in fds:
        if fd > 2:
            try:
                os.close(fd)
            except OSError:
                pass


def _exit_on_signal(signum, _frame) -> None:
    raise SystemExit(0)


def servers(directory: str | None = None) -> list[tuple[str, int]]:
    """(socket path, pid) of every hook server running in `directory` (the run dir): the
    holders of its `hooks-*.sock.lock` files (a lock file outlives its server; it is only
    ever locked by a live one)."""
    import fcntl

    directory = directory or settings.run_dir()
    try:
        names = sorted(n for n in os.listdir(directory) if n.startswith("hooks-")
                       and n.endswith(".sock.lock"))
    except OSError:
        return []
    found = []
    for name in names:
        path = os.path.join(directory, name)
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)  # taken: nobody serves this socket
        except OSError:
            raw = os.read(fd, 32).strip()
            if raw.isdigit():
                found.append((path.removesuffix(".lock"), int(raw)))
        finally:
            os.close(fd)
    return found


def stop(directory: str | None = None, timeout_s: float = 5.0) -> list[int]:
    """End every hook server in `directory`; the pids asked to end (each waited for, up to
    `timeout_s` in all). A hook already running finishes: it is its own process."""
    asked = []
    for _path, pid in servers(directory):
        try:
            os.kill(pid, signal.SIGTERM)
        except OSError:
            continue
        asked.append(pid)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and (servers(directory) or any(map(_running, asked))):
        time.sleep(0.02)
    return asked


def _running(pid: int) -> bool:
    """The process exists and is not a zombie waiting to be reaped."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        try:
            os.kill(pid, 0)
        except OSError:
            return False
        return not os.path.isdir("/proc/self")


def threads() -> int:
    """This process's threads, as the OS counts them (not what a library says it started)."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:  # no /proc (macOS): Python's own count, the best there is
        import threading

        return threading.active_count()


def _fork_spare(listener: socket.socket, lock: int, files: list,
                scratch: str) -> socket.socket | None:
    """A child forked ahead of the next hook, waiting to accept it (the fork and its first
    page faults are paid between hooks, not in one; the kernel hands the connection straight
    to it). Returns our end of its channel: it says `t` when it took a connection, `s` when
    it found the code changed; end of file when it died."""
    if threads() != 1:  # a fork copies only the calling thread: locks others hold stay held
        raise SystemExit(0)
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        pid = os.fork()
    except OSError:
        ours.close()
        theirs.close()
        return None
    if pid == 0:
        status = 1
        try:
            os.close(lock)
            ours.close()
            status = _spare(listener, theirs, files, scratch)
        finally:
            os._exit(status)
    theirs.close()
    _SPARE_PIDS[ours.fileno()] = pid
    return ours


def _spare(listener: socket.socket, channel: socket.socket,
           files: list, scratch: str) -> int:
    """Wait for a client (or the server's end), then become that client's hook process."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # as in a process of its own
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    rehearsed = False
    while True:
        try:  # rehearse when told (`r`: no hook runs) or after REHEARSE_AFTER_S without one
            ready = select.select([listener, channel], [], [],
                                  None if rehearsed else REHEARSE_AFTER_S)[0]
        except InterruptedError:
            continue
        if channel in ready:
            if _receive(channel) != b"r":
                return 0  # the server ended (it removes the scratch store once we are gone)
            ready = []
        if not ready:
            if not rehearsed:
                rehearse(scratch)
                rehearsed = True
            continue
        try:
            conn, _ = listener.accept()
        except (BlockingIOError, InterruptedError):
            continue
        break
    listener.close()
    with conn:
        if not _same_user(conn):
            _send(conn, b"F\n")  # the client runs the hook in its own process
            _send(channel, b"t")
            return 0
        if code.changed(files):  # an upgrade or a `git pull` since the server started
            _send(conn, b"F\n")
            _send(channel, b"s")
            return 0
        _send(channel, b"t")  # the server forks the next spare while this one works
        conn.setblocking(True)
        _send(conn, b"A")  # accepted: the client may pass its streams now
        request = _read_request(conn)
        if request is None:
            _send(conn, b"F\n")
            return 1
        return _child(conn, channel, *request)


def rehearse(scratch: str) -> None:
    """Run a Stop hook (WARM_REPLY's commands) on a scratch store of the server's own, so the
    pages a hook touches are already this spare's when a hook waits on them.

    A forked child shares the server's memory until it writes to it, and every page it
    writes first is copied then: the reference counts of the code a hook runs, the
    allocator's arenas, SQLite's caches — ~1,400 page faults in a Stop over 10k nodes, at
    several microseconds each on a virtual machine. A rehearsed spare takes ~600 (measured,
    a Stop with three commands: 19 → 14 ms in the child; session start and prompt-submit
    run the same layers and gain too). The spare rehearses when the server says no hook is
    running (`r`: the last child said `d` as it answered), or after REHEARSE_AFTER_S without
    a hook — not beside a hook's work; a hook that arrives meanwhile waits for the
    rehearsal's end (~15 ms). The scratch store (next to the socket, in the private run dir)
    holds WARM_REPLY's constant texts and nothing else; the rehearsed hook sees no stream,
    setting or folder of a client's: empty stdin, its output dropped, $CTX_DB the scratch
    store, no $CTX_PROJECT, cwd `/`. Any failure only means an unrehearsed spare."""
    saved_env, saved_streams = dict(os.environb), (sys.stdin, sys.stdout, sys.stderr)
    if sum(_size(scratch + suffix) for suffix in ("", "-wal")) > SCRATCH_MAX_BYTES:
        _remove_store(scratch)  # each rehearsal adds a pending row: it never grows past this
    try:
        import io

        from ctx.claude.hooks.run import run_hook
        from ctx.claude.hooks.store_access import close_left_open

        os.environ.pop("CTX_PROJECT", None)
        os.environ["CTX_DB"] = scratch
        sys.stdin, sys.stdout, sys.stderr = (io.TextIOWrapper(io.BytesIO()) for _ in range(3))
        try:
            failed = run_hook(["stop", "--response", WARM_REPLY]) != 0
        finally:
            close_left_open()
        if failed:  # a scratch store that is no database (a disk that filled up): the next
            _remove_store(scratch)  # rehearsal starts a new one
    except Exception:  # noqa: BLE001, S110 — an optimisation: the spare serves unrehearsed
        pass
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        os.environb.clear()
        os.environb.update(saved_env)


def _still_ours(path: str, inode: int) -> bool:
    try:
        return os.stat(path).st_ino == inode
    except OSError:
        return False


def _same_user(conn: socket.socket) -> bool:
    """The peer runs as this user and sees the files this process sees (Linux: SO_PEERCRED,
    and its mount namespace is ours — a hook from a sandbox must not write the host's store;
    elsewhere the folder's 0700 decides)."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return True
    try:
        raw = conn.getsockopt(socket.SOL_SOCKET, option, 12)
    except OSError:
        return False
    if int.from_bytes(raw[4:8], sys.byteorder) != os.getuid():
        return False
    pid = int.from_bytes(raw[0:4], sys.byteorder)
    try:
        return os.stat(f"/proc/{pid}/ns/mnt").st_ino == os.stat("/proc/self/ns/mnt").st_ino
    except OSError:
        return not os.path.exists("/proc/self/ns/mnt")  # no /proc: nothing to compare


def _send(conn: socket.socket, data: bytes) -> None:
    try:
        conn.sendall(data)
    except OSError:
        pass


def _read_request(conn: socket.socket) -> tuple[list[bytes], list[int]] | None:
    """(fields, fds) of a well-formed request, else None (the fds received are closed)."""
    conn.settimeout(READ_TIMEOUT_S)
    fds: list[int] = []
    try:
        data, fds, _flags, _addr = socket.recv_fds(conn, 1 << 16, 3)
        if len(data) < 4 or len(fds) != 3:
            raise ValueError("no header or not three fds")
        size = int.from_bytes(data[:4], "big")
        if size > MAX_REQUEST:
            raise ValueError("request too large")
        body = bytearray(data[4:])
        while len(body) < size:
            chunk = conn.recv(min(1 << 16, size - len(body)))
            if not chunk:
                raise ValueError("request cut short")
            body += chunk
        fields = bytes(body).split(b"\0")
        if (fields[0] != client.PROTOCOL or len(fields) < 5 or not fields[3].isdigit()
                or not fields[4].isdigit()):
            raise ValueError("not this protocol")
        return fields, fds
    except (OSError, ValueError):
        for fd in fds:
            os.close(fd)
        return None


def _child(conn: socket.socket, channel: socket.socket, fields: list[bytes],
           fds: list[int]) -> int:
    """Become the client's hook process, run the hook, report its exit code."""
    try:
        cwd, mask, argc, nargs = fields[1], int(fields[2]), int(fields[3]), int(fields[4])
        argv = [os.fsdecode(a) for a in fields[5:5 + argc]]
        args = [os.fsdecode(a) for a in fields[5 + argc:5 + argc + nargs]]
        env = dict(e.split(b"=", 1) for e in fields[5 + argc + nargs:] if b"=" in e)
        os.chdir(cwd)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
    except (OSError, ValueError):
        for fd in fds:
            try:
                os.close(fd)
            except OSError:
                pass
        _send(conn, b"F\n")
        return 1
    os.umask(mask)
    _set_environment(env)
    sys.argv = argv
    conn.sendall(b"P%d\n" % os.getpid())
    try:  # the client's go (it may have given up waiting and run the hook itself)
        go = conn.recv(1)
    except OSError:
        go = b""
    if go != b"G":
        return 1
    conn.settimeout(None)
    done = _watch_client(conn)
    from ctx.claude import hooks
    from ctx.claude.hooks.run import run_hook

    hooks.AFTER_ANSWER = []
    status = run_hook(args)
    done.append(True)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    # Let go of the client's streams before saying the code: whoever reads them (Claude Code)
    # sees their end as the client exits, not after this process has torn itself down.
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    _send(conn, b"X%d\n" % status)
    for work in hooks.AFTER_ANSWER:  # nobody waits for these now (the session record)
        try:
            work()
        except Exception:  # noqa: BLE001, S110 — the answer is given; nothing left to tell
            pass
    _send(channel, b"d")  # done: the spare may rehearse
    from ctx.claude.hooks.store_access import close_left_open

    close_left_open()  # the WAL checkpoint's fsync, now that nobody waits for it
    return status


def _watch_client(conn: socket.socket) -> list:
    """End this child at once (SIGKILL, as the hook process itself was) if the client goes
    away before the hook is done: after `G` it says nothing more, so its end of the
    connection becoming readable means it died. Returns the list to append to once done."""
    import _thread

    done: list = []

    def watch() -> None:
        try:
            select.select([conn], [], [])
        except (OSError, ValueError):
            return
        if not done:
            os.kill(os.getpid(), signal.SIGKILL)

    _thread.start_new_thread(watch, ())
    return done


def _set_environment(env: dict[bytes, bytes]) -> None:
    """The client's environment, changing only what differs (usually nothing: the server
    was started by a hook of the same Claude Code), plus what the preloaded modules set at
    import where the client has no value of its own, as in process; a new TZ takes effect."""
    env = {**_SET_BY_IMPORTS, **env}
    current = os.environb
    tz = current.get(b"TZ")
    for name in [n for n in current if n not in env]:
        del current[name]
    for name, value in env.items():
        if current.get(name) != value:
            current[name] = value
    if current.get(b"TZ") != tz:
        time.tzset()
