"""`ctx` entry point. Two commands are answered before Typer loads: `ctx hook …` (hooks are
on every prompt's path: the hook server answers them, ctx/claude/hooks/client.py, else
ctx/claude/hooks/run.py here) and a plain `ctx mcp` (its handshake is answered by
ctx/mcp/wire.py while the SDK loads). Everything else goes to the Typer app in
ctx/cli/app.py.
"""
from __future__ import annotations

import os
import sys

# ctx's global options (the root callback in ctx/cli/app.py; a test keeps the two in step) and
# whether each takes a value. Any of them may come before `hook`: it stays on the hook path.
GLOBAL_OPTIONS = {"--db": True, "--project": True, "-P": True, "--all-projects": False,
                  "--traceback": False}


def global_options(argv: list[str]) -> tuple[list[tuple[str, str | None]], int] | None:
    """The global options at the start of `argv` as (option, value) pairs (`-P` for
    `--project`; None for a flag), and where the command word starts; None when one of them
    is unknown or malformed (`--help`, a typo, `--db` without a value): Typer's to say."""
    found: list[tuple[str, str | None]] = []
    i = 0
    while i < len(argv) and argv[i][:1] == "-":
        arg = argv[i]
        if arg.startswith("-P") and len(arg) > 2:  # click: -Papi, -P=api (the value "=api")
            name, eq, value = "-P", "=", arg[2:]
        else:
            name, eq, value = arg.partition("=")
        takes_value = GLOBAL_OPTIONS.get(name)
        if takes_value is None or (eq and not takes_value):
            return None
        if takes_value and not eq:
            if i + 1 >= len(argv):
                return None
            value = argv[i + 1]
            i += 1
        i += 1
        found.append(("-P" if name == "--project" else name, value if takes_value else None))
    return found, i


def early_argv(argv: list[str], command: str) -> tuple[list[str], list[str]] | None:
    """(global options, the command's arguments) when `argv` is `[global options…] COMMAND …`
    — the commands ctx answers before Typer loads — else None. `--project NAME` sets
    CTX_PROJECT and `--traceback` CTX_DEBUG for this process; `--db PATH` (and
    `--all-projects`, which the command refuses) are handed on. Anything else (`--help`, a
    typo) is Typer's."""
    split = global_options(argv)
    if split is None or split[1] == len(argv) or argv[split[1]] != command:
        return None
    lead: list[str] = []
    env: dict[str, str] = {}
    for name, value in split[0]:
        if name == "--db":
            lead += ["--db", value]
        elif name == "-P":
            env["CTX_PROJECT"] = value
        elif name == "--traceback":
            env["CTX_DEBUG"] = "1"
        else:
            lead.append(name)
    os.environ.update(env)
    return lead, argv[split[1] + 1:]


def hook_argv(argv: list[str]) -> list[str] | None:
    """The hook's arguments when `argv` is `[global options…] hook EVENT …`, else None;
    `--db PATH` and `--all-projects` go after the event (see early_argv)."""
    split = early_argv(argv, "hook")
    if split is None:
        return None
    lead, rest = split
    return rest[:1] + lead + rest[1:] if rest else rest


def mcp_argv(argv: list[str]) -> str | None | bool:
    """`[--db PATH] [-P NAME] [--traceback] mcp` alone → the database path (None: the
    default); anything else (`mcp --help`, `--all-projects`) → False: Typer handles it."""
    split = early_argv(argv, "mcp")
    if split is None or split[1] or "--all-projects" in split[0]:
        return False
    lead = split[0]
    return lead[lead.index("--db") + 1] if "--db" in lead else None


def main() -> None:
    args = hook_argv(sys.argv[1:])
    if args is not None:
        from ctx.claude.hooks.client import served  # a server that has the imports done

        code = served(sys.argv, args)
        if code is None:
            from ctx.claude.hooks.run import run_hook

            code = run_hook(args)
        # Skip interpreter teardown and the close-time WAL checkpoint (see store_access).
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except OSError:
            pass
        os._exit(code)
    db_path = mcp_argv(sys.argv[1:])
    if db_path is not False:  # the MCP handshake is answered before Typer and the SDK load
        # A client ends a stdio server with SIGINT, possibly while this process is still
        # importing: end at once, before the first import that could turn it into a
        # KeyboardInterrupt traceback (the wire sets the same for the Typer path). `signal`
        # itself imports enum (~20 ms, a traceback seen there under load): its C half does not.
        import _signal

        _signal.signal(_signal.SIGINT, _signal.SIG_DFL)
        from ctx.mcp.wire import run as run_wire

        def serve() -> None:
            from ctx.mcp.server import serve as serve_sdk

            serve_sdk(db_path)

        run_wire(serve)
        return
    from ctx.cli.app import run

    run()


if __name__ == "__main__":
    main()
