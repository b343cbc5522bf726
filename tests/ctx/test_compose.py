"""Composition: tier order, budget fitting, seed §13 markdown, JSON, the character cap."""
from __future__ import annotations

import pytest

from ctx.core import db
from ctx.core.compose import compose, render_json, render_markdown
from ctx.core.store import Store


@pytest.fixture
def store(tmp_path):
    conn = db.connect(tmp_path / "s.db")
    yield Store(conn)
    conn.close()


def test_seed_markdown_format(store):
    w = store.add("currently refactoring auth", "task", ["tier:working"])
    f = store.add("API uses OAuth 2.0 with PKCE", "fact", ["tier:reference", "project:auth"])
    d = store.add("Refresh tokens stay server-side", "decision", ["tier:reference"],
                  {"rationale": "XSS exposure"})
    p = store.add("Always run migrations in a transaction", "pattern", ["tier:pinned", "db"])
    store.link(d.id, f.id, "DEPENDS_ON")
    comp = compose(store)
    text = render_markdown(comp, rendered_at="2026-11-21T00:00:00.000Z")
    s = comp.short_ids
    tokens = sum(n.token_estimate for n in (w, f, d, p))
    assert text == (
        f"<!-- ctx: 4 nodes, {tokens} tokens, rendered at 2026-11-21T00:00:00.000Z -->\n\n"
        "## Pinned\n\n"
        f"- [pattern:{s[p.id]}] Always run migrations in a transaction\n  - Tags: db, tier:pinned\n\n"
        "## Reference\n\n"
        "### Facts\n\n"
        f"- [fact:{s[f.id]}] API uses OAuth 2.0 with PKCE\n\n"
        "### Decisions\n\n"
        f"- [decision:{s[d.id]}] Refresh tokens stay server-side\n"
        f"  - Rationale: XSS exposure\n  - Depends on: [{s[f.id]}]\n\n"
        "## Working Context\n\n"
        f"- [task:{s[w.id]}] currently refactoring auth\n\n"
        "<!-- ctx:end -->\n"
    )
    assert all(len(v) >= 8 for v in s.values())
    assert render_markdown(comp) == render_markdown(compose(store))  # stable without a timestamp
    data = render_json(comp, rendered_at="t")
    assert [n["id"] for n in data["nodes"]] == [p.id, f.id, d.id, w.id]
    assert data["nodes"][2]["edges"] == {"depends_on": [f.id], "derived_from": []}


def test_budget_skips_nodes_that_do_not_fit_without_truncating(store):
    big = store.add("B" * 400, tags=["tier:pinned"])       # 100 tokens
    small = store.add("s" * 40, tags=["tier:reference"])   # 10 tokens
    comp = compose(store, budget=50)
    assert [n.id for n in comp.nodes] == [small.id]
    assert comp.left_out == 1 and big.content not in render_markdown(comp)


def test_char_cap_keeps_priority_and_says_what_was_left_out(store):
    for i in range(300):
        store.add(f"reference node {i:03d} " + "r" * 380, tags=["tier:reference"])
    pinned = store.add("the pinned one", tags=["tier:pinned"])
    comp = compose(store, max_chars=9500)
    text = render_markdown(comp)
    assert len(text) <= 9500
    assert comp.nodes[0].id == pinned.id
    assert comp.left_out == 301 - len(comp.nodes) > 0
    assert f"_{comp.left_out} more matching nodes" in text
    assert "<ctx:recall" in text and "ctx compose" in text


def test_short_ids_grow_until_unique(store):
    a = store.add("a", id="01JD3K8W000000000000000000", tags=["tier:reference"])
    b = store.add("b", id="01JD3K8W000000000000000001", tags=["tier:reference"])
    c = store.add("c", id="01JD9999000000000000000000", tags=["tier:reference"])
    s = compose(store).short_ids
    assert s[a.id] == a.id and s[b.id] == b.id  # share 25 chars
    assert s[c.id] == "01JD9999"
    for sid in s.values():
        assert store.resolve(sid) in (a.id, b.id, c.id)
