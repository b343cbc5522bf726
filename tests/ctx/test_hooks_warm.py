"""The cached session start (ctx/claude/hooks/warm.py): an unchanged store answers from one
row with the same bytes and the same session record as the full path; every change that
can change the answer sends the next session start down the full path."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from ctx.claude import actions
from ctx.claude.hooks import warm
from ctx.core import db
from ctx.core.store import Store

MARK = "FROM THE CACHE"


@pytest.fixture
def repo(tmp_path):
    root = tmp_path / "api"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


@pytest.fixture
def store(tmp_path):
    conn = db.connect(tmp_path / "ctx" / "store.db")
    s = Store(conn)
    s.add("Answer in English; keep replies short.", type="pattern", tags=["tier:pinned"])
    s.add("Staging DB listens on port 6543.", tags=["tier:reference"])
    s.add("Untiered: not in the session start.")
    yield s
    conn.close()


def start(ctx_bin, cwd, session="S1", source="startup", env_extra=None, args=()):
    payload = {"session_id": session, "hook_event_name": "SessionStart", "source": source,
               "cwd": str(cwd)}
    return subprocess.run([ctx_bin, "hook", "session-start", *args], input=json.dumps(payload),
                          capture_output=True, text=True, check=False,
                          env={**os.environ, **(env_extra or {})})


def warmed(ctx_bin, store, cwd, **kw) -> None:
    """Two starts: the first in a new repository creates its project (a change to the store,
    so its own answer is not reused); the second is cached. Then mark the cached answer."""
    start(ctx_bin, cwd, **kw)
    start(ctx_bin, cwd, **kw)
    assert mark_cache(store) == 1


def mark_cache(store) -> int:
    """Make a cached answer recognisable (without touching the store's version)."""
    return store.conn.execute("UPDATE hook_cache SET text = ? WHERE text != ''",
                              (MARK,)).rowcount


def from_cache(proc) -> bool:
    assert proc.returncode == 0, proc.stderr
    return MARK in proc.stdout


def session_rows(store, sid):
    def rows(sql):
        return sorted(tuple(r) for r in store.conn.execute(sql, (sid,)))

    return (rows("SELECT source FROM sessions WHERE id = ?"),
            rows("SELECT node_id, include_mode, state FROM session_items WHERE session_id = ?"),
            rows("SELECT node_id, content_hash, request_id FROM session_injected "
                 "WHERE session_id = ?"))


def test_a_second_start_is_answered_from_the_cache_with_the_same_bytes(store, repo, ctx_bin):
    first = start(ctx_bin, repo)
    second = start(ctx_bin, repo, session="S2")
    assert first.returncode == second.returncode == 0
    assert first.stdout == second.stdout and "port 6543" in first.stdout
    assert second.stderr == ""
    assert mark_cache(store) == 1
    assert from_cache(start(ctx_bin, repo, session="S3"))
    # the session record is the full path's: same items, same hashes
    assert session_rows(store, "S3")[1:] == session_rows(store, "S1")[1:]
    assert session_rows(store, "S3")[0] == [("startup",)]


@pytest.mark.parametrize("change", [
    "add a node", "retier a node", "edit a node", "link two nodes", "change the view",
    "forget the project", "supersede"])
def test_every_change_to_what_the_view_is_made_of_is_a_miss(store, repo, ctx_bin, change):
    warmed(ctx_bin, store, repo)
    assert from_cache(start(ctx_bin, repo))
    ids = [r[0] for r in store.conn.execute("SELECT id FROM nodes ORDER BY id")]
    if change == "add a node":
        store.add("A new pinned rule.", tags=["tier:pinned"])
    elif change == "retier a node":
        store.tag(ids[2], ["tier:working"])
    elif change == "edit a node":
        store.update(ids[1], content="Staging DB listens on port 6544.")
    elif change == "link two nodes":
        store.link(ids[0], ids[1], "RELATES_TO")
    elif change == "change the view":
        store.conn.execute("UPDATE views SET budget = budget + 1 WHERE name = 'default'")
    elif change == "forget the project":
        store.conn.execute("DELETE FROM projects")
    elif change == "supersede":
        new = store.add("Staging DB listens on port 7000.", tags=["tier:reference"]).id
        store.supersede(ids[1], new)
    again = start(ctx_bin, repo)
    assert not from_cache(again) and again.stdout.startswith("{")


@pytest.mark.parametrize("change", ["folder", "CTX_PROJECT", "cap", "git config", "shared file",
                                    "--max-chars"])
def test_what_else_shapes_the_answer_is_in_the_key_or_checked(store, repo, ctx_bin, tmp_path, change):
    warmed(ctx_bin, store, repo)
    assert from_cache(start(ctx_bin, repo))
    cwd, env, args = repo, {}, ()
    if change == "folder":
        cwd = tmp_path  # not a repository: global memory only
    elif change == "CTX_PROJECT":
        env = {"CTX_PROJECT": "global"}
    elif change == "cap":
        env = {"CTX_HOOK_MAX_CHARS": "5000"}
    elif change == "git config":
        with open(repo / ".git" / "config", "a") as f:
            f.write('[remote "origin"]\n\turl = git@github.com:acme/api.git\n')
    elif change == "shared file":
        (repo / ".ctx").mkdir()
        (repo / ".ctx" / "memory.jsonl").write_text("")
    elif change == "--max-chars":
        args = ("--max-chars", "9000")
    assert not from_cache(start(ctx_bin, cwd, env_extra=env, args=args))


def test_a_pending_expand_goes_the_full_path_and_is_shown_once(store, repo, ctx_bin):
    warmed(ctx_bin, store, repo)
    hidden = store.add("The source an expanded summary came from.").id
    store.set_pending(f"{actions.EXPAND}:S9", json.dumps([hidden]))
    store.conn.execute("UPDATE hook_cache SET version = (SELECT n FROM store_version)")
    assert from_cache(start(ctx_bin, repo)) is True  # sanity: the cache is current again
    shown = start(ctx_bin, repo, session="S9")
    assert not from_cache(shown) and "expanded summary came from" in shown.stdout
    assert store.conn.execute("SELECT count(*) FROM pending WHERE key = ?",
                              (f"{actions.EXPAND}:S9",)).fetchone()[0] == 0


def test_bad_input_and_an_old_database_take_the_full_path(store, repo, ctx_bin, tmp_path):
    warmed(ctx_bin, store, repo)
    bad = subprocess.run([ctx_bin, "hook", "session-start"], input="not json", capture_output=True,
                         text=True, check=False)
    assert bad.returncode == 0 and bad.stdout == "{}\n" and "not JSON" in bad.stderr
    wrong = subprocess.run([ctx_bin, "hook", "session-start"], input=json.dumps(
        {"session_id": 5, "cwd": str(repo), "hook_event_name": "SessionStart"}),
        capture_output=True, text=True, check=False)
    assert wrong.returncode == 0 and MARK not in wrong.stdout and "should be strings" in wrong.stderr
    store.conn.execute("DROP TABLE hook_cache")  # a store from before the cache
    old = start(ctx_bin, repo)
    assert old.returncode == 0 and "port 6543" in old.stdout


def test_the_cached_path_loads_nothing_heavy(store, repo, tmp_path):
    """The point of the cache: no store, query language or dataclasses on a hit."""
    env = {**os.environ}
    payload = json.dumps({"session_id": "S1", "hook_event_name": "SessionStart",
                          "source": "startup", "cwd": str(repo)})
    for _ in range(2):  # the first creates the repository's project; the second is cached
        subprocess.run([sys.executable, "-m", "ctx", "hook", "session-start"], input=payload,
                       text=True, capture_output=True, check=True, env=env)
    probe = ("import sys, os, json\n"
             "from ctx.claude.hooks import warm\n"
             "out = warm.answer(['session-start'], sys.stdin.buffer.read())\n"
             "assert out is not None, 'not answered from the cache'\n"
             "print(json.dumps(sorted(m for m in ('dataclasses', 'ctx.core.store', 'ctx.query', "
             "'ctx.core.model', 'pathlib', 'typer', 'rich', 'numpy') if m in sys.modules)))\n")
    out = subprocess.run([sys.executable, "-c", probe], input=payload, text=True,
                         capture_output=True, check=False, env=env)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == []


def test_the_constants_the_cached_path_repeats_match_their_owners(monkeypatch, tmp_path):
    from ctx.core import paths

    assert warm.EXPAND == actions.EXPAND
    for env in ({}, {"CTX_HOME": str(tmp_path / "h")}, {"CTX_DB": str(tmp_path / "x.db")}):
        for name in ("CTX_HOME", "CTX_DB"):
            monkeypatch.delenv(name, raising=False)
        for k, v in env.items():
            monkeypatch.setenv(k, v)
        assert warm.db_file(None) == str(paths.db_path(None))
        assert warm.db_file("~/y.db") == str(paths.db_path("~/y.db"))


@pytest.mark.parametrize("where", ["the folder", "a folder above", "a nested folder"])
def test_a_repository_appearing_is_a_miss(store, repo, ctx_bin, tmp_path, where):
    """A folder cached as global-only (or as one project) stops being so when a `.git`
    appears in it, above it, or between it and its project's root."""
    if where == "a nested folder":
        cwd = repo / "services" / "billing"
        cwd.mkdir(parents=True)
        warmed(ctx_bin, store, cwd)
        subprocess.run(["git", "init", "-q", str(cwd)], check=True)
    else:
        cwd = tmp_path / "notes" / "deep"
        cwd.mkdir(parents=True)
        warmed(ctx_bin, store, cwd)
        assert from_cache(start(ctx_bin, cwd))
        subprocess.run(["git", "init", "-q", str(cwd if where == "the folder" else cwd.parent)],
                       check=True)
    again = start(ctx_bin, cwd)
    assert not from_cache(again) and "port 6543" in again.stdout
    projects = [r[0] for r in store.conn.execute("SELECT root FROM projects")]
    assert any(p and os.path.realpath(p) == os.path.realpath(
        cwd if where != "a folder above" else cwd.parent) for p in projects), projects


def test_a_view_that_reads_the_clock_is_not_kept(store, repo, ctx_bin):
    """`created:1h` means another set of nodes an hour later: such a view is composed
    every time; a view with fixed dates is cached as before."""
    store.conn.execute("UPDATE views SET query = ? WHERE name = 'default'",
                       ("tag:tier:pinned OR created:1h",))
    for session in ("S1", "S2", "S3"):
        out = start(ctx_bin, repo, session=session)
        assert out.returncode == 0 and "Answer in English" in out.stdout, out.stderr
    assert store.conn.execute("SELECT count(*) FROM hook_cache").fetchone()[0] == 0
    store.conn.execute("UPDATE views SET query = ? WHERE name = 'default'",
                       ("tag:tier:pinned OR created>=2020-01-01",))
    warmed(ctx_bin, store, repo)
    assert from_cache(start(ctx_bin, repo))


def test_every_setting_is_in_the_key(store, repo, ctx_bin):
    """CTX_DEFAULT_BUDGET (which compose reads) and every other CTX_* variable of the
    settings table: a session start under another value is never the cached answer."""
    from ctx.core import settings

    plain = {"CTX_HOOK_SERVER": "0"}  # in process: CTX_RUN_DIR starts no server elsewhere
    warmed(ctx_bin, store, repo, env_extra=plain)
    for name, value in settings.EXAMPLES.items():
        if name in ("CTX_DB", "CTX_HOME"):
            continue  # another store (its own cache)
        env = {**plain, name: "off" if name == "CTX_HOOK_SERVER" else value}
        assert not from_cache(start(ctx_bin, repo, env_extra=env)), name
    assert from_cache(start(ctx_bin, repo, env_extra=plain))
