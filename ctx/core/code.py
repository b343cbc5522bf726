"""The code a process runs, as one fingerprint: what every cache and the hook server check.

An answer kept for later (the cached session start, the MCP handshake) or a process kept
alive (the hook server) is only as good as the code that made it. `files()` lists the
sources behind every module this process has loaded that could change without the
interpreter changing: every ctx and cuectx module, and the top module of every third-party
package (an upgrade rewrites it — numpy, the MCP SDK, pydantic …); plus the interpreter
itself, which the standard library changes with. `stamps()` records them (path, mtime,
size, as a list that JSON keeps), `changed()` says whether any differs now. A cache stamps
the code of the process that computed its answer, so what it depends on is never a list kept
by hand.

Stdlib only, no imports beyond os and sys: the hook path checks stamps.
"""
from __future__ import annotations

import os
import sys

OURS = ("ctx", "cuectx")


def files(modules: dict | None = None) -> list[str]:
    """The source files of what is loaded (see above), sorted."""
    stdlib = sys.stdlib_module_names
    found = {sys.executable}
    for name, module in list((sys.modules if modules is None else modules).items()):
        top = name.partition(".")[0]
        if top in stdlib or (top != name and top not in OURS):
            continue
        path = getattr(module, "__file__", None)
        if isinstance(path, str):
            found.add(path)
    return sorted(found)


def stamps(paths: list[str] | None = None) -> list[list]:
    """[path, mtime_ns, size] of each file (-1, -1: missing; 0, 0: a directory)."""
    return [[path, *_stat(path)] for path in (files() if paths is None else paths)]


def changed(seen: list) -> bool:
    """Any stamped file differs now (or `seen` is not stamps at all)."""
    try:
        return any(_stat(path) != (mtime, size) for path, mtime, size in seen)
    except (TypeError, ValueError):
        return True


def _stat(path: str) -> tuple[int, int]:
    """A file's (mtime_ns, size); a directory's (0, 0) — whether it is there, not what git
    last wrote in it; (-1, -1) when missing."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return -1, -1
    if st.st_mode & 0o170000 == 0o040000:
        return 0, 0
    return st.st_mtime_ns, st.st_size
