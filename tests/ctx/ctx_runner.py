"""Running `ctx` in-process (Typer's CliRunner) the way the tests need it."""
from __future__ import annotations

from typer.testing import CliRunner

from ctx.cli.app import app

runner = CliRunner()


def ctx(*args, input=None):
    """The result of `ctx ARGS…`; a wide terminal so rich tables don't wrap what tests look for."""
    return runner.invoke(app, list(args), input=input, catch_exceptions=False,
                         env={"COLUMNS": "200"})


def ok(*args, input=None) -> str:
    """stdout of a command that must succeed."""
    r = ctx(*args, input=input)
    assert r.exit_code == 0, r.stderr
    return r.stdout


def add(content, *args) -> str:
    """Add a node; its id."""
    return ok("add", content, *args).strip()


def run_with_terminal_stderr(cmd: list[str], env: dict) -> tuple[int, bytes, bytes]:
    """Run `cmd` with stderr on a pseudo-terminal (what a person at a terminal sees: progress
    bars) and stdout on a pipe: (exit code, stdout, everything written to the terminal)."""
    import os
    import pty
    import subprocess

    main, side = pty.openpty()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=side, env=env)
    os.close(side)
    seen = b""
    while True:
        try:
            got = os.read(main, 4096)
        except OSError:  # the other end closed
            break
        if not got:
            break
        seen += got
    out, _ = proc.communicate()
    os.close(main)
    return proc.returncode, out, seen
