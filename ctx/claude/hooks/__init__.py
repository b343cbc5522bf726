"""Claude Code hooks: `ctx hook session-start | prompt-submit | stop` (SPEC §2.5).

Dispatched by ctx/__main__.py before Typer loads; see entry.py for the contract every hook
keeps (one JSON object on stdout, never exit 2, only a corrupt database exits 1).
"""
