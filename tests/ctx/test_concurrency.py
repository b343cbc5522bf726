"""Several writers at once (Claude Code sessions + cron): nothing lost, nobody fails."""
from __future__ import annotations

import subprocess
import sys
import textwrap

from ctx.core import db
from ctx.core.store import Store

WRITER = textwrap.dedent("""
    import sys
    from ctx.core import db
    from ctx.core.store import Store
    path, worker = sys.argv[1], int(sys.argv[2])
    for i in range(200):
        conn = db.connect(path)          # one short-lived connection per write, like a hook
        try:
            Store(conn).add(f"worker {worker} note {i}", tags=[f"worker:{worker}"])
        finally:
            conn.close()
""")


def test_eight_processes_adding_200_nodes_each(tmp_path):
    path = tmp_path / "shared.db"
    db.connect(path).close()
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(w)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE) for w in range(8)]
    results = [(p.wait(timeout=240), p.stderr.read().decode()) for p in procs]
    assert all(code == 0 for code, _ in results), results
    conn = db.connect(path)
    store = Store(conn)
    assert store.count() == 1600
    for w in range(8):
        assert len(store.list_nodes(tags=[f"worker:{w}"])) == 200
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()


FIRST_OPEN = textwrap.dedent("""
    import sys
    from ctx.core import db
    from ctx.core.store import Store
    conn = db.connect(sys.argv[1])
    Store(conn).add(f"first open by {sys.argv[2]}")
    conn.close()
""")


def test_eight_processes_creating_the_same_new_database(tmp_path):
    """The first hooks after `ctx install` race to create and migrate the database."""
    path = tmp_path / "new.db"
    procs = [subprocess.Popen([sys.executable, "-c", FIRST_OPEN, str(path), str(w)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE) for w in range(8)]
    results = [(p.wait(timeout=120), p.stderr.read().decode()) for p in procs]
    assert all(code == 0 for code, _ in results), results
    conn = db.connect(path)
    assert Store(conn).count() == 8
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()
