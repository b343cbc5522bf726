"""`ctx install --plugin`, `--mcp CLIENT` and `--remove` (SPEC §2.9). The real `claude` runs in
tests/e2e/test_mcp_plugin_e2e.py; here `claude` is not on PATH, so the commands are printed."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from ctx.claude.install import merge_mcp, plugin_files, remove_hooks

ROOT = Path(__file__).resolve().parents[2]
SKILL = (ROOT / "skill" / "SKILL.md").read_text()
NO_CLAUDE_PATH = "/usr/bin:/bin"


def install(ctx_bin, *args, cwd=None, env=None):
    return subprocess.run([ctx_bin, "install", *args], capture_output=True, text=True, cwd=cwd,
                          env={**os.environ, "PATH": NO_CLAUDE_PATH, **(env or {})}, check=False)


def marketplace(home: Path) -> Path:
    return home / ".ctx" / "plugin-marketplace"


def test_plugin_folder_is_a_marketplace_with_exec_form_hooks_skill_and_mcp(ctx_bin, isolated_home):
    p = install(ctx_bin, "--plugin")
    assert p.returncode == 0, p.stderr
    root = marketplace(isolated_home)
    market = json.loads((root / ".claude-plugin/marketplace.json").read_text())
    assert market["name"] == "ctx-local" and market["owner"]["name"]
    assert market["plugins"][0]["name"] == "ctx" and market["plugins"][0]["source"] == "./plugins/ctx"
    plugin = root / "plugins" / "ctx"
    manifest = json.loads((plugin / ".claude-plugin/plugin.json").read_text())
    assert manifest["name"] == "ctx" and manifest["version"] == market["plugins"][0]["version"]
    hooks = json.loads((plugin / "hooks/hooks.json").read_text())["hooks"]
    exe = str(Path(ctx_bin).resolve())
    db = os.environ["CTX_DB"]  # not the default database: the hooks and the server name it
    assert {e: g[0]["hooks"][0] for e, g in hooks.items()} == {
        "SessionStart": {"type": "command", "command": exe, "args": ["hook", "session-start", "--db", db],
                         "timeout": 30},
        "UserPromptSubmit": {"type": "command", "command": exe,
                             "args": ["hook", "prompt-submit", "--db", db], "timeout": 30},
        "Stop": {"type": "command", "command": exe, "args": ["hook", "stop", "--db", db], "timeout": 30},
        # the session record (issue 39): before compaction and when the session ends
        "PreCompact": {"type": "command", "command": exe, "args": ["hook", "pre-compact", "--db", db],
                       "timeout": 30},
        "SessionEnd": {"type": "command", "command": exe, "args": ["hook", "session-end", "--db", db],
                       "timeout": 30},
    }
    assert json.loads((plugin / ".mcp.json").read_text()) == {
        "mcpServers": {"ctx": {"command": exe, "args": ["--db", db, "mcp"]}}}
    assert (plugin / "skills/ctx/SKILL.md").read_text() == SKILL
    # without `claude` on PATH: the two commands to run
    assert f"claude plugin marketplace add {root}" in p.stdout
    assert "claude plugin install ctx@ctx-local --scope user" in p.stdout
    # the hook command really runs (exec form: argv exactly as written)
    run = subprocess.run([hooks["SessionStart"][0]["hooks"][0]["command"],
                          *hooks["SessionStart"][0]["hooks"][0]["args"]],
                         input='{"session_id":"x","hook_event_name":"SessionStart"}',
                         capture_output=True, text=True, check=False)
    assert run.returncode == 0 and json.loads(run.stdout) is not None


def test_rerun_is_idempotent_and_a_change_is_a_new_version(ctx_bin, isolated_home):
    assert install(ctx_bin, "--plugin").returncode == 0
    root = marketplace(isolated_home)
    before = {p: p.read_text() for p in root.rglob("*") if p.is_file()}
    again = install(ctx_bin, "--plugin")
    assert again.returncode == 0 and "unchanged" in again.stdout
    assert {p: p.read_text() for p in root.rglob("*") if p.is_file()} == before
    v1 = json.loads((root / "plugins/ctx/.claude-plugin/plugin.json").read_text())["version"]
    other = isolated_home / "other.db"
    moved = install(ctx_bin, "--plugin", env={"CTX_DB": str(other)})
    assert moved.returncode == 0 and "written to" in moved.stdout
    v2 = json.loads((root / "plugins/ctx/.claude-plugin/plugin.json").read_text())["version"]
    assert v1 != v2 and v1.split("+")[0] == v2.split("+")[0]
    assert str(other) in (root / "plugins/ctx/hooks/hooks.json").read_text()


def test_plugin_refuses_while_the_hooks_are_in_settings_and_says_how_to_move(ctx_bin, isolated_home):
    assert install(ctx_bin, "--hooks", "user").returncode == 0
    settings = isolated_home / ".claude/settings.json"
    p = install(ctx_bin, "--plugin")
    assert p.returncode == 1 and p.stdout == ""
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ctx's hooks are in ")
    assert "`ctx install --hooks user --remove`" in lines[0]
    assert not marketplace(isolated_home).exists()  # nothing written
    # follow the advice
    moved = install(ctx_bin, "--hooks", "user", "--remove")
    assert moved.returncode == 0 and "Hooks removed" in moved.stdout
    assert "hooks" not in json.loads(settings.read_text())
    assert install(ctx_bin, "--plugin").returncode == 0


def test_project_settings_hooks_block_the_plugin_too(ctx_bin, isolated_home, tmp_path):
    project = tmp_path / "proj"
    project.mkdir()
    assert install(ctx_bin, "--hooks", "project", cwd=project).returncode == 0
    p = install(ctx_bin, "--plugin", cwd=project)
    assert p.returncode == 1 and "`ctx install --hooks project --remove" in p.stderr


def test_hooks_refused_while_the_plugin_is_enabled(ctx_bin, isolated_home):
    settings = isolated_home / ".claude/settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"enabledPlugins": {"ctx@ctx-local": True}}))
    p = install(ctx_bin, "--hooks", "user")
    assert p.returncode == 1
    assert p.stderr.startswith("Error: the ctx plugin (ctx@ctx-local) is enabled")
    assert "`ctx install --plugin --remove`" in p.stderr
    assert json.loads(settings.read_text()) == {"enabledPlugins": {"ctx@ctx-local": True}}


def test_plugin_takes_over_the_skill_it_brings(ctx_bin, isolated_home):
    assert install(ctx_bin).returncode == 0
    user_skill = isolated_home / ".claude/skills/ctx/SKILL.md"
    assert user_skill.exists()
    p = install(ctx_bin, "--plugin")
    assert p.returncode == 0 and not user_skill.exists() and "brings the same skill" in p.stdout


def test_plain_install_leaves_the_skill_to_an_enabled_plugin(ctx_bin, isolated_home):
    settings = isolated_home / ".claude/settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"enabledPlugins": {"ctx@ctx-local": True}}))
    assert install(ctx_bin).returncode == 0
    assert not (isolated_home / ".claude/skills/ctx/SKILL.md").exists()


def test_plugin_notes_a_second_ctx_server_in_claude_codes_config(ctx_bin, isolated_home):
    assert install(ctx_bin, "--mcp", "claude-code").returncode == 0
    p = install(ctx_bin, "--plugin")
    assert p.returncode == 0 and "would start two" in p.stdout
    assert "`ctx install --mcp claude-code --remove`" in p.stdout


def test_plugin_remove_without_claude_prints_the_commands(ctx_bin, isolated_home):
    assert install(ctx_bin, "--plugin").returncode == 0
    p = install(ctx_bin, "--plugin", "--remove")
    assert p.returncode == 0
    assert "claude plugin uninstall ctx@ctx-local --scope user" in p.stdout
    assert "claude plugin marketplace remove ctx-local" in p.stdout
    assert marketplace(isolated_home).exists()  # Claude Code may still load it: not pulled away


def test_remove_keeps_every_other_hook():
    settings = {"model": "opus", "hooks": {
        "Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "say done"},
                                          {"type": "command", "command": "/x/ctx hook stop"}]}],
        "SessionStart": [{"matcher": "", "hooks": [{"type": "command",
                                                    "command": "/x/ctx hook session-start"}]}],
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard"}]}]}}
    cleaned, changed = remove_hooks(settings)
    assert changed and cleaned == {"model": "opus", "hooks": {
        "Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "say done"}]}],
        "PreToolUse": settings["hooks"]["PreToolUse"]}}
    assert remove_hooks(cleaned) == (cleaned, False)


def test_plugin_files_use_the_default_database_without_db_args():
    files = plugin_files("/opt/ctx/bin/ctx", None)
    hooks = json.loads(files["plugins/ctx/hooks/hooks.json"])["hooks"]
    assert hooks["Stop"][0]["hooks"][0]["args"] == ["hook", "stop"]
    assert json.loads(files["plugins/ctx/.mcp.json"])["mcpServers"]["ctx"]["args"] == ["mcp"]


# ------------------------------------------------------------------------------ --mcp

def desktop_config(home: Path) -> Path:
    return home / ".config" / "Claude" / "claude_desktop_config.json"


@pytest.mark.parametrize("client,where", [
    ("claude-desktop", lambda h: desktop_config(h)),
    ("claude-code", lambda h: h / ".claude.json"),
])
def test_mcp_merges_idempotently_with_a_backup_and_removes(ctx_bin, isolated_home, client, where):
    config = where(isolated_home)
    config.parent.mkdir(parents=True, exist_ok=True)
    original = {"numStartups": 3, "mcpServers": {"github": {"command": "gh-mcp", "args": []}}}
    config.write_text(json.dumps(original))
    p = install(ctx_bin, "--mcp", client)
    assert p.returncode == 0, p.stderr
    assert "MCP server ctx added to" in p.stdout and "To enable hooks" not in p.stdout
    first = json.loads(config.read_text())
    assert first["numStartups"] == 3 and first["mcpServers"]["github"] == original["mcpServers"]["github"]
    entry = first["mcpServers"]["ctx"]
    assert entry["command"] == str(Path(ctx_bin).resolve())
    assert entry["args"] == ["--db", os.environ["CTX_DB"], "mcp"]
    assert entry.get("type", "stdio") == "stdio"
    again = install(ctx_bin, "--mcp", client)
    assert "already in" in again.stdout and json.loads(config.read_text()) == first
    backups = list(config.parent.glob(config.name + ".ctx-backup-*"))
    assert len(backups) == 1 and json.loads(backups[0].read_text()) == original
    gone = install(ctx_bin, "--mcp", client, "--remove")
    assert gone.returncode == 0 and json.loads(config.read_text()) == original


def test_mcp_follows_xdg_config_home_and_creates_the_file(ctx_bin, isolated_home, tmp_path):
    xdg = tmp_path / "xdg"
    p = install(ctx_bin, "--mcp", "claude-desktop", env={"XDG_CONFIG_HOME": str(xdg)})
    assert p.returncode == 0, p.stderr
    assert "ctx" in json.loads((xdg / "Claude/claude_desktop_config.json").read_text())["mcpServers"]


def test_mcp_refuses_a_broken_config_or_someone_elses_ctx(ctx_bin, isolated_home):
    config = desktop_config(isolated_home)
    config.parent.mkdir(parents=True)
    config.write_text("{not json")
    p = install(ctx_bin, "--mcp", "claude-desktop")
    assert p.returncode == 1 and p.stderr.startswith("Error: ") and "not valid JSON" in p.stderr
    assert config.read_text() == "{not json"
    config.write_text(json.dumps({"mcpServers": {"ctx": {"command": "npx", "args": ["ctx-notes"]}}}))
    p = install(ctx_bin, "--mcp", "claude-desktop")
    assert p.returncode == 1 and "not ctx" in p.stderr


def test_mcp_and_remove_usage_errors(ctx_bin, isolated_home):
    p = install(ctx_bin, "--mcp", "vscode")
    assert p.returncode == 2 and "claude-desktop" in p.stderr
    p = install(ctx_bin, "--remove")
    assert p.returncode == 2 and "say what to remove" in p.stderr
    p = install(ctx_bin, "--plugin", "--hooks", "user")
    assert p.returncode == 2


def test_merge_mcp_updates_an_older_ctx_entry_in_place():
    old = {"mcpServers": {"ctx": {"command": "/old/venv/bin/ctx", "args": ["mcp"]}}}
    new_entry = {"command": "/new/bin/ctx", "args": ["mcp"], "env": {}}
    merged, changed = merge_mcp(old, new_entry)
    assert changed and merged["mcpServers"]["ctx"] == new_entry
    assert merge_mcp(merged, new_entry) == (merged, False)
