"""`ctx install` (SPEC §2.7, seed §18): the home folder, the database with its default view,
the skill file, and — when asked — the three hooks merged into a Claude Code settings.json.

The merge is idempotent and conservative: ctx's own hook entries are recognised by their
command (`… ctx hook session-start|prompt-submit|stop`), updated in place when the path of
`ctx` changed, and added once when missing; every other key, hook and matcher group is kept
as it was. The file is written atomically, and the previous one is kept as a backup. A
settings file that is not a JSON object is an error and is not touched.
"""
from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from ctx import paths
from ctx.errors import CtxError

HOOKS = (("SessionStart", "session-start"), ("UserPromptSubmit", "prompt-submit"), ("Stop", "stop"))
HOOK_TIMEOUT_S = 30
SCOPES = ("user", "project")
_CTX_HOOK = re.compile(r"""(?:^|[\s/\\'"])ctx(?:\.exe)?['"]?\s+hook\s+(session-start|prompt-submit|stop)\b""")


@dataclass(frozen=True)
class InstallResult:
    home: Path
    db: Path
    skill: Path | None
    skill_changed: bool
    settings: Path | None
    settings_changed: bool
    backup: Path | None
    snippet: dict


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
    here = Path(__file__).resolve().parent
    for candidate in (here.parent / "skill" / "SKILL.md", here / "skill" / "SKILL.md"):
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
    tmp = path.with_name(f".{path.name}.ctx-tmp-{os.getpid()}")
    tmp.write_text(json.dumps(settings, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.chmod(mode)
    os.replace(tmp, path)
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
    from ctx import db as ctx_db

    executable = executable or ctx_executable()
    db_file = paths.db_path(db).expanduser().resolve()
    default_db = (paths.home() / "store.db").expanduser().resolve()
    hook_db = None if db_file == default_db else db_file
    target = settings_path(hooks, project_dir) if hooks else None
    merged = changed = None
    if target is not None:
        merged, changed = merge_hooks(read_settings(target), executable, hook_db)
    text = skill_source() if skill else None

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
