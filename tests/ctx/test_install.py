"""`ctx install` (SPEC §2.7, seed §18) and the skill it installs (seed §12)."""
from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
from pathlib import Path

import pytest

from ctx.claude.install import ctx_hook_subcommand, hooks_snippet, merge_hooks
from ctx.claude.tags import parse

ROOT = Path(__file__).resolve().parents[2]
SKILL = (ROOT / "skill" / "SKILL.md").read_text()


def install(ctx_bin, *args, cwd=None):
    return subprocess.run([ctx_bin, "install", *args], capture_output=True, text=True, cwd=cwd,
                          check=False)


def ctx_commands(settings: dict) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for event, groups in settings.get("hooks", {}).items():
        for group in groups:
            for entry in group.get("hooks", []):
                if ctx_hook_subcommand(entry.get("command")):
                    out.setdefault(event, []).append(entry["command"])
    return out


def test_install_sets_up_home_database_skill_and_prints_the_snippet(ctx_bin, isolated_home):
    p = install(ctx_bin)
    assert p.returncode == 0, p.stderr
    db_file = Path(os.environ["CTX_DB"])
    with sqlite3.connect(db_file) as conn:
        assert conn.execute("SELECT query FROM views WHERE name = 'default'").fetchone()[0] == \
            "tag:tier:pinned OR tag:tier:reference OR tag:tier:working"
    assert (isolated_home / ".ctx").is_dir()
    assert (isolated_home / ".claude/skills/ctx/SKILL.md").read_text() == SKILL
    assert "ctx installed successfully!" in p.stdout
    snippet = json.loads(p.stdout[p.stdout.index("{"):p.stdout.rindex("}") + 1])
    commands = ctx_commands(snippet)
    assert set(commands) == {"SessionStart", "UserPromptSubmit", "Stop", "PreCompact", "SessionEnd"}
    # The absolute path of this ctx, so Claude Code finds it whatever its PATH.
    assert commands["Stop"][0].startswith(str(Path(ctx_bin).resolve()) + " hook stop")
    assert not (isolated_home / ".claude" / "settings.json").exists()  # not without --hooks


def test_hooks_user_merges_idempotently_keeping_everything_else(ctx_bin, isolated_home):
    settings = isolated_home / ".claude" / "settings.json"
    settings.parent.mkdir()
    original = {"model": "opus", "permissions": {"allow": ["Bash(ls)"]},
                "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}],
                          "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
                                                                        "command": "guard"}]}]}}
    settings.write_text(json.dumps(original))
    assert install(ctx_bin, "--hooks", "user").returncode == 0
    first = json.loads(settings.read_text())
    assert install(ctx_bin, "--hooks", "user").returncode == 0
    assert json.loads(settings.read_text()) == first  # run twice: unchanged
    assert {k: len(v) for k, v in ctx_commands(first).items()} == {
        "SessionStart": 1, "UserPromptSubmit": 1, "Stop": 1, "PreCompact": 1, "SessionEnd": 1}
    assert first["model"] == "opus" and first["permissions"] == original["permissions"]
    assert first["hooks"]["PreToolUse"] == original["hooks"]["PreToolUse"]
    assert first["hooks"]["Stop"][0] == original["hooks"]["Stop"][0]
    backups = list(settings.parent.glob("settings.json.ctx-backup-*"))
    assert len(backups) == 1 and json.loads(backups[0].read_text()) == original


def test_the_installed_hook_command_works(ctx_bin, isolated_home):
    install(ctx_bin, "--hooks", "user")
    settings = json.loads((isolated_home / ".claude/settings.json").read_text())
    command = settings["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    subprocess.run([ctx_bin, "add", "--tag", "tier:pinned", "be brief"], check=True,
                   capture_output=True)
    p = subprocess.run(command, shell=True, input='{"session_id":"x","hook_event_name":"SessionStart"}',
                       capture_output=True, text=True, check=False)
    out = json.loads(p.stdout)
    assert "be brief" in out["hookSpecificOutput"]["additionalContext"]


def test_hooks_project_writes_the_project_settings(ctx_bin, tmp_path):
    project = tmp_path / "proj"
    project.mkdir()
    assert install(ctx_bin, "--hooks", "project", "--no-skill", cwd=project).returncode == 0
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    assert len(ctx_commands(settings)) == 5
    assert not list((project / ".claude").glob("*.ctx-backup-*"))  # nothing to back up


def test_invalid_settings_is_an_error_and_nothing_is_written(ctx_bin, isolated_home):
    settings = isolated_home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"model": "opus",')
    p = install(ctx_bin, "--hooks", "user")
    assert p.returncode != 0 and p.stdout == ""
    assert p.stderr.startswith("Error: ") and len(p.stderr.strip().splitlines()) == 1
    assert settings.read_text() == '{"model": "opus",'
    assert not Path(os.environ["CTX_DB"]).exists()
    assert not (isolated_home / ".claude/skills").exists()


def test_bad_scope_is_a_usage_error(ctx_bin):
    p = install(ctx_bin, "--hooks", "global")
    assert p.returncode == 2 and "user, project" in p.stderr


def test_merge_replaces_a_moved_ctx_instead_of_adding_a_second():
    old = hooks_snippet("/old/venv/bin/ctx")
    old["hooks"]["Stop"][0]["hooks"].append({"type": "command", "command": "/old/venv/bin/ctx hook stop"})
    merged, changed = merge_hooks(old, "/new/bin/ctx")
    assert changed
    assert ctx_commands(merged) == {e: [f"/new/bin/ctx hook {s}"] for e, s in (
        ("SessionStart", "session-start"), ("UserPromptSubmit", "prompt-submit"), ("Stop", "stop"),
        ("PreCompact", "pre-compact"), ("SessionEnd", "session-end"))}
    assert merge_hooks(merged, "/new/bin/ctx") == (merged, False)


def test_merge_adds_db_for_a_non_default_database():
    merged, _ = merge_hooks({}, "/bin/ctx", Path("/data/my store.db"))
    assert ctx_commands(merged)["Stop"] == ["/bin/ctx hook stop --db '/data/my store.db'"]


@pytest.mark.parametrize("settings", [[], {"hooks": []}, {"hooks": {"Stop": {}}}])
def test_merge_refuses_settings_it_does_not_understand(settings):
    from ctx.core.errors import CtxError

    with pytest.raises(CtxError):
        merge_hooks(settings, "/bin/ctx")


def test_recognises_ctx_hook_commands():
    assert ctx_hook_subcommand("/x/.venv/bin/ctx hook stop") == "stop"
    assert ctx_hook_subcommand("'/a b/ctx' hook session-start --db /d") == "session-start"
    assert ctx_hook_subcommand("ctx hook prompt-submit") == "prompt-submit"
    assert ctx_hook_subcommand("myctx hook stop") is None
    assert ctx_hook_subcommand("echo ctx") is None


# ---------------------------------------------------------------- the skill (seed §12)

def test_skill_frontmatter_and_trigger_phrases():
    m = re.match(r"---\n(.*?)\n---\n", SKILL, re.DOTALL)
    assert m, "frontmatter first"
    front = m.group(1)
    assert re.search(r"^name: ctx$", front, re.MULTILINE)
    for phrase in ("remember", "recall", "past knowledge", "past discussions",
                   "what do you remember", "context", "memory"):
        assert phrase in front.lower(), phrase
    for banned in ("disable-model-invocation", "user-invocable: false", "allowed-tools"):
        assert banned not in front


def test_skill_examples_are_valid_commands_and_always_give_a_tier():
    parsed = parse(SKILL)
    assert parsed.warnings == []
    assert {c.name for c in parsed.commands} >= {"remember", "recall", "summarize", "task", "link"}
    # status, expand and supersede are shown in `inline code` (an example is not a command).
    assert set(re.findall(r"<ctx:(\w+)", SKILL)) == {
        "remember", "recall", "supersede", "summarize", "task", "link", "expand", "status"}
    for cmd in parsed.commands:
        if cmd.name in ("remember", "summarize"):
            assert any(t.startswith("tier:") for t in cmd.items("tags")), cmd
    # Every numbered rule teaches by example and says what not to do.
    rules = re.split(r"\n## \d\. ", SKILL)[1:]
    assert len(rules) >= 6
    for rule in rules:
        assert "<ctx:" in rule or "ctx " in rule
        assert "Don't" in rule


def test_skill_shows_direct_cli_use_through_bash():
    block = SKILL[SKILL.index("```bash"):]
    for cmd in ("ctx query", "ctx add", "ctx supersede", "ctx compose"):
        assert cmd in block


def test_the_skills_cli_examples_run(ctx_bin):
    """Every line of the skill's Bash block is a working command (ids replaced by real ones)."""
    block = SKILL[SKILL.index("```bash") + len("```bash"):]
    block = block[:block.index("```")]
    add = subprocess.run([ctx_bin, "add", "--tag", "tier:reference", "old fact"], capture_output=True,
                         text=True, check=True).stdout.strip()
    new = subprocess.run([ctx_bin, "add", "--tag", "tier:reference", "new fact"], capture_output=True,
                         text=True, check=True).stdout.strip()
    lines = [line.strip() for line in block.strip().splitlines()]
    assert len(lines) >= 5
    for line in lines:
        line = line.replace("01JD8Z3K", add).replace("01JD9A7Q", new)
        p = subprocess.run(line.replace("ctx ", f"{ctx_bin} ", 1), shell=True, capture_output=True,
                           text=True, check=False, env={**os.environ, "CTX_SEMANTIC": "0"})
        assert p.returncode == 0, (line, p.stderr)
