"""The secret guard on every ctx write (ctx.core.guard over cuectx.secrets): CTX_SECRETS =
redact (default) | refuse | allow, --allow-secrets, ctx doctor --secrets, ctx export."""
from __future__ import annotations

import json
import os
import sqlite3
import zlib

import pytest
from ctx_runner import ctx, ok

from ctx.core import db, guard, transfer
from ctx.core.store import Store
from tests.ctx.test_hooks import context, hook, prompt

B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def _token(body30="R4nd0mT0k3nV4lu3Xq9Zk2Lm8Np5Wy") -> str:
    n, digits = zlib.crc32(body30.encode()), ""
    while n:
        n, r = divmod(n, 62)
        digits = B62[r] + digits
    return "ghp_" + body30 + digits.rjust(6, "0")


TOKEN = _token()
DB_URL_PW = "Zx9kq2LmPw"


@pytest.fixture
def store():
    conn = db.connect()
    yield Store(conn)
    conn.close()


def contents() -> list[str]:
    """What is stored: each node's content and metadata, read straight from the file."""
    conn = sqlite3.connect(_db_path())
    try:
        return [r[0] for r in conn.execute("SELECT content || ' ' || metadata FROM nodes ORDER BY id")]
    finally:
        conn.close()


def _db_path() -> str:
    return os.environ["CTX_DB"]


def test_the_store_redacts_by_default_and_logs_kinds_only(store):
    node = store.add(f"CI token is {TOKEN}", metadata={"note": f"from {TOKEN}"})
    assert node.content == "CI token is [SECRET:github-token]"
    assert node.metadata == {"note": "from [SECRET:github-token]"}
    (event,) = store.secret_events
    assert event.kinds == ("github-token",) and event.count == 2 and event.action == "redacted"
    assert TOKEN not in repr(store.secret_events)


def test_refuse_writes_nothing_and_the_error_names_the_kind_not_the_value(store, monkeypatch):
    monkeypatch.setenv("CTX_SECRETS", "refuse")
    with pytest.raises(guard.SecretRefusedError) as err:
        store.add_many([{"content": "fine"}, {"content": f"key {TOKEN}"}])
    assert "github-token" in str(err.value) and TOKEN not in str(err.value)
    assert store.count() == 0
    node = store.add("harmless")
    with pytest.raises(guard.SecretRefusedError):
        store.update(node.id, content=f"now with {TOKEN}")
    assert store.get(node.id).content == "harmless"


def test_allow_keeps_the_text_and_a_bad_policy_is_an_error(store, monkeypatch):
    allowed = Store(store.conn, secrets="allow")
    assert allowed.add(f"key {TOKEN}").content == f"key {TOKEN}"
    monkeypatch.setenv("CTX_SECRETS", "maybe")
    with pytest.raises(guard.CtxError, match="CTX_SECRETS"):
        store.add(f"key {TOKEN}")


def test_update_and_import_are_guarded(store):
    node = store.add("plain")
    assert store.update(node.id, content=f"db postgres://app:{DB_URL_PW}@db.prod.internal/app").content \
        == "db postgres://app:[SECRET:database-password]@db.prod.internal/app"
    lines = ['{"kind":"ctx-export","version":2}',
             json.dumps({"kind": "node", "id": "01JD3K8W9Q2R5T7V0X3Z6B9D2F", "type": "fact",
                         "content": f"imported {TOKEN}", "tags": [], "metadata": {},
                         "created_at": "2026-01-01T00:00:00.000Z", "updated_at": "2026-01-01T00:00:00.000Z",
                         "superseded_by": None, "project": None})]
    transfer.import_lines(store, lines)
    assert store.get("01JD3K8W9Q2R5T7V0X3Z6B9D2F").content == "imported [SECRET:github-token]"


def test_ctx_add_warns_once_with_the_kind_never_the_value():
    r = ctx("add", f"deploy token {TOKEN}")
    assert r.exit_code == 0
    assert TOKEN not in r.stderr and TOKEN not in r.stdout
    warnings = [line for line in r.stderr.splitlines() if "secret" in line]
    assert len(warnings) == 1 and "github-token" in warnings[0]
    assert contents() == ["deploy token [SECRET:github-token] {}"]


def test_ctx_add_stdin_json_and_allow_secrets(monkeypatch):
    ok("add", "-", input=f"stdin {TOKEN}\n")
    ok("add", "--json", "-", input=json.dumps({"content": f"json {TOKEN}", "metadata": {"k": TOKEN}}) + "\n")
    ok("add", "--allow-secrets", f"kept {TOKEN}")
    stored = contents()
    assert stored[0] == "stdin [SECRET:github-token] {}"
    assert stored[1] == 'json [SECRET:github-token] {"k": "[SECRET:github-token]"}'
    assert stored[2] == f"kept {TOKEN} {{}}"


def test_ctx_refuse_exits_1_and_stores_nothing(monkeypatch):
    monkeypatch.setenv("CTX_SECRETS", "refuse")
    r = ctx("add", f"token {TOKEN}")
    assert r.exit_code == 1 and r.stderr.startswith("Error: refused to store")
    assert TOKEN not in r.stderr
    node = ok("add", "plain").strip()
    assert ctx("update", node, f"now {TOKEN}").exit_code == 1
    assert contents() == ["plain {}"]


def test_doctor_lists_then_fixes_and_export_refuses_until_then():
    ok("add", "--allow-secrets", f"old memory with {TOKEN} in it")
    ok("add", "nothing to see")
    r = ctx("doctor", "--secrets", "-f", "json")
    assert r.exit_code == 1 and TOKEN not in r.stdout + r.stderr
    (hit,) = json.loads(r.stdout)
    assert hit["kind"] == "github-token" and hit["field"] == "content" and hit["start"] == 16
    exported = ctx("export")
    assert exported.exit_code == 1 and exported.stdout == "" and "doctor" in exported.stderr
    assert TOKEN in ctx("export", "--allow-secrets").stdout
    fixed = ctx("doctor", "--secrets", "--fix", "-f", "json")
    assert fixed.exit_code == 0 and json.loads(fixed.stdout)[0]["status"] == "redacted"
    assert contents()[0] == "old memory with [SECRET:github-token] in it {}"
    assert ctx("doctor", "--secrets").exit_code == 0
    assert TOKEN not in ok("export")
    conn = sqlite3.connect(_db_path())
    try:  # full-text search follows the redaction
        assert conn.execute("SELECT count(*) FROM nodes_fts WHERE nodes_fts MATCH ?",
                            (f'"{TOKEN}"',)).fetchone()[0] == 0
        assert conn.execute("SELECT count(*) FROM nodes_fts WHERE nodes_fts MATCH 'memory'").fetchone()[0] == 1
    finally:
        conn.close()


def test_stop_hook_redacts_and_tells_claude_once(ctx_bin):
    reply = f'<ctx:remember type="fact" tier="reference">Staging token {TOKEN}</ctx:remember>'
    proc, out = hook(ctx_bin, "stop", args=("--response", reply))
    assert proc.returncode == 0 and out == {}
    err = proc.stderr.decode()
    assert "github-token" in err and "redacted" in err and TOKEN not in err
    assert contents() == ["Staging token [SECRET:github-token] {}"]
    _, first = hook(ctx_bin, "prompt-submit", prompt("next"))
    text = context(first, "UserPromptSubmit")
    assert "## Secrets Redacted" in text and "github-token" in text and TOKEN not in text
    _, again = hook(ctx_bin, "prompt-submit", prompt("and then"))
    assert "Secrets Redacted" not in json.dumps(again)


def test_stop_hook_refuse_stores_nothing_exits_0_and_the_next_prompt_says_why(ctx_bin):
    reply = (f"<ctx:remember>key {TOKEN}</ctx:remember>\n"
             "<ctx:remember>The API listens on port 8080</ctx:remember>")
    proc, out = hook(ctx_bin, "stop", args=("--response", reply), env={"CTX_SECRETS": "refuse"})
    assert proc.returncode == 0 and out == {}
    err = proc.stderr.decode()
    assert "refused" in err and "github-token" in err and TOKEN not in err
    assert contents() == ["The API listens on port 8080 {}"]
    _, first = hook(ctx_bin, "prompt-submit", prompt("next"))
    text = context(first, "UserPromptSubmit")
    assert "## Memory Refused" in text and "NOT stored" in text and "github-token" in text
    _, again = hook(ctx_bin, "prompt-submit", prompt("and then"))
    assert "Memory Refused" not in json.dumps(again)


def test_a_token_pasted_into_a_prompt_is_redacted_in_the_request_record(ctx_bin):
    ok("add", "--tag", "tier:reference", "The deploy pipeline runs on merge to main")
    proc, _ = hook(ctx_bin, "prompt-submit", prompt(f"why does deploy fail with {TOKEN}?"))
    assert proc.returncode == 0
    conn = sqlite3.connect(_db_path())
    try:
        (kept,) = conn.execute("SELECT prompt FROM requests").fetchone()
    finally:
        conn.close()
    assert kept == "why does deploy fail with [SECRET:github-token]?"


def test_doctor_fix_takes_the_embedding_index_along_and_leaves_no_bytes_on_disk(monkeypatch):
    monkeypatch.setenv("CTX_SEMANTIC_DEADLINE", "60")
    ok("add", "--allow-secrets", f"deploy from CI with {TOKEN}")
    ok("add", "Standups are at 9:30 in the big room.")
    ok("index")
    ok("doctor", "--secrets", "--fix")
    conn = sqlite3.connect(_db_path())
    try:
        embedded = conn.execute("SELECT n.content FROM embedded_nodes e"
                                " JOIN nodes n ON n.id = e.node_id").fetchall()
        # the other node only, under each model that indexed it (e5, and MiniLM for English)
        assert {c for (c,) in embedded} == {"Standups are at 9:30 in the big room."}
        assert conn.execute("SELECT count(*) FROM dead_chunks").fetchone()[0] == 0  # compacted
    finally:
        conn.close()
    rows = json.loads(ok("search", "deploy from CI", "--format", "json"))  # re-embedded JIT
    assert rows[0]["chunk"] == "deploy from CI with [SECRET:github-token]"
    for path in (_db_path(), _db_path() + "-wal"):
        if os.path.exists(path):
            with open(path, "rb") as f:  # FTS keeps tokens lower-cased
                assert TOKEN.lower().encode() not in f.read().lower()


def test_tags_are_screened_too(store):
    node = store.add("a node", tags=[f"deploy-key:{TOKEN}", "tier:reference"])
    assert set(node.tags) == {"deploy-key:[SECRET:github-token]", "tier:reference"}
    assert store.tag(node.id, [f"other:{TOKEN}"]).tags.count("other:[SECRET:github-token]") == 1


def test_doctor_finds_and_fixes_tags_and_request_prompts_from_before_the_guard(ctx_bin, monkeypatch):
    ok("add", "--allow-secrets", "--tag", f"k:{TOKEN}", "tagged")
    hook(ctx_bin, "prompt-submit", prompt(f"debug {TOKEN} please"), env={"CTX_SECRETS": "allow"})
    found = json.loads(ctx("doctor", "-f", "json").stdout)  # every kind: secrets are findings too
    assert sorted(h["field"] for h in found if h["kind"] == "secret") == ["request prompt", "tag"]
    assert ctx("doctor", "--secrets", "--fix").exit_code == 0
    conn = sqlite3.connect(_db_path())
    try:
        assert conn.execute("SELECT tag FROM tags").fetchall() == [("k:[SECRET:github-token]",)]
        assert conn.execute("SELECT prompt FROM requests").fetchall() == [
            ("debug [SECRET:github-token] please",)]
    finally:
        conn.close()


def test_a_refused_summarize_archives_nothing_and_the_rest_of_the_reply_still_runs(store, monkeypatch):
    from ctx.claude import actions
    from ctx.claude.tags import parse

    a = store.add("first note", tags=["tier:working"])
    b = store.add("second note", tags=["tier:working"])
    monkeypatch.setenv("CTX_SECRETS", "refuse")
    reply = (f'<ctx:summarize nodes="{a.id},{b.id}" archive="true">Both use {TOKEN}</ctx:summarize>\n'
             "<ctx:remember>A clean fact</ctx:remember>")
    outcomes = actions.execute(store, parse(reply).commands, session_id="s9")
    assert [o.ok for o in outcomes] == [False, True]
    assert outcomes[0].secret_kinds == ("github-token",) and outcomes[0].refused
    assert TOKEN not in outcomes[0].message
    assert store.get(a.id).tier == "working" and store.count() == 3  # nothing archived or added
    notice = actions.take_pending(store, "s9").secrets
    assert notice == [{"command": "summarize", "action": "refused", "kinds": ["github-token"],
                       "node_ids": []}]


def test_ctx_import_refuses_the_whole_file(monkeypatch, tmp_path):
    ok("add", "--allow-secrets", f"exported with {TOKEN}")
    backup = tmp_path / "b.jsonl"
    backup.write_text(ok("export", "--allow-secrets"))
    monkeypatch.setenv("CTX_DB", str(tmp_path / "new.db"))
    monkeypatch.setenv("CTX_SECRETS", "refuse")
    r = ctx("import", str(backup))
    assert r.exit_code == 1 and "refused to store" in r.stderr and TOKEN not in r.stderr
    monkeypatch.delenv("CTX_SECRETS")
    r = ctx("import", str(backup))
    assert r.exit_code == 0 and "github-token" in r.stderr
    assert contents() == ["exported with [SECRET:github-token] {}"]


def test_a_token_in_the_origin_remote_is_not_stored_with_the_project(tmp_path):
    from ctx.core import repo as projects

    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "config").write_text(
        f'[remote "origin"]\n\turl = https://x-access-token:{TOKEN}@github.com/acme/api.git\n')
    ref = projects.resolve(repo)
    assert ref.key == "github.com/acme/api"
    assert ref.remote == "https://x-access-token:[SECRET:github-token]@github.com/acme/api.git"


def test_doctor_fixes_a_token_in_a_project_remote_stored_before_the_guard(store):
    store.conn.execute("INSERT INTO projects (key, name, root, remote, created_at, last_active_at) "
                       "VALUES ('github.com/acme/api', 'api', '/src/api', ?, 'x', 'x')",
                       (f"https://{TOKEN}@github.com/acme/api.git",))
    store.conn.commit()
    (hit,) = json.loads(ctx("doctor", "-f", "json").stdout)
    assert (hit["kind"], hit["ids"], hit["field"], hit["secret"]) == (
        "secret", ["api"], "project remote", "github-token")
    assert TOKEN not in json.dumps(hit)
    assert ctx("doctor", "--fix").exit_code == 0
    (remote,) = store.conn.execute("SELECT remote FROM projects").fetchone()
    assert remote == "https://[SECRET:github-token]@github.com/acme/api.git"
