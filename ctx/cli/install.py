"""`ctx install`: wiring for ctx/claude/install.py."""
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
        plugin: Annotated[bool, typer.Option(
            "--plugin", help="Install ctx as a Claude Code plugin instead (hooks, MCP server and "
                             "skill in a local marketplace under ~/.ctx); re-run to update.")] = False,
        mcp: Annotated[str | None, typer.Option(
            "--mcp", metavar="claude-desktop|claude-code",
            help="Add the `ctx mcp` server to that client's config: idempotent, other servers "
                 "kept, previous file backed up.")] = None,
        remove: Annotated[bool, typer.Option(
            "--remove", help="Undo --hooks, --plugin or --mcp instead.")] = False,
    ) -> None:
        """Set up ctx for Claude Code: ~/.ctx, the database, the skill, and the hooks — or the
        plugin, or the MCP server for Claude Desktop and other clients.

        Example: ctx install --hooks user

        Example: ctx install --plugin

        Example: ctx install --mcp claude-desktop
        """
        from ctx.claude.install import MCP_CLIENTS, SCOPES, install
        from ctx.cli.state import state

        if hooks is not None and hooks not in SCOPES:
            raise typer.BadParameter(f"use one of: {', '.join(SCOPES)}", param_hint="--hooks")
        if mcp is not None and mcp not in MCP_CLIENTS:
            raise typer.BadParameter(f"use one of: {', '.join(MCP_CLIENTS)}", param_hint="--mcp")
        if plugin and hooks:
            raise typer.BadParameter("the plugin brings the hooks: give --plugin or --hooks, not both",
                                     param_hint="--plugin")
        if remove and not (hooks or plugin or mcp):
            raise typer.BadParameter("say what to remove: --hooks SCOPE, --plugin or --mcp CLIENT",
                                     param_hint="--remove")
        if remove:
            typer.echo("\n".join(_remove(hooks, project_dir, plugin, mcp, state.db_path)))
            return
        if plugin:
            typer.echo("\n".join(_plugin(state.db_path, project_dir)
                                 + (_mcp(mcp, state.db_path) if mcp else [])))
            return
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
        elif mcp:
            lines.pop()  # the MCP server is what was asked for; no hooks snippet
        else:
            lines += [("To enable hooks, add to ~/.claude/settings.json (or run "
                      "`ctx install --hooks user`, or `ctx install --plugin`):"), "", snippet, "",
                      "Then restart Claude Code to load the new configuration."]
        if mcp:
            lines += ["", *_mcp(mcp, state.db_path)]
        typer.echo("\n".join(lines))


def _plugin(db, project_dir) -> list[str]:
    from ctx.claude.install import install_plugin

    r = install_plugin(db=db, project_dir=project_dir)
    lines = [(f"ctx plugin {r.version} {'written to' if r.changed else 'unchanged in'} "
              f"{_tilde(r.marketplace)} (marketplace ctx-local, plugin ctx@ctx-local)")]
    if r.removed_skill:
        lines.append(f"Removed {_tilde(r.removed_skill)}: the plugin brings the same skill")
    if r.duplicate_mcp:
        lines.append(f"Note: {_tilde(r.duplicate_mcp)} also has a ctx MCP server, so Claude Code "
                     f"would start two; remove it with `ctx install --mcp claude-code --remove`")
    if r.ran:
        lines += ["Installed in Claude Code: " + "; ".join(" ".join(c[1:]) for c in r.commands),
                  "Restart Claude Code (or /reload-plugins) to load it."]
    else:
        lines += ["`claude` is not on PATH; install the plugin with:", "",
                  *("  " + " ".join(c) for c in r.commands)]
    return lines


def _mcp(client, db) -> list[str]:
    from ctx.claude.install import install_mcp

    r = install_mcp(client, db=db)
    if not r.changed:
        return [f"MCP server ctx already in {_tilde(r.config)} (nothing changed)"]
    return [f"MCP server ctx added to {_tilde(r.config)}"
            + (f" (previous file kept as {_tilde(r.backup)})" if r.backup else ""),
            f"Restart {'Claude Desktop' if client == 'claude-desktop' else 'Claude Code'} to load it."]


def _remove(hooks, project_dir, plugin, mcp, db) -> list[str]:
    from ctx.claude.install import install_mcp, remove_plugin, remove_settings_hooks

    lines = []
    if hooks:
        path, changed, backup = remove_settings_hooks(hooks, project_dir)
        lines.append(f"Hooks removed from {_tilde(path)}"
                     + (f" (previous file kept as {_tilde(backup)})" if backup else "")
                     if changed else f"No ctx hooks in {_tilde(path)} (nothing changed)")
    if plugin:
        r = remove_plugin()
        if r.ran:
            lines.append(f"Plugin ctx@ctx-local uninstalled and {_tilde(r.marketplace)} deleted"
                         if r.changed else "The ctx plugin was not installed (nothing changed)")
        else:
            lines += ["`claude` is not on PATH; uninstall the plugin with:", "",
                      *("  " + " ".join(c) for c in r.commands), "",
                      f"then delete {_tilde(r.marketplace)}."]
    if mcp:
        r = install_mcp(mcp, db=db, remove=True)
        lines.append(f"MCP server ctx removed from {_tilde(r.config)}"
                     + (f" (previous file kept as {_tilde(r.backup)})" if r.backup else "")
                     if r.changed else f"No ctx MCP server in {_tilde(r.config)} (nothing changed)")
    return lines
