"""The hook server (ctx/claude/hooks/server.py, client.py): hooks answered by a fork of a
process that has the imports done — the same bytes, exit codes and effects as in process."""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import sqlite3
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from ctx.claude.hooks import client, server
from ctx.core import db
from ctx.core.store import Store

ROOT = Path(__file__).resolve().parents[2]
# A client that must be served: what ctx/__main__.py runs, minus the in-process fallback.
SERVED = """\
import os, sys
sys.path[0] = os.path.dirname(sys.executable)  # as in the console script (the server's key)
sys.argv = sys.argv[1:]
from ctx.claude.hooks.client import served
code = served(sys.argv, sys.argv[2:])
if code is None:
    sys.stderr.write("NOT SERVED\\n")
    os._exit(99)
if os.environ.get("SHOW_MODULES"):
    sys.stderr.write("MODULES " + " ".join(sorted(sys.modules)) + "\\n")
os._exit(code)
"""


@pytest.fixture
def run_dir(tmp_path, monkeypatch):
    """A run dir of this test's own, so each test starts with no server."""
    path = Path(f"/tmp/ctx-test-run-{os.getpid()}-{time.monotonic_ns()}")
    path.mkdir(mode=0o700)
    monkeypatch.setenv("CTX_RUN_DIR", str(path))
    yield path
    server.stop(str(path))
    shutil.rmtree(path, ignore_errors=True)


def store_with(*contents, path=None):
    conn = db.connect(path)
    s = Store(conn)
    for text in contents:
        s.add(text, tags=["tier:reference"])
    conn.close()


def run_hook(ctx_bin, args, payload, *, env=None, served=None, cwd=None):
    """`ctx hook ARGS` as Claude Code runs it; `served=True`: through SERVED (fails if the
    server did not take it), `served=False`: in process (CTX_HOOK_SERVER=0)."""
    env = {**os.environ, **(env or {})}
    if served is False:
        env["CTX_HOOK_SERVER"] = "0"
    cmd = ([sys.executable, "-c", SERVED, "ctx", "hook", *args] if served
           else [ctx_bin, "hook", *args])
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    proc = subprocess.run(cmd, input=data, capture_output=True, env=env, cwd=cwd, timeout=60,
                          check=False)
    assert b"NOT SERVED" not in proc.stderr, proc.stderr
    return proc


def wait_for_server(timeout=20.0):
    """The socket of the one server in the run dir, once it listens."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = [path for path, _pid in server.servers() if os.path.exists(path)]
        if found:
            [path] = found
            return path
        time.sleep(0.05)
    raise AssertionError(f"no hook server came up in {os.environ.get('CTX_RUN_DIR')}")


def start_server(ctx_bin):
    """The first hook runs in process and starts a server; wait until it listens."""
    proc = run_hook(ctx_bin, ["prompt-submit"], {})
    assert proc.returncode == 0, proc.stderr
    return wait_for_server()


def server_pids():
    return [pid for _path, pid in server.servers()]


def start(session_id="s1", cwd="/tmp"):
    return {"session_id": session_id, "hook_event_name": "SessionStart", "source": "startup",
            "cwd": cwd, "transcript_path": "/nonexistent/t.jsonl"}


def prompt(text="hello", session_id="s1"):
    return {"session_id": session_id, "hook_event_name": "UserPromptSubmit", "prompt": text,
            "prompt_id": "p1"}


def stop_event(message, session_id="s1", prompt_id="p1"):
    return {"session_id": session_id, "hook_event_name": "Stop", "prompt_id": prompt_id,
            "stop_hook_active": False, "last_assistant_message": message}


REPLY = ('Noted. <ctx:remember type="decision" tags="tier:working">배포는 금요일에 하지 않는다 — '
         'no deploys on Friday 🚫</ctx:remember> <ctx:recall query="type:decision"/> '
         '<ctx:status/> <ctx:remember>token sk_live_4eC39HqLyjWDarjtT1zdp7dc here</ctx:remember>')
# One session, as Claude Code drives it, then the odd inputs; each step on both databases.
SCENARIO = [
    (["session-start"], start()),
    (["session-start"], start(session_id="s2")),  # unchanged store: the cached answer
    (["stop"], stop_event(REPLY)),
    (["stop"], stop_event(REPLY)),  # the same turn again: nothing done twice
    (["prompt-submit"], prompt("what did we decide?")),
    (["prompt-submit"], prompt("and now?")),
    (["session-start", "--max-chars", "200", "-v"], start(session_id="s3")),
    (["stop", "--response", '<ctx:recall query="tag:tier:working"/><ctx:bogus/>'],
     stop_event("")),
    (["prompt-submit"], b"not json at all"),
    (["prompt-submit"], b""),
    (["session-start"], b'["a list"]'),
    (["no-such-hook"], {}),
    (["--help"], b""),
]


def same_ids(data: bytes) -> bytes:
    """Node ids numbered by first appearance: the two databases mint their own ids for what
    the same reply remembers (ids hold the time)."""
    seen: dict[bytes, bytes] = {}
    return re.sub(rb"\b[0-9A-HJKMNP-TV-Z]{8,26}\b",
                  lambda m: seen.setdefault(m[0], b"<id%d>" % len(seen)), data)


@pytest.mark.parametrize("rehearsed", [False, True], ids=["back-to-back", "rehearsed"])
def test_served_hooks_are_byte_for_byte_the_in_process_hooks(ctx_bin, tmp_path, run_dir,
                                                              rehearsed):
    """Served hooks answer as in process, whether the spare had time to rehearse a hook
    (server.rehearse) before this one came or not."""
    served_db, local_db = tmp_path / "served.db", tmp_path / "local.db"
    store_with("Staging DB is on port 6543", "한국어 메모: 서버는 6543 포트", path=served_db)
    shutil.copy(served_db, local_db)
    start_server(ctx_bin)
    pid = server_pids()
    for args, payload in SCENARIO:
        env = {"CTX_SEMANTIC": "0"}
        if rehearsed:
            time.sleep(server.REHEARSE_AFTER_S + 0.4)
        a = run_hook(ctx_bin, args, payload, env={**env, "CTX_DB": str(served_db)}, served=True)
        b = run_hook(ctx_bin, args, payload, env={**env, "CTX_DB": str(local_db)}, served=False)
        assert (a.returncode, same_ids(a.stdout), same_ids(a.stderr)) == \
            (b.returncode, same_ids(b.stdout), same_ids(b.stderr)), args
    assert server_pids() == pid  # one server answered them all
    dump = [[list(r) for r in sqlite3.connect(p).execute(
        "SELECT type, content, token_estimate FROM nodes ORDER BY content")]
        for p in (served_db, local_db)]
    assert dump[0] == dump[1] and any("금요일" in row[1] for row in dump[0])


def test_a_corrupt_database_exits_1_served_as_in_process(ctx_bin, tmp_path, run_dir):
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"this is not a database" * 100)
    start_server(ctx_bin)
    a = run_hook(ctx_bin, ["session-start"], start(), env={"CTX_DB": str(bad)}, served=True)
    b = run_hook(ctx_bin, ["session-start"], start(), env={"CTX_DB": str(bad)}, served=False)
    assert a.returncode == b.returncode == 1 and a.stdout == b.stdout == b"{}\n"
    assert a.stderr == b.stderr and b"not a usable ctx database" in a.stderr


def test_the_client_imports_next_to_nothing(ctx_bin, run_dir):
    store_with("something")
    start_server(ctx_bin)
    proc = run_hook(ctx_bin, ["stop"], stop_event(REPLY), served=True,
                    env={"SHOW_MODULES": "1"})
    assert proc.returncode == 0, proc.stderr
    modules = set(proc.stderr.decode().split("MODULES ", 1)[1].split())
    assert "ctx.claude.hooks.client" in modules  # the probe works
    assert modules.isdisjoint({"json", "re", "sqlite3", "socket", "enum", "ctx.core.store",
                               "ctx.claude.hooks.entry"}), sorted(modules)


def test_the_first_hook_starts_a_server_the_next_is_served(ctx_bin, run_dir):
    store_with("Staging DB is on port 6543")
    assert server.servers() == []
    proc = run_hook(ctx_bin, ["session-start"], start())  # in process: there was none
    assert b"6543" in proc.stdout
    path = wait_for_server()
    mode = os.stat(path).st_mode
    assert stat.S_ISSOCK(mode) and mode & 0o077 == 0
    proc = run_hook(ctx_bin, ["session-start"], start(session_id="s2"), served=True)
    assert proc.returncode == 0 and b"6543" in proc.stdout


def test_a_changed_source_file_retires_the_server(ctx_bin, tmp_path, run_dir):
    """A `git pull` or an upgrade under a running server: the next hook runs the new code in
    process and a fresh server starts; the old one exits."""
    code = tmp_path / "code"
    for package in ("ctx", "cuectx"):
        shutil.copytree(ROOT / package, code / package,
                        ignore=shutil.ignore_patterns("__pycache__"))
    env = {"PYTHONPATH": str(code)}
    store_with("Staging DB is on port 6543")
    run_hook(ctx_bin, ["prompt-submit"], {}, env=env)
    old = wait_for_server()
    old_pids = server_pids()
    assert run_hook(ctx_bin, ["session-start"], start(), env=env, served=True).returncode == 0
    later = time.time() + 5
    os.utime(code / "ctx" / "core" / "compose.py", (later, later))
    proc = subprocess.run([sys.executable, "-c", SERVED, "ctx", "hook", "session-start"],
                          input=json.dumps(start()).encode(), capture_output=True,
                          env={**os.environ, **env}, check=False, timeout=60)
    assert proc.returncode == 99 and b"NOT SERVED" in proc.stderr  # refused: run it here
    deadline = time.monotonic() + 10
    while any(p in server_pids() for p in old_pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(p in server_pids() for p in old_pids)
    run_hook(ctx_bin, ["prompt-submit"], {}, env=env)  # starts the next one
    assert wait_for_server() == old and server_pids() and server_pids() != old_pids


@pytest.mark.parametrize("mode", [0o755, 0o770, 0o703])
def test_a_run_dir_others_can_enter_is_never_used(ctx_bin, run_dir, mode):
    store_with("Staging DB is on port 6543")
    run_dir.chmod(mode)
    for _ in range(3):
        proc = run_hook(ctx_bin, ["session-start"], start())
        assert proc.returncode == 0 and b"6543" in proc.stdout  # answered in process
    time.sleep(0.5)
    assert list(run_dir.iterdir()) == [] and server.servers() == []


def test_a_link_in_place_of_the_run_dir_is_not_followed(ctx_bin, tmp_path, run_dir):
    target = tmp_path / "elsewhere"
    target.mkdir(mode=0o700)
    run_dir.rmdir()
    run_dir.symlink_to(target)
    assert not client.private_dir(str(run_dir))
    run_hook(ctx_bin, ["prompt-submit"], {})
    time.sleep(0.5)
    assert list(target.iterdir()) == []


def test_a_missing_run_dir_is_created_private(ctx_bin, run_dir):
    run_dir.rmdir()
    start_server(ctx_bin)
    assert stat.S_IMODE(os.stat(run_dir).st_mode) == 0o700


def test_off_switch(ctx_bin, run_dir):
    for value in ("0", "off", "no", "false"):
        run_hook(ctx_bin, ["prompt-submit"], {}, env={"CTX_HOOK_SERVER": value})
    time.sleep(0.5)
    assert server.servers() == []


def test_an_idle_server_exits(ctx_bin, run_dir):
    run_hook(ctx_bin, ["prompt-submit"], {}, env={"CTX_HOOK_SERVER_IDLE": "0.3"})
    path = wait_for_server()
    deadline = time.monotonic() + 10
    while (os.path.exists(path) or server_pids()) and time.monotonic() < deadline:
        time.sleep(0.05)  # (the socket goes first, the lock with the process)
    assert not os.path.exists(path) and server_pids() == []
    assert _left_behind(run_dir, path) == ([], [])


@pytest.mark.parametrize("how", ["socket removed", "socket taken over", "run dir removed"])
def test_an_orphaned_server_exits_at_once_and_leaves_nothing(ctx_bin, run_dir, how):
    """Nobody can reach the server any more (its socket removed or replaced, the run dir gone:
    a logout empties $XDG_RUNTIME_DIR): it and its spare are gone within seconds, not at the
    next 30 s tick, and take their lock and scratch store with them."""
    path = start_server(ctx_bin)
    [pid] = server_pids()
    deadline = time.monotonic() + 10
    while not list(run_dir.glob("*.rehearsal.db")) and time.monotonic() < deadline:
        time.sleep(0.05)  # the spare has rehearsed: there is a scratch store to remove
    assert list(run_dir.glob("*.rehearsal.db")), list(run_dir.iterdir())
    other = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    t0 = time.monotonic()
    if how == "run dir removed":
        shutil.rmtree(run_dir)
    else:
        os.unlink(path)
        if how == "socket taken over":
            other.bind(path)
    try:
        while _alive(pid) and time.monotonic() - t0 < 10:
            time.sleep(0.02)
        took = time.monotonic() - t0
        assert not _alive(pid), "the orphaned server is still running"
        assert took < server.ORPHAN_TICK_S + 2.5, took  # (2 busy cores; it was up to 30 s)
        # nothing but what was put there: no spare, lock or scratch store
        kept = [os.path.basename(path)] if how == "socket taken over" else []
        assert _left_behind(run_dir, path, expected=kept) == (kept, [])
    finally:
        other.close()


def test_stop_ends_servers_and_status_lists_them(ctx_bin, run_dir):
    path = start_server(ctx_bin)
    [(listed, pid)] = server.servers()
    assert listed == path and pid > 0
    assert server.stop() == [pid]
    assert not os.path.exists(path) and server_pids() == []
    assert not _alive(pid)
    assert _left_behind(run_dir, path) == ([], [])


def _left_behind(run_dir, path, wait=5.0, expected=()):
    """(files in the run dir, live processes started for `path`: the server, its spares)."""
    deadline = time.monotonic() + wait
    while True:
        procs = []
        for p in filter(str.isdigit, os.listdir("/proc")):
            try:
                if path.encode() in Path(f"/proc/{p}/cmdline").read_bytes() and _alive(int(p)):
                    procs.append(int(p))
            except OSError:
                continue
        files = sorted(x.name for x in run_dir.iterdir()) if run_dir.exists() else []
        if (files == list(expected) and not procs) or time.monotonic() > deadline:
            return files, procs
        time.sleep(0.05)


def test_the_server_never_holds_a_database(ctx_bin, tmp_path, run_dir):
    store_with("Staging DB is on port 6543")
    start_server(ctx_bin)
    for _ in range(3):
        run_hook(ctx_bin, ["stop"], stop_event(REPLY), served=True)
    [pid] = server_pids()
    deadline = time.monotonic() + 5
    while len(_children(pid)) > 1 and time.monotonic() < deadline:  # workers ending
        time.sleep(0.02)
    family = [pid, *_children(pid)]
    assert len(family) == 2  # the server and its spare child
    for p in family:
        opened = [os.readlink(f"/proc/{p}/fd/{fd}") for fd in os.listdir(f"/proc/{p}/fd")]
        stores = [f for f in opened if f.endswith((".db", "-wal", "-shm"))]
        # (a spare rehearsing has its scratch store open, in the run dir: server.rehearse)
        assert all(f.startswith(f"{run_dir}/") and ".rehearsal.db" in f for f in stores), opened
        assert p != pid or not stores, opened


def _alive(pid):
    """Running (a zombie no init has reaped yet counts as ended)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _parent(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except OSError:
        return None


def test_hooks_of_several_sessions_at_once(ctx_bin, run_dir):
    store_with("seed")
    start_server(ctx_bin)
    results = []

    def one(i):
        reply = f'<ctx:remember type="fact">parallel fact number {i}</ctx:remember>'
        results.append(run_hook(ctx_bin, ["stop"], stop_event(reply, session_id=f"s{i}"),
                                served=True))

    threads = [threading.Thread(target=one, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [r.returncode for r in results] == [0] * 8
    conn = sqlite3.connect(os.environ["CTX_DB"])
    stored = {row[0] for row in conn.execute("SELECT content FROM nodes")}
    assert {f"parallel fact number {i}" for i in range(8)} <= stored


def test_a_signal_to_the_hook_ends_the_work_it_started(ctx_bin, run_dir):
    """Claude Code ending a hook that ran too long (SIGTERM): the child doing the work ends
    with it, and the client dies of the same signal, as an in-process hook would."""
    store_with("seed")
    start_server(ctx_bin)
    [pid] = server_pids()
    lock = sqlite3.connect(os.environ["CTX_DB"], isolation_level=None)
    lock.execute("BEGIN IMMEDIATE")  # the Stop hook waits for the write lock (5 s)
    try:
        proc = subprocess.Popen([sys.executable, "-c", SERVED, "ctx", "hook", "stop"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
        proc.stdin.write(json.dumps(stop_event(REPLY)).encode())
        proc.stdin.close()
        deadline = time.monotonic() + 10
        while len(_children(pid)) < 2 and time.monotonic() < deadline:  # spare + the worker
            time.sleep(0.02)
        time.sleep(0.2)
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=10)
        assert proc.returncode == -signal.SIGTERM
        deadline = time.monotonic() + 5
        while len(_children(pid)) > 1 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert len(_children(pid)) == 1, "the worker outlived the hook"  # the spare is left
    finally:
        lock.execute("ROLLBACK")
        lock.close()


def _children(pid):
    return [int(p) for p in os.listdir("/proc") if p.isdigit() and _parent(int(p)) == pid
            and _alive(int(p))]


def test_the_client_s_cwd_decides_the_project(ctx_bin, tmp_path, run_dir):
    """Working directory and environment are the client's, not the server's."""
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    start_server(ctx_bin)
    reply = '<ctx:remember type="fact" tags="tier:pinned">only in this repository</ctx:remember>'
    run_hook(ctx_bin, ["stop"], stop_event(reply), cwd=repo, served=True)
    inside = run_hook(ctx_bin, ["session-start"], start(cwd=str(repo)), cwd=repo, served=True)
    outside = run_hook(ctx_bin, ["session-start"], start(cwd=str(tmp_path)), cwd=tmp_path,
                       served=True)
    assert b"only in this repository" in inside.stdout
    assert b"only in this repository" not in outside.stdout


def test_ctx_hook_server_status_and_stop(ctx_bin, run_dir):
    quiet = subprocess.run([ctx_bin, "hook-server", "status"], capture_output=True, text=True,
                           check=False)
    assert quiet.returncode == 0 and "no hook server in" in quiet.stderr
    path = start_server(ctx_bin)
    [pid] = server_pids()
    listed = subprocess.run([ctx_bin, "hook-server", "status", "--format", "json"],
                            capture_output=True, text=True, check=True)
    assert json.loads(listed.stdout) == [{"pid": pid, "socket": path, "this_installation": True}]
    stopped = subprocess.run([ctx_bin, "hook-server", "stop"], capture_output=True, text=True,
                             check=True)
    assert f"stopped 1 hook server(s): {pid}" in stopped.stderr
    assert not _alive(pid) and server.servers() == [] and not os.path.exists(path)


def test_the_server_holds_no_pipe_its_first_hook_inherited(ctx_bin, run_dir):
    """A caller that reads a pipe to its end (the hook passed it on, inheritable) must not
    wait half an hour for the server the hook started."""
    read, write = os.pipe()
    os.set_inheritable(write, True)
    proc = subprocess.Popen([ctx_bin, "hook", "prompt-submit"], stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            pass_fds=(write,))
    proc.communicate(b"{}", timeout=30)
    os.close(write)
    wait_for_server()
    os.set_blocking(read, False)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            if os.read(read, 1) == b"":
                break  # end of file: nobody holds the write end any more
        except BlockingIOError:
            time.sleep(0.05)
    else:
        raise AssertionError("the hook server kept its first hook's pipe open")
    os.close(read)


def test_a_served_hook_leaves_no_write_ahead_log_behind(ctx_bin, run_dir):
    """The child closes the store after its client has the answer: the last connection to
    close checkpoints the log into the database, so the next hook has none to replay."""
    store_with("seed")
    start_server(ctx_bin)
    reply = '<ctx:remember type="fact">checkpointed after the answer</ctx:remember>'
    assert run_hook(ctx_bin, ["stop"], stop_event(reply), served=True).returncode == 0
    wal = Path(os.environ["CTX_DB"] + "-wal")

    def logged() -> int:  # bytes in the log (it is deleted as the last connection closes)
        try:
            return wal.stat().st_size
        except FileNotFoundError:
            return 0

    deadline = time.monotonic() + 5
    while logged() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert logged() == 0
    conn = sqlite3.connect(os.environ["CTX_DB"])
    assert conn.execute("SELECT count(*) FROM nodes WHERE content LIKE 'checkpointed%'"
                        ).fetchone()[0] == 1


PRELOAD_EMBEDDER = """\
import os, sys, threading
import numpy as np
from ctx.claude.hooks import server
server.preload()
from ctx.semantic import embed
from ctx.semantic.model import require
print(embed._cached.cache_info().currsize, threading.active_count(), "onnxruntime" in sys.modules)
pid = os.fork()
if pid == 0:  # a hook's child: the server's embedder, and the vector a fresh one gives
    served = embed.get_embedder()
    fresh = embed.make_embedder(require())
    text = "how does the billing worker retry a declined card? 결제 재시도"
    same = np.array_equal(served.embed_query(text), fresh.embed_query(text))
    os._exit(0 if same and served is embed.get_embedder() else 3)
print(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
"""


def test_the_server_opens_the_query_embedder_without_a_thread():
    """Semantic prompts find the e5 embedder open in their child (a fork copies one
    thread: no onnxruntime, no OpenBLAS pool), and it embeds as a fresh one does."""
    from ctx.semantic.model import locate

    files = locate()
    if files is None or files.spec.kind != "e5":
        pytest.fail("make model builds multilingual-e5-small; this test needs it")
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
    proc = subprocess.run([sys.executable, "-c", PRELOAD_EMBEDDER], env=env,
                          capture_output=True, text=True, check=True)
    assert proc.stdout.split() == ["1", "1", "False", "0"], proc.stdout + proc.stderr
    env["CTX_SEMANTIC"] = "0"  # semantic selection off: nothing opened
    proc = subprocess.run([sys.executable, "-c", PRELOAD_EMBEDDER], env=env,
                          capture_output=True, text=True, check=True)
    assert proc.stdout.split()[:3] == ["0", "1", "False"], proc.stdout + proc.stderr


def test_a_rehearsal_stays_in_its_scratch_store(ctx_bin, tmp_path, run_dir):
    """The spare's rehearsal writes WARM_REPLY's constant texts to a store next to the socket,
    never to the client's; the server removes it as it exits."""
    store_with("Staging DB is on port 6543")
    path = start_server(ctx_bin)
    scratch = Path(path.removesuffix(".sock") + ".rehearsal.db")
    deadline = time.monotonic() + 20
    while not scratch.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)  # (its first rehearsal finishing)
    run_hook(ctx_bin, ["stop"], stop_event(REPLY), served=True)
    time.sleep(server.REHEARSE_AFTER_S + 0.5)  # the next spare rehearses too
    texts = {r[0] for r in sqlite3.connect(scratch).execute("SELECT content FROM nodes")}
    assert texts and all(t in server.WARM_REPLY for t in texts), texts
    mine = [r[0] for r in sqlite3.connect(os.environ["CTX_DB"]).execute(
        "SELECT content FROM nodes ORDER BY content")]
    assert not [t for t in mine if t in server.WARM_REPLY], mine
    assert any("금요일" in t for t in mine)  # the served Stop's own remember
    for suffix in ("-wal", "-shm"):
        Path(f"{scratch}{suffix}").unlink(missing_ok=True)
    scratch.write_bytes(b"not a database" * 100)  # (a disk that filled up, say)
    for _ in range(2):  # the next rehearsal fails and removes it; the one after starts anew
        assert run_hook(ctx_bin, ["stop"], stop_event(""), served=True).returncode == 0
        time.sleep(server.REHEARSE_AFTER_S + 0.5)
    texts = {r[0] for r in sqlite3.connect(scratch).execute("SELECT content FROM nodes")}
    assert texts and all(t in server.WARM_REPLY for t in texts), texts
    server.stop(str(run_dir))
    assert not list(run_dir.glob("*.rehearsal.db*")), list(run_dir.iterdir())


def test_the_scratch_store_stays_bounded(tmp_path):
    """Each rehearsal adds a pending row to the scratch store: past SCRATCH_MAX_BYTES it is
    removed and the rehearsal starts a new one (it grew without bound: 821 KB after 4,000)."""
    scratch = tmp_path / "hooks-x.rehearsal.db"
    program = ("import sys; from ctx.claude.hooks import server; server.preload(); "
               "[server.rehearse(sys.argv[1]) for _ in range(3)]")
    subprocess.run([sys.executable, "-c", program, str(scratch)], check=True, timeout=120,
                   env={**os.environ, "CTX_SEMANTIC": "0"})
    rows = sqlite3.connect(scratch).execute("SELECT count(*) FROM nodes").fetchone()[0]
    assert rows >= 1
    for suffix in ("-wal", "-shm"):
        Path(f"{scratch}{suffix}").unlink(missing_ok=True)
    with open(scratch, "ab") as f:  # (the store of many rehearsals: past the bound)
        f.write(b"\0" * (server.SCRATCH_MAX_BYTES + 1))
    subprocess.run([sys.executable, "-c", program, str(scratch)], check=True, timeout=120,
                   env={**os.environ, "CTX_SEMANTIC": "0"})
    assert os.path.getsize(scratch) < server.SCRATCH_MAX_BYTES
    texts = {r[0] for r in sqlite3.connect(scratch).execute("SELECT content FROM nodes")}
    assert texts and all(t in server.WARM_REPLY for t in texts), texts


def test_a_sigkilled_client_s_hook_stops(ctx_bin, run_dir):
    """SIGKILL cannot be passed on: the child notices its client is gone and ends before it
    writes anything (in process, the kill would have ended the work). The hook would wait
    30 s for the write lock held here: the worker must be gone well before that."""
    store_with("seed")
    start_server(ctx_bin)
    [pid] = server_pids()
    lock = sqlite3.connect(os.environ["CTX_DB"], isolation_level=None)
    lock.execute("BEGIN IMMEDIATE")  # the Stop hook waits for the write lock
    try:
        proc = subprocess.Popen([sys.executable, "-c", SERVED, "ctx", "hook", "stop"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE,
                                env={**os.environ, "CTX_HOOK_BUSY_TIMEOUT_MS": "30000"})
        proc.stdin.write(json.dumps(stop_event(REPLY)).encode())
        proc.stdin.close()
        deadline = time.monotonic() + 10
        while len(_children(pid)) < 2 and time.monotonic() < deadline:  # spare + the worker
            time.sleep(0.02)
        time.sleep(0.3)
        proc.kill()
        proc.wait(timeout=10)
        deadline = time.monotonic() + 3  # (the hook itself would give up only after 30 s)
        while len(_children(pid)) > 1 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert len(_children(pid)) == 1, "the worker outlived its client"
    finally:
        lock.execute("ROLLBACK")
        lock.close()
    time.sleep(1)
    texts = [r[0] for r in sqlite3.connect(os.environ["CTX_DB"]).execute("SELECT content FROM nodes")]
    assert not any("금요일" in t for t in texts), texts


def test_the_server_keeps_no_user_s_environment(ctx_bin, run_dir):
    """A token or $CTX_PROJECT of the hook that started the server is not in the server's
    (or its spare's) environment; each hook's child gets its own client's."""
    store_with("seed")
    env = {"SOME_TOKEN": "tok-3f9a7c", "CTX_PROJECT": "secret-project"}
    proc = run_hook(ctx_bin, ["prompt-submit"], {}, env=env)
    assert proc.returncode == 0
    wait_for_server()
    proc = run_hook(ctx_bin, ["prompt-submit"], prompt("hi"), env=env, served=True)
    assert proc.returncode == 0
    [pid] = server_pids()
    checked = 0
    for p in [pid, *_children(pid)]:
        try:
            environ = Path(f"/proc/{p}/environ").read_bytes()
        except (ProcessLookupError, FileNotFoundError):
            assert p != pid  # the server itself must be there to be read
            continue  # a hook's child that finished in between: nothing of it is kept
        checked += 1
        assert b"tok-3f9a7c" not in environ and b"secret-project" not in environ
    assert checked >= 1


def test_a_server_that_does_not_answer_costs_a_hook_well_under_a_second(ctx_bin, run_dir):
    """A socket that accepts but never starts the hook (a stopped server): the client waits
    client.WAIT_S, then runs the hook itself — once."""
    store_with("seed")
    probe = SERVED.split("from ctx.claude.hooks.client import served")[0] + (
        "from ctx.claude.hooks.client import socket_path\nprint(socket_path())\n")
    path = subprocess.run([sys.executable, "-c", probe, "ctx", "hook"], capture_output=True,
                          text=True, check=True).stdout.strip()
    mute = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    mute.bind(path)
    mute.listen(8)
    try:
        t0 = time.monotonic()
        proc = run_hook(ctx_bin, ["stop"], stop_event(REPLY))
        took = time.monotonic() - t0
    finally:
        mute.close()
    assert proc.returncode == 0 and proc.stdout == b"{}\n", proc.stderr
    assert took < client.WAIT_S + 2.0  # (the hook's own work included, on a loaded machine)
    texts = [r[0] for r in sqlite3.connect(os.environ["CTX_DB"]).execute("SELECT content FROM nodes")]
    assert sum("금요일" in t for t in texts) == 1


def test_a_folder_in_the_socket_s_place_runs_hooks_in_process_without_starting_servers(
        ctx_bin, run_dir):
    store_with("Staging DB is on port 6543")
    probe = SERVED.split("from ctx.claude.hooks.client import served")[0] + (
        "from ctx.claude.hooks.client import socket_path\nprint(socket_path())\n")
    path = subprocess.run([sys.executable, "-c", probe, "ctx", "hook"], capture_output=True,
                          text=True, check=True).stdout.strip()
    os.mkdir(path)
    for sid in ("s1", "s2", "s3"):
        proc = run_hook(ctx_bin, ["session-start"], start(session_id=sid))
        assert proc.returncode == 0 and b"6543" in proc.stdout
    time.sleep(1)
    assert server.servers() == [] and not list(run_dir.glob("*.lock"))


def test_a_relative_run_dir_is_not_used(monkeypatch, tmp_path):
    from ctx.core import settings

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_RUNTIME_DIR", "/run/user/1234")
    monkeypatch.setenv("CTX_RUN_DIR", "run")
    assert settings.run_dir() == "/run/user/1234/cue-ctx"
    monkeypatch.setenv("CTX_RUN_DIR", "~/run")
    assert settings.run_dir() == os.path.expanduser("~/run")


def test_hooks_with_a_relative_run_dir_share_one_server_and_make_no_folder(ctx_bin, tmp_path,
                                                                         run_dir, monkeypatch):
    """CTX_RUN_DIR=run in two project folders: no `run` folder appears in either (it made a
    run dir, and a server, per folder); both are served by the one server in the default
    run dir ($XDG_RUNTIME_DIR/cue-ctx here)."""
    store_with("Staging DB is on port 6543")
    xdg = Path(f"{run_dir}-xdg")  # short: a socket path is at most 100 bytes
    xdg.mkdir(mode=0o700)
    env = {"CTX_RUN_DIR": "run", "XDG_RUNTIME_DIR": str(xdg)}
    folders = [tmp_path / "a", tmp_path / "b"]
    try:
        for folder in folders:
            folder.mkdir()
            proc = run_hook(ctx_bin, ["prompt-submit"], {}, env=env, cwd=folder)
            assert proc.returncode == 0, proc.stderr
        monkeypatch.setenv("XDG_RUNTIME_DIR", str(xdg))
        monkeypatch.delenv("CTX_RUN_DIR")
        wait_for_server()  # the one server, listening in the default run dir
        for folder in folders:
            proc = run_hook(ctx_bin, ["session-start"], start(cwd=str(folder)), env=env,
                            cwd=folder, served=True)
            assert proc.returncode == 0 and b"6543" in proc.stdout
            assert [x.name for x in folder.iterdir()] == []
    finally:
        server.stop(str(xdg / "cue-ctx"))
        shutil.rmtree(xdg, ignore_errors=True)


def test_threads_are_counted_by_the_os():
    code = ("import threading, time\nfrom ctx.claude.hooks import server\n"
            "print(server.threads())\n"
            "threading.Thread(target=time.sleep, args=(2,), daemon=True).start()\n"
            "print(server.threads())\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["1", "2"]
