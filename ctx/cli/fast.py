"""`ctx show|list|query|search` answered before Typer loads (issue 28; SPEC §6: reads ≤ 80 ms
over 100k nodes, a cold `ctx search` ≤ 500 ms over 100k chunks).

Importing Typer (and its click) costs several times a bare interpreter — more than the query
itself, and in a search it comes before the model starts loading. These commands are what
scripts and Claude run most, so ctx/__main__.py offers them here first. This module takes
only the forms it is sure of: the options the Typer commands in ctx/cli/nodes.py and
semantic.py declare (`OPTIONS` and `ARGUMENTS` below; a test keeps them equal to the Typer
commands' parameters), written the ways click reads them (`--limit 5`,
`--limit=5`, `-n5`, `--` before arguments, the last of a repeated option wins). It runs the
same bodies (ctx/cli/reads.py) under the same error edge (cuectx.edge), so stdout, the
`Error: …` line and the exit code are the Typer path's, byte for byte.

Everything else goes to Typer unchanged, which then says what is wrong in its own words:
`--help`, an unknown option, a missing or refused value (a --limit that is not a whole number
≥ 1, an --include-score that is not a plain decimal from 0 to 1, a --format the command does
not have, a value starting with `-`), a wrong number of
arguments — and a table for a terminal (rich; a person at a terminal is not the hot path).
Nothing here imports typer, click or rich (tests/ctx/test_fast_reads.py checks it in a
subprocess).
"""
from __future__ import annotations

import os
import sys

FLAG, TEXT, TEXTS, COUNT, SHARE, FORMAT = "flag", "text", "texts", "count", "share", "format"
ONE, MANY = "one", "many"
_DECIMAL = r"(?a)[0-9]+(?:\.[0-9]*)?|\.[0-9]+"  # (compiled by the one option that takes it)

_FORMAT = {"--format": ("fmt", FORMAT), "-f": ("fmt", FORMAT)}
_LIMIT = {"--limit": ("limit", COUNT), "-n": ("limit", COUNT)}
_SCOPE = {"--include-superseded": ("include_superseded", FLAG),
          "--project": ("project", TEXT), "-P": ("project", TEXT),
          "--all-projects": ("all_projects", FLAG)}
# Each command's options as its Typer command declares them: option → (parameter, kind of
# value). FLAG takes none, TEXT one string (the last one given wins), TEXTS is repeatable,
# COUNT a whole number ≥ 1, SHARE a number from 0 to 1, FORMAT one of the command's output
# formats or auto.
OPTIONS: dict[str, dict[str, tuple[str, str]]] = {
    "show": {"--history": ("history", FLAG), **_FORMAT},
    "list": {"--type": ("type_", TEXT), "-t": ("type_", TEXT), "--tag": ("tag", TEXTS),
             **_LIMIT, **_SCOPE, **_FORMAT},
    "query": {**_LIMIT, **_SCOPE, **_FORMAT},
    "search": {"--top-k": ("top_k", COUNT), "--top-n": ("top_n", COUNT),
               "--include-score": ("include_score", SHARE), "--mode": ("mode", TEXT),
               "-m": ("mode", TEXT), "--filter": ("filter_", TEXT), "--all": ("all_", FLAG),
               **_SCOPE, **_FORMAT},
}
# Each command's arguments: (parameter, ONE or MANY), or None for none.
ARGUMENTS: dict[str, tuple[str, str] | None] = {
    "show": ("ids", MANY),
    "list": None,
    "query": ("expr", ONE),
    "search": ("text", ONE),
}
# The function in ctx/cli/reads.py that does each command's work.
BODIES = {"show": "show", "list": "list_", "query": "query", "search": "search"}
ROWS = ("search",)  # commands that print rows (ctx.cli.output.ROW_FORMATS), not nodes


def root_options(options: list[tuple[str, str | None]]) -> dict:
    """The global options as the Typer root callback receives them (ctx/cli/state.start()):
    the last of a repeated option wins, and --db falls back to a non-empty $CTX_DB."""
    from ctx.core import settings  # where every CTX_* is read (stdlib only)

    given = dict(options)
    return {"db_path": given["--db"] if "--db" in given else settings.db() or None,
            "project": given.get("-P"), "all_projects": "--all-projects" in given,
            "traceback": "--traceback" in given}


def parse(command: str, args: list[str]) -> dict | None:
    """The keyword arguments of `command`'s body for `args`, or None: Typer's to parse."""
    from ctx.cli.output import NODE_FORMATS, ROW_FORMATS

    formats = ROW_FORMATS if command in ROWS else NODE_FORMATS
    spec = OPTIONS[command]
    values: dict = {}
    positional: list[str] = []
    i, options_done = 0, False
    while i < len(args):
        arg = args[i]
        i += 1
        if options_done or arg[:1] != "-" or arg == "-":
            positional.append(arg)
            continue
        if arg == "--":
            options_done = True
            continue
        if arg.startswith("--"):
            name, eq, value = arg.partition("=")
            attached = value if eq else None
        else:  # click reads the rest of a short option's word as its value: -n5, -Papi
            name, attached = arg[:2], arg[2:] or None
        if name not in spec:
            return None
        dest, kind = spec[name]
        if kind == FLAG:
            if attached is not None:
                return None
            values[dest] = True
            continue
        if attached is None:
            if i == len(args) or args[i][:1] == "-":
                return None
            attached = args[i]
            i += 1
        if kind == COUNT:
            if not (attached.isascii() and attached.isdigit()) or int(attached) < 1:
                return None
            values[dest] = int(attached)
        elif kind == SHARE:  # plain decimals only: click's float() reads more, Typer decides
            import re

            if not re.fullmatch(_DECIMAL, attached) or float(attached) > 1:
                return None
            values[dest] = float(attached)
        elif kind == FORMAT:
            if attached != "auto" and attached not in formats:
                return None
            values[dest] = attached
        elif kind == TEXTS:
            values.setdefault(dest, []).append(attached)
        else:
            values[dest] = attached
    wanted = ARGUMENTS[command]
    if wanted is None:
        return None if positional else values
    dest, how_many = wanted
    if not positional or (how_many == ONE and len(positional) > 1):
        return None
    values[dest] = positional if how_many == MANY else positional[0]
    return values


def run(options: list[tuple[str, str | None]], command: str, args: list[str]) -> bool:
    """Run `ctx [global options] COMMAND ARGS` here when this path takes it (True: done, the
    exit status is set as Typer would set it); False: nothing was done, Typer's turn.
    `options` are the global options as ctx/__main__.py's global_options() read them."""
    if command not in OPTIONS:
        return False
    values = parse(command, args)
    if values is None:
        return False
    from cuectx.output import resolve

    if resolve(values.get("fmt", "auto")) == "table":
        return False
    from ctx.cli import reads, state
    from cuectx.edge import error_edge

    state.start(**root_options(options))
    try:
        with error_edge(state.translate_sqlite, "CTX_DEBUG"):
            getattr(reads, BODIES[command])(**values)
    except KeyboardInterrupt:
        sys.exit(130)  # as Typer: no message
    except BrokenPipeError:
        # `ctx list | head`: Typer exits 1 without a word; so do we. Point stdout at devnull
        # so the flush at exit does not fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(1)
    return True
