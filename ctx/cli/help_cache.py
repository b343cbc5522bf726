"""`ctx --help`, `ctx COMMAND --help` and a bare `ctx` from a cache (issue 28: `ctx --help`
≤ 100 ms).

Rendering the help imports Typer and click and — for `ctx --help`, which lists every command
with its description — every command module (nothing converted: ctx/cli/app.py): ~80 ms here,
~60 of them Typer's import, for a text that only changes when the code changes. So, as
ctx/mcp/wire.py does for the MCP handshake:

- a help request (`ctx [COMMAND [SUBCOMMAND]] --help`, answered on stdout with exit 0, or a
  bare `ctx`, answered on stderr with exit 2 as click does) is kept, as the text written and
  the exit code, in `$CTX_HOME/help-cache.json`;
- a later run with the same key prints the kept text from here (stdlib only), on the same
  stream, and exits with the same code.

The key is everything the text depends on: the arguments and the program name (`Usage:`
shows it), the terminal width click wraps to (`$COLUMNS`, else the terminal's), every
`CTX_*`, `TYPER_*` and locale variable, the interpreter and its import path — and the files
that rendered it: every module loaded at the time (path, size, mtime; ctx's, Typer's,
click's, the stdlib's), so an edit or an upgrade renders afresh (the cache then starts over). Shell completion
(`_CTX_COMPLETE`) is never answered from here. A damaged or unwritable file: Typer answers.
"""
from __future__ import annotations

import json
import os
import sys

FORMAT = 2
MAX_ENTRIES = 64
_ENV_PREFIXES = ("CTX_", "TYPER_", "_TYPER", "LC_")
_ENV_NAMES = ("LANG", "LANGUAGE", "TERM", "NO_COLOR", "FORCE_COLOR")


def is_help_request(argv: list[str]) -> bool:
    """Nothing (a bare `ctx`), or `[COMMAND [SUBCOMMAND …]] --help`: words, then --help last
    (no options, no values)."""
    return ((not argv or (argv[-1] == "--help" and len(argv) <= 4
                          and all(a[:1] not in ("-", "") for a in argv[:-1])))
            and not any(k.startswith("_") and k.endswith("_COMPLETE") for k in os.environ))


def cache_file() -> str:
    from ctx.core import settings  # where every CTX_* is read (stdlib only)

    return os.path.join(settings.home_dir(), "help-cache.json")


def _columns() -> int:
    """What shutil.get_terminal_size() (click's wrap width) reads; 0 = its fallback."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns


def key(argv: list[str]) -> str:
    main = sys.modules.get("__main__")
    spec = getattr(getattr(main, "__spec__", None), "name", None)  # `python -m ctx`
    env = sorted((k, v) for k, v in os.environ.items()
                 if k.startswith(_ENV_PREFIXES) or k in _ENV_NAMES)
    return json.dumps([FORMAT, sys.executable, sys.version, sys.path, sys.argv[0], spec, argv,
                       _columns(), env], ensure_ascii=False)


def _stat(path: str) -> list:
    try:
        st = os.stat(path)
        return [st.st_size, st.st_mtime_ns]
    except OSError:
        return [-1, -1]


def _load() -> dict | None:
    try:
        with open(cache_file(), encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return None
    files, entries = data.get("files"), data.get("entries")
    if not isinstance(files, dict) or not isinstance(entries, dict):
        return None
    for path, seen in files.items():
        if _stat(path) != seen:
            return None  # code changed: everything kept is stale
    return data


def answer(argv: list[str]) -> bool:
    """Print the kept help for `argv` and exit with its code (True), or nothing (False:
    Typer's turn)."""
    data = _load()
    entry = data["entries"].get(key(argv)) if data else None
    if not (isinstance(entry, list) and len(entry) == 3 and isinstance(entry[0], str)
            and isinstance(entry[1], str) and isinstance(entry[2], int)):
        return False
    out, err, code = entry
    _write(out, err)
    if code:
        sys.exit(code)
    return True


def _write(out: str, err: str) -> None:
    """What the help run wrote; a reader that went away (`ctx --help | head -1`) ends the
    process with exit 1 and no word, as Typer does."""
    try:
        if out:
            sys.stdout.write(out)
            sys.stdout.flush()
        if err:
            sys.stderr.write(err)
            sys.stderr.flush()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(1)


def render_and_keep(argv: list[str], render) -> None:
    """Run `render()` (the Typer app) with stdout and stderr captured; what it wrote reaches
    the real streams all the same, and is kept when it is help: on stdout with exit 0, or
    (a bare `ctx`) on stderr with exit 2. Errors, such as an unknown command, are not kept.

    Run on the process's own streams, it then ends the process with the render's exit code,
    without the interpreter's teardown: Typer and click leave ~10 ms of it (a caller that
    swapped the streams, such as a test, gets the ordinary return or SystemExit)."""
    import io

    k = key(argv)  # before rendering: what the run was asked under
    streams = sys.stdout, sys.stderr
    own = streams == (sys.__stdout__, sys.__stderr__)
    out, err = io.StringIO(), io.StringIO()
    sys.stdout, sys.stderr = out, err
    code: object = "raised"  # a render that raised is never kept
    try:
        render()
        code = 0
    except SystemExit as exc:
        code = 0 if exc.code is None else exc.code
        raise
    finally:
        sys.stdout, sys.stderr = streams
        text, problem = out.getvalue(), err.getvalue()
        if (code == 0 and text and not problem) or (not argv and code == 2 and problem
                                                    and not text):
            _keep(k, [text, problem, code])
        _write(text, problem)  # flushed: nothing else of this process is buffered
        if own and isinstance(code, int):
            os._exit(code)


def _keep(k: str, entry: list) -> None:
    files = {m.__file__ for m in list(sys.modules.values())
             if isinstance(getattr(m, "__file__", None), str)}
    data = _load() or {"format": FORMAT, "files": {}, "entries": {}}
    for path in files:
        data["files"][path] = _stat(path)
    entries = data["entries"]
    entries.pop(k, None)
    entries[k] = entry
    while len(entries) > MAX_ENTRIES:  # the oldest go first
        entries.pop(next(iter(entries)))
    from ctx.core.paths import save_cache

    save_cache(cache_file(), data)  # not written (a read-only home): the next run renders again
