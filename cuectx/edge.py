"""The error edge both programs share, without Typer: what an exception becomes at the edge.

- a domain error (cuectx.errors.Error and the programs' subclasses): its sentence, its code;
- a sqlite3 error: the program's sentence for it (`translate_sqlite`), exit 4;
- an OSError (a file to read or write): the reason and the file, exit 1.

It becomes one `Error: …` line on stderr and that exit code — unless `debug_env` (set by
`--traceback`) asks for the traceback, then the exception goes on. A closed pipe
(`ctx list | head`) is not handled here: it goes on to the caller.

`cuectx.cli.EdgeGroup` (the Typer apps of both programs) ends here, so an error reads the
same in ctx and cue.
"""
from __future__ import annotations

import os
import sqlite3
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from cuectx.errors import Error
from cuectx.exits import ExitCode


def debugging(debug_env: str) -> bool:
    return os.environ.get(debug_env, "").strip() not in ("", "0")


def set_traceback(enabled: bool, debug_env: str) -> None:
    """What the root `--traceback` option does: errors show their traceback from now on."""
    if enabled:
        os.environ[debug_env] = "1"


@contextmanager
def error_edge(translate_sqlite: Callable[[sqlite3.Error], Error], debug_env: str) -> Iterator[None]:
    """Run the body; an error it raises becomes one `Error: …` line and its exit code."""
    try:
        yield
    except BrokenPipeError:
        raise  # `… | head`: the caller's (Typer exits 1)
    except Error as exc:
        fail(exc, str(exc), exc.exit_code, debug_env)
    except sqlite3.Error as exc:
        error = translate_sqlite(exc)
        fail(exc, str(error), error.exit_code, debug_env)
    except OSError as exc:  # a file to read or write: missing folder, permissions, disk full
        where = f": {exc.filename}" if exc.filename else ""
        fail(exc, f"{exc.strerror or exc}{where}", ExitCode.ERROR, debug_env)


def fail(exc: BaseException, message: str, code: int, debug_env: str):
    if debugging(debug_env):
        raise exc
    sys.stderr.write(f"Error: {message}\n")
    sys.stderr.flush()
    sys.exit(int(code))
