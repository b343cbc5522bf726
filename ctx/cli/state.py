"""What every ctx command shares: the root options (--db, --project, --all-projects),
the store it opens, the scope it reads, and input parsing. One object (`state`), set by
`start()` — from the root callback in ctx/cli/app.py; commands import it from here, never
from the app.
No Typer here (the option types are ctx/cli/options.py)."""
from __future__ import annotations

import os
import sqlite3
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from ctx.cli.output import say, set_short_ids
from ctx.core import db
from ctx.core.errors import CtxError
from ctx.core.store import Store, validate_metadata


class State:
    db_path: str | None = None
    project: str | None = None
    all_projects: bool = False


state = State()


def start(db_path: str | None, project: str | None, all_projects: bool, traceback: bool) -> None:
    """What ctx's root options do (Typer's root callback): the database, the project,
    --all-projects, --traceback."""
    from cuectx.edge import set_traceback

    state.db_path = db_path
    state.project = project
    state.all_projects = all_projects
    set_traceback(traceback, "CTX_DEBUG")
    set_short_ids(short_ids_in_store)


def translate_sqlite(exc: sqlite3.Error) -> CtxError:
    """A sqlite3 error as the sentence the error edge prints (cuectx.edge), naming the database."""
    return db.translate(exc, state.db_path)


def short_ids_in_store(ids: list[str]) -> dict[str, str]:
    """Short ids for tables and markdown: unique in the whole store (ctx.core.ids.short_ids)."""
    from ctx.core.ids import short_ids

    with db.opened(state.db_path, readonly=True) as conn:
        return short_ids(conn, ids)


@contextmanager
def open_store(*, readonly: bool = False, allow_secrets: bool = False) -> Iterator[Store]:
    """The store for one command. Writes are screened for secrets (ctx.core.guard: $CTX_SECRETS,
    or allowed by --allow-secrets); one warning line says what was redacted (kinds only)."""
    conn = db.connect(state.db_path, readonly=readonly)
    line = None
    try:
        store = Store(conn, secrets="allow" if allow_secrets else None)
        yield store
        if store.secret_events:
            from ctx.core import guard

            line = guard.notice(store.secret_events, store)
    except sqlite3.Error as exc:
        raise db.translate(exc, state.db_path) from exc
    finally:
        if not readonly:
            db.optimize(conn)
        conn.close()
    if line:
        from ctx.core.guard import ENV

        say(f"ctx warning: {line} ({ENV}=refuse to refuse, --allow-secrets to keep it)")


def scope_options(project: str | None, all_projects: bool) -> None:
    """--project/--all-projects given after the command name (`ctx list -P api`) count the
    same as before it (`ctx -P api list`)."""
    if project is not None:
        state.project = project
    if all_projects:
        state.all_projects = True


def read_scope(store: Store):
    """The scope reading commands use: --all-projects, --project NAME, else the working
    directory's project (or $CTX_PROJECT), always with global memory (ctx.core.projects)."""
    from ctx.core.store import current_scope

    return current_scope(store.conn, project=state.project, all_projects=state.all_projects)


def write_project_id(store: Store, *, to_global: bool = False) -> int | None:
    """Where `add` stores: --global → global; --project NAME; else the working directory's
    project (created on its first memory), or global outside any repository."""
    from ctx.core.store import current_scope

    if to_global:
        if state.project:
            raise CtxError("give --global or --project, not both")
        return None
    if state.all_projects:
        raise CtxError("--all-projects does not say where to add; use --project NAME or --global")
    return current_scope(store.conn, project=state.project).write_project_id(store.conn)


def read_text_input(source: str) -> str:
    """Text from `-` (stdin) or a file path, strictly UTF-8."""
    if source == "-":
        data = sys.stdin.buffer.read()
        where = "stdin"
    else:
        path = os.path.expanduser(source)
        if not os.path.isfile(path):
            raise CtxError(f"no such file: {source}")
        with open(path, "rb") as f:
            data = f.read()
        where = source
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CtxError(f"{where} is not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset "
                       f"{exc.start})") from None


def parse_meta(values: list[str]) -> dict | None:
    """--meta '{"k": "v"}' or repeated --meta k=v."""
    if not values:
        return None
    meta: dict = {}
    for raw in values:
        raw = raw.strip()
        if raw.startswith("{"):
            meta.update(validate_metadata(raw, "--meta"))
        elif "=" in raw:
            key, _, value = raw.partition("=")
            if not key.strip():
                raise CtxError(f"--meta {raw!r} needs a key: KEY=VALUE")
            meta[key.strip()] = value
        else:
            raise CtxError(f"--meta {raw!r} must be KEY=VALUE or a JSON object")
    return meta


def parse_ndjson(text: str) -> list[dict]:
    """Records from JSON lines (ctx.core.transfer.json_lines); a line holding a JSON array of
    records is fine too."""
    from ctx.core.transfer import json_lines

    records = []
    for _, obj in json_lines(text.splitlines()):
        if isinstance(obj, list):
            records.extend(obj)
        else:
            records.append(obj)
    return records
