"""The scrubber in a second process, for a caller with other work to do first (a digest).

Building the scrubber is most of a second of pure-Python work (Presidio's import, which
imports spaCy), all of it under one interpreter lock: a background
thread slows the caller's own work down by about as much as it saves. A child process
builds it on the other core instead, while the caller loads, selects and prepares frames
and asks its model.

    start()        # spawn the child (cue.pii.worker.main); returns at once
    find(text)     # the child's `cue.pii.engine.find(text)`, or None: ask in this process

The child runs the same `find` this process would (same code, same environment, so the
same findings); the caller does the rest of `analyze` (token filtering, merging) itself.
`find` answers None when no child runs or it could not answer — it failed to build (a
spaCy model setting that names no model …), died, or took longer than `TIMEOUT` — and
the caller then builds in-process, where any error is raised where it can be shown: the
scrub never lets text through unscrubbed. The child lives as long as this process (it
exits when its stdin closes), so a process that digests again scrubs at once; it writes
nothing but its answers, and the text crosses only its pipes.

Protocol: the child first writes one line when its engine is built, `{"ready": true}` (or
`{"error": "ExceptionName"}`, and exits); then, for each JSON string per line in, one JSON
object per line out: `{"found": [[type, start, end, score], …]}` or `{"error": …}` — never
the text or a message.
"""
from __future__ import annotations

import atexit
import contextlib
import json
import os
import select
import subprocess
import sys
import threading
from pathlib import Path

from cue.pii.entities import Entity

TIMEOUT = 120.0  # seconds to wait for an answer (a cold build is ~1 s; a loaded machine 5)

_lock = threading.Lock()
_proc: subprocess.Popen | None = None
_ready = False  # the child's ready line has been read


def stop() -> None:
    """End the child (at exit, or for a test that wants in-process scrubbing again)."""
    with _lock:
        _drop()


atexit.register(stop)


def start() -> bool:
    """Spawn the child unless one runs already; False where this platform cannot wait on a
    pipe (then the caller builds in-process)."""
    global _proc, _ready
    if os.name != "posix":
        return False
    with _lock:
        if _proc is not None:
            return True
        _ready = False
        # The child imports this very package, wherever it was imported from (put on its
        # path only when the interpreter would not find it there anyway).
        root = str(Path(__file__).resolve().parents[2])
        _proc = subprocess.Popen(
            [sys.executable, "-c", _CHILD, root], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, close_fds=True)
        return True


_CHILD = ("import sys\n"
          "if sys.argv[1] not in sys.path:\n"
          "    sys.path.insert(0, sys.argv[1])\n"
          "from cue.pii.worker import main\n"
          "main()\n")


def running() -> bool:
    return _proc is not None


def find(text: str) -> list[Entity] | None:
    """The child's findings in `text`; None if no child runs or it could not answer (it is
    stopped then, and the caller scrubs in-process)."""
    with _lock:
        if _proc is None or not (_ready or _check_ready(wait=TIMEOUT)):
            return None
        answer = _ask(_proc, text)
        if answer is None or "found" not in answer:
            _drop()
            return None
    return [Entity(t, s, e, sc) for t, s, e, sc in answer["found"]]


def _check_ready(wait: float) -> bool:
    """Read the child's ready line if it comes within `wait` seconds; a child that failed
    is dropped. Called with the lock held."""
    global _ready
    assert _proc is not None and _proc.stdout is not None
    try:
        if not select.select([_proc.stdout], [], [], wait)[0]:
            return False
        line = _proc.stdout.readline()
        _ready = bool(line) and json.loads(line).get("ready") is True
    except (OSError, ValueError):
        _ready = False
    if not _ready:
        _drop()
    return _ready


def _ask(proc: subprocess.Popen, text: str) -> dict | None:
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(json.dumps(text).encode("ascii") + b"\n")
        proc.stdin.flush()
        ready, _, _ = select.select([proc.stdout], [], [], TIMEOUT)
        line = proc.stdout.readline() if ready else b""
        return json.loads(line) if line else None
    except (OSError, ValueError):
        return None


def _drop() -> None:
    """Kill the child, if any (with the lock held). Nothing to save in it: it may be
    mid-import, so it is not asked to finish."""
    global _proc
    proc, _proc = _proc, None
    if proc is None:
        return
    proc.kill()
    for pipe in (proc.stdin, proc.stdout):
        if pipe is not None:
            with contextlib.suppress(OSError):  # a dead child's pipe: unsent bytes stay so
                pipe.close()
    proc.wait()


# ------------------------------------------------------------------ the child
def main() -> None:
    from cue.pii import engine

    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer

    def say(answer: dict) -> None:
        stdout.write(json.dumps(answer).encode("ascii") + b"\n")
        stdout.flush()

    try:
        engine.engine()
    except Exception as exc:  # noqa: BLE001 - told to the caller, who builds and raises it
        say({"error": type(exc).__name__})
        return
    say({"ready": True})
    if not select.select([stdin], [], [], 0)[0]:
        _warm(engine)  # nobody is waiting yet: pay the first analysis's lazy set-up now
    for line in stdin:
        try:
            found = engine.find(json.loads(line))
            say({"found": [[e.type, e.start, e.end, e.score] for e in found]})
        except Exception as exc:  # noqa: BLE001 - the caller scrubs in-process instead
            say({"error": type(exc).__name__})


def _warm(engine) -> None:
    # The first analysis pays for tldextract's suffix trie and phonenumbers' patterns.
    with contextlib.suppress(Exception):  # a real error comes back with the request
        engine.find("jane@example.com, +82 10-1234-5678, (415) 555-2671")


if __name__ == "__main__":
    main()
