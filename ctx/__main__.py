"""`ctx` entry point: `ctx hook …` is dispatched before Typer loads (hooks must start fast)."""
from __future__ import annotations

import sys


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "hook":
        from ctx.hooks.entry import main as hook_main

        sys.exit(hook_main(sys.argv[2:]))
    from ctx.cli import run

    run()


if __name__ == "__main__":
    main()
