"""What ctx and cue share under their edges: exit codes, errors, SQLite, migrations.

Both programs import this package; it imports neither of them, and it stays stdlib-only
where `ctx hook …` reaches it (exits, errors, sqlite, migrations), so hooks start fast.
"""
