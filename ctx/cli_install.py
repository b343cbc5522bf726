"""`ctx install`: wiring for ctx/install.py."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer


def _tilde(path: Path) -> str:
    home = str(Path.home())
    text = str(path)
    return "~" + text[len(home):] if text.startswith(home + "/") else text


def register(app: typer.Typer) -> None:
    """Add `ctx install` to the app."""

    @app.command("install")
    def install_(
        hooks: Annotated[str | None, typer.Option(
            "--hooks", metavar="user|project",
            help="Also merge the three hooks into ~/.claude/settings.json (user) or "
                 "./.claude/settings.json (project): idempotent, other settings kept, "
                 "previous file backed up.")] = None,
        project_dir: Annotated[Path | None, typer.Option(
            "--project-dir", help="Project folder for --hooks project (default: the current one).")] = None,
        skill: Annotated[bool, typer.Option("--skill/--no-skill",
                                            help="Install the skill to ~/.claude/skills/ctx/SKILL.md.")] = True,
    ) -> None:
        """Set up ctx for Claude Code: ~/.ctx, the database, the skill, and the hooks.

        Example: ctx install --hooks user
        """
        from ctx.cli import state
        from ctx.install import SCOPES, install

        if hooks is not None and hooks not in SCOPES:
            raise typer.BadParameter(f"use one of: {', '.join(SCOPES)}", param_hint="--hooks")
        result = install(db=state.db_path, hooks=hooks, project_dir=project_dir, skill=skill)
        lines = ["ctx installed successfully!", "", f"Database: {_tilde(result.db)}"]
        if result.skill:
            lines.append(f"Skill: {_tilde(result.skill)}" + ("" if result.skill_changed else " (unchanged)"))
        lines.append("")
        snippet = json.dumps(result.snippet, indent=2)
        if result.settings:
            if result.settings_changed:
                lines.append(f"Hooks added to {_tilde(result.settings)}"
                             + (f" (previous file kept as {_tilde(result.backup)})" if result.backup else ""))
            else:
                lines.append(f"Hooks already in {_tilde(result.settings)} (nothing changed)")
            lines += ["", "Then restart Claude Code to load the new configuration."
                      if result.settings_changed else "Claude Code is ready to use ctx."]
        else:
            lines += [("To enable hooks, add to ~/.claude/settings.json (or run "
                      "`ctx install --hooks user`):"), "", snippet, "",
                      "Then restart Claude Code to load the new configuration."]
        typer.echo("\n".join(lines))
