"""`ctx install` (SPEC §2.7, seed §18): the home folder, the database with its default view,
the skill file, and — when asked — the hooks merged into a Claude Code settings.json.

The merge is idempotent and conservative: ctx's own hook entries are recognised by their
command (`… ctx hook session-start|prompt-submit|stop|pre-compact|session-end`), updated in place when the path of
`ctx` changed, and added once when missing; every other key, hook and matcher group is kept
as it was. The file is written atomically, and the previous one is kept as a backup. A
settings file that is not a JSON object is an error and is not touched.
"""
from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import shutil
import sys
from datetime import UTC, datetime
from pathlib import Path

from ctx.core import paths
from ctx.core.errors import CtxError
from cuectx.files import replace_file
from cuectx.value import Value

HOOKS = (("SessionStart", "session-start"), ("UserPromptSubmit", "prompt-submit"), ("Stop", "stop"),
         ("PreCompact", "pre-compact"), ("SessionEnd", "session-end"))  # the last two: session records
HOOK_TIMEOUT_S = 30
SCOPES = ("user", "project")
_CTX_HOOK = re.compile(r"""(?:^|[\s/\\'"])ctx(?:\.exe)?['"]?\s+hook\s+"""
                       r"""(session-start|prompt-submit|stop|pre-compact|session-end)\b""")


class InstallResult(Value):
    __slots__ = ("backup", "db", "home", "settings", "settings_changed", "skill", "skill_changed",
                 "snippet")

    def __init__(self, home: Path, db: Path, skill: Path | None, skill_changed: bool,
                 settings: Path | None, settings_changed: bool, backup: Path | None,
                 snippet: dict) -> None:
        self.home = home
        self.db = db
        self.skill = skill
        self.skill_changed = skill_changed
        self.settings = settings
        self.settings_changed = settings_changed
        self.backup = backup
        self.snippet = snippet


def ctx_executable() -> str:
    """Absolute path of the `ctx` being run, so Claude Code finds it whatever its PATH."""
    argv0 = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if argv0 and argv0.name in ("ctx", "ctx.exe") and argv0.exists():
        return str(argv0.resolve())
    beside = Path(sys.executable).parent / "ctx"
    if beside.exists():
        return str(beside)
    return shutil.which("ctx") or "ctx"


def hook_command(executable: str, subcommand: str, db: Path | None = None) -> str:
    cmd = f"{shlex.quote(executable)} hook {subcommand}"
    if db is not None:
        cmd += f" --db {shlex.quote(str(db))}"
    return cmd


def hooks_snippet(executable: str, db: Path | None = None) -> dict:
    """The `hooks` block for settings.json (seed §18's shape)."""
    return {"hooks": {event: [{"matcher": "", "hooks": [
        {"type": "command", "command": hook_command(executable, sub, db), "timeout": HOOK_TIMEOUT_S}]}]
        for event, sub in HOOKS}}


def ctx_hook_subcommand(command: object) -> str | None:
    """'session-start' etc. when `command` runs a ctx hook, else None."""
    if not isinstance(command, str):
        return None
    m = _CTX_HOOK.search(command)
    return m.group(1) if m else None


def merge_hooks(settings: dict, executable: str, db: Path | None = None) -> tuple[dict, bool]:
    """(new settings, changed). `settings` is not modified."""
    if not isinstance(settings, dict):
        raise CtxError("settings.json does not hold a JSON object; fix it by hand first")
    merged = json.loads(json.dumps(settings))
    hooks = merged.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise CtxError("settings.json has a \"hooks\" value that is not an object; fix it by hand first")
    for event, sub in HOOKS:
        wanted = {"type": "command", "command": hook_command(executable, sub, db),
                  "timeout": HOOK_TIMEOUT_S}
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise CtxError(f"settings.json hooks.{event} is not a list; fix it by hand first")
        found = False
        for group in groups:
            entries = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(entries, list):
                continue
            kept = []
            for entry in entries:
                if isinstance(entry, dict) and ctx_hook_subcommand(entry.get("command")) == sub:
                    if found:
                        continue  # a duplicate ctx entry: drop it
                    found = True
                    entry = {**entry, **wanted}
                kept.append(entry)
            group["hooks"] = kept
        hooks[event] = [g for g in groups if not (isinstance(g, dict) and g.get("hooks") == [])]
        if not found:
            hooks[event].append({"matcher": "", "hooks": [wanted]})
    return merged, merged != settings


def settings_path(scope: str, project_dir: Path | None = None) -> Path:
    if scope == "user":
        return Path.home() / ".claude" / "settings.json"
    if scope == "project":
        return (project_dir or Path.cwd()) / ".claude" / "settings.json"
    raise CtxError(f"--hooks takes one of: {', '.join(SCOPES)} (not {scope!r})")


def skill_source() -> str:
    """The text of skill/SKILL.md shipped with ctx."""
    package = Path(__file__).resolve().parents[1]  # ctx/
    for candidate in (package.parent / "skill" / "SKILL.md", package / "skill" / "SKILL.md"):
        if candidate.is_file():
            return candidate.read_text(encoding="utf-8")
    raise CtxError("skill/SKILL.md is missing from this ctx installation; reinstall ctx")


def write_settings(path: Path, settings: dict) -> Path | None:
    """Write atomically; returns the backup of the previous file, if there was one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    backup = None
    mode = 0o600
    if path.exists():
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
        backup = path.with_name(f"{path.name}.ctx-backup-{stamp}")
        shutil.copy2(path, backup)
        mode = path.stat().st_mode & 0o777
    replace_file(path, [(json.dumps(settings, indent=2, ensure_ascii=False) + "\n").encode("utf-8")],
                 mode=mode)
    return backup


def read_settings(path: Path) -> dict:
    if not path.exists():
        return {}
    text = path.read_text(encoding="utf-8")
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CtxError(f"{path} is not valid JSON ({exc.msg}, line {exc.lineno}); fix it or move "
                       f"it aside, then run `ctx install` again") from None
    if not isinstance(data, dict):
        raise CtxError(f"{path} does not hold a JSON object; fix it or move it aside first")
    return data


def install(*, db: str | os.PathLike | None = None, hooks: str | None = None,
            project_dir: Path | None = None, skill: bool = True,
            executable: str | None = None) -> InstallResult:
    """Set ctx up for Claude Code. Validates everything before writing anything."""
    from ctx.core import db as ctx_db

    executable = executable or ctx_executable()
    db_file = paths.db_path(db).expanduser().resolve()
    default_db = (paths.home() / "store.db").expanduser().resolve()
    hook_db = None if db_file == default_db else db_file
    target = settings_path(hooks, project_dir) if hooks else None
    merged = changed = None
    if target is not None and plugin_enabled():
        raise CtxError(f"the ctx plugin ({PLUGIN_ID}) is enabled in Claude Code and brings these "
                       f"hooks: both would run on every prompt. Keep the plugin, or remove it first "
                       f"with `ctx install --plugin --remove`")
    if target is not None:
        merged, changed = merge_hooks(read_settings(target), executable, hook_db)
    # The plugin brings the skill: a second copy in ~/.claude/skills would load twice.
    text = skill_source() if skill and not plugin_enabled() else None

    home = paths.home()
    home.mkdir(parents=True, exist_ok=True, mode=0o700)
    db_file.parent.mkdir(parents=True, exist_ok=True)
    ctx_db.connect(db_file).close()  # creates the schema and the default view

    skill_path = skill_changed = None
    if text is not None:
        skill_path = Path.home() / ".claude" / "skills" / "ctx" / "SKILL.md"
        skill_changed = not skill_path.exists() or skill_path.read_text(encoding="utf-8") != text
        if skill_changed:
            skill_path.parent.mkdir(parents=True, exist_ok=True)
            skill_path.write_text(text, encoding="utf-8")
    backup = write_settings(target, merged) if target is not None and changed else None
    return InstallResult(home=home, db=db_file, skill=skill_path, skill_changed=bool(skill_changed),
                         settings=target, settings_changed=bool(changed), backup=backup,
                         snippet=hooks_snippet(executable, hook_db))


def remove_hooks(settings: dict) -> tuple[dict, bool]:
    """(settings without ctx's hook entries, changed): `ctx install --hooks … --remove`.
    Other hooks, matcher groups and keys stay; a group left empty and an event left without
    groups are dropped."""
    if not isinstance(settings, dict):
        raise CtxError("settings.json does not hold a JSON object; fix it by hand first")
    merged = json.loads(json.dumps(settings))
    hooks = merged.get("hooks")
    if not isinstance(hooks, dict):
        return merged, False
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept_groups = []
        for group in groups:
            entries = group.get("hooks") if isinstance(group, dict) else None
            if isinstance(entries, list):
                kept = [e for e in entries if not (isinstance(e, dict) and ctx_hook_subcommand(e.get("command")))]
                if not kept and entries:
                    continue
                group = {**group, "hooks": kept}
            kept_groups.append(group)
        if kept_groups:
            hooks[event] = kept_groups
        else:
            del hooks[event]
    if not hooks:
        del merged["hooks"]
    return merged, merged != settings


def has_ctx_hooks(settings: dict) -> bool:
    hooks = settings.get("hooks") if isinstance(settings, dict) else None
    if not isinstance(hooks, dict):
        return False
    return any(isinstance(e, dict) and ctx_hook_subcommand(e.get("command"))
               for groups in hooks.values() if isinstance(groups, list)
               for g in groups if isinstance(g, dict) and isinstance(g.get("hooks"), list)
               for e in g["hooks"])


def remove_settings_hooks(scope: str, project_dir: Path | None = None) -> tuple[Path, bool, Path | None]:
    """Take ctx's three hooks out of a settings.json: (file, changed, backup)."""
    target = settings_path(scope, project_dir)
    cleaned, changed = remove_hooks(read_settings(target))
    backup = write_settings(target, cleaned) if changed else None
    return target, changed, backup


# ------------------------------------------------------------------ the Claude Code plugin
# SPEC §2.9: a local marketplace folder under ~/.ctx holding one plugin, `ctx`, whose hooks
# (exec form: no shell between Claude Code and ctx), skill and MCP server point at this
# installation's `ctx`. Claude Code loads a directory marketplace's plugin in place, so
# rewriting the folder updates it; `claude plugin update` re-records the version.

MARKETPLACE = "ctx-local"
PLUGIN = "ctx"
PLUGIN_ID = f"{PLUGIN}@{MARKETPLACE}"
CLAUDE_TIMEOUT_S = 120


class PluginResult(Value):
    __slots__ = ("changed", "commands", "duplicate_mcp", "marketplace", "plugin", "ran",
                 "removed_skill", "version")

    def __init__(self, marketplace: Path, plugin: Path, version: str, changed: bool,
                 commands: list[list[str]], ran: bool, removed_skill: Path | None = None,
                 duplicate_mcp: Path | None = None) -> None:
        self.marketplace = marketplace
        self.plugin = plugin
        self.version = version
        self.changed = changed
        self.commands = commands  # what installs it in Claude Code (run, or to run by hand)
        self.ran = ran  # True when `claude` was on PATH and the commands ran
        self.removed_skill = removed_skill
        self.duplicate_mcp = duplicate_mcp  # a client config that also runs `ctx mcp`


def marketplace_dir() -> Path:
    return paths.home() / "plugin-marketplace"


def _db_args(db: Path | None) -> list[str]:
    return ["--db", str(db)] if db is not None else []


def ctx_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("cue-ctx")
    except PackageNotFoundError:
        return "0.0.0"


def plugin_files(executable: str, db: Path | None = None) -> dict[str, str]:
    """Every file of the marketplace folder, by relative path. The plugin's version is ctx's
    plus a hash of its contents, so Claude Code sees a change as a new version."""
    def dump(obj) -> str:
        return json.dumps(obj, indent=2, ensure_ascii=False) + "\n"

    hooks = {"description": "ctx memory: inject it at session start and per prompt, carry out "
                            "<ctx:…> commands when a turn ends, "
                            "keep a record of what each session did",
             "hooks": {event: [{"matcher": "", "hooks": [
                 {"type": "command", "command": executable, "args": ["hook", sub, *_db_args(db)],
                  "timeout": HOOK_TIMEOUT_S}]}] for event, sub in HOOKS}}
    mcp = {"mcpServers": {"ctx": {"command": executable, "args": [*_db_args(db), "mcp"]}}}
    readme = (
        "# ctx for Claude Code\n\n"
        "Persistent, inspectable memory for Claude Code, kept in a local SQLite database"
        + (f" ({db})" if db else " (~/.ctx/store.db)") + ".\n\n"
        "- **Hooks**: SessionStart injects the pinned, reference and working memories; "
        "UserPromptSubmit adds the memories relevant to each prompt; Stop carries out the "
        "`<ctx:remember …>` and other commands Claude writes; Stop, PreCompact and SessionEnd "
        "keep one record of what each session did, read from its transcript (no model call).\n"
        "- **MCP server** `ctx`: the tools remember, recall, show, supersede, link, forget, "
        "status and compose.\n"
        "- **Skill** `ctx`: how to use the memory well.\n\n"
        f"Written by `ctx install --plugin` for `{executable}`; run it again after moving ctx, "
        "and `ctx install --plugin --remove` to uninstall.\n")
    body = {
        "plugins/ctx/hooks/hooks.json": dump(hooks),
        "plugins/ctx/.mcp.json": dump(mcp),
        "plugins/ctx/skills/ctx/SKILL.md": skill_source(),
        "plugins/ctx/README.md": readme,
    }
    import hashlib

    digest = hashlib.sha256("".join(k + "\0" + v for k, v in sorted(body.items())).encode()).hexdigest()
    version = f"{ctx_version()}+{digest[:10]}"
    description = "ctx: persistent, inspectable memory for Claude Code (hooks, MCP tools, skill)"
    return {
        ".claude-plugin/marketplace.json": dump({
            "name": MARKETPLACE, "owner": {"name": "ctx (local)"},
            "description": "The ctx plugin of this machine's ctx installation",
            "plugins": [{"name": PLUGIN, "source": f"./plugins/{PLUGIN}", "description": description,
                         "version": version}]}),
        "plugins/ctx/.claude-plugin/plugin.json": dump({
            "name": PLUGIN, "version": version, "description": description,
            "author": {"name": "cue-ctx"}, "license": "MIT"}),
        **body,
    }


def plugin_version(files: dict[str, str]) -> str:
    return json.loads(files["plugins/ctx/.claude-plugin/plugin.json"])["version"]


def settings_with_ctx_hooks(project_dir: Path | None = None) -> list[Path]:
    """The settings files of this user (and of the project folder) that run ctx's hooks."""
    project = project_dir or Path.cwd()
    found = []
    for path in (settings_path("user"), project / ".claude" / "settings.json",
                 project / ".claude" / "settings.local.json"):
        try:
            if path.is_file() and has_ctx_hooks(read_settings(path)):
                found.append(path)
        except CtxError:
            continue  # not ours to judge here: `--hooks` reports a broken file when it is asked to
    return list(dict.fromkeys(found))


def plugin_enabled() -> bool:
    """True when Claude Code's user settings enable ctx's plugin."""
    try:
        settings = read_settings(settings_path("user"))
    except CtxError:
        return False
    enabled = settings.get("enabledPlugins")
    return isinstance(enabled, dict) and bool(enabled.get(PLUGIN_ID))


def _move_hint(path: Path, project_dir: Path | None) -> str:
    if path == settings_path("user"):
        return "`ctx install --hooks user --remove`"
    if path.name == "settings.json":
        where = f" --project-dir {shlex.quote(str(path.parent.parent))}" if project_dir else ""
        return f"`ctx install --hooks project --remove{where}`"
    return f"delete the ctx entries from {path} by hand"


def claude_executable() -> str | None:
    return shutil.which("claude")


def _run_claude(argv: list[str]) -> str:
    import subprocess

    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=CLAUDE_TIMEOUT_S,
                              stdin=subprocess.DEVNULL, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise CtxError(f"`{shlex.join(argv)}` did not run: {exc}") from None
    if proc.returncode != 0:
        said = (proc.stderr.strip() or proc.stdout.strip()).splitlines()
        raise CtxError(f"`{shlex.join(argv)}` failed (exit {proc.returncode})"
                       + (f": {said[-1]}" if said else ""))
    return proc.stdout


def install_plugin(*, db: str | os.PathLike | None = None, executable: str | None = None,
                   project_dir: Path | None = None, claude: str | None | bool = True) -> PluginResult:
    """Write (or update) the marketplace folder and install the plugin with `claude` when
    it is on PATH (`claude=False`: never run it; a string: that binary)."""
    from ctx.core import db as ctx_db

    executable = executable or ctx_executable()
    db_file = paths.db_path(db).expanduser().resolve()
    hook_db = None if db_file == (paths.home() / "store.db").expanduser().resolve() else db_file
    clashes = settings_with_ctx_hooks(project_dir)
    if clashes:
        where = clashes[0]
        raise CtxError(f"ctx's hooks are in {where}, and the plugin brings the same hooks: both "
                       f"would run on every prompt. Move them into the plugin: "
                       f"{_move_hint(where, project_dir)}, then `ctx install --plugin` again")
    files = plugin_files(executable, hook_db)

    home = paths.home()
    home.mkdir(parents=True, exist_ok=True, mode=0o700)
    db_file.parent.mkdir(parents=True, exist_ok=True)
    ctx_db.connect(db_file).close()

    root = marketplace_dir()
    changed = False
    for rel, text in files.items():
        target = root / rel
        if target.is_file() and target.read_text(encoding="utf-8") == text:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        replace_file(target, [text.encode("utf-8")], mode=0o644, sync=False)
        changed = True
    # The plugin brings the skill: a copy `ctx install` put in ~/.claude/skills would be a second
    # `ctx` skill. Only ours (same text) is removed.
    removed_skill = None
    user_skill = Path.home() / ".claude" / "skills" / "ctx" / "SKILL.md"
    if user_skill.is_file() and user_skill.read_text(encoding="utf-8") == files["plugins/ctx/skills/ctx/SKILL.md"]:
        user_skill.unlink()
        with contextlib.suppress(OSError):
            user_skill.parent.rmdir()
        removed_skill = user_skill

    binary = claude_executable() if claude is True else (claude or None)
    name = binary or "claude"
    commands = [[name, "plugin", "marketplace", "add", str(root)],
                [name, "plugin", "install", PLUGIN_ID, "--scope", "user"]]
    if binary:
        for argv in commands:
            _run_claude(argv)
        if changed:  # an installed plugin re-records its version (a fresh one already has it)
            _run_claude([binary, "plugin", "marketplace", "update", MARKETPLACE])
            _run_claude([binary, "plugin", "update", PLUGIN_ID, "--scope", "user"])
    code_config = mcp_config_path("claude-code")
    try:
        servers = read_settings(code_config).get("mcpServers")
    except (CtxError, OSError):
        servers = None
    duplicate = code_config if isinstance(servers, dict) and _is_ctx_entry(servers.get(MCP_SERVER_NAME)) else None
    return PluginResult(marketplace=root, plugin=root / "plugins" / PLUGIN, version=plugin_version(files),
                        changed=changed, commands=commands, ran=bool(binary), removed_skill=removed_skill,
                        duplicate_mcp=duplicate)


def remove_plugin(*, claude: str | None | bool = True) -> PluginResult:
    """Uninstall the plugin and forget the marketplace (with `claude` on PATH), then delete the
    folder. Without `claude`, the folder stays and the commands to run are returned."""
    root = marketplace_dir()
    binary = claude_executable() if claude is True else (claude or None)
    name = binary or "claude"
    commands = [[name, "plugin", "uninstall", PLUGIN_ID, "--scope", "user"],
                [name, "plugin", "marketplace", "remove", MARKETPLACE]]
    existed = root.exists()
    if binary:
        if plugin_enabled() or _plugin_recorded():
            _run_claude(commands[0])
        if _marketplace_known():
            _run_claude(commands[1])
        if existed:
            shutil.rmtree(root)
    return PluginResult(marketplace=root, plugin=root / "plugins" / PLUGIN, version="",
                        changed=existed and bool(binary), commands=commands, ran=bool(binary))


def _plugin_recorded() -> bool:
    path = Path.home() / ".claude" / "plugins" / "installed_plugins.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    plugins = data.get("plugins") if isinstance(data, dict) else None
    return isinstance(plugins, dict) and PLUGIN_ID in plugins


def _marketplace_known() -> bool:
    path = Path.home() / ".claude" / "plugins" / "known_marketplaces.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = {}
    if isinstance(data, dict) and MARKETPLACE in data:
        return True
    try:
        extra = read_settings(settings_path("user")).get("extraKnownMarketplaces")
    except CtxError:
        return False
    return isinstance(extra, dict) and MARKETPLACE in extra


# ------------------------------------------------------------------ MCP clients' configs

MCP_CLIENTS = ("claude-desktop", "claude-code")
MCP_SERVER_NAME = "ctx"


class McpResult(Value):
    __slots__ = ("backup", "changed", "client", "config", "entry")

    def __init__(self, client: str, config: Path, changed: bool, backup: Path | None,
                 entry: dict) -> None:
        self.client = client
        self.config = config
        self.changed = changed
        self.backup = backup
        self.entry = entry


def mcp_config_path(client: str) -> Path:
    """Where the client reads its MCP servers: Claude Code's user config ~/.claude.json (what
    `claude mcp add --scope user` writes), Claude Desktop's claude_desktop_config.json."""
    if client == "claude-code":
        return Path.home() / ".claude.json"
    if client == "claude-desktop":
        if sys.platform == "darwin":
            base = Path.home() / "Library" / "Application Support"
        elif sys.platform == "win32":
            base = Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming")
        else:
            base = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
        return base / "Claude" / "claude_desktop_config.json"
    raise CtxError(f"--mcp takes one of: {', '.join(MCP_CLIENTS)} (not {client!r})")


def mcp_entry(executable: str, db: Path | None = None, client: str = "claude-desktop") -> dict:
    entry = {"command": executable, "args": [*_db_args(db), "mcp"], "env": {}}
    return {"type": "stdio", **entry} if client == "claude-code" else entry


def _is_ctx_entry(entry: object) -> bool:
    if not isinstance(entry, dict):
        return False
    command = Path(str(entry.get("command") or "")).name
    return command in ("ctx", "ctx.exe") and "mcp" in (entry.get("args") or [])


def merge_mcp(config: dict, entry: dict | None, name: str = MCP_SERVER_NAME) -> tuple[dict, bool]:
    """(config with `name` set to `entry` — or removed when None —, changed). Every other key
    and server is kept. A server of that name that is not a ctx server is not overwritten."""
    if not isinstance(config, dict):
        raise CtxError("the client's config does not hold a JSON object; fix it by hand first")
    merged = json.loads(json.dumps(config))
    servers = merged.get("mcpServers")
    if servers is None:
        if entry is None:
            return merged, False
        servers = merged["mcpServers"] = {}
    if not isinstance(servers, dict):
        raise CtxError("the client's config has an \"mcpServers\" value that is not an object; "
                       "fix it by hand first")
    current = servers.get(name)
    if current is not None and not _is_ctx_entry(current):
        raise CtxError(f"the client already has an MCP server named {name!r} that is not ctx "
                       f"({json.dumps(current)[:80]}); rename or remove it first")
    if entry is None:
        servers.pop(name, None)
    else:
        servers[name] = entry
    return merged, merged != config


def install_mcp(client: str, *, db: str | os.PathLike | None = None, executable: str | None = None,
                remove: bool = False) -> McpResult:
    """Add (or update, or remove) ctx in an MCP client's config: idempotent, atomic, backed up."""
    target = mcp_config_path(client)
    executable = executable or ctx_executable()
    db_file = paths.db_path(db).expanduser().resolve()
    mcp_db = None if db_file == (paths.home() / "store.db").expanduser().resolve() else db_file
    entry = mcp_entry(executable, mcp_db, client)
    merged, changed = merge_mcp(read_settings(target), None if remove else entry)
    backup = write_settings(target, merged) if changed else None
    return McpResult(client=client, config=target, changed=changed, backup=backup, entry=entry)
