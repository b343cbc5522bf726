"""`ctx --help` (and a bare `ctx`) kept from an earlier run (ctx/cli/help_cache.py): the same
bytes as Typer's, printed without loading Typer; a change to what renders it renders afresh."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

TYPER_ONLY = "import sys; sys.argv[0] = {argv0!r}; from ctx.cli.app import run; run()"


def ctx_run(ctx_bin, *args, env=None):
    """(exit code, stdout, stderr, whether Typer was imported) of `ctx ARGS` in a process."""
    proc = subprocess.run([sys.executable, "-X", "importtime", ctx_bin, *args],
                          capture_output=True, timeout=60, check=False,
                          env={**os.environ, **(env or {})})
    lines = proc.stderr.decode().splitlines(keepends=True)
    typer = any(line.startswith("import time:") and line.rsplit("|", 1)[-1].strip() == "typer"
                for line in lines)
    err = "".join(line for line in lines if not line.startswith("import time:"))
    return proc.returncode, proc.stdout, err, typer


def typer_only(ctx_bin, *args, env=None) -> tuple[int, bytes]:
    """What the Typer app itself prints, no cache involved."""
    proc = subprocess.run([sys.executable, "-c", TYPER_ONLY.format(argv0=ctx_bin), *args],
                          capture_output=True, timeout=60, check=False,
                          env={**os.environ, **(env or {})})
    return proc.returncode, proc.stdout


@pytest.fixture
def home(tmp_path, monkeypatch):
    path = tmp_path / "ctx-home"
    monkeypatch.setenv("CTX_HOME", str(path))
    monkeypatch.delenv("COLUMNS", raising=False)
    return path


@pytest.mark.parametrize("args", [["--help"], ["query", "--help"], ["view", "--help"],
                                  ["view", "create", "--help"]])
def test_first_run_renders_later_runs_print_the_same_without_typer(ctx_bin, home, args):
    want = typer_only(ctx_bin, *args)
    assert want[0] == 0 and b"Usage: ctx" in want[1]
    first = ctx_run(ctx_bin, *args)
    assert first[:2] == want and first[3]  # rendered by Typer…
    assert (home / "help-cache.json").stat().st_mode & 0o777 == 0o600
    later = ctx_run(ctx_bin, *args)
    assert later[:3] == (0, want[1], "") and not later[3]  # …then kept


def test_a_bare_ctx_prints_the_help_on_stderr_with_exit_2_as_click_does(ctx_bin, home):
    proc = subprocess.run([sys.executable, "-c", TYPER_ONLY.format(argv0=ctx_bin)],
                          capture_output=True, timeout=60, check=False)
    assert proc.returncode == 2 and proc.stdout == b"" and b"Usage: ctx" in proc.stderr
    want = (2, b"", proc.stderr.decode())
    first = ctx_run(ctx_bin)
    assert first[:3] == want and first[3]
    later = ctx_run(ctx_bin)
    assert later[:3] == want and not later[3]


def test_the_width_is_part_of_the_key(ctx_bin, home):
    for columns in ("60", "200", "60"):
        env = {"COLUMNS": columns}
        want = typer_only(ctx_bin, "--help", env=env)
        got = ctx_run(ctx_bin, "--help", env=env)
        assert got[:2] == want, columns
    assert typer_only(ctx_bin, "--help", env={"COLUMNS": "60"}) != \
        typer_only(ctx_bin, "--help", env={"COLUMNS": "200"})  # the key matters
    assert not ctx_run(ctx_bin, "--help", env={"COLUMNS": "200"})[3]


def test_a_changed_source_file_renders_afresh(ctx_bin, home):
    ctx_run(ctx_bin, "--help")
    cache = home / "help-cache.json"
    data = json.loads(cache.read_text())
    nodes = next(p for p in data["files"] if p.endswith(os.path.join("ctx", "cli", "nodes.py")))
    data["files"][nodes][1] -= 1  # as if nodes.py had been edited since
    cache.write_text(json.dumps(data))
    code, out, _, typer = ctx_run(ctx_bin, "--help")
    assert code == 0 and typer and out == typer_only(ctx_bin, "--help")[1]
    assert json.loads(cache.read_text())["files"][nodes][1] == os.stat(nodes).st_mtime_ns
    assert not ctx_run(ctx_bin, "--help")[3]


def test_a_damaged_or_unwritable_cache_still_answers(ctx_bin, home, tmp_path):
    want = typer_only(ctx_bin, "--help")
    home.mkdir()
    (home / "help-cache.json").write_text("{not json")
    assert ctx_run(ctx_bin, "--help")[:3] == (0, want[1], "")
    assert not ctx_run(ctx_bin, "--help")[3]  # rewritten
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    env = {"CTX_HOME": str(blocked / "home")}  # cannot be created
    for _ in range(2):
        code, out, err, typer = ctx_run(ctx_bin, "--help", env=env)
        assert (code, out, err, typer) == (0, want[1], "", True)


@pytest.mark.parametrize("args", [
    ["--db", "x.db", "--help"],  # options before --help: not a form the cache keeps
    ["nonsense", "--help"],      # an error (exit 2) is never kept
    ["query", "--", "--help"],   # a query for the word --help (the fast read path's)
])
def test_only_plain_help_requests_are_kept(ctx_bin, home, args):
    want = typer_only(ctx_bin, *args)
    for _ in range(2):
        got = ctx_run(ctx_bin, *args)
        assert got[:2] == want, got
        assert got[3] or args[1] == "--"  # never answered from the cache
    assert not (home / "help-cache.json").exists()


def test_shell_completion_is_never_answered_from_the_cache(ctx_bin, home):
    ctx_run(ctx_bin, "--help")
    assert ctx_run(ctx_bin, "--help", env={"_CTX_COMPLETE": "bash_source"})[3]


def test_a_reader_gone_early_ends_as_on_typers_path(ctx_bin, home):
    """`ctx --help | head -0`: exit 1 and no traceback, kept text or not."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    results = []
    for command in ([sys.executable, "-c", TYPER_ONLY.format(argv0=ctx_bin), "--help"],
                    [ctx_bin, "--help"], [ctx_bin, "--help"]):  # Typer; rendered; kept
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        proc.stdout.close()
        results.append((proc.wait(timeout=60), proc.stderr.read()))
        proc.stderr.close()
    assert results == [(1, b"")] * 3
    assert (home / "help-cache.json").exists()
