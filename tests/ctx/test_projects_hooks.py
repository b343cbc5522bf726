"""The hooks scope memory by the project of their `cwd` (SPEC §2.8), as real subprocesses
in real git repositories: remember stores into the project, scope="global" stores globally,
session-start and prompt-submit (and its request record) read project + global."""
from __future__ import annotations

import json
import os
import subprocess

import pytest
from test_projects_resolve import git, make_repo

from ctx.claude import requests
from ctx.core import db
from ctx.core.store import Store

FORBIDDEN = ("typer", "rich", "numpy", "onnxruntime", "ulid")


def hook(ctx_bin, event, payload, *, env=None):
    proc = subprocess.run([ctx_bin, "hook", event], input=json.dumps(payload).encode(),
                          capture_output=True, check=False, timeout=60,
                          env={**os.environ, **(env or {})}, cwd="/")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout), proc.stderr.decode()


def ctx_text(out) -> str:
    return (out.get("hookSpecificOutput") or {}).get("additionalContext") or ""


def start(cwd, session_id):
    return {"session_id": session_id, "hook_event_name": "SessionStart", "source": "startup",
            "cwd": str(cwd)}


def stop(cwd, session_id, message):
    return {"session_id": session_id, "hook_event_name": "Stop", "cwd": str(cwd),
            "prompt_id": "p1", "last_assistant_message": message}


@pytest.fixture
def repos(tmp_path):
    a = make_repo(tmp_path / "alpha", remote="git@github.com:acme/alpha.git")
    b = make_repo(tmp_path / "beta")
    git(a, "worktree", "add", "-q", str(tmp_path / "alpha-wt"))
    return a, b, tmp_path / "alpha-wt"


@pytest.fixture
def store():
    conn = db.connect()
    yield Store(conn)
    conn.close()


def test_memory_is_scoped_to_the_repository_of_the_hook(ctx_bin, repos, store, tmp_path):
    a, b, wt = repos
    out, err = hook(ctx_bin, "stop", stop(a / "src", "sa",
                                          '<ctx:remember type="fact" tags="tier:reference">Alpha staging '
                                          'DB listens on port 6543</ctx:remember>'))
    assert out == {} and err == ""
    hook(ctx_bin, "stop", stop(b, "sb", '<ctx:remember type="pattern" tags="tier:pinned" '
                                        'scope="global">Always run the linter before committing'
                                        '</ctx:remember>'))
    by_content = {n.content: n for n in store.list_nodes()}
    assert by_content["Alpha staging DB listens on port 6543"].project == "alpha"
    assert by_content["Always run the linter before committing"].project is None

    in_a = ctx_text(hook(ctx_bin, "session-start", start(a, "a2"))[0])
    in_wt = ctx_text(hook(ctx_bin, "session-start", start(wt, "w1"))[0])
    in_b = ctx_text(hook(ctx_bin, "session-start", start(b, "b2"))[0])
    outside = ctx_text(hook(ctx_bin, "session-start", start(tmp_path, "o1"))[0])
    for text in (in_a, in_wt):
        assert "port 6543" in text and "run the linter" in text
        assert "project alpha + global" in text
    assert "port 6543" not in in_b and "run the linter" in in_b and "project beta + global" in in_b
    assert "port 6543" not in outside and "run the linter" in outside
    # session-start marked both projects active (beta was created by its first session)
    names = [r[0] for r in store.conn.execute("SELECT name FROM projects ORDER BY name")]
    assert names == ["alpha", "beta"]


def test_prompt_submit_selects_within_the_project_and_records_the_scope(ctx_bin, repos, store, tmp_path):
    a, b, _ = repos
    hook(ctx_bin, "stop", stop(a, "sa", '<ctx:remember type="fact">The staging deploy needs the '
                                        'VPN</ctx:remember>'))
    hook(ctx_bin, "stop", stop(b, "sb", '<ctx:remember type="fact">The staging deploy runs on '
                                        'Fridays only</ctx:remember>'))
    env = {"CTX_MODEL_DIR": str(tmp_path / "no-model")}  # keyword path: fast and exact
    prompt = {"session_id": "pb", "hook_event_name": "UserPromptSubmit", "cwd": str(b),
              "prompt": "how does the staging deploy work?", "prompt_id": "p9"}
    text = ctx_text(hook(ctx_bin, "prompt-submit", prompt, env=env)[0])
    assert "Fridays only" in text and "VPN" not in text
    rec = requests.get_request(store.conn)
    assert rec.params["scope"] == "beta + global"
    assert {i.node_id for i in rec.items} == {n.id for n in store.list_nodes() if n.project == "beta"}


def test_recall_status_and_task_stay_in_the_project(ctx_bin, repos, store):
    a, b, _ = repos
    hook(ctx_bin, "stop", stop(a, "sa", '<ctx:remember type="decision" tags="tier:working">Alpha '
                                        'uses Postgres for queues</ctx:remember>'))
    hook(ctx_bin, "stop", stop(b, "sb", '<ctx:remember type="decision" tags="tier:working">Beta '
                                        'uses Redis for queues</ctx:remember>'
                                        '<ctx:task name="q" action="start"/>'
                                        '<ctx:recall query="type:decision"/><ctx:status/>'))
    prompt = {"session_id": "sb", "hook_event_name": "UserPromptSubmit", "cwd": str(b),
              "prompt": "", "prompt_id": "p2"}
    text = ctx_text(hook(ctx_bin, "prompt-submit", prompt)[0])
    assert "Redis" in text and "Postgres" not in text
    assert "Project: beta (1 live nodes; 0 global)" in text
    tagged = {n.content.split()[0] for n in store.query("tag:task:q")}
    assert tagged == {"Beta"}  # the task only took this project's working memory
    # a query that names another project reaches it on purpose
    hook(ctx_bin, "stop", stop(b, "sb", '<ctx:recall query="project:alpha"/>'))
    text = ctx_text(hook(ctx_bin, "prompt-submit", {**prompt, "prompt_id": "p3"})[0])
    assert "Postgres" in text


def test_ctx_project_overrides_the_folder(ctx_bin, repos, store):
    a, _, _ = repos
    hook(ctx_bin, "stop", stop(a, "s", '<ctx:remember type="fact">Scratch note</ctx:remember>'),
         env={"CTX_PROJECT": "scratch"})
    (node,) = store.list_nodes()
    assert node.project == "scratch"
    hook(ctx_bin, "stop", stop(a, "s", '<ctx:remember type="fact">Everywhere note</ctx:remember>'),
         env={"CTX_PROJECT": "global"})
    assert {n.content: n.project for n in store.list_nodes()}["Everywhere note"] is None


def test_hook_path_stays_light_with_projects(ctx_bin, repos):
    a, _, _ = repos
    code = ("import sys, io, json; sys.stdin = io.TextIOWrapper(io.BytesIO(json.dumps("
            f"{start(a, 'x')!r}).encode())); from ctx.claude.hooks.entry import main; main(['session-start']);"
            f" bad = [m for m in {FORBIDDEN!r} if m in sys.modules]; "
            "assert not bad and 'subprocess' not in sys.modules, bad")
    proc = subprocess.run([os.path.join(os.path.dirname(ctx_bin), "python"), "-c", code],
                          capture_output=True, text=True, check=False, timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_the_skill_teaches_remembering_globally(ctx_bin, repos, store):
    from pathlib import Path

    from ctx.claude.tags import parse

    skill = (Path(__file__).resolve().parents[2] / "skill" / "SKILL.md").read_text()
    examples = [c for c in parse(skill).commands if c.name == "remember"]
    global_ones = [c for c in examples if c.attrs.get("scope") == "global"]
    assert global_ones and all("tier:pinned" in c.attrs.get("tags", "") for c in global_ones)
    assert not any("project:" in c.attrs.get("tags", "") for c in examples)  # scoped by the repo
    a, _, _ = repos
    example = next(m for m in skill.split("\n") if 'scope="global"' in m and m.startswith("<ctx:"))
    hook(ctx_bin, "stop", stop(a, "s", example))
    (node,) = store.list_nodes()
    assert node.project is None and node.tier == "pinned"


def test_semantic_selection_stays_in_the_project(ctx_bin, repos, store, monkeypatch):
    """Real MiniLM on the prompt-submit path: a paraphrase whose best match is in another
    repository gets this repository's memory, and the record says semantic."""
    a, b, _ = repos
    monkeypatch.setenv("CTX_SEMANTIC_DEADLINE", "60")  # a cold model on a busy box: still semantic
    hook(ctx_bin, "stop", stop(a, "sa", "<ctx:remember>The billing worker retries a declined card "
                                        "charge three times before giving up.</ctx:remember>"))
    hook(ctx_bin, "stop", stop(b, "sb", "<ctx:remember>Failed payments are emailed to the "
                                        "customer with a link to update their card.</ctx:remember>"))
    prompt = {"session_id": "pb", "hook_event_name": "UserPromptSubmit", "cwd": str(b),
              "prompt": "what happens when a customer's card gets rejected?", "prompt_id": "p1"}
    text = ctx_text(hook(ctx_bin, "prompt-submit", prompt)[0])
    assert "emailed to the customer" in text and "three times" not in text
    rec = requests.get_request(store.conn)
    assert rec.path == "semantic" and rec.params["scope"] == "beta + global"
    in_a = {**prompt, "cwd": str(a), "session_id": "pa"}
    assert "three times" in ctx_text(hook(ctx_bin, "prompt-submit", in_a)[0])
