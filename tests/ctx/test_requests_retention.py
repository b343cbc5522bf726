"""Request records have a retention (CTX_REQUESTS_KEEP days, default 90): old records and the
ended sessions nobody names go, a few per prompt on the hook path or all at once with
`ctx requests prune`; nodes are never touched."""
from __future__ import annotations

import json
import subprocess

import pytest

from ctx.claude import requests
from ctx.core import db, settings
from ctx.core.store import Store

CAP = 9500
NOW = "2026-11-25T12:00:00.000Z"


def day(n: int) -> str:
    """n days before NOW."""
    from datetime import datetime, timedelta

    base = datetime.fromisoformat(NOW)
    return (base - timedelta(days=n)).strftime("%Y-%m-%dT%H:%M:%S.000Z")


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setenv("CTX_SEMANTIC", "0")  # keyword selection: these tests are about records
    conn = db.connect(tmp_path / "s.db")
    store = Store(conn)
    store.add("The billing worker retries a declined charge three times.", type="pattern")
    store.add("Deploys go out on Tuesdays after the release review.", type="decision")
    yield store
    conn.close()


def record(store, session: str, age_days: int, prompt: str = "billing retries?") -> str:
    """A request `age_days` old (its session last seen then, as the hook would leave it)."""
    return requests.build_request(store.conn, session, prompt, max_chars=CAP,
                                  now=day(age_days)).record.id


def counts(store) -> tuple[int, int, int, int]:
    c = store.conn
    return (c.execute("SELECT count(*) FROM requests").fetchone()[0],
            c.execute("SELECT count(*) FROM request_items").fetchone()[0],
            c.execute("SELECT count(*) FROM sessions").fetchone()[0],
            c.execute("SELECT count(*) FROM nodes").fetchone()[0])


def age_sessions(store, session: str, age_days: int) -> None:
    store.conn.execute("UPDATE sessions SET last_seen_at = ? WHERE id = ?", (day(age_days), session))


def test_prune_removes_old_records_with_their_items_and_ended_sessions_only(store):
    old = [record(store, "old-session", 200 - i) for i in range(3)]
    kept = record(store, "new-session", 5)
    mixed_old = record(store, "mixed", 120)
    mixed_new = record(store, "mixed", 10)
    for sid, age in (("old-session", 198), ("new-session", 5), ("mixed", 10)):
        age_sessions(store, sid, age)
    items_before = store.conn.execute("SELECT count(*) FROM request_items WHERE request_id IN "
                                      "(?, ?, ?, ?)", (*old, mixed_old)).fetchone()[0]
    nodes_before = counts(store)[3]

    dry = requests.prune(store.conn, 90, now=NOW, dry_run=True)
    assert (dry.requests, dry.items, dry.sessions) == (4, items_before, 1)
    assert counts(store)[0] == 6  # a dry run changes nothing

    done = requests.prune(store.conn, 90, now=NOW)
    assert (done.requests, done.items, done.sessions) == (4, items_before, 1)
    left = {r[0] for r in store.conn.execute("SELECT id FROM requests")}
    assert left == {kept, mixed_new}
    assert {r[0] for r in store.conn.execute("SELECT id FROM sessions")} == {"new-session", "mixed"}
    assert store.conn.execute("SELECT count(*) FROM request_items WHERE request_id NOT IN "
                              "(SELECT id FROM requests)").fetchone()[0] == 0
    assert counts(store)[3] == nodes_before  # never a node
    assert requests.prune(store.conn, 90, now=NOW).requests == 0  # idempotent


def test_a_step_removes_at_most_a_few_and_reads_only_what_it_removes(store):
    for i in range(requests.PRUNE_STEP * 2 + 1):
        record(store, f"s{i}", 300 - i)
    assert requests.prune(store.conn, 90, now=NOW, limit=requests.PRUNE_STEP).requests == requests.PRUNE_STEP
    assert counts(store)[0] == requests.PRUNE_STEP + 1
    plan = " ".join(r[3] for r in store.conn.execute(
        "EXPLAIN QUERY PLAN SELECT seq FROM requests WHERE created_at < ? ORDER BY created_at "
        "LIMIT 4", (NOW,)))
    assert "requests_by_created" in plan, plan  # an index walk from the oldest end, no scan
    plan = " ".join(r[3] for r in store.conn.execute(
        "EXPLAIN QUERY PLAN SELECT request_id FROM request_items WHERE node_id = ?", ("x",)))
    assert "request_items_by_node" in plan, plan  # the node page's question


def test_the_setting_and_its_fallbacks(monkeypatch):
    for raw, days in (("", 90), ("30", 30), ("0", None), ("forever", None), ("-5", 90),
                      ("abc", 90), (" 7 ", 7)):
        monkeypatch.setenv("CTX_REQUESTS_KEEP", raw)
        assert settings.requests_keep_days() == days, raw


def _prompt(ctx_bin, db_path, env_extra: dict) -> subprocess.CompletedProcess:
    import os

    payload = json.dumps({"session_id": "live", "hook_event_name": "UserPromptSubmit",
                          "prompt": "how do billing retries work?"})
    return subprocess.run([ctx_bin, "--db", str(db_path), "hook", "prompt-submit"], input=payload,
                          capture_output=True, text=True, check=False,
                          env={**os.environ, "CTX_SEMANTIC": "0", **env_extra})


def test_the_prompt_hook_prunes_a_few_expired_records_each_time(store, ctx_bin, tmp_path):
    for i in range(requests.PRUNE_STEP + 2):
        record(store, f"old{i}", 400 - i)
        age_sessions(store, f"old{i}", 400 - i)
    path = store.conn.execute("PRAGMA database_list").fetchone()[2]
    before = counts(store)[0]

    kept = _prompt(ctx_bin, path, {"CTX_REQUESTS_KEEP": "0"})
    assert kept.returncode == 0 and json.loads(kept.stdout) is not None, kept.stderr
    assert counts(store)[0] == before + 1  # keep forever: nothing goes

    step = _prompt(ctx_bin, path, {})
    assert step.returncode == 0 and step.stderr == "", step.stderr
    assert counts(store)[0] == before + 2 - requests.PRUNE_STEP  # one in, a step out


def test_ctx_requests_prune(store, ctx_bin):
    import os

    for i in range(3):
        record(store, f"old{i}", 200 + i)
        age_sessions(store, f"old{i}", 200 + i)
    record(store, "recent", 1)
    path = store.conn.execute("PRAGMA database_list").fetchone()[2]
    env = {**os.environ}

    def run(*args):
        return subprocess.run([ctx_bin, "--db", str(path), "requests", "prune", *args],
                              capture_output=True, text=True, env=env, check=False)

    dry = run("--dry-run", "--format", "json")
    assert dry.returncode == 0, dry.stderr
    info = json.loads(dry.stdout)
    assert (info["requests"], info["sessions"], info["dry_run"]) == (3, 3, True)
    assert counts(store)[0] == 4
    done = run("--vacuum", "--format", "table")
    assert done.returncode == 0, done.stderr
    assert "removed 3 request records" in done.stderr and "3 ended sessions" in done.stderr
    assert counts(store)[0] == 1
    bad = run("--older-than", "0")
    assert bad.returncode == 2  # a usage error, not "prune everything"
