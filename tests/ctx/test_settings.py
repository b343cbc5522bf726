"""Every CTX_* setting is read in ctx/core/settings.py, documented in the README, and a value
that cannot be used falls back to the default (a hook never breaks over a typo; a negative
limit never reaches SQLite as "unlimited")."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ctx.semantic.select import DEADLINE_S, SelectOptions

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
ENV_READ = re.compile(r"""(?:environ|getenv)\b[^\n]*?["'](CTX_[A-Z_]+)["']""")


def test_ctx_variables_are_read_only_in_settings():
    readers = {}
    for path in (ROOT / "ctx").rglob("*.py"):
        for name in ENV_READ.findall(path.read_text(encoding="utf-8")):
            readers.setdefault(name, set()).add(path.relative_to(ROOT).as_posix())
    # Writes, not reads: `ctx mcp --project` sets CTX_PROJECT for the server it starts; the
    # hook server's rehearsal points CTX_DB at its scratch store and drops CTX_PROJECT.
    writers = {"CTX_PROJECT": {"ctx/cli/mcp.py", "ctx/__main__.py", "ctx/claude/hooks/server.py"},
               "CTX_DB": {"ctx/claude/hooks/server.py"}}
    elsewhere = {n: p - {"ctx/core/settings.py"} for n, p in readers.items()}
    assert {n: p for n, p in elsewhere.items() if p - writers.get(n, set())} == {}


def test_every_variable_ctx_knows_is_in_the_readme():
    names = set()
    for path in (ROOT / "ctx").rglob("*.py"):
        names |= set(re.findall(r"\bCTX_[A-Z][A-Z_]*[A-Z]\b", path.read_text(encoding="utf-8")))
    assert {n for n in names if f"`{n}`" not in README} == set()


@pytest.mark.parametrize("raw", ["0", "-1", "-20", "ten", "1e999", "nan", " "])
def test_bad_counts_fall_back_to_the_default(monkeypatch, raw):
    monkeypatch.setenv("CTX_SEMANTIC_TOP_K", raw)
    monkeypatch.setenv("CTX_SEMANTIC_TOP_N", raw)
    options = SelectOptions.from_env()
    assert (options.top_k, options.top_n) == (20, 5)


@pytest.mark.parametrize("raw", ["0", "-0.5", "high", "inf", "nan"])
def test_bad_scores_and_deadlines_fall_back_to_the_default(monkeypatch, raw):
    for name in ("CTX_SEMANTIC_INCLUDE_SCORE", "CTX_SEMANTIC_FLOOR", "CTX_SEMANTIC_DEADLINE"):
        monkeypatch.setenv(name, raw)
    options = SelectOptions.from_env()
    assert (options.include_score, options.floor, options.deadline_s) == (0.7, None, DEADLINE_S)


def test_good_values_are_used(monkeypatch):
    for name, raw in (("CTX_SEMANTIC_TOP_K", " 7 "), ("CTX_SEMANTIC_TOP_N", "2"),
                      ("CTX_SEMANTIC_INCLUDE_SCORE", "0.9"), ("CTX_SEMANTIC_FLOOR", "0.2"),
                      ("CTX_SEMANTIC_DEADLINE", "3")):
        monkeypatch.setenv(name, raw)
    options = SelectOptions.from_env()
    assert (options.top_k, options.top_n, options.include_score, options.floor,
            options.deadline_s) == (7, 2, 0.9, 0.2, 3.0)


def test_a_negative_limit_never_reaches_the_prompt_hook_as_unlimited(monkeypatch, tmp_path):
    """End to end: CTX_SEMANTIC_TOP_N=-1 gives a prompt at most the default 5 memories."""
    from ctx.claude.requests import build_request
    from ctx.core import db
    from ctx.core.store import Store

    monkeypatch.setenv("CTX_SEMANTIC", "off")
    monkeypatch.setenv("CTX_SEMANTIC_TOP_N", "-1")
    monkeypatch.setenv("CTX_SEMANTIC_TOP_K", "-1")
    conn = db.connect()
    Store(conn).add_many({"content": f"rollback plan {i} for the payments service"} for i in range(30))
    built = build_request(conn, "s1", "rollback plan payments service", max_chars=50_000)
    conn.close()
    assert built.record.params["top_n"] == 5 and built.record.params["top_k"] == 20
    assert 0 < len([i for i in built.record.items if i.included]) <= 5


def test_the_settings_table_knows_every_variable_ctx_mentions():
    """settings.EXAMPLES is the table every cache keys on (settings.snapshot) and the parity
    test runs hooks across: a CTX_* variable named anywhere in ctx or cuectx must be in it,
    and in the docstring's table."""
    from ctx.core import settings

    names = set()
    for package in ("ctx", "cuectx"):
        for path in (ROOT / package).rglob("*.py"):
            names |= set(re.findall(r"\bCTX_[A-Z][A-Z_]*[A-Z]\b", path.read_text(encoding="utf-8")))
    assert names == set(settings.NAMES)
    table = settings.__doc__.split("| variable |", 1)[1]
    documented = set(re.findall(r"\bCTX_[A-Z][A-Z_]*[A-Z]\b", table))
    documented |= {f"CTX_SEMANTIC{s}" for s in re.findall(r" / (_[A-Z_]+)", table)}
    assert documented == set(settings.NAMES)


def test_the_snapshot_holds_every_setting_and_a_coerced_locale_is_one_key(monkeypatch):
    from ctx.core import settings

    before = settings.snapshot()
    for name, value in settings.EXAMPLES.items():
        with monkeypatch.context() as m:
            m.setenv(name, value)
            assert settings.snapshot() != before, name
    assert settings.snapshot() == before
    monkeypatch.setenv("TZ", "KST-9")
    assert settings.snapshot() != before
    # Python's C-locale coercion exports LC_CTYPE=C.UTF-8: a child started with it (the hook
    # server) has the same locale inputs as the coerced process.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "LANG"))}
    probe = ("from ctx.core import settings; import os; "
             "print(*settings.locale_inputs(), os.environ.get('LC_CTYPE'))")
    coerced = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True,
                             text=True, check=True).stdout.split()
    assert coerced[2] == "C.UTF-8"  # what the process exports to its children
    flags = ["-X", "utf8" if coerced[1] == "1" else "utf8=0"]  # as hooks/client.py starts one
    child = subprocess.run([sys.executable, *flags, "-c", probe],
                           env={**env, "LC_CTYPE": "C.UTF-8"}, capture_output=True, text=True,
                           check=True).stdout.split()
    assert child == coerced
