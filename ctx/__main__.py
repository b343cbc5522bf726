"""`ctx` entry point: `ctx hook …` is dispatched before Typer loads (hooks must start fast);
everything else goes to the Typer app in ctx/cli.py."""
from __future__ import annotations

import os
import sys


def hook_argv(argv: list[str]) -> list[str] | None:
    """The hook's arguments when `argv` is `[--db PATH] hook EVENT …`, else None."""
    lead: list[str] = []
    i = 0
    while i < len(argv) and argv[i] != "hook":
        if argv[i] == "--db" and i + 1 < len(argv):
            lead += ["--db", argv[i + 1]]
            i += 2
        elif argv[i].startswith("--db="):
            lead += ["--db", argv[i][5:]]
            i += 1
        else:
            return None
    if i == len(argv):
        return None
    rest = argv[i + 1:]
    return rest[:1] + lead + rest[1:] if rest else rest


def main() -> None:
    args = hook_argv(sys.argv[1:])
    if args is not None:
        from ctx.hooks.entry import main as hook_main

        code = hook_main(args, process_exits=True)
        # Skip interpreter teardown and the close-time WAL checkpoint (see store_access).
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except OSError:
            pass
        os._exit(code)
    from ctx.cli import run

    run()


if __name__ == "__main__":
    main()
