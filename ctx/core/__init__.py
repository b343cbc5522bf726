"""The pure domain: no typer, rich, web or Claude Code knowledge."""
