"""Memory that travels with the repository (issue 24, SPEC §2.11), with real git: a bare
repository and two clones, two ctx databases — two people, Ann and Bob."""
from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from ctx.core import db, share
from ctx.core.store import Store, current_scope

AWS_KEY = "AKIAIOSFODNN7QWERTYU"


def git(cwd: Path, *args: str, who: str = "Ann", check: bool = True) -> subprocess.CompletedProcess:
    env = {**os.environ, "GIT_AUTHOR_NAME": who, "GIT_AUTHOR_EMAIL": f"{who.lower()}@example.com",
           "GIT_COMMITTER_NAME": who, "GIT_COMMITTER_EMAIL": f"{who.lower()}@example.com"}
    return subprocess.run(["git", "-c", "init.defaultBranch=main", "-c", "pull.rebase=false", *args],
                          cwd=cwd, env=env, check=check, capture_output=True, text=True)


class Person:
    """One developer: a clone of the team's repository and a ctx database of their own."""

    def __init__(self, name: str, clone: Path, dbfile: Path):
        self.name, self.clone, self.db = name, clone, dbfile
        self.conn = db.connect(dbfile)
        self.store = Store(self.conn)

    @property
    def by(self) -> str:
        return f"{self.name} <{self.name.lower()}@example.com>"

    def scope(self):
        return current_scope(self.conn, self.clone)

    def add(self, content: str, tier: str = "reference", *tags: str, type: str = "fact", secrets=None):
        store = Store(self.conn, secrets=secrets)
        return store.add(content, type, [f"tier:{tier}", *tags],
                         project_id=self.scope().write_project_id(self.conn))

    def share(self, selection=None):
        return share.share_project(self.store, self.scope(), selection, by=self.by)

    def refresh(self):
        return share.refresh_if_changed(self.store, self.scope())

    def commit(self, message: str = "share memory") -> None:
        git(self.clone, "add", ".ctx", who=self.name)
        git(self.clone, "commit", "-qm", message, who=self.name)

    def push(self) -> None:
        git(self.clone, "push", "-q", "origin", "main", who=self.name)

    def pull(self) -> subprocess.CompletedProcess:
        return git(self.clone, "pull", "-q", "--no-edit", "origin", "main", who=self.name, check=False)

    def live(self) -> dict[str, str]:
        return {n.id: n.content for n in self.store.list_nodes(scope=self.scope())}

    def everything(self) -> dict[str, tuple]:
        return {n.id: (n.content, n.superseded_by) for n in self.store.list_nodes(
            include_superseded=True, scope=self.scope())}

    def file(self) -> str:
        return (self.clone / share.FILE).read_text(encoding="utf-8")

    def hook(self, ctx_bin: str, event: str = "session-start", payload: dict | None = None,
             *args: str) -> subprocess.CompletedProcess:
        env = {k: v for k, v in os.environ.items()
               if not k.startswith("CTX_") or k == "CTX_RUN_DIR"}  # (this run's hook servers)
        env["CTX_DB"] = str(self.db)
        data = {"session_id": f"{self.name}-{event}", "cwd": str(self.clone),
                "hook_event_name": {"session-start": "SessionStart", "stop": "Stop"}[event],
                "source": "startup", **(payload or {})}
        return subprocess.run([ctx_bin, "hook", event, *args], check=False, input=json.dumps(data), env=env,
                              capture_output=True, text=True, timeout=60, cwd=self.clone)

    def cli(self, ctx_bin: str, *args: str) -> subprocess.CompletedProcess:
        env = {k: v for k, v in os.environ.items() if not k.startswith("CTX_")}
        env.update(CTX_DB=str(self.db), GIT_AUTHOR_NAME=self.name,
                   GIT_AUTHOR_EMAIL=f"{self.name.lower()}@example.com")
        return subprocess.run([ctx_bin, *args], check=False, env=env, capture_output=True, text=True, timeout=60,
                              cwd=self.clone)


@pytest.fixture
def team(tmp_path):
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", str(origin))
    seed = tmp_path / "seed"
    git(tmp_path, "clone", "-q", str(origin), str(seed))
    (seed / "README.md").write_text("# the team's repository\n")
    git(seed, "add", "README.md")
    git(seed, "commit", "-qm", "init")
    git(seed, "push", "-q", "origin", "main")
    people = []
    for name in ("Ann", "Bob"):
        clone = tmp_path / name.lower()
        git(tmp_path, "clone", "-q", str(origin), str(clone))
        people.append(Person(name, clone, tmp_path / f"{name.lower()}.db"))
    yield people
    for p in people:
        p.conn.close()


def node_lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines()[1:]]


# ------------------------------------------------------------------------------ the file

def test_share_writes_live_pinned_and_reference_nodes_one_per_line(team):
    ann, _ = team
    ref = ann.add("Staging DB listens on port 6543")
    pinned = ann.add("Never deploy on Fridays", "pinned", type="decision")
    ann.add("Ann's salary negotiation notes", "pinned", "private")
    ann.add("Trying a new index on users", "working")
    ann.add("Old sprint notes", "off-context")
    ann.store.link(pinned.id, ref.id, "DEPENDS_ON")
    imported, exported, sel = ann.share()
    assert sel.tiers == ("pinned", "reference") and not imported.read
    assert exported.nodes == 2 and exported.written
    text = ann.file()
    lines = text.splitlines()
    assert json.loads(lines[0]) == {"kind": "ctx-share", "version": 1}
    records = node_lines(text)
    assert [r["id"] for r in records] == sorted([ref.id, pinned.id])
    for line, rec in zip(lines[1:], records, strict=True):
        assert line == json.dumps(rec, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
        assert "token_estimate" not in rec and "project" not in rec
        assert rec["by"] == "Ann <ann@example.com>"
    by_id = {r["id"]: r for r in records}
    assert by_id[pinned.id]["edges"] == [[ref.id, "DEPENDS_ON"]]
    assert "private" not in text and "salary" not in text and "index on users" not in text
    # meant for git: readable like any file in the repository, never 0600
    mode = stat.S_IMODE((ann.clone / share.FILE).stat().st_mode)
    assert mode == 0o666 & ~_umask() and mode & 0o044
    assert "merge=union" in (ann.clone / share.ATTRIBUTES).read_text()
    # unchanged memory: the file is not rewritten, byte for byte the same
    _, again, _ = ann.share()
    assert not again.written and ann.file() == text


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_a_change_to_one_node_is_a_one_line_diff(team):
    ann, _ = team
    nodes = [ann.add(f"fact number {i}") for i in range(5)]
    ann.share()
    ann.commit()
    ann.store.update(nodes[2].id, content="fact number 2, corrected")
    ann.share()
    diff = git(ann.clone, "diff", "--numstat", share.FILE).stdout.split()
    assert diff[:2] == ["1", "1"]


def test_selection_by_tier_type_and_tag_is_saved(team):
    ann, _ = team
    ann.add("a working decision", "working", type="decision")
    ann.add("a working fact", "working")
    ann.add("a reference fact tagged api", "reference", "api")
    _, exported, sel = ann.share(share.Selection(tiers=("working",), types=("decision",)))
    assert exported.nodes == 1 and "working decision" in ann.file()
    _, _, again = ann.share()  # no options: the saved selection
    assert again == sel
    _, exported, _ = ann.share(share.Selection(tiers=("reference",), tags=("api",)))
    # sticky: what the file already carried stays until it is deleted or made private
    assert exported.nodes == 2 and "tagged api" in ann.file()


def test_a_planted_secret_is_redacted_before_it_reaches_the_file(team):
    ann, _ = team
    ann.add(f"The CI user's key is {AWS_KEY}, rotate monthly", "reference", secrets="allow")
    stored = ann.store.list_nodes(scope=ann.scope())[0]
    assert AWS_KEY in stored.content  # stored as given (--allow-secrets) …
    ann.share()
    text = ann.file()
    assert AWS_KEY not in text and "[SECRET:aws-access-key-id]" in text  # … never shared


# ------------------------------------------------------------------------------ through git

def test_ann_shares_bob_pulls_and_his_next_session_start_carries_it(team, ctx_bin):
    ann, bob = team
    fact = ann.add("Staging DB listens on port 6543")
    ann.share()
    ann.commit()
    ann.push()
    assert bob.pull().returncode == 0
    run = bob.hook(ctx_bin)
    assert run.returncode == 0, run.stderr
    context = json.loads(run.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "Staging DB listens on port 6543" in context
    [node] = bob.store.list_nodes(scope=bob.scope())
    assert node.id == fact.id and node.metadata["shared_by"] == "Ann <ann@example.com>"
    assert node.metadata["shared_from"].endswith(":.ctx/memory.jsonl")
    # unchanged file: the next session start does not read it again
    assert bob.refresh() is None
    os.utime(bob.clone / share.FILE)  # touched, same bytes: a hash, no import
    report = bob.refresh()
    assert report is not None and not report.read


def test_two_peoples_additions_merge_without_conflict(team):
    ann, bob = team
    ann.add("Ann: the API is versioned under /v2")
    ann.share()
    ann.commit()
    ann.push()
    assert bob.pull().returncode == 0
    bob.refresh()
    ann.add("Ann: staging resets nightly")
    ann.share()
    ann.commit()
    ann.push()
    bob.add("Bob: use pnpm, not npm")
    bob.share()
    bob.commit()
    merged = bob.pull()  # both appended lines at the end of the sorted file
    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert "<<<<<<<" not in bob.file()
    bob.refresh()
    assert {"Ann: staging resets nightly", "Bob: use pnpm, not npm"} <= set(bob.live().values())
    bob.share()
    bob.commit("merge memory")
    bob.push()
    assert ann.pull().returncode == 0
    ann.refresh()
    assert set(ann.live().values()) == set(bob.live().values())
    ann.share()
    assert ann.file() == bob.file()


def test_the_same_node_edited_on_both_sides_converges(team):
    """Bob's copy of Ann's node came from the file, so the file may change it: the newer
    version stays live and the other is kept superseded. Ann's own node is hers: Bob's edit
    arrives beside it as a new, foreign memory (issue 34), never over it."""
    ann, bob = team
    node = ann.add("Staging DB listens on port 6543")
    ann.share()
    ann.commit()
    ann.push()
    bob.pull()
    bob.refresh()
    ann.store.update(node.id, content="Staging DB listens on port 7000")
    ann.share()
    ann.commit()
    ann.push()
    bob.store.update(node.id, content="Staging DB listens on port 8000")  # later: newer
    bob.share()
    bob.commit()
    assert bob.pull().returncode == 0  # union: both versions of the line are kept
    report = bob.refresh()
    assert len(report.conflicts) == 1
    assert bob.live()[node.id] == "Staging DB listens on port 8000"
    copy = report.conflicts[0]
    assert bob.everything()[copy] == ("Staging DB listens on port 7000", node.id)
    bob.share()
    bob.commit("merge memory")
    bob.push()
    ann.pull()
    report = ann.refresh()
    assert ann.live()[node.id] == "Staging DB listens on port 7000"  # hers, unchanged
    [beside] = report.collisions
    assert ann.live()[beside] == "Staging DB listens on port 8000"
    assert ann.store.get(beside).metadata["shared_from"].endswith(share.FILE)
    again = ann.refresh()  # nothing changed: nothing new, no second copy
    assert again is None or not again.collisions
    ann.share()
    assert beside not in ann.file()  # a collision copy is not published again under a new id
    assert sum(1 for r in node_lines(ann.file()) if r["id"] == node.id) == 1


def test_an_edit_after_the_other_side_saw_it_is_no_conflict(team):
    ann, bob = team
    mine = bob.add("CI runs on the self-hosted runner")
    bob.share()
    bob.commit()
    bob.push()
    ann.pull()
    ann.refresh()
    bob.store.update(mine.id, content="CI runs on the self-hosted runner ci-2")
    bob.share()
    bob.commit()
    bob.push()
    ann.pull()
    report = ann.refresh()
    assert report.updated == [mine.id] and not report.conflicts and not report.collisions
    assert ann.live()[mine.id] == "CI runs on the self-hosted runner ci-2"


def test_a_tombstone_travels(team, ctx_bin):
    ann, bob = team
    gone = ann.add("The old deploy script is deploy.sh")
    kept = ann.add("Deploys go through the Makefile")
    ann.share()
    ann.commit()
    ann.push()
    bob.pull()
    bob.refresh()
    assert gone.id in bob.live()
    ann.store.delete(gone.id)
    _, exported, _ = ann.share()
    assert exported.tombstones == 1
    assert {"kind": "tombstone", "id": gone.id} == {k: v for k, v in node_lines(ann.file())[0].items()
                                                    if k != "prev"}
    ann.commit("forget deploy.sh")
    ann.push()
    bob.pull()
    assert bob.hook(ctx_bin).returncode == 0
    assert gone.id not in bob.live() and kept.id in bob.live()
    bob.share()  # Bob's file keeps the tombstone, so the deletion keeps travelling
    assert bob.file() == ann.file()


def test_an_edit_beats_a_deletion_on_the_other_side(team):
    ann, bob = team
    node = ann.add("Run the migrations before the tests")
    ann.share()
    ann.commit()
    ann.push()
    bob.pull()
    bob.refresh()
    ann.store.delete(node.id)
    ann.share()
    ann.commit()
    ann.push()
    bob.store.update(node.id, content="Run the migrations before the tests (make migrate)")
    bob.pull()
    report = bob.refresh()
    assert report.kept == [node.id] and node.id in bob.live()  # nothing local is lost


# ------------------------------------------------------------------------------ broken and hostile files

def test_a_file_with_conflict_markers_imports_everything_else(team, ctx_bin):
    ann, bob = team
    a = ann.add("Staging DB listens on port 6543")
    b = ann.add("Use pnpm")
    ann.share()
    lines = ann.file().splitlines()
    rec_a, rec_b = json.loads(lines[1]), json.loads(lines[2])
    ours = {**rec_a, "content": "Staging DB listens on port 7000", "updated_at": "2030-01-01T00:00:00.000Z"}
    conflicted = [lines[0], "<<<<<<< HEAD", json.dumps(ours), "=======", lines[1],
                  ">>>>>>> theirs", lines[2]]
    path = bob.clone / share.FILE
    path.parent.mkdir()
    path.write_text("\n".join(conflicted) + "\n")
    run = bob.cli(ctx_bin, "project", "sync", "--format", "json")
    assert run.returncode == 1
    for n in (2, 4, 6):
        assert f"line {n}: a merge-conflict marker" in run.stderr
    assert run.stderr.strip().splitlines()[-1].startswith("Error: 3 lines")
    live = bob.live()
    assert live[a.id] == "Staging DB listens on port 7000" and live[b.id] == "Use pnpm"
    assert rec_b["id"] == b.id


def test_hostile_lines_are_reported_by_number_and_the_rest_imported(team, ctx_bin, tmp_path):
    ann, bob = team
    good = ann.add("The good fact")
    ann.share()
    head, good_line = ann.file().splitlines()[:2]
    other = bob.store.add("Bob's node in another project", "fact", ["tier:reference"])  # global here
    base = json.loads(good_line)

    def rec(**kw):
        return json.dumps({**base, **kw})

    lines = [
        head,
        good_line,
        "{not json",                                                    # 3
        rec(id="01ZZZZZZZZZZZZZZZZZZZZZZZ1", type="rumour"),            # 4 unknown type
        rec(id=other.id, content="hijack"),                             # 5 another project's id
        rec(id="not-an-id"),                                            # 6
        json.dumps({"kind": "macro", "id": good.id}),                   # 7 unknown kind
        rec(id="01ZZZZZZZZZZZZZZZZZZZZZZZ2", content="x" * (share.MAX_LINE_BYTES + 10)),  # 8 huge
        rec(id="01ZZZZZZZZZZZZZZZZZZZZZZZ3", content="[bold red]markup[/bold red] <script>x</script>",
            color="blue"),                                              # 9 imported, field ignored
        rec(id="01ZZZZZZZZZZZZZZZZZZZZZZZ4", tags=["has space"]),       # 10 bad tag
        "[1, 2]",                                                       # 11
    ]
    path = bob.clone / share.FILE
    path.parent.mkdir()
    path.write_text("\n".join(lines) + "\n")
    run = bob.hook(ctx_bin)  # a hook never breaks: exit 0, one JSON object, lines on stderr
    assert run.returncode == 0 and json.loads(run.stdout)
    # a file over 2 MB is more than a session start reads (issue 34): deferred, and it says so
    assert "too big to read at session start" in run.stderr and "ctx project sync" in run.stderr
    sync = bob.cli(ctx_bin, "project", "sync", "--format", "json")
    assert "line 3: not valid JSON" in sync.stderr
    assert sync.returncode == 1
    os.utime(path, ns=(1, 1))  # make it read again
    report = share.sync_project(bob.store, bob.scope())
    by_line = {p.line: p.message for p in report.problems}
    assert set(by_line) == {3, 4, 5, 6, 7, 8, 9, 10, 11}
    assert "unknown node type" in by_line[4] and "another project" in by_line[5]
    assert "not a ULID" in by_line[6] and "unknown record kind" in by_line[7]
    assert "longer than 2 MB" in by_line[8] and "'color' ignored" in by_line[9]
    assert "malformed tag" in by_line[10] and "not an object" in by_line[11]
    live = bob.live()
    assert live[good.id] == "The good fact"
    assert live["01ZZZZZZZZZZZZZZZZZZZZZZZ3"] == "[bold red]markup[/bold red] <script>x</script>"
    assert bob.store.get(other.id).content == "Bob's node in another project"


def test_a_fifo_in_place_of_the_file_never_hangs_a_session_start(team, ctx_bin):
    _, bob = team
    (bob.clone / ".ctx").mkdir()
    os.mkfifo(bob.clone / share.FILE)  # a hostile repository: reading it would block forever
    run = bob.hook(ctx_bin)
    assert run.returncode == 0 and "not a regular file" in run.stderr


def test_ctx_project_share_and_sync_from_the_command_line(team, ctx_bin):
    ann, bob = team
    add = ann.cli(ctx_bin, "add", "--tag", "tier:reference", "Builds run on Node 22")
    assert add.returncode == 0, add.stderr
    run = ann.cli(ctx_bin, "project", "share", "--format", "json")
    assert run.returncode == 0, run.stderr
    info = json.loads(run.stdout)
    assert info["nodes"] == 1 and info["written"] and info["tiers"] == ["pinned", "reference"]
    assert "Ann <ann@example.com>" in ann.file()
    ann.commit()
    ann.push()
    bob.pull()
    got = bob.cli(ctx_bin, "project", "sync", "--format", "json")
    assert got.returncode == 0, got.stderr
    assert json.loads(got.stdout)["added"] == 1
    again = bob.cli(ctx_bin, "project", "sync")
    assert again.returncode == 0 and "nothing new" in again.stderr
    outside = subprocess.run([ctx_bin, "project", "share"], check=False, capture_output=True, text=True,
                             cwd=ann.clone.parent, env={**os.environ, "CTX_DB": str(ann.db)})
    assert outside.returncode == 1 and "not in a git repository" in outside.stderr


def test_auto_share_updates_the_file_at_the_stop_hook(team, ctx_bin):
    ann, _ = team
    ann.add("first fact")
    assert ann.cli(ctx_bin, "project", "share", "--auto").returncode == 0
    reply = '<ctx:remember type="fact" tags="tier:reference">second fact</ctx:remember>'
    run = ann.hook(ctx_bin, "stop", {"last_assistant_message": reply}, "--response", reply)
    assert run.returncode == 0 and run.stdout.strip() == "{}", run.stderr
    assert "second fact" in ann.file()
    assert ann.cli(ctx_bin, "project", "share", "--no-auto").returncode == 0
    reply = '<ctx:remember type="fact" tags="tier:reference">third fact</ctx:remember>'
    ann.hook(ctx_bin, "stop", {}, "--response", reply)
    assert "third fact" not in ann.file()  # only when asked


def test_the_hook_path_loads_share_only_for_a_shared_file_and_never_sync(team, tmp_path):
    ann, _ = team
    code = ("import io, json, sys; sys.stdin = io.TextIOWrapper(io.BytesIO(json.dumps("
            f"{{'session_id': 's', 'cwd': {str(ann.clone)!r}}}).encode()));"
            "from ctx.claude.hooks.entry import main; main(['session-start']);"
            "print(json.dumps(['ctx.core.share' in sys.modules, 'ctx.core.sync' in sys.modules,"
            " 'subprocess' in sys.modules]), file=sys.stderr)")
    env = {**os.environ, "CTX_DB": str(ann.db)}

    def loaded():
        proc = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, env=env)
        return json.loads(proc.stderr.strip().splitlines()[-1])

    assert loaded() == [False, False, False]  # no shared file: one stat
    ann.add("a fact")
    ann.share()
    assert loaded() == [False, False, False]  # unchanged since ctx wrote it: a stat and a row
    path = ann.clone / share.FILE
    path.write_text(path.read_text() + "\n")
    assert loaded() == [True, False, False]  # changed: read (never with git's plumbing)


def test_the_cached_session_start_sees_a_pulled_file(team, ctx_bin):
    """Issue 28's cached answer stats the shared file: a pull that changes it is a miss."""
    ann, bob = team
    ann.add("first shared fact")
    ann.share()
    ann.commit()
    ann.push()
    bob.pull()

    def context() -> str:
        run = bob.hook(ctx_bin)
        assert run.returncode == 0, run.stderr
        return json.loads(run.stdout)["hookSpecificOutput"]["additionalContext"]

    assert "first shared fact" in context()
    assert "first shared fact" in context()  # now answered from the cache
    ann.add("second shared fact")
    ann.share()
    ann.commit()
    ann.push()
    bob.pull()
    assert "second shared fact" in context()
