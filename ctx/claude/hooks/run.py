"""`ctx hook ARGS…` in the process that runs it: a hook process of its own (ctx/__main__.py)
or a hook server's child (ctx/claude/hooks/server.py) — one function, so the two are the
same hook."""
from __future__ import annotations

import sys


def run_hook(args: list[str]) -> int:
    """`ctx hook ARGS…` in this process: its exit code, with stdout and stderr written (not
    flushed). A session start the cache can answer ends in ctx/claude/hooks/warm.py, before
    the store and its record classes are imported; else the full path gets the stdin read."""
    stdin = None
    if args[:1] == ["session-start"] and sys.stdin is not None and not sys.stdin.isatty():
        from ctx.claude.hooks.warm import MAX_STDIN_BYTES

        stdin = sys.stdin.buffer.read(MAX_STDIN_BYTES + 1)
        if len(stdin) <= MAX_STDIN_BYTES:
            try:
                from ctx.claude.hooks.warm import answer

                out = answer(args, stdin)
            except Exception:  # noqa: BLE001 — any doubt: the full path answers (and says why)
                out = None
            if out is not None:
                try:
                    sys.stdout.buffer.write(out)
                except OSError:
                    pass
                return 0
    from ctx.claude.hooks.entry import main as hook_main

    return hook_main(args, process_exits=True, stdin=stdin)
