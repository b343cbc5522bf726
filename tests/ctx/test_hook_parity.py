"""Every hook, served and cached, against the plain in-process path — across every setting.

The reference is the full path in a process of its own (ctx.claude.hooks.entry, no cached
session start, no server). Against it run, from the same store: `ctx hook` with the server
off (the cached session start in process) and the hook server's client (the server's child,
and the cached session start in it). The environments are generated: the baseline, then
every CTX_* variable of ctx.core.settings's table set to its example value (and each one the
baseline sets, unset), TZ, the locale (none at all: Python coerces it; C.UTF-8), and a folder
outside any repository. A new setting or a new hook event is covered without editing this
file (the event's payload excepted: a test asks for one). The cache rows in the store were
made under the baseline, so a setting a cache forgot shows as a stale answer.
"""
from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from ctx.claude.hooks import server
from ctx.claude.hooks.call import EVENTS
from ctx.core import db, settings
from ctx.core.store import Store
from tests.ctx.test_hook_server import REPLY, SERVED, same_ids

REFERENCE = """\
import os, sys
sys.argv = sys.argv[1:]
from ctx.claude.hooks.entry import main
code = main(sys.argv[2:], process_exits=True)
sys.stdout.flush(); sys.stderr.flush()
os._exit(code)
"""
LOCALE = ("LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "LC_COLLATE", "LC_TIME",
          "LC_NUMERIC", "LC_MONETARY")


def payloads(cwd: str) -> dict[str, list[dict]]:
    """For each hook event, the calls of one session (SessionStart thrice: the last one after
    the Stop changed the store, so it is the cache's; or, with nothing changed, the first)."""
    transcript = os.path.join(os.path.dirname(cwd), "transcript.jsonl")

    def start(sid):
        return {"session_id": sid, "hook_event_name": "SessionStart", "source": "startup",
                "cwd": cwd}
    return {
        "session-start": [start("s1"), start("s2")],
        "prompt-submit": [{"session_id": "s1", "hook_event_name": "UserPromptSubmit",
                           "prompt": "which port does staging use? 포트", "prompt_id": "p1",
                           "cwd": cwd}],
        "stop": [{"session_id": "s1", "hook_event_name": "Stop", "prompt_id": "p1",
                  "stop_hook_active": False, "last_assistant_message": REPLY, "cwd": cwd}],
        "pre-compact": [{"session_id": "s1", "hook_event_name": "PreCompact", "cwd": cwd,
                         "trigger": "auto", "custom_instructions": "",
                         "transcript_path": transcript}],
        "session-end": [{"session_id": "s1", "hook_event_name": "SessionEnd", "cwd": cwd,
                         "reason": "exit", "transcript_path": transcript}],
    }


def calls(cwd: str) -> list[tuple[str, dict]]:
    p = payloads(cwd)
    order = [(e, x) for e in EVENTS for x in p[e]]
    return order + [("session-start", {**p["session-start"][0], "session_id": "s3"})]


def test_every_hook_event_has_calls_here():
    assert set(payloads("/")) == set(EVENTS)


def variants() -> list[tuple[str, dict, str]]:
    """(id, environment changes — None: unset —, folder)."""
    out = [("baseline", {}, "repo"), ("outside a repository", {}, "outside")]
    out += [(f"{n}={v}", {n: v}, "repo") for n, v in settings.EXAMPLES.items()]
    out += [(f"{n} unset", {n: None}, "repo") for n in BASELINE_SET]
    out += [("TZ=KST-9", {"TZ": "KST-9"}, "repo"),
            ("no locale", dict.fromkeys(LOCALE), "repo"),
            ("LC_ALL=C.UTF-8", {"LC_ALL": "C.UTF-8"}, "repo"),
            ("CTX_DEFAULT_BUDGET=60 outside", {"CTX_DEFAULT_BUDGET": "60"}, "outside")]
    return out


BASELINE_SET = ("CTX_DB", "CTX_RUN_DIR")  # the CTX_* variables the baseline sets


@pytest.fixture(scope="module")
def world(tmp_path_factory, hook_run_dir):
    """A store with memory in a repository and outside it, its session starts cached."""
    root = tmp_path_factory.mktemp("parity")
    (root / "api").mkdir()
    subprocess.run(["git", "init", "-q", str(root / "api")], check=True)
    (root / "outside").mkdir()
    turns = [{"type": "user", "sessionId": "s1", "message": {"role": "user", "content":
              "which port does staging use?"}},
             {"type": "assistant", "sessionId": "s1", "message": {"role": "assistant", "content":
              [{"type": "text", "text": "Staging listens on 6543; I changed config/db.yml."}]}}]
    (root / "transcript.jsonl").write_text("".join(json.dumps(t) + "\n" for t in turns))
    (root / "xdg").mkdir(mode=0o700)
    base = {k: v for k, v in os.environ.items() if not k.startswith(("CTX_", "CUE_"))}
    base.update(CTX_DB=str(root / "store.db"), CTX_RUN_DIR=str(hook_run_dir),
                XDG_RUNTIME_DIR=str(root / "xdg"), HOME=str(root / "home0"))
    for name in ("CTX_MODEL_DIR",):  # where the built models are (tests/conftest.py KEEP)
        if name in os.environ:
            base[name] = os.environ[name]
    assert set(BASELINE_SET) == {n for n in base if n in settings.NAMES} - {"CTX_MODEL_DIR"}
    conn = db.connect(root / "store.db")
    s = Store(conn)
    s.add("Answer in English; keep replies short. 🚀", type="pattern", tags=["tier:pinned"])
    s.add("Staging DB listens on port 6543.", tags=["tier:reference"])
    s.add("스테이징 DB는 6543 포트를 쓴다.", tags=["tier:reference"])
    s.add("Releases are cut on Tuesdays " + "with a changelog entry " * 30,
          tags=["tier:reference"])
    s.add("Untiered: not in the session start.")
    conn.close()
    for cwd in ("api", "outside"):  # the project is created, then the answer cached
        for sid in ("w1", "w2"):
            payload = {"session_id": sid, "hook_event_name": "SessionStart",
                       "source": "startup", "cwd": str(root / cwd)}
            run(["ctx", "hook", "session-start"], payload, {**base, "CTX_HOOK_SERVER": "0"},
                root / cwd)
    conn = sqlite3.connect(root / "store.db")  # the hooks left their writes in the WAL
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    shutil.copy(root / "store.db", root / "template.db")
    conn = sqlite3.connect(root / "template.db")
    assert conn.execute("SELECT count(*) FROM hook_cache").fetchone() == (2,)
    conn.close()
    yield root, base
    for directory in {hook_run_dir, root / "xdg" / "cue-ctx"}:
        server.stop(str(directory))


def run(argv, payload, env, cwd, script=None):
    cmd = ([sys.executable, "-c", script, *argv] if script
           else [str(Path(sys.executable).parent / argv[0]), *argv[1:]])
    return subprocess.run(cmd, input=json.dumps(payload).encode(), capture_output=True,
                          env=env, cwd=cwd, timeout=60, check=False)


def served_or_run(argv, payload, env, cwd, script):
    """`run`, asked again while the server did not start the hook: on a loaded machine its
    child may not say "ready" within the client's WAIT_S (0.3 s), and then the hook never ran
    there (client.py's go-ahead protocol), so asking again has no side effect to repeat."""
    proc = run(argv, payload, env, cwd, script)
    for _ in range(30):
        if script != SERVED or proc.returncode != 99 or b"NOT SERVED" not in proc.stderr:
            break
        time.sleep(0.2)
        proc = run(argv, payload, env, cwd, script)
    return proc


def ensure_server(env, cwd) -> None:
    """A server for this environment's key in its run dir (the first hook starts it)."""
    probe = {**env, "CTX_DB": str(Path(cwd).parent / "probe.db")}
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        proc = run(["ctx", "hook", "prompt-submit"], {}, probe, cwd, SERVED)
        if proc.returncode != 99:
            return
        if b"NOT SERVED" not in proc.stderr:
            raise AssertionError(proc.stderr)
        run(["ctx", "hook", "prompt-submit"], {}, probe, cwd)  # starts one
        time.sleep(0.2)
    raise AssertionError("no hook server took this environment's hooks")


@pytest.mark.parametrize("name,change,folder", variants(), ids=[v[0] for v in variants()])
def test_served_and_cached_hooks_answer_as_the_plain_path(world, name, change, folder):
    root, base = world
    cwd = root / ("api" if folder == "repo" else "outside")
    results = {}
    for mode in ("reference", "plain", "served"):
        home = Path(tempfile.mkdtemp(prefix="h", dir=root))  # short: a socket path is ≤ 100 bytes
        # A fresh copy of the store per run, never one file replaced: a served hook's child
        # closes its connections (a WAL checkpoint) after its client has the answer, and a
        # copy over a file it still writes to is a malformed database for the next run.
        shutil.copy(root / "template.db", home / "store.db")
        env = {**base, "HOME": str(home), "CTX_DB": str(home / "store.db")}
        for k, v in change.items():
            if v is None:
                env.pop(k, None)
            else:
                env[k] = v
        script = None
        if mode == "reference":
            env["CTX_HOOK_SERVER"], script = "0", REFERENCE
        elif mode == "plain":
            env["CTX_HOOK_SERVER"] = "0"
        elif env.get("CTX_HOOK_SERVER", "").lower() not in settings.OFF_WORDS:
            ensure_server(env, cwd)
            script = SERVED
        out = []
        for event, payload in calls(str(cwd)):
            proc = served_or_run(["ctx", "hook", event], payload, env, cwd, script)
            out.append((event, proc.returncode, same_ids(proc.stdout), same_ids(proc.stderr)))
        results[mode] = out
        if mode == "served" and env.get("CTX_RUN_DIR", "").startswith("~"):
            server.stop(str(home / env["CTX_RUN_DIR"][2:]))
    assert results["plain"] == results["reference"]
    assert results["served"] == results["reference"]
    assert any(b"additionalContext" in o[2] for o in results["reference"])
