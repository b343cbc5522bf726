"""`ctx project list|show|rename|move|merge|forget`: the projects memory is scoped to (SPEC §2.8).

Wiring only: the work is in ctx/core/projects.py. Every change runs in one transaction, after all
its input is checked, so bad input (an unknown project or node, a merge into itself, a name
with spaces) is one `Error:` line and changes nothing.
"""
from __future__ import annotations

from typing import Annotated

import typer

from ctx.cli.output import RECORD_FORMATS, Format, emit_records, formats, resolve, say
from ctx.core import projects
from ctx.core.errors import CtxError, NotFoundError
from cuectx.human import plural

project_app = typer.Typer(help="Projects: one per git repository; memory is scoped to them.",
                          no_args_is_help=True)
FormatOpt = formats(*RECORD_FORMATS)  # json, ndjson, table (others exit 2)
COLUMNS = ["name", "nodes", "superseded", "last_active_at", "root", "remote"]


def register(app: typer.Typer) -> None:
    app.add_typer(project_app, name="project")


def _open(readonly: bool = False):
    from ctx.cli.state import open_store

    return open_store(readonly=readonly)


def _named_or_current(store, name: str | None) -> str:
    """NAME, else --project, else the working directory's project."""
    from ctx.cli.state import state

    if name:
        return name
    if state.project:
        return state.project
    current = projects.current_scope(store.conn)
    if current.project is None:
        where = (f"this folder's project {current.ref.name!r} has no memory yet" if current.ref
                 else "this folder is not in a git repository (and $CTX_PROJECT is not set)")
        raise NotFoundError(f"{where}; name a project (see `ctx project list`)")
    return current.project.name


@project_app.command("list")
def list_cmd(fmt: FormatOpt = Format.auto) -> None:
    """Projects with their node counts, most recently active first.

    Example: ctx project list
    """
    with _open(readonly=True) as store:
        rows = projects.list_projects(store.conn)
        live, _ = projects.global_counts(store.conn)
    out = resolve(fmt)
    if out == Format.table:
        emit_records(rows, out, columns=COLUMNS, free="root", squeeze=("remote",),
                     lines=None)  # a path is shown whole
        say(f"{plural(len(rows), 'project')}; global memory: {plural(live, 'live node')}")
    else:
        emit_records(rows, out, columns=COLUMNS)


@project_app.command("show")
def show_cmd(
    name: Annotated[str | None, typer.Argument(help="Project name (default: this folder's).")] = None,
    fmt: FormatOpt = Format.auto,
) -> None:
    """One project: root, remote, aliases, node counts by type and tier.

    Example: ctx project show api
    """
    with _open(readonly=True) as store:
        info = projects.show(store.conn, _named_or_current(store, name))
    out = resolve(fmt, single=True)
    if out == Format.table:  # one project: a field per line reads better than a wide table
        for field in [*COLUMNS, "key", "aliases", "by_type", "by_tier"]:
            value = info.get(field)
            if isinstance(value, dict):
                value = ", ".join(f"{k} {v}" for k, v in value.items()) or "-"
            elif isinstance(value, list):
                value = ", ".join(value) or "-"
            print(f"{field}: {'-' if value is None else value}")
        return
    emit_records([info], out, single=True)


@project_app.command("rename")
def rename_cmd(
    name: Annotated[str, typer.Argument(help="The project's current name.")],
    new_name: Annotated[str, typer.Argument(help="Its new name (letters, digits, . _ -).")],
) -> None:
    """Rename a project (its memory and identity stay).

    Example: ctx project rename api-2 billing-api
    """
    with _open() as store, store.transaction():
        p = projects.rename(store.conn, name, new_name)
    say(f"renamed {name} to {p.name}")


@project_app.command("move")
def move_cmd(
    nodes: Annotated[list[str], typer.Argument(help="Node ids or prefixes.")],
    to: Annotated[str, typer.Option("--to", metavar="PROJECT|global",
                                    help="The project to move them to, or `global`.")],
) -> None:
    """Move nodes to another project, or to global memory (seen from every project).

    Example: ctx project move 01JD3K8W 01JD3M2Q --to global
    """
    with _open() as store, store.transaction():
        ids = [store.resolve(n) for n in nodes]  # all resolve, or nothing moves
        dest = projects.move(store.conn, ids, to)
    say(f"moved {len(ids)} node{'s' if len(ids) != 1 else ''} to "
        f"{'global memory' if dest is None else 'project ' + dest.name}")


@project_app.command("merge")
def merge_cmd(
    source: Annotated[str, typer.Argument(help="The project to merge away.")],
    into: Annotated[str, typer.Argument(help="The project that keeps the memory.")],
) -> None:
    """Move every node of SOURCE into INTO and drop SOURCE; SOURCE's folder resolves to INTO
    from then on (e.g. a repository that was moved without an origin remote).

    Example: ctx project merge api-2 api
    """
    with _open() as store, store.transaction():
        p, moved = projects.merge(store.conn, source, into)
    say(f"merged {source} into {p.name}: {moved} node{'s' if moved != 1 else ''} moved")


@project_app.command("forget")
def forget_cmd(
    name: Annotated[str, typer.Argument(help="The project to forget.")],
    yes: Annotated[bool, typer.Option("--yes", help="Really delete its nodes (required).")] = False,
) -> None:
    """Delete a project and every node in it, for good (global memory is untouched).

    Example: ctx export > backup.jsonl && ctx project forget old-prototype --yes
    """
    with _open() as store, store.transaction():
        p = projects.get(store.conn, name)
        if not yes:
            count = projects.count_nodes(store.conn, p.id)
            raise CtxError(f"forgetting project {p.name} deletes its {count} node"
                           f"{'s' if count != 1 else ''} for good; run again with --yes "
                           f"(`ctx export` first keeps a copy)")
        p, deleted = projects.forget(store.conn, name)
    say(f"forgot project {p.name}: {deleted} node{'s' if deleted != 1 else ''} deleted")
