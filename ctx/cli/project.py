"""`ctx project list|show|rename|move|merge|forget|share|sync`: the projects memory is scoped
to (SPEC §2.8), and the memory a repository carries for its team (SPEC §2.11, ctx/core/share.py).

Wiring only: the work is in ctx/core/projects.py (the rows) and ctx/core/store.py (their
nodes). Every change runs in one transaction, after all its input is checked, so bad input
(an unknown project or node, a merge into itself, a name with spaces) is one `Error:` line
and changes nothing.
"""
from __future__ import annotations

from typing import Annotated

import typer

from ctx.cli.output import RECORD_FORMATS, Format, dumps, emit_records, formats, resolve, say
from ctx.core import projects
from ctx.core.errors import CtxError, NotFoundError
from ctx.core.store import current_scope
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
    current = current_scope(store.conn)
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
        rows = store.list_projects()
        live, _ = store.global_counts()
    out = resolve(fmt)
    if out == Format.table:
        from cuectx.human import ago

        # one block per project: the name and counts, then the root and the remote on lines
        # of their own, so a path or a URL is never folded into a table cell
        for r in rows:
            active = f" · active {ago(r['last_active_at'])}" if r["last_active_at"] else ""
            print(f"{r['name']}  {plural(r['nodes'], 'node')}, {r['superseded']} superseded"
                  f"{active}")
            for label in ("root", "remote"):
                if r[label]:
                    print(f"  {r[label]}")
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
        info = store.show_project(_named_or_current(store, name))
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
        dest = store.move_to_project(ids, to)
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
        p, moved = store.merge_projects(source, into)
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
            count = store.project_node_count(p.id)
            raise CtxError(f"forgetting project {p.name} deletes its {count} node"
                           f"{'s' if count != 1 else ''} for good; run again with --yes "
                           f"(`ctx export` first keeps a copy)")
        p, deleted = store.forget_project(name)
    say(f"forgot project {p.name}: {deleted} node{'s' if deleted != 1 else ''} deleted")


# ------------------------------------------------------------------------------ sharing through git

def _share_scope(store):
    from ctx.cli.state import state

    if state.all_projects:
        raise CtxError("--all-projects does not apply here: a repository shares its own project "
                       "(`ctx sync` carries every project between your machines)")
    return current_scope(store.conn, project=state.project)


def _problems(report) -> None:
    for p in report.problems:
        say(f"ctx warning: {report.path} {p}")


def _import_summary(report) -> str:
    counts = {k: v for k, v in report.counts().items() if v and k != "bad_lines"}
    return ", ".join(f"{v} {k}" for k, v in counts.items()) or "nothing new"


@project_app.command("share")
def share_cmd(
    tier: Annotated[list[str] | None, typer.Option(
        "--tier", metavar="TIER", help="Share live nodes of this tier (repeatable; default: pinned "
                                       "and reference, or what was saved for the project).")] = None,
    type_: Annotated[list[str] | None, typer.Option(
        "--type", metavar="TYPE", help="Only nodes of this type (repeatable; default: every type).")] = None,
    tag: Annotated[list[str] | None, typer.Option(
        "--tag", metavar="TAG", help="Only nodes holding this tag (repeatable; any of them).")] = None,
    auto: Annotated[bool | None, typer.Option(
        "--auto/--no-auto", help="Keep the file updated at every Stop hook when shared memory "
                                 "changes (saved for the project); default: only when asked.")] = None,
    all_types: Annotated[bool, typer.Option("--all-types", help="Forget a saved --type/--tag "
                                                                "filter.")] = False,
    fmt: FormatOpt = Format.auto,
) -> None:
    """Write this project's shareable memory to .ctx/memory.jsonl at the repository's root,
    for git to carry to your teammates (commit it like any file).

    What goes in: live pinned and reference nodes (unless --tier/--type/--tag say otherwise;
    the choice is saved for the project), their tags, metadata, edges between them and
    supersede links; a `private` tag keeps a node out; secrets are redacted on the way out.
    What teammates added to the file is read first, so nothing of theirs is dropped.

    Example: ctx project share && git add .ctx && git commit -m "Share ctx memory"
    """
    from ctx.core import repo, share
    from ctx.core.sync import blame_authors

    with _open() as store:
        scope = _share_scope(store)
        sel = None
        if tier or type_ or tag or auto is not None or all_types:
            pid = scope.write_project_id(store.conn, touch=False)
            saved = share.get_config(store.conn, pid) or share.Selection()
            sel = share.Selection(
                tuple(t.removeprefix("tier:") for t in tier) if tier else saved.tiers,
                tuple(type_) if type_ else (() if all_types else saved.types),
                tuple(tag) if tag else (() if all_types else saved.tags),
                saved.auto if auto is None else auto)
        root = scope.project.root if scope.project else (scope.ref.root if scope.ref else None)
        imported, exported, sel = share.share_project(store, scope, sel, by=repo.git_user(root),
                                                      authors_for=blame_authors)
    _problems(imported)
    info = {"path": exported.path, "nodes": exported.nodes, "tombstones": exported.tombstones,
            "written": exported.written, "lines_added": exported.lines_added,
            "lines_removed": exported.lines_removed, "tiers": list(sel.tiers),
            "types": list(sel.types), "tags": list(sel.tags), "auto": sel.auto,
            "imported": imported.counts()}
    if resolve(fmt, single=True) in (Format.json, Format.ndjson):
        print(dumps(info))
    if imported.read:
        say(f"read {share.FILE} first: {_import_summary(imported)}")
    verb = "wrote" if exported.written else "unchanged:"
    say(f"{verb} {exported.path}: {exported.nodes} node{'s' if exported.nodes != 1 else ''}"
        + (f", {exported.tombstones} tombstone{'s' if exported.tombstones != 1 else ''}"
           if exported.tombstones else "")
        + (f" (+{exported.lines_added} −{exported.lines_removed} lines)" if exported.written else "")
        + ("; updated at every Stop (--auto)" if sel.auto else ""))


@project_app.command("sync")
def sync_cmd(
    restore: Annotated[str | None, typer.Option(
        "--restore", metavar="ID", help="Bring back a memory a shared deletion (a tombstone, from "
                                        "the file or ctx sync) hid, instead of reading the file.")] = None,
    fmt: FormatOpt = Format.auto,
) -> None:
    """Read .ctx/memory.jsonl now (as a session start does when it changed) and say what
    changed: nodes added, updated, hidden (tombstones), conflicts kept as superseded copies,
    lines that reused the id of a memory they may not change (kept as new memories). Authors
    are taken from `git blame`. Bad lines are reported with their numbers and skipped, the
    rest is imported; then the exit code is 1.

    Example: git pull && ctx project sync
    """
    from ctx.core import share
    from ctx.core.sync import blame_authors

    if restore is not None:
        with _open() as store:
            node = share.restore(store, restore)
        say(f"{node.id} is back (live again); its tombstone marker was removed")
        return
    with _open() as store:
        scope = _share_scope(store)
        report = share.sync_project(store, scope, authors_for=blame_authors)
    _problems(report)
    info = {"path": report.path, **report.counts(), "added_ids": report.added,
            "updated_ids": report.updated, "deleted_ids": report.deleted,
            "conflict_ids": report.conflicts}
    if resolve(fmt, single=True) in (Format.json, Format.ndjson):
        print(dumps(info))
    import os

    if not os.path.exists(report.path):
        say(f"no {share.FILE} in this repository yet (`ctx project share` writes it)")
    else:
        say(f"{report.path}: {_import_summary(report)}")
    if report.skipped_lines:
        bad = len(report.skipped_lines)
        raise CtxError(f"{bad} line{'s' if bad != 1 else ''} of "
                       f"{report.path} could not be read (above); everything else was imported")
