"""`ctx doctor --review` against the stub model servers (flagged pairs only, cost shown and
confirmed first, secrets redacted, proposals only) and `ctx import --claude-memory` (the
folder layout and file format Claude Code 2.1.330 uses, checked with the real client)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from ctx_runner import ctx, ok

from ctx.claude import automemory
from tests.ctx.test_guard import TOKEN
from tests.stubs import AnthropicStub, OpenAIStub


def _plant_pair():
    ok("add", "--global", "The staging DB listens on port 6543")
    ok("add", "--global", f"The staging DB listens on port 6543, login token {TOKEN}",
       "--allow-secrets", "--dedupe", "keep")
    ok("add", "--global", "Unrelated: the release train leaves on Thursdays")


def test_review_sends_nothing_without_a_yes_and_prints_the_cost(monkeypatch):
    _plant_pair()
    with AnthropicStub(reply='{"pair": 1, "verdict": "duplicate", "why": "same port"}') as stub:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", stub.url)
        r = ctx("doctor", "--no-vectors", "--kind", "duplicate", "--review")
        assert stub.count == 0
    assert r.exit_code == 1 and "--yes" in r.stderr
    assert "1 flagged pair(s)" in r.stderr and "token cap" in r.stderr


def test_review_with_haiku_redacts_and_only_proposes(monkeypatch):
    _plant_pair()
    with AnthropicStub(reply='{"pair": 1, "verdict": "duplicate", "why": "same port"}') as stub:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", stub.url)
        before = ok("list", "-f", "ids")
        r = ctx("doctor", "--no-vectors", "--kind", "duplicate", "--review", "--yes")
        assert stub.count == 1
        body = stub.requests[0]["body"]
    assert body["model"] == "claude-haiku-4-5" and body["max_tokens"] <= 20_000
    sent = json.dumps(body)
    assert "6543" in sent and "Thursdays" not in sent  # flagged pairs only
    assert TOKEN not in sent and "[SECRET:github-token]" in sent
    assert "model says duplicate (agrees)" in r.stderr
    assert ok("list", "-f", "ids") == before  # proposals only


def test_review_with_a_local_openai_compatible_server_and_a_cap(monkeypatch):
    _plant_pair()
    with OpenAIStub(reply='{"pair": 1, "verdict": "different", "why": "two databases"}') as stub:
        r = ctx("doctor", "--no-vectors", "--review", "--review-backend", "openai",
                "--review-url", stub.url + "/v1", "--yes")
        assert stub.count == 1 and stub.requests[0]["path"] == "/v1/chat/completions"
    assert "DISAGREES" in r.stderr
    with OpenAIStub(reply="{}") as stub:  # a cap too small for any pair: nothing is sent
        r = ctx("doctor", "--no-vectors", "--review", "--review-backend", "openai",
                "--review-url", stub.url + "/v1", "--yes", "--max-tokens", "150")
        assert stub.count == 0
    assert "0 flagged pair(s) (1 more left out" in r.stderr


def test_review_backend_down_is_one_error_line(monkeypatch):
    _plant_pair()
    with OpenAIStub(status=500) as stub:
        r = ctx("doctor", "--no-vectors", "--review", "--review-backend", "openai",
                "--review-url", stub.url + "/v1", "--yes")
    assert r.exit_code == 5 and "HTTP 500" in r.stderr and "Traceback" not in r.stderr


# ------------------------------------------------------------------------------ claude memory

def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "work.dir" / "api"
    (repo / ".git").mkdir(parents=True)
    return repo


def _write(folder: Path, name: str, mtype: str, body: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.md").write_text(
        f"---\nname: {name}\ndescription: {body[:30]}\nmetadata:\n  type: {mtype}\n---\n\n{body}\n")
    index = folder / "MEMORY.md"
    lines = index.read_text() if index.exists() else ""
    index.write_text(lines + f"- [{name}]({name}.md) — {body[:20]}\n")


def test_the_folder_is_where_claude_code_puts_it(tmp_path, monkeypatch):
    repo = _repo(tmp_path)
    home = Path.home()
    (repo / "src").mkdir()
    expected = home / ".claude" / "projects" / automemory.folder_key(str(repo)) / "memory"
    assert automemory.memory_dir(str(repo / "src")) == expected
    assert "-work-dir-api" in str(expected)
    (home / ".claude").mkdir(exist_ok=True)
    (home / ".claude" / "settings.json").write_text(json.dumps({"autoMemoryDirectory": "~/mem"}))
    assert automemory.memory_dir(str(repo)) == home / "mem"
    # a repository's own settings never move it (Claude Code ignores them there "for security")
    (repo / ".claude").mkdir()
    (repo / ".claude" / "settings.json").write_text(json.dumps({"autoMemoryDirectory": "/x/y"}))
    (repo / ".claude" / "settings.local.json").write_text(json.dumps({"autoMemoryDirectory": "/x/z"}))
    assert automemory.memory_dir(str(repo)) == home / "mem"


def test_import_is_idempotent_an_edit_supersedes_and_duplicates_stay_out(tmp_path, monkeypatch):
    repo = _repo(tmp_path)
    monkeypatch.chdir(repo)
    folder = automemory.memory_dir(str(repo))
    _write(folder, "staging-port", "project", "The staging DB listens on port 6543.")
    _write(folder, "prefers-uv", "feedback", "Use uv for Python dependencies, never pip.")
    _write(folder, "who", "user", "The user is a backend engineer who reads Go.")
    existing = ok("add", "Use uv for python dependencies — never pip").strip()
    r = ctx("import", "--claude-memory", "-f", "json")
    assert r.exit_code == 0, r.stderr
    report = json.loads(r.stdout)
    assert len(report["added"]) == 2 and report["duplicates"] == [{"file": "prefers-uv.md",
                                                                   "id": existing}]
    nodes = json.loads(ok("list", "-f", "json"))
    staging = next(n for n in nodes if "6543" in n["content"])
    assert staging["project"] == "api" and staging["type"] == "fact"
    assert "claude-memory" in staging["tags"] and staging["metadata"]["source"] == "claude-memory"
    assert staging["metadata"]["claude_memory_file"].endswith("staging-port.md")
    assert staging["metadata"]["title"] == "staging-port"
    again = json.loads(ok("import", "--claude-memory", "-f", "json"))
    assert again["added"] == [] and len(again["unchanged"]) == 2
    (folder / "staging-port.md").write_text((folder / "staging-port.md").read_text()
                                            .replace("6543", "6544"))
    edited = json.loads(ok("import", "--claude-memory", "-f", "json"))
    assert edited["updated"] == [{"old": staging["id"], "new": edited["updated"][0]["new"]}]
    assert json.loads(ok("show", staging["id"], "-f", "json"))["superseded_by"] == \
        edited["updated"][0]["new"]


def test_no_folder_is_one_error_line(tmp_path, monkeypatch):
    repo = _repo(tmp_path)
    monkeypatch.chdir(repo)
    r = ctx("import", "--claude-memory")
    assert r.exit_code == 1 and "autoMemoryDirectory" in r.stderr


@pytest.mark.parametrize("tier", ["reference"])
def test_import_with_a_tier(tmp_path, monkeypatch, tier):
    repo = _repo(tmp_path)
    monkeypatch.chdir(repo)
    _write(automemory.memory_dir(str(repo)), "a", "reference", "Dashboards are at grafana.internal")
    ok("import", "--claude-memory", "--tier", tier)
    (node,) = json.loads(ok("list", "-f", "json"))
    assert f"tier:{tier}" in node["tags"] and node["type"] == "source"


def test_the_review_settles_the_report(monkeypatch):
    """The model's answers shape what is reported: a pair it calls different is taken out
    (and so is not fixed); a pair it calls the other kind, or one the words could not
    settle, becomes its proposal — reported, never fixed by --fix."""
    from ctx.doctor.findings import Finding
    from ctx.doctor.review import Verdict, settle

    dup = Finding("duplicate", ("A", "B", "C"), "C", "…", "supersede A, B by C", "near",
                  (("supersede", "A", "C"), ("supersede", "B", "C")))
    con = Finding("contradiction", ("D", "E"), "E", "…", "supersede D by E", "value",
                  (("supersede", "D", "E"),))
    odd = Finding("undecided", ("F", "G"), "G", "alike by meaning", "none", "", ())
    stale = Finding("stale", ("H", "I"), "I", "…", "supersede H by I", "task-done",
                    (("supersede", "H", "I"),))
    verdicts = [Verdict(1, ("A", "C"), "duplicate", "duplicate", "same"),
                Verdict(2, ("B", "C"), "duplicate", "different", "two ports"),
                Verdict(3, ("D", "E"), "contradiction", "different", "two envs"),
                Verdict(4, ("F", "G"), "undecided", "contradiction", "tool replaced"),
                Verdict(5, ("H", "I"), "stale", "different", "?")]
    out, notes = settle([dup, con, odd, stale], verdicts)
    by_kind = {f.kind: f for f in out}
    assert by_kind["duplicate"].ids == ("A", "C") and by_kind["duplicate"].steps == (("supersede", "A", "C"),)
    assert "B" not in by_kind["duplicate"].action
    assert by_kind["contradiction"].ids == ("F", "G") and by_kind["contradiction"].keep == "G"
    assert by_kind["contradiction"].steps == () and by_kind["contradiction"].subkind == "review"
    assert by_kind["stale"] is stale                     # other kinds pass as they are
    assert not any(f.ids == ("D", "E") for f in out) and len(notes) == 3
    # an unclear answer changes nothing but says so
    out, _ = settle([con], [Verdict(1, ("D", "E"), "contradiction", "unclear", "")])
    assert out[0].ids == ("D", "E") and out[0].to_dict()["review"] == "unclear"


def test_a_flagged_pair_the_model_calls_different_is_not_reported(monkeypatch):
    _plant_pair()
    with OpenAIStub(reply='{"pair": 1, "verdict": "different", "why": "two databases"}') as stub:
        r = ctx("doctor", "--no-vectors", "--kind", "duplicate", "--review", "--review-backend",
                "openai", "--review-url", stub.url + "/v1", "--yes", "-f", "json")
    assert json.loads(r.stdout or "[]") == [] and "the model says different" in r.stderr
    assert r.exit_code == 0


def test_an_answer_goes_to_the_finding_its_pair_was_made_from():
    from ctx.doctor.findings import Finding
    from ctx.doctor.review import Verdict, plan, settle

    group = Finding("duplicate", ("A", "B", "C"), "C", "…", "supersede A, B by C", "near",
                    (("supersede", "A", "C"), ("supersede", "B", "C")))
    odd = Finding("undecided", ("A", "C"), "C", "alike by meaning", "none", "", (),
                  {"score": 0.5})
    p = plan([group, odd], {"A": "a text", "B": "b text", "C": "c text"}, cap=10**6)
    asked = {pair.number: pair.finding.kind for pair in p.pairs}
    number = next(n for n, kind in asked.items() if kind == "undecided")
    verdicts = [Verdict(n, (pair.a_id, pair.b_id), pair.finding.kind,
                        "contradiction" if n == number else "duplicate", "")
                for n, pair in ((q.number, q) for q in p.pairs)]
    out, _ = settle([group, odd], verdicts, p)
    kinds = sorted(f.kind for f in out)
    assert kinds == ["contradiction", "duplicate"]          # the group kept whole, agreed
    assert next(f for f in out if f.kind == "duplicate").ids == ("A", "B", "C")


def test_review_looks_a_little_further_down_by_meaning_than_the_words_alone(tmp_path, monkeypatch):
    # an update written in other words ("Stripe billing: Minji" / "결제 담당은 이제 Daniel") can
    # sit just below the floor the words decide from; only --review, which a model settles,
    # asks about those pairs
    from ctx.core import db
    from ctx.core.store import Store
    from ctx.doctor import findings, vectors

    asked = []
    monkeypatch.setattr(vectors, "close_pairs", lambda conn, contents, floor: asked.append(floor) or {})
    store = Store(db.connect(str(tmp_path / "s.db")))
    store.add("Billing integration (Stripe) is owned by Minji.")
    store.add("Stripe 결제 연동 담당은 이제 Daniel.")
    findings.diagnose(store, findings.Options(kinds=("contradiction",)))
    findings.diagnose(store, findings.Options(kinds=("contradiction",), undecided=True))
    assert asked == [vectors.FLOOR, vectors.REVIEW_FLOOR] and vectors.REVIEW_FLOOR < vectors.FLOOR
