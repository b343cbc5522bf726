"""Transactions nest on the connection, not on a Store: two Stores (or a Store and a
helper such as ctx.claude.sessions) over one connection join one transaction."""
from __future__ import annotations

import pytest

from ctx.core import db
from ctx.core.store import Store


def test_two_stores_on_one_connection_share_the_transaction():
    conn = db.connect()
    a, b = Store(conn), Store(conn)
    with a.transaction():
        a.add("from a")
        with b.transaction():  # used to fail: "cannot start a transaction within a transaction"
            b.add("from b")
        with db.transaction(conn):  # a module-level helper joins it too
            conn.execute("INSERT INTO views (name, query, budget, created_at, updated_at) "
                         "VALUES ('v', 'type:fact', 10, 'x', 'x')")
    assert sorted(n.content for n in a.list_nodes()) == ["from a", "from b"]
    with pytest.raises(RuntimeError), b.transaction():
        a.add("rolled back")
        raise RuntimeError("boom")
    assert len(b.list_nodes()) == 2 and not conn.in_transaction
    conn.close()
