"""`ctx search`, `ctx index`, `ctx session …`, `ctx requests …` as a person or a script uses them."""
from __future__ import annotations

import json
import os
import subprocess

import pytest
from ctx_runner import add, ctx, ok

from ctx.claude import requests, sessions
from ctx.core import db


@pytest.fixture(autouse=True)
def patient(monkeypatch):
    """These tests check what is selected, not how fast (that is `make bench`): a cold model
    on a busy test machine must not push them onto the keyword path."""
    monkeypatch.setenv("CTX_SEMANTIC_DEADLINE", "60")


@pytest.fixture
def notes():
    return {
        "retry": add("The billing worker retries a declined charge three times.", "-t", "pattern"),
        "wal": add("SQLite runs in WAL mode so readers never block the writer.", "-t", "decision"),
        "ctxdb": add("CTX_DB points ctx at another database file.", "--tag", "tier:reference"),
        "old": add("Standups are at 9:30 in the big room."),
    }


def test_search_json_has_ids_scores_modes_and_the_matched_chunk(notes):
    rows = json.loads(ok("search", "what if a card payment is rejected", "--format", "json"))
    top = rows[0]
    assert top["id"] == notes["retry"] and top["type"] == "pattern"
    assert top["include_mode"] == "agent" and top["selected_by"] == "rank"
    assert 0.1 < top["similarity"] <= top["score"] < 1  # hybrid: similarity + keyword bonus
    assert top["chunk"] == "The billing worker retries a declined charge three times."
    assert len(rows) <= 5
    ref = json.loads(ok("search", "CTX_DB", "--mode", "keyword", "--format", "json"))
    assert [(r["id"], r["include_mode"], r["similarity"]) for r in ref] == [(notes["ctxdb"], "always", None)]


def test_search_options_top_n_all_and_filter(notes):
    one = json.loads(ok("search", "database", "--top-n", "1", "--include-score", "0.99", "-f", "json"))
    assert len(one) == 1
    everything = json.loads(ok("search", "database", "--top-n", "1", "--all", "-f", "json"))
    assert len(everything) == 4 and [r["rank"] for r in everything] == [1, 2, 3, 4]
    decisions = json.loads(ok("search", "card payment rejected", "--filter", "type:decision",
                              "-f", "json"))
    assert [r["id"] for r in decisions] == [notes["wal"]]


def test_search_table_shows_badges_and_scores(notes):
    out = ok("search", "what if a card payment is rejected", "--format", "table")
    assert "Agent" in out and "0." in out and "billing worker" in out


def test_search_without_the_model_says_how_to_build_it(notes, tmp_path, monkeypatch):
    monkeypatch.setenv("CTX_MODEL_DIR", str(tmp_path / "none"))
    r = ctx("search", "anything")
    assert r.exit_code == 1 and r.stdout == ""
    assert r.stderr.startswith("Error: the embedding model is not built")
    assert "make model" in r.stderr and r.stderr.count("\n") == 1
    # keyword search needs no model
    assert json.loads(ok("search", "CTX_DB", "--mode", "keyword", "-f", "json"))


def test_search_rejects_bad_options(notes):
    for args, msg in ((("--mode", "fuzzy"), "unknown search mode"), (("--filter", "type:"), "")):
        r = ctx("search", "x", *args)
        assert r.exit_code == 1 and r.stderr.startswith("Error:") and msg in r.stderr
    assert ctx("search", "x", "--top-n", "0").exit_code == 2


def test_index_embeds_and_reports(notes):
    info = json.loads(ok("index", "--format", "json"))
    assert info["run"]["nodes_embedded"] == 4 and info["index"]["nodes_embedded"] == 4
    again = json.loads(ok("index", "-f", "json"))
    assert again["run"]["nodes_embedded"] == 0
    rebuilt = json.loads(ok("index", "--rebuild", "-f", "json"))
    assert rebuilt["run"]["chunks_embedded"] == 4 and rebuilt["index"]["dead_vectors"] == 0


def test_index_builds_english_fusions_vectors_beside_e5s(ctx_bin, tmp_path):
    """English fusion (the default): `ctx index` embeds the English notes with MiniLM too
    (a Korean one is marked done with no chunks), and keeps those vectors on the next run."""
    from ctx.semantic.model import MINILM, locate, model_dir

    if locate(model_dir(MINILM)) is None:
        pytest.skip("all-MiniLM-L6-v2 is not built")
    env = {**os.environ, "CTX_DB": str(tmp_path / "e.db")}
    env.pop("CTX_ENGLISH_FUSION", None)
    recs = "".join(json.dumps({"content": c}) + "\n" for c in
                   ["Deploys go out on Tuesdays only", "Staging Postgres listens on port 6544",
                    "배포는 화요일에만 나갑니다"])
    subprocess.run([ctx_bin, "add", "--json", "-"], input=recs, text=True, env=env, check=True,
                   capture_output=True)
    for _ in range(2):
        proc = subprocess.run([ctx_bin, "index", "-f", "json"], capture_output=True, text=True,
                              env=env, check=True)
        info = json.loads(proc.stdout)
        assert info["index"]["chunks"] == 3
        assert info["english"]["index"]["chunks"] == 2  # the English notes only
        assert info["english"]["index"]["nodes_embedded"] == 3
    off = subprocess.run([ctx_bin, "index", "-f", "json"], capture_output=True, text=True,
                         env={**env, "CTX_ENGLISH_FUSION": "0"}, check=True)
    assert "english" not in json.loads(off.stdout)


def test_index_shows_a_progress_bar_on_a_terminal_and_none_on_a_pipe(ctx_bin, tmp_path):
    from ctx_runner import run_with_terminal_stderr

    env = {**os.environ, "CTX_DB": str(tmp_path / "p.db"), "COLUMNS": "100"}
    recs = "".join(json.dumps({"content": f"Note {i} about subsystem {i} and its quirks."}) + "\n"
                   for i in range(40))
    subprocess.run([ctx_bin, "add", "--json", "-"], input=recs, text=True, env=env, check=True,
                   capture_output=True)
    code, out, seen = run_with_terminal_stderr([ctx_bin, "index", "--rebuild"], env)
    assert code == 0, seen
    assert b"indexing" in seen and b"40/40" in seen  # stderr is a terminal: the bar
    assert json.loads(out)["index"]["chunks"] == 40  # stdout piped: JSON
    proc = subprocess.run([ctx_bin, "index", "--rebuild"], capture_output=True, text=True, env=env,
                          check=False)
    assert proc.returncode == 0, proc.stderr
    assert "indexing" not in proc.stderr and "40/40" not in proc.stderr  # a pipe: no bar
    assert json.loads(proc.stdout)["index"]["chunks"] == 40
    human = subprocess.run([ctx_bin, "index", "-f", "table"], capture_output=True, text=True, env=env,
                           check=True)
    assert human.stdout.startswith("index: 40/40 nodes, 40 chunks")
    assert "embedded 0 node(s)" in human.stderr


def test_session_show_add_remove(notes):
    conn = db.connect()
    sessions.start_session(conn, "sess-abc", "startup", [notes["ctxdb"]])
    conn.close()
    shown = json.loads(ok("session", "show", "--format", "json"))
    assert shown["session"]["id"] == "sess-abc"
    assert [(i["node_id"], i["include_mode"], i["injected"]) for i in shown["items"]] == \
        [(notes["ctxdb"], "always", True)]
    assert ok("session", "add", notes["retry"][:10]).strip() == notes["retry"]
    ok("session", "remove", notes["wal"], "--session", "sess")
    items = {i["node_id"]: i for i in json.loads(ok("session", "show", "sess-abc", "-f", "json"))["items"]}
    assert items[notes["retry"]]["include_mode"] == "manual" and not items[notes["retry"]]["injected"]
    assert items[notes["wal"]]["state"] == "removed"
    table = ok("session", "show", "-f", "table")
    assert "Always" in table and "Manual" in table and "removed" in table
    r = ctx("session", "add", "ZZZZZZZZ")
    assert r.exit_code == 3 and r.stderr.startswith("Error:")
    listed = [json.loads(line) for line in ok("session", "list").splitlines()]
    assert [s["id"] for s in listed] == ["sess-abc"]


def test_session_commands_without_sessions_say_so(notes):
    r = ctx("session", "show")
    assert r.exit_code == 3 and "no sessions recorded yet" in r.stderr


def test_requests_list_and_show(notes):
    conn = db.connect()
    sessions.start_session(conn, "sess-1", "startup", [notes["ctxdb"]])
    first = requests.build_request(conn, "sess-1", "what does billing do when a card charge is declined?",
                             max_chars=9500).record
    second = requests.build_request(conn, "sess-1", "hello", max_chars=9500).record
    conn.close()
    listed = json.loads(ok("requests", "--format", "json"))
    assert [r["id"] for r in listed] == [second.id, first.id]
    assert [json.loads(x)["id"] for x in ok("requests", "list", "-n", "1").splitlines()] == [second.id]
    shown = json.loads(ok("requests", "show", first.id[:12], "--format", "json"))
    assert shown["id"] == first.id and shown["path"] == "semantic"
    modes = {i["node_id"]: (i["include_mode"], i["injected"]) for i in shown["items"] if i["included"]}
    assert modes == {notes["ctxdb"]: ("always", "earlier"), notes["retry"]: ("agent", "now")}
    assert json.loads(ok("requests", "show", "--last", "-f", "json"))["id"] == second.id
    table = ok("requests", "show", first.id, "-f", "table")
    assert "Always" in table and "Agent 0." in table and "sent now" in table
    assert "1 sent now, 1 already in context" in table  # the headline
    assert "Patterns (1)" in table and "Facts (1)" in table
    assert "Not included" in table and "below threshold" in table
    assert "CTX_DB points ctx" in table and "002 •" not in table  # names, no priority codes
    r = ctx("requests", "show", "ZZZZZZZZ")
    assert r.exit_code == 3 and r.stderr.startswith("Error: no request")
