"""`ctx` entry point: `ctx hook …` is dispatched before Typer loads (hooks must start fast);
everything else goes to the Typer app in ctx/cli/app.py."""
from __future__ import annotations

import os
import sys

# ctx's global options (the root callback in ctx/cli/app.py; a test keeps the two in step) and
# whether each takes a value. Any of them may come before `hook`: it stays on the hook path.
GLOBAL_OPTIONS = {"--db": True, "--project": True, "-P": True, "--all-projects": False,
                  "--traceback": False}


def hook_argv(argv: list[str]) -> list[str] | None:
    """The hook's arguments when `argv` is `[global options…] hook EVENT …`, else None.

    `--db PATH` is handed to the hook; `--traceback` sets CTX_DEBUG and `--project NAME`
    sets CTX_PROJECT for this process (what hooks read); `--all-projects` reaches the hook,
    which says it does not apply. Anything else (`--help`, a typo) goes to Typer."""
    lead: list[str] = []
    env: dict[str, str] = {}
    i = 0
    while i < len(argv) and argv[i] != "hook":
        name, eq, value = argv[i].partition("=")
        if name.startswith("-P") and len(name) > 2 and not eq:  # -Papi
            name, eq, value = "-P", "=", argv[i][2:]
        takes_value = GLOBAL_OPTIONS.get(name)
        if takes_value is None or (eq and not takes_value):
            return None
        if takes_value and not eq:
            if i + 1 >= len(argv):
                return None
            value = argv[i + 1]
            i += 1
        i += 1
        if name == "--db":
            lead += ["--db", value]
        elif name in ("--project", "-P"):
            env["CTX_PROJECT"] = value
        elif name == "--traceback":
            env["CTX_DEBUG"] = "1"
        else:
            lead.append(name)
    if i == len(argv):
        return None
    os.environ.update(env)
    rest = argv[i + 1:]
    return rest[:1] + lead + rest[1:] if rest else rest


def _warm_session_start(args: list[str]) -> bytes | None:
    """A session start the cache can answer ends here (ctx/claude/hooks/warm.py), before the
    store and its dataclasses are imported. Else: the stdin it read, for the full path."""
    if args[:1] != ["session-start"] or sys.stdin is None or sys.stdin.isatty():
        return None
    from ctx.claude.hooks.warm import MAX_STDIN_BYTES

    raw = sys.stdin.buffer.read(MAX_STDIN_BYTES + 1)
    if len(raw) <= MAX_STDIN_BYTES:
        try:
            from ctx.claude.hooks.warm import answer

            out = answer(args, raw)
        except Exception:  # noqa: BLE001 — any doubt: the full path answers (and says why)
            out = None
        if out is not None:
            try:
                sys.stdout.buffer.write(out)
                sys.stdout.flush()
            except OSError:
                pass
            os._exit(0)
    return raw


def main() -> None:
    args = hook_argv(sys.argv[1:])
    if args is not None:
        stdin = _warm_session_start(args)
        from ctx.claude.hooks.entry import main as hook_main

        code = hook_main(args, process_exits=True, stdin=stdin)
        # Skip interpreter teardown and the close-time WAL checkpoint (see store_access).
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except OSError:
            pass
        os._exit(code)
    from ctx.cli.app import run

    run()


if __name__ == "__main__":
    main()
