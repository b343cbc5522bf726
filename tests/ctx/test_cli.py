"""The ctx command line, as a person or a script uses it (README: ctx)."""
from __future__ import annotations

import json
import subprocess

import pytest
from ctx_runner import add, ctx, ok


def test_add_show_list_query_json(tmp_path):
    a = add("Staging DB listens on port 6543", "--type", "fact", "--tag", "tier:reference",
            "--tag", "project:api", "--meta", "source=ops")
    b = add("Use SQLite for the store", "-t", "decision", "--tag", "tier:reference",
            "--meta", '{"rationale": "one file, no server"}')
    shown = json.loads(ok("show", a[:10], "--format", "json"))
    assert shown["content"] == "Staging DB listens on port 6543"
    assert shown["tags"] == ["project:api", "tier:reference"]
    assert shown["metadata"] == {"source": "ops"}
    listed = [json.loads(line) for line in ok("list").splitlines()]  # NDJSON when piped
    assert [n["id"] for n in listed] == [a, b]
    found = json.loads(ok("query", "type:decision", "--format", "json"))
    assert [n["id"] for n in found] == [b]
    assert ok("query", "port", "--format", "ids").split() == [a]


def test_one_node_commands_give_one_json_object():
    node = json.loads(ok("add", "port 6543", "--tag", "tier:working", "--format", "json"))
    assert node["content"] == "port 6543" and node["tags"] == ["tier:working"]
    tagged = json.loads(ok("tag", node["id"], "project:db", "-f", "json"))
    assert tagged["tags"] == ["project:db", "tier:working"]


def test_add_from_stdin_and_ndjson_records():
    a = ok("add", "-", "--tag", "tier:working", input="from stdin\n").strip()
    assert json.loads(ok("show", a, "-f", "json"))["content"] == "from stdin"
    records = "\n".join(json.dumps(r) for r in [
        {"content": "digest one", "type": "observation", "tags": ["source:cue"], "metadata": {"window": 1}},
        {"content": "digest two", "type": "observation", "tags": ["source:cue"]},
    ])
    ids = ok("add", "--json", "-", input=records).split()
    assert len(ids) == 2
    nodes = json.loads(ok("query", "tag:source:cue", "-f", "json"))
    assert [n["content"] for n in nodes] == ["digest one", "digest two"]
    assert nodes[0]["metadata"] == {"window": 1}


@pytest.mark.parametrize("args,input,message", [
    (["add", "x", "--type", "factoid"], None, "unknown node type"),
    (["add", ""], None, "content is empty"),
    (["add", "x", "--tag", "bad tag"], None, "malformed tag"),
    (["add", "--json", "-"], "{not json}\n", "line 1: not valid JSON"),
    (["add", "--json", "-"], '{"content": "ok"}\n{"content": ""}\n', "record 2"),
    (["add", "x", "--meta", "{oops"], None, "--meta is not valid JSON"),
    (["show", "01JZZZZZ"], None, "no node"),
    (["query", "type:fact AND"], None, "column"),
    (["view", "delete", "default"], None, "cannot be deleted"),
])
def test_bad_input_one_error_line_nothing_on_stdout_nothing_written(args, input, message):
    r = ctx(*args, input=input)
    assert r.exit_code != 0
    assert r.stdout == ""
    assert message in r.stderr and r.stderr.startswith("Error: ")
    assert len(r.stderr.strip().splitlines()) == 1
    assert json.loads(ok("status", "-f", "json"))["nodes"] == 0


def test_empty_ndjson_input_adds_nothing_and_succeeds():
    r = ctx("add", "--json", "-", input="\n")
    assert r.exit_code == 0 and r.stdout == "" and "nothing to add" in r.stderr


def test_non_utf8_stdin_is_rejected():
    r = ctx("add", "-", input=b"caf\xe9 au lait")
    assert r.exit_code == 1 and "not valid UTF-8" in r.stderr


def test_ambiguous_prefix_names_candidates():
    records = "\n".join(json.dumps({"id": f"01JD3K8W00000000000000000{c}", "content": c}) for c in "AB")
    ok("add", "--json", "-", input=records)
    r = ctx("show", "01JD3K8W")
    assert r.exit_code == 3 and "matches 2 nodes" in r.stderr


def test_tag_untag_link_supersede_rm():
    a = add("port 6543", "--tag", "tier:working")
    b = add("port 6544", "--tag", "tier:working")
    ok("tag", a, "tier:reference", "project:db")
    assert json.loads(ok("show", a, "-f", "json"))["tags"] == ["project:db", "tier:reference"]
    ok("untag", a, "project:db")
    edge = json.loads(ok("link", b, a, "--type", "DEPENDS_ON", "-f", "json"))
    assert (edge["from"], edge["to"], edge["type"]) == (b, a, "DEPENDS_ON")
    ok("supersede", a, b)
    assert ok("query", "port", "-f", "ids").split() == [b]
    assert set(ok("query", "port", "-f", "ids", "--include-superseded").split()) == {a, b}
    ok("rm", b)
    r = ctx("show", b)
    assert r.exit_code == 3


def test_rm_with_unknown_id_deletes_nothing():
    a = add("keep me")
    r = ctx("rm", a, "01JZZZZZZZ")
    assert r.exit_code == 3
    assert ok("list", "-f", "ids").split() == [a]


def test_views_and_compose_budget(monkeypatch):
    for i in range(5):
        add(f"reference fact number {i} " + "x" * 200, "--tag", "tier:reference")
    ok("view", "create", "small", "--query", "tag:tier:reference", "--budget", "120")
    views = json.loads(ok("view", "list", "-f", "json"))
    assert [v["name"] for v in views] == ["default", "small"]
    out = json.loads(ok("compose", "--view", "small", "--format", "json"))
    assert out["meta"]["node_count"] == 2 and out["meta"]["token_count"] <= 120
    monkeypatch.setenv("CTX_DEFAULT_BUDGET", "60")
    out = json.loads(ok("compose", "--format", "json"))
    assert out["meta"]["node_count"] == 1
    out = json.loads(ok("compose", "--budget", "100000", "--format", "json"))
    assert out["meta"]["node_count"] == 5
    r = ctx("view", "create", "bad", "--query", "type:fact AND (")
    assert r.exit_code == 1 and "column" in r.stderr


def test_export_import_export_is_byte_identical(tmp_path):
    a = add("alpha — ünïcødé 한국어", "--tag", "tier:pinned", "--meta", '{"b": 1, "a": [1, 2]}')
    b = add("beta", "-t", "decision", "--tag", "tier:reference")
    ok("link", b, a, "--type", "DEPENDS_ON")
    c = add("gamma")
    ok("supersede", c, b)
    ok("view", "create", "mine", "--query", "type:decision", "--budget", "500")
    first = ok("export")
    other = str(tmp_path / "other.db")
    assert ctx("--db", other, "import", "-", input=first).exit_code == 0
    second = ctx("--db", other, "export").stdout
    assert first == second
    # importing the same file again fails whole, and --skip-existing skips
    r = ctx("--db", other, "import", "-", input=first)
    assert r.exit_code == 1 and "already exists" in r.stderr
    assert ctx("--db", other, "import", "--skip-existing", "-", input=first).exit_code == 0


def test_corrupt_database_and_missing_folder(tmp_path):
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"garbage" * 1000)
    r = ctx("--db", str(bad), "list")
    assert r.exit_code == 4 and "not a usable ctx database" in r.stderr and r.stdout == ""
    r = ctx("--db", str(tmp_path / "missing" / "s.db"), "add", "x")
    assert r.exit_code == 4 and "does not exist" in r.stderr


def test_export_streams_records_instead_of_building_the_file_in_memory(tmp_path):
    """6 MB of memory exported with well under 6 MB of Python memory at the peak: records are
    written as they are read (the old export held every line, then the joined text)."""
    import tracemalloc

    from ctx.core import db
    from ctx.core.store import Store

    conn = db.connect()
    Store(conn, secrets="allow").add_many(
        {"content": f"{i:05d} " + "memory text " * 170} for i in range(3000))
    conn.close()
    out = tmp_path / "all.jsonl"
    tracemalloc.start()
    try:
        ok("export", "--allow-secrets", str(out))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    size = out.stat().st_size
    lines = sum(1 for _ in out.open(encoding="utf-8"))
    assert size > 6_000_000 and lines == 3002  # the header, the default view, the nodes
    assert peak < size / 2, f"peak {peak:,} bytes for a {size:,}-byte export"


def test_errors_name_the_default_database_not_the_current_folder(tmp_path, monkeypatch):
    """No --db, no $CTX_DB: an error met after opening names $CTX_HOME/store.db (it said ".")."""
    from ctx.core import db
    from ctx.core.store import Store

    monkeypatch.delenv("CTX_DB")
    monkeypatch.setenv("CTX_HOME", str(tmp_path / "home-ctx"))
    path = tmp_path / "home-ctx" / "store.db"
    conn = db.connect()
    Store(conn).add_many({"content": f"note {i} " + "text " * 200} for i in range(300))
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    data = bytearray(path.read_bytes())
    data[len(data) // 2:len(data) // 2 + 40_000] = b"\xff" * 40_000  # the schema page stays whole
    path.write_bytes(bytes(data))
    r = ctx("list", "-f", "json", "--limit", "1000")
    assert r.exit_code == 4, r.stderr
    assert str(path) in r.stderr and "database error in ." not in r.stderr, r.stderr


def test_read_only_commands_open_the_file_named_even_with_uri_characters(tmp_path):
    """`--db` holding `?`, `#` or `%`: `list` (read-only) reads the file `add` wrote."""
    for name in ("a?mode=memory.db", "b#c.db", "d%20e.db"):
        path = str(tmp_path / name)
        node = ok("--db", path, "add", f"kept in {name}").strip()
        assert ok("--db", path, "list", "-f", "json").count(node) == 1, name


def test_unwritable_export_path_is_one_error_line(tmp_path):
    add("something")
    r = ctx("export", str(tmp_path / "missing" / "out.jsonl"))
    assert r.exit_code == 1 and r.stderr.startswith("Error: No such file or directory")
    assert len(r.stderr.splitlines()) == 1


def test_ten_megabyte_content_is_refused_cleanly():
    r = ctx("add", "-", input="x" * 10_000_000)
    assert r.exit_code == 1 and "limit is" in r.stderr
    assert json.loads(ok("status", "-f", "json"))["nodes"] == 0


def test_console_script_runs(ctx_bin, tmp_path):
    env_db = str(tmp_path / "cs.db")
    p = subprocess.run([ctx_bin, "--db", env_db, "add", "hello from a subprocess"],
                       capture_output=True, text=True, check=False)
    assert p.returncode == 0 and len(p.stdout.strip()) == 26
    p = subprocess.run([ctx_bin, "--db", env_db, "nonsense-command"], capture_output=True, text=True, check=False)
    assert p.returncode == 2 and p.stdout == ""


def test_core_commands_load_nothing_heavy(tmp_path):
    """`ctx add`/`query` run on every script and cron job: no numpy, onnxruntime, rich,
    presidio — and not even the semantic command group (it loads on first use)."""
    import sys

    code = (
        "import sys; sys.argv = ['ctx', '--db', sys.argv[1], 'add', 'x', '--tag', 'tier:working']\n"
        "from ctx.cli.app import app\n"
        "try:\n    app()\nexcept SystemExit:\n    pass\n"
        "heavy = {'numpy', 'onnxruntime', 'rich', 'presidio_analyzer', 'ctx.cli.semantic',"
        " 'ctx.semantic.search', 'anthropic', 'llama_cpp'}\n"
        "print(sorted(heavy & set(sys.modules)))\n"
    )
    p = subprocess.run([sys.executable, "-c", code, str(tmp_path / "h.db")], capture_output=True,
                       text=True, check=False)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip().splitlines()[-1] == "[]"


def test_an_export_file_is_private_from_its_first_byte(tmp_path):
    """Issue 26: `ctx export FILE` was written 0644 (readable by every local user)."""
    import os
    import stat

    add("something only I should read")
    (tmp_path / "out").mkdir()
    out = tmp_path / "out" / "backup.jsonl"
    out.write_text("old\n")
    os.chmod(out, 0o644)
    assert ctx("export", str(out)).exit_code == 0
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    assert "something only I should read" in out.read_text()
    assert [p.name for p in out.parent.iterdir()] == ["backup.jsonl"]  # no temporary left
