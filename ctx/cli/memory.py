"""`ctx compose|status|export|import`: the store as a whole."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from ctx.cli.options import AllowSecretsOpt, AllProjectsOpt, ProjectOpt, RecordFormatOpt
from ctx.cli.output import (
    Format,
    dumps,
    formats,
    resolve,
    say,
)
from ctx.cli.state import (
    open_store,
    read_scope,
    read_text_input,
    scope_options,
)
from cuectx.human import plural


def compose(
    view: Annotated[str, typer.Option("--view", "-v", help="View to compose.")] = "default",
    query_: Annotated[str | None, typer.Option("--query", "-q", help="Use this query instead of the view's.")] = None,
    budget: Annotated[int | None, typer.Option("--budget", "-b", min=1,
                                                  help="Token budget (default: $CTX_DEFAULT_BUDGET, "
                                                       "else the view's).")] = None,
    fmt: formats("markdown", "json", auto=False) = Format.markdown,
    project: ProjectOpt = None,
    all_projects: AllProjectsOpt = False,
) -> None:
    """Compose memory into context within a token budget (what Claude Code is given).

    Example: ctx compose --view default --budget 8000 --format json
    """
    from ctx.core.compose import compose as do_compose
    from ctx.core.compose import render_json, render_markdown
    from ctx.core.model import now_iso

    scope_options(project, all_projects)
    with open_store(readonly=True) as store:
        comp = do_compose(store, query_, view=view, budget=budget, scope=read_scope(store))
    stamp = now_iso()
    if fmt == "json":
        print(dumps(render_json(comp, rendered_at=stamp)))
    else:
        sys.stdout.write(render_markdown(comp, rendered_at=stamp))


def status(fmt: RecordFormatOpt = Format.auto, project: ProjectOpt = None,
           all_projects: AllProjectsOpt = False) -> None:
    """Summarise the store: counts by type and tier (in the current scope), edges, views, pending hand-offs.

    Example: ctx status --format json
    """
    from ctx.core import projects

    scope_options(project, all_projects)
    with open_store(readonly=True) as store:
        scope = read_scope(store)
        info = store.stats(scope=scope)
        info["db"] = str(Path(store.conn.execute("PRAGMA database_list").fetchone()[2]))
        info["scope"] = scope.label
        info["project"] = scope.project_name
        info["projects"] = projects.count(store.conn)
        from ctx.semantic.status import english_fusion

        info["english_fusion"] = english_fusion(store.conn).to_dict()
    # live memories without a tier: never in a session's start, only picked per prompt
    info["untiered"] = info["live_nodes"] - sum(info["by_tier"].values())
    out = resolve(fmt, single=True)
    if out in (Format.json, Format.ndjson):
        print(dumps(info))
        return
    tiers = [f"{k[5:]} {v}" for k, v in info["by_tier"].items()]
    if info["untiered"]:
        tiers.append(f"no tier {info['untiered']}")
    lines = [f"database: {info['db']} (schema v{info['schema_version']})",
             (f"scope: {info['scope']}   (projects in the store: {info['projects']}; "
              f"see `ctx project list`)"),
             (f"nodes: {info['live_nodes']} live, {info['superseded_nodes']} superseded, "
              f"~{info['tokens']:,} tokens"),
             "by type: " + (", ".join(f"{k} {v}" for k, v in info["by_type"].items()) or "-"),
             "by tier: " + (", ".join(tiers) or "-"),
             f"edges: {info['edges']}   tags: {info['tags']}   views: {info['views']}",
             "pending: " + (", ".join(info["pending"]) or "-"),
             _fusion_line(info["english_fusion"])]
    if info["untiered"]:
        lines.append(f"({info['untiered']} without a tier: not in a session's start, given to a "
                     f"prompt only when it is about them; `ctx tag ID tier:reference` keeps one "
                     f"in every session)")
    from cuectx.output import wrap_lines

    lines = wrap_lines(lines)
    print("\n".join(lines))


def _fusion_line(fusion: dict) -> str:
    """English questions ranked by both models, or why not and the command that fixes it."""
    if fusion["on"]:
        line = "English fusion: on (English questions ranked by multilingual-e5 and MiniLM)"
        return line + (f"; {fusion['reason']}: run `{fusion['fix']}`" if fusion["reason"] else "")
    return f"English fusion: OFF — {fusion['reason']}; turn it on: `{fusion['fix']}`"


# ---------------------------------------------------------------------------- export / import

def export_(
    output: Annotated[str | None, typer.Argument(help="File to write (default stdout).")] = None,
    allow_secrets: AllowSecretsOpt = False,
) -> None:
    """Export every node, edge and view as JSONL (lossless; `import` reads it back).

    Refuses (writing nothing) when a stored node holds a secret, unless --allow-secrets;
    `ctx doctor --secrets --fix` redacts them in the store first.

    Example: ctx export > backup.jsonl
    """
    from ctx.core.transfer import export_lines

    with open_store(readonly=True) as store:
        if not allow_secrets:
            from ctx.doctor import secrets as stored_secrets

            stored_secrets.refuse_export(stored_secrets.scan_store(store) + stored_secrets.scan_projects(store))
        lines = _counted(export_lines(store))
        if not output or output == "-":
            for line in lines:  # written as read: the store is never held in memory
                sys.stdout.write(line)
            return
        from ctx.core.paths import write_private

        write_private(output, lines)  # 0600: an export holds all of memory
    say(f"exported {plural(lines.n, 'record')} to {output}")


class _counted:
    """The export's lines with their newline, counted as they go by."""

    def __init__(self, lines):
        self.lines, self.n = lines, 0

    def __iter__(self):
        for line in self.lines:
            self.n += 1
            yield line + "\n"


def import_(
    source: Annotated[str, typer.Argument(help="JSONL file from `ctx export`, or - for stdin.")] = "-",
    skip_existing: Annotated[bool, typer.Option(
        "--skip-existing", help="Skip nodes whose id exists instead of failing.")] = False,
    claude_memory: Annotated[bool, typer.Option(
        "--claude-memory", help="Import Claude Code's automatic memory of this repository "
                                "(its MEMORY.md topic files) into this project.")] = False,
    memory_dir: Annotated[str | None, typer.Option(
        "--memory-dir", metavar="DIR", help="With --claude-memory: read this folder instead of "
                                            "the one Claude Code uses here.")] = None,
    tier: Annotated[str | None, typer.Option(
        "--tier", metavar="TIER", help="With --claude-memory: give the nodes this tier "
                                       "(default none: selected per prompt).")] = None,
    dedupe: Annotated[str | None, typer.Option(
        "--dedupe", metavar="skip|keep",
        help="A likely duplicate of a live node: skip it or keep it (default $CTX_DEDUPE; "
             "ask = keep, nobody is asked). Exact and near-exact duplicates are never "
             "imported.")] = None,
    fmt: RecordFormatOpt = Format.auto,
    project: ProjectOpt = None,
    allow_secrets: AllowSecretsOpt = False,
) -> None:
    """Import a JSONL export (all or nothing; secrets in it follow $CTX_SECRETS), or with
    --claude-memory Claude Code's automatic memory of the current repository. A node that
    duplicates a live one is not imported again (its links go to the stored one).

    Example: ctx --db new.db import backup.jsonl
    Example: ctx import --claude-memory
    """
    from cuectx.errors import UsageError

    if dedupe is not None and dedupe not in ("skip", "keep", "ask"):
        raise UsageError(f"--dedupe is skip, keep or ask, not {dedupe!r}")
    if claude_memory:
        return _import_claude_memory(memory_dir, tier, dedupe, fmt, project, allow_secrets)
    if memory_dir or tier:
        raise UsageError("--memory-dir and --tier go with --claude-memory")
    from ctx.core.transfer import import_lines

    text = read_text_input(source)
    with open_store(allow_secrets=allow_secrets) as store:
        counts = import_lines(store, text.splitlines(), skip_existing=skip_existing, dedupe=dedupe)
    say("imported " + ", ".join(f"{v} {k}" for k, v in counts.items()))


def _import_claude_memory(memory_dir, tier, dedupe, fmt, project, allow_secrets) -> None:
    from ctx.claude.automemory import import_folder
    from ctx.claude.automemory import memory_dir as claude_dir
    from ctx.cli.state import write_project_id
    from ctx.core.store import validate_tag

    scope_options(project, False)
    if tier:
        validate_tag(f"tier:{tier.removeprefix('tier:')}")
    folder = Path(memory_dir).expanduser() if memory_dir else claude_dir()
    with open_store(allow_secrets=allow_secrets) as store:
        report = import_folder(store, folder, write_project_id(store), tier=tier, policy=dedupe)
    if resolve(fmt, single=True) in (Format.json, Format.ndjson):
        print(dumps(report.to_dict()))
    for name, node_id in report.duplicates:
        say(f"{name}: already remembered as {node_id}; not imported")
    for line in report.skipped:  # `file: why`
        say(f"ctx warning: {line}; skipped")
    say(f"claude memory {report.folder}: {len(report.added)} added, {len(report.updated)} updated "
        f"(the old node superseded), {len(report.unchanged)} unchanged, "
        f"{len(report.duplicates)} duplicate(s) not imported")


def register(app: typer.Typer) -> None:
    app.command()(compose)
    app.command()(status)
    app.command("export")(export_)
    app.command("import")(import_)
