"""Claude Code hooks: `ctx hook session-start | prompt-submit | stop` (SPEC §2.5).

Dispatched by ctx/__main__.py before Typer loads; see entry.py for the contract every hook
keeps (one JSON object on stdout, never exit 2, only a corrupt database exits 1).
"""

# Store connections a hook left open because its process is about to end (closing the last
# connection to a WAL database checkpoints it with an fsync that nobody should wait for):
# warm.py and store_access.py add to it; a hook server's child closes them once its client
# has the answer (store_access.close_left_open).
LEFT_OPEN: list = []

# Work a hook may leave until its client has the answer: a hook server's child sets this to a
# list before it runs the hook and calls each entry once the answer is sent (the session
# record of ctx.claude.capture_hook); elsewhere it stays None and the work runs in line.
AFTER_ANSWER: list | None = None
