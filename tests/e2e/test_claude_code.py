"""ctx's hooks driven by the REAL Claude Code CLI (2.1.330), through ../shared/tools/claude-code.

Claude Code runs headless (`claude -p`) against a local mock of the Messages API (no network,
dummy key); the mock answers with scripted replies and logs every request, so we can see
what our hooks injected and where it reached the model. Run with `make test-e2e`.

Claude Code is installed once from npm into .claude-code/ (git-ignored) by the harness's
install.sh; the tests are skipped, saying why, when npm or the harness is not there.
"""
from __future__ import annotations

import json
import subprocess

import pytest
from e2e_harness import harness

from ctx.core import db
from ctx.core.store import Store

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(1200)]  # the first one may install Claude Code

@pytest.fixture
def store():
    conn = db.connect()
    yield Store(conn)
    conn.close()


def test_a_fact_remembered_in_one_session_is_injected_into_the_next(claude_bin, ctx_bin, tmp_path, store):
    fact = "Staging Postgres listens on port 6543"
    # Both sessions in the same repository: memory is scoped per project (SPEC §2.8), and the
    # harness would otherwise give each run a git repo of its own.
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    same_repo = ["--project-dir", str(repo)]
    first = harness(claude_bin, ctx_bin, tmp_path / "one", "Remember the staging port",
                    reply_text=f'Noted. <ctx:remember type="fact" tags="tier:reference">{fact}'
                               f"</ctx:remember>", extra=same_repo)
    first.assert_hooks_healthy()
    assert [n.content for n in store.list_nodes()] == [fact]
    assert fact not in first.request_text(0)  # nothing to inject before it was remembered

    second = harness(claude_bin, ctx_bin, tmp_path / "two", "Which port is staging on?",
                     reply_text="6543.", turns=["And the production port?"], extra=same_repo)
    second.assert_hooks_healthy()
    start, resumed = second.contexts("SessionStart")
    assert fact in start
    body = json.dumps(second.main[0]["body"], ensure_ascii=False)
    assert fact in body  # in the new session's FIRST request
    assert "SessionStart hook additional context" in body
    # Byte-identical on --resume, so Claude Code drops the repeat instead of injecting it twice.
    assert resumed == start
    assert second.request_text(1).count(fact) == body.count(fact)


def test_recall_results_reach_the_next_prompt(claude_bin, ctx_bin, tmp_path, store):
    store.add("Refresh tokens are stored server-side only", tags=["tier:off-context", "project:auth"])
    run = harness(claude_bin, ctx_bin, tmp_path / "recall", "How do we store refresh tokens?",
                  reply=['Let me check. <ctx:recall query="tag:project:auth"/>',
                         "They are stored server-side only."],
                  turns=["Thanks, and what else?"])
    run.assert_hooks_healthy()
    assert len(run.main) == 2
    assert "Recall Results" not in run.request_text(0)
    prompt_contexts = run.contexts("UserPromptSubmit")
    assert "Recall Results" not in (prompt_contexts[0] or "")  # (semantic selection may add memories)
    assert prompt_contexts[1].startswith("## Recall Results\n\nQuery: `tag:project:auth`")
    second = run.request_text(1)
    assert "UserPromptSubmit hook additional context: ## Recall Results" in second
    assert "Refresh tokens are stored server-side only" in second


def test_a_tag_in_the_first_of_several_messages_of_a_turn_is_stored(claude_bin, ctx_bin, tmp_path, store):
    reply = [[{"type": "text", "text": 'Step one. <ctx:remember type="decision" tags="tier:reference">'
                                       "Deploys go through make release</ctx:remember>"},
              {"type": "tool_use", "name": "Bash", "input": {"command": "echo hi"}}],
             "All done."]
    run = harness(claude_bin, ctx_bin, tmp_path / "multi", "Set up the release", reply=reply,
                  extra=["--claude-arg=--allowedTools", "--claude-arg=Bash"])
    run.assert_hooks_healthy()
    assert len(run.main) >= 2  # text + tool use, then the final text: several model calls
    [stop] = run.calls("Stop")
    assert "ctx:remember" not in stop["stdin_json"]["last_assistant_message"]
    [node] = store.list_nodes(type="decision")
    assert node.content == "Deploys go through make release"
    # the turn used a tool, so the session also left its record (session capture, issue 39)
    [record] = store.query("tag:capture:session", scope=None)
    assert "Set up the release" in record.content


def test_300_reference_nodes_are_not_spilled_to_a_file(claude_bin, ctx_bin, tmp_path, store):
    store.add_many([{"content": f"Reference {i:03d}: " + ("the build cache lives in .cache and is "
                                                          "keyed by the lockfile hash; ") * 6,
                     "tags": ["tier:reference"]} for i in range(300)])
    assert 380 <= len(store.list_nodes(limit=1)[0].content) <= 420
    run = harness(claude_bin, ctx_bin, tmp_path / "cap", "What do you know?", reply_text="Plenty.")
    run.assert_hooks_healthy()
    [start] = run.contexts("SessionStart")
    assert 9000 < len(start) <= 9500 and "left out" in start
    first = run.request_text(0)
    assert "Reference 000" in first and "left out to fit the limit" in first
    assert "persisted-output" not in first and "Output too large" not in first
    assert "SPILLED" not in run.summary
