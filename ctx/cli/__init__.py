"""The `ctx` command line: the Typer app, shared CLI state, one module per command group."""
