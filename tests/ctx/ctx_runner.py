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
