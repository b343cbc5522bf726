"""Claude Code integration: hooks, reply tags, actions, sessions, request records, install."""
