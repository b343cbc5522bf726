"""`ctx` commands in projects (README: Projects): add stores into the folder's project or
--global, reads see project + global, --project/-P and --all-projects, `ctx project …`."""
from __future__ import annotations

import json

import pytest
from ctx_runner import add, ctx, ok
from test_projects_resolve import make_repo


@pytest.fixture
def two_repos(tmp_path, monkeypatch):
    a = make_repo(tmp_path / "api")
    b = make_repo(tmp_path / "web")
    monkeypatch.chdir(a)
    a_id = add("API staging DB listens on port 6543", "--tag", "tier:reference")
    g_id = add("Always sign commits", "--global", "--tag", "tier:pinned")
    monkeypatch.chdir(b)
    b_id = add("Web deploys on Fridays", "--tag", "tier:reference")
    return {"a": a, "b": b, "a_id": a_id, "g_id": g_id, "b_id": b_id}


def ids(out: str) -> set[str]:
    return set(out.split())


def test_reads_default_to_the_folder_project_plus_global(two_repos, monkeypatch):
    r = two_repos
    assert ids(ok("list", "-f", "ids")) == {r["b_id"], r["g_id"]}
    assert ids(ok("query", "tag:tier:*", "-f", "ids")) == {r["b_id"], r["g_id"]}
    assert ids(ok("-P", "api", "list", "-f", "ids")) == {r["a_id"], r["g_id"]}
    assert ids(ok("--project", "global", "list", "-f", "ids")) == {r["g_id"]}
    assert ids(ok("--all-projects", "list", "-f", "ids")) == {r["a_id"], r["b_id"], r["g_id"]}
    assert ids(ok("query", "project:api", "-f", "ids")) == {r["a_id"]}  # the query chooses
    assert ids(ok("query", "scope:global", "-f", "ids")) == {r["g_id"]}
    composed = ok("compose")
    assert "Fridays" in composed and "sign commits" in composed and "6543" not in composed
    assert "project web + global" in composed
    status = json.loads(ok("status", "-f", "json"))
    assert status["scope"] == "web + global" and status["live_nodes"] == 2 and status["projects"] == 2
    monkeypatch.chdir(r["a"].parent)  # outside any repository: global memory only
    assert ids(ok("list", "-f", "ids")) == {r["g_id"]}
    node = json.loads(ok("show", r["a_id"], "-f", "json"))  # ids reach every project
    assert node["project"] == "api"


def test_ctx_project_commands(two_repos, monkeypatch):
    r = two_repos
    rows = json.loads(ok("project", "list", "-f", "json"))
    assert [(p["name"], p["nodes"]) for p in rows] == [("web", 1), ("api", 1)]
    shown = json.loads(ok("project", "show", "-f", "json"))  # this folder's
    assert shown["name"] == "web" and shown["by_tier"] == {"tier:reference": 1}
    ok("project", "rename", "web", "frontend")
    assert json.loads(ok("project", "show", "-f", "json"))["name"] == "frontend"
    ok("project", "move", r["a_id"][:10], "--to", "global")
    assert ids(ok("list", "-f", "ids")) == {r["a_id"], r["b_id"], r["g_id"]}
    ok("project", "move", r["a_id"], "--to", "api")
    ok("project", "merge", "api", "frontend")
    assert ids(ok("list", "-f", "ids")) == {r["a_id"], r["b_id"], r["g_id"]}
    monkeypatch.chdir(r["a"])  # api's folder now belongs to frontend
    assert json.loads(ok("project", "show", "-f", "json"))["name"] == "frontend"
    refused = ctx("project", "forget", "frontend")
    assert refused.exit_code == 1 and "--yes" in refused.stderr
    assert len(ids(ok("--all-projects", "list", "-f", "ids"))) == 3
    ok("project", "forget", "frontend", "--yes")
    assert ids(ok("--all-projects", "list", "-f", "ids")) == {r["g_id"]}


@pytest.mark.parametrize("args, code, message", [
    (("project", "show", "nope"), 3, "no project named 'nope'"),
    (("project", "rename", "api", "has space"), 1, "no spaces"),
    (("project", "rename", "api", "global"), 1, "reserved"),
    (("project", "rename", "api", "WEB"), 1, "already exists"),
    (("project", "merge", "api", "API"), 1, "into itself"),
    (("project", "merge", "api", "nope"), 3, "no project named 'nope'"),
    (("project", "move", "ZZZZZZZZ", "--to", "api"), 3, "no node"),
    (("project", "move", "IDA", "--to", "nope"), 3, "no project named 'nope'"),
    (("project", "forget", "nope", "--yes"), 3, "no project named"),
    (("-P", "nope", "list"), 3, "no project named 'nope'"),
    (("-P", "api", "--all-projects", "list"), 1, "not both"),
    (("--all-projects", "add", "x"), 1, "does not say where"),
    (("-P", "api", "add", "--global", "x"), 1, "not both"),
])
def test_bad_input_is_one_error_line_and_changes_nothing(two_repos, args, code, message):
    args = tuple(two_repos["a_id"] if a == "IDA" else a for a in args)
    before = ok("--all-projects", "export")
    projects_before = ok("project", "list", "-f", "json")
    r = ctx(*args)
    assert r.exit_code == code, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and message in lines[0], r.stderr
    assert r.stdout == ""
    assert ok("--all-projects", "export") == before
    assert ok("project", "list", "-f", "json") == projects_before


def test_add_with_project_option_and_json_records(two_repos):
    nid = add("Pinned to api from elsewhere", "-P", "api")
    assert ids(ok("list", "-P", "api", "-f", "ids")) == ids(ok("-P", "api", "list", "-f", "ids"))
    assert nid in ids(ok("query", "Pinned", "--all-projects", "-f", "ids"))
    assert json.loads(ok("show", nid, "-f", "json"))["project"] == "api"
    out = ok("add", "--json", "-", "-f", "json", input='{"content": "from a pipe", "project_id": 1}\n')
    assert [n["project"] for n in json.loads(out)] == ["web"]  # the input cannot choose one


def test_table_shows_the_project_of_each_node(two_repos):
    out = ok("list", "--all-projects", "-f", "table")
    header = next(line for line in out.splitlines() if "content" in line)
    assert "project" in header
    start, end = header.index("content"), header.index("project")
    rows = {line[start:end].strip(): line[end:].strip() for line in out.splitlines()
            if line[:2] == "01" and len(line) > end}  # a node's first line
    assert rows == {"API staging DB listens on port 6543": "api", "Always sign commits": "global",
                    "Web deploys on Fridays": "web"}


def test_project_show_for_people_is_one_field_per_line(two_repos):
    out = ok("project", "show", "api", "-f", "table")
    assert "name: api\n" in out and "by_tier: tier:reference 1\n" in out and "remote: -\n" in out


def test_search_reads_the_scope_unless_its_filter_names_one(two_repos):
    r = two_repos
    def found(*a):
        return {row["id"] for row in json.loads(ok("search", "staging port deploys", "--mode",
                                                   "keyword", "-f", "json", *a))}
    assert found() == {r["b_id"]}
    assert found("--all-projects") == {r["a_id"], r["b_id"]}
    assert found("--filter", "project:api") == {r["a_id"]}
