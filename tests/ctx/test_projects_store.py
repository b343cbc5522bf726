"""Projects in the store: the migration, scoped reads and writes, rename/move/merge/forget."""
from __future__ import annotations

import sqlite3

import pytest

from ctx.core import db
from ctx.core import projects as scope
from ctx.core.errors import CtxError, NotFoundError
from ctx.core.migrations import migrate
from ctx.core.repo import ProjectRef
from ctx.core.store import EVERYTHING, GLOBAL_ONLY, Scope, Store, current_scope


def ref(path: str, remote: str | None = None) -> ProjectRef:
    key = remote or path
    return ProjectRef(key=key, name=path.rsplit("/", 1)[-1], root=path, remote=remote, source="git")


@pytest.fixture
def store(tmp_path):
    conn = db.connect(tmp_path / "p.db")
    yield Store(conn)
    conn.close()


def test_migration_makes_every_existing_node_global(tmp_path):
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path, isolation_level=None)
    migrate(conn, target=2)
    conn.execute("INSERT INTO nodes (id, type, content, token_estimate, created_at, updated_at) "
                 "VALUES ('01JD3K8W000000000000000000', 'fact', 'written before projects existed', "
                 "8, '2026', '2026')")
    conn.close()
    conn = db.connect(path)
    s = Store(conn)
    (node,) = s.list_nodes()
    assert node.project is None and node.to_dict()["project"] is None
    assert conn.execute("SELECT project_id FROM nodes").fetchone()[0] is None
    assert [n.id for n in s.list_nodes(scope=Scope(project=scope.ensure(conn, ref("/r/a"))))] == [node.id]
    conn.close()


def test_scoped_reads_see_their_project_and_global_only(store):
    c = store.conn
    a, b = scope.ensure(c, ref("/r/a")), scope.ensure(c, ref("/r/b"))
    g = store.add("global fact", "fact", ["tier:pinned"])
    na = store.add("fact of a", "fact", ["tier:reference"], project_id=a.id)
    nb = store.add("fact of b", "fact", ["tier:reference"], project_id=b.id)
    in_a = Scope(project=a)
    assert {n.id for n in store.list_nodes(scope=in_a)} == {g.id, na.id}
    assert {n.id for n in store.query("fact", scope=in_a)} == {g.id, na.id}
    assert {n.id for n in store.query("fact", scope=GLOBAL_ONLY)} == {g.id}
    assert {n.id for n in store.query("fact", scope=EVERYTHING)} == {g.id, na.id, nb.id}
    assert {n.id for n in store.query("fact")} == {g.id, na.id, nb.id}  # no scope: as before
    # a query that names its scope is not narrowed again
    assert {n.id for n in store.query("project:b", scope=in_a)} == {nb.id}
    assert store.get(nb.id).project == "b"  # ids resolve anywhere
    assert store.stats(scope=in_a)["live_nodes"] == 2


def test_current_scope_from_a_folder(tmp_path, store):
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    (tmp_path / "repo" / "src").mkdir()
    s = current_scope(store.conn, tmp_path / "repo" / "src", env={})
    assert s.project is None and s.ref.name == "repo"  # nothing stored yet: reads see global
    assert s.sql() == ("n.project_id IS NULL", [])
    pid = s.write_project_id(store.conn)
    again = current_scope(store.conn, tmp_path / "repo", env={})
    assert again.project.id == pid and again.label == "repo + global"
    assert current_scope(store.conn, tmp_path, env={}) == GLOBAL_ONLY
    assert current_scope(store.conn, tmp_path / "repo", env={"CTX_PROJECT": "global"}) == GLOBAL_ONLY
    assert current_scope(store.conn, project="REPO").project.id == pid
    with pytest.raises(NotFoundError, match="no project named 'nope'"):
        current_scope(store.conn, project="nope")
    with pytest.raises(CtxError, match="not both"):
        current_scope(store.conn, project="repo", all_projects=True)


def test_same_folder_names_get_unique_display_names(store):
    a = scope.ensure(store.conn, ref("/x/api"))
    b = scope.ensure(store.conn, ref("/y/api"))
    c = scope.ensure(store.conn, ref("/z/api"))
    assert (a.name, b.name, c.name) == ("api", "api-2", "api-3")
    assert scope.ensure(store.conn, ref("/x/api")).id == a.id


def test_moved_repository_keeps_its_project_by_remote(store):
    a = scope.ensure(store.conn, ref("/old/api", "github.com/acme/api"))
    moved = scope.ensure(store.conn, ref("/new/place/api", "github.com/acme/api"))
    assert moved.id == a.id and moved.root == "/new/place/api" and moved.name == "api"


def test_a_repository_that_gains_a_remote_keeps_its_project(store):
    a = scope.ensure(store.conn, ref("/r/api"))
    later = scope.ensure(store.conn, ref("/r/api", "github.com/acme/api"))
    assert later.id == a.id and later.key == "github.com/acme/api"


def test_rename_move_merge_forget(store):
    c = store.conn
    a, b = scope.ensure(c, ref("/r/a")), scope.ensure(c, ref("/r/b"))
    na = store.add("one", project_id=a.id)
    nb = store.add("two", project_id=b.id)
    other = store.add("three", project_id=b.id)
    store.supersede(other.id, nb.id)
    assert scope.rename(c, "a", "alpha").name == "alpha"
    for bad in ("has space", "global", "", "-x"):
        with pytest.raises(CtxError):
            scope.rename(c, "alpha", bad)
    with pytest.raises(CtxError, match="already exists"):
        scope.rename(c, "alpha", "B")
    store.move_to_project([na.id], "global")
    assert store.get(na.id).project is None
    store.move_to_project([na.id], "alpha")
    with pytest.raises(CtxError, match="into itself"):
        store.merge_projects("alpha", "ALPHA")
    into, moved = store.merge_projects("b", "alpha")
    assert moved == 2 and into.id == a.id
    assert {n.project for n in store.list_nodes(include_superseded=True)} == {"alpha"}
    # b's folder now resolves to alpha
    assert scope.find(c, ref("/r/b")).id == a.id
    forgotten, deleted = store.forget_project("alpha")
    assert forgotten.name == "alpha" and deleted == 3 and store.count() == 0
    with pytest.raises(NotFoundError):
        scope.get(c, "alpha")


def test_list_projects_counts(store):
    c = store.conn
    a = scope.ensure(c, ref("/r/a", "github.com/o/a"))
    store.add("x", project_id=a.id)
    store.add("y")
    rows = store.list_projects()
    assert rows[0]["name"] == "a" and rows[0]["nodes"] == 1 and rows[0]["remote"] == "github.com/o/a"
    assert store.global_counts() == (1, 0)


def test_add_many_checks_the_project_exists(store):
    with pytest.raises(CtxError, match="no project with id 99"):
        store.add("x", project_id=99)
    with pytest.raises(CtxError, match="project_id must be"):
        store.add_many([{"content": "x", "project_id": "api"}])
    assert store.count() == 0


def test_export_import_keeps_scopes_byte_identical(tmp_path, store):
    from ctx.core.transfer import export_lines, import_lines

    c = store.conn
    a = scope.ensure(c, ref("/r/api", "github.com/acme/api"))
    b = scope.ensure(c, ref("/s/api"))  # same folder name: api-2
    store.merge_projects("api-2", "api")  # leaves an alias
    scope.ensure(c, ref("/t/web"))
    x = store.add("api fact", "fact", ["tier:reference"], project_id=a.id)
    g = store.add("global fact", "fact", ["tier:pinned"])
    store.link(x.id, g.id, "DEPENDS_ON")
    first = list(export_lines(store))
    assert '"version":2' in first[0]
    assert sum('"kind":"project"' in line for line in first) == 2
    other = Store(db.connect(tmp_path / "other.db"))
    counts = import_lines(other, first)
    assert counts["projects"] == 2 and counts["nodes"] == 2
    assert list(export_lines(other)) == first
    assert {n.content: n.project for n in other.list_nodes()} == {"api fact": "api", "global fact": None}
    assert scope.find(other.conn, ref("/s/api")).name == "api"  # the alias came along
    assert b.name == "api-2"
    other.conn.close()


def test_import_reads_version_1_files_as_global_memory(tmp_path, store):
    from ctx.core.transfer import import_lines

    v1 = ['{"kind":"ctx-export","version":1}',
          ('{"content":"old","created_at":"2026-01-01T00:00:00.000Z","id":"01JD3K8W000000000000000000",'
          '"kind":"node","metadata":{},"superseded_by":null,"tags":["tier:pinned"],'
          '"token_estimate":0,"type":"fact","updated_at":"2026-01-01T00:00:00.000Z"}')]
    import_lines(store, v1)
    (node,) = store.list_nodes()
    assert node.content == "old" and node.project is None


def test_import_with_an_undescribed_project_changes_nothing(store):
    from ctx.core.transfer import import_lines

    bad = ['{"kind":"ctx-export","version":2}',
           ('{"content":"x","id":"01JD3K8W000000000000000000","kind":"node","project":"gh/x/y",'
           '"type":"fact"}')]
    with pytest.raises(CtxError, match="does not describe"):
        import_lines(store, bad)
    assert store.count() == 0


@pytest.mark.parametrize("mode", ["semantic", "hybrid", "keyword"])
def test_search_ranks_only_within_the_scope(store, mode):
    """Real MiniLM: the best match overall is in another project; scoped, it is never ranked."""
    from ctx.semantic.search import Eligibility, SearchOptions, search

    c = store.conn
    a, b = scope.ensure(c, ref("/r/a")), scope.ensure(c, ref("/r/b"))
    other = store.add("The billing worker retries a declined charge three times.", project_id=b.id)
    mine = store.add("Declined payments go to the dunning queue after the first failure.",
                     project_id=a.id)
    shared = store.add("Charges are in cents, never in floating point.")
    everywhere = search(c, "declined charge retries", SearchOptions(mode=mode))
    assert everywhere.candidates[0].node_id == other.id
    scoped = search(c, "declined charge retries", SearchOptions(mode=mode),
                    eligibility=Eligibility.within(Scope(project=a)))
    got = {h.node_id for h in scoped.candidates}
    assert other.id not in got and mine.id in got and got <= {mine.id, shared.id}
    assert {h.node_id for h in search(c, "declined charge retries", SearchOptions(mode=mode),
                                      eligibility=Eligibility.within(EVERYTHING)).candidates} \
        >= {other.id, mine.id}


@pytest.mark.parametrize("who", ["a", "b", "global", "everything"])
def test_scoped_vectors_are_masked_from_either_side(store, who):
    """The semantic half lists the shorter side (chunks outside the scope, or inside it);
    either way exactly the scope's live nodes are ranked: project a is small (outside is the
    long side), b is most of the store (outside is short), global alone leaves both out."""
    from ctx.semantic.search import Eligibility, SearchOptions, search

    c = store.conn
    a, b = scope.ensure(c, ref("/r/a")), scope.ensure(c, ref("/r/b"))
    topics = ["retries", "invoices", "queues", "caches", "tokens", "backups", "indexes"]
    nodes = {"a": [store.add(f"Project a decided how {t} work.", project_id=a.id)
                   for t in topics[:2]],
             "b": [store.add(f"Project b decided how {t} work.", project_id=b.id)
                   for t in topics],
             "global": [store.add(f"Everyone agreed how {t} work.") for t in topics[:3]]}
    old = store.add("Project b once decided retries differently.", project_id=b.id)
    store.supersede(old.id, nodes["b"][0].id)
    scopes = {"a": Scope(project=a), "b": Scope(project=b), "global": Scope(),
              "everything": EVERYTHING}
    want = {n.id for n in nodes["global"]}
    want |= {n.id for k in ("a", "b") if who in (k, "everything") for n in nodes[k]}
    got = search(c, "how do retries work", SearchOptions(mode="semantic", top_k=50),
                 eligibility=Eligibility.within(scopes[who]))
    assert {h.node_id for h in got.candidates} == want


def test_ctx_project_names_are_cleaned_and_found_again(store):
    env_ref = ProjectRef(key="", name="my scratch", root=None, remote=None, source="env")
    first = scope.ensure(store.conn, env_ref)
    assert first.name == "my-scratch"
    assert scope.ensure(store.conn, env_ref).id == first.id
    assert scope.find(store.conn, ProjectRef("", "MY-SCRATCH", None, None, "env")).id == first.id
