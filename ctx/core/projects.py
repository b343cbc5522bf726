"""Projects in the store, and the scope a reader sees (SPEC §2.8).

A node is global (`project_id` NULL) or belongs to one project. Everything that reads memory
for Claude reads *current project + global*; `Scope` says which, as SQL over `nodes n`.

    scope = current_scope(conn, cwd)                 # the one call: from a folder (or CTX_PROJECT)
    store.query("type:decision", scope=scope)        # project + global
    current_scope(conn, project="api")               # another project (+ global)
    current_scope(conn, project="global")            # global only
    current_scope(conn, all_projects=True)           # everything

Pure core: takes a connection, returns value classes (cuectx.value), raises CtxError
subclasses. Stdlib only (the hooks use it).
"""
from __future__ import annotations

import os
import re
import sqlite3

from ctx.core import repo
from ctx.core.errors import CtxError, NotFoundError
from ctx.core.repo import ProjectRef
from cuectx.value import Value

GLOBAL = "global"
RESERVED = ("global", "none", "all", "-")
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_COLUMNS = "id, key, name, root, remote, created_at, last_active_at"


class Project(Value):
    __slots__ = ("created_at", "id", "key", "last_active_at", "name", "remote", "root")

    def __init__(self, id: int, key: str, name: str, root: str | None, remote: str | None,
                 created_at: str, last_active_at: str) -> None:
        self.id = id
        self.key = key
        self.name = name
        self.root = root
        self.remote = remote
        self.created_at = created_at
        self.last_active_at = last_active_at

    def to_dict(self) -> dict:
        return {"name": self.name, "key": self.key, "root": self.root, "remote": self.remote,
                "created_at": self.created_at, "last_active_at": self.last_active_at}


class Scope(Value):
    """What a reader sees: one project + global (the default), global only, or everything.

    `ref` is the project found on disk when it has no row yet (nothing stored there): reads
    then see global only, and the first write creates the row (`write_project_id`)."""

    __slots__ = ("all_projects", "project", "ref")

    def __init__(self, project: Project | None = None, all_projects: bool = False,
                 ref: ProjectRef | None = None) -> None:
        self.project = project
        self.all_projects = all_projects
        self.ref = ref

    def sql(self) -> tuple[str, list]:
        """A condition over `nodes n` and its parameters."""
        if self.all_projects:
            return "1", []
        if self.project is None:
            return "n.project_id IS NULL", []
        return "(n.project_id = ? OR n.project_id IS NULL)", [self.project.id]

    def outside_sql(self) -> tuple[str, list]:
        """The nodes `sql()` leaves out (other projects'), as a condition over `nodes n` that
        the nodes_project index can drive — a range (`project_id > 0`: ids are rowids), where
        `IS NOT NULL` would scan every node."""
        if self.all_projects:
            return "0", []
        if self.project is None:
            return "n.project_id > 0", []
        return "n.project_id > 0 AND n.project_id <> ?", [self.project.id]

    @property
    def label(self) -> str:
        if self.all_projects:
            return "all projects"
        name = self.project.name if self.project else (self.ref.name if self.ref else None)
        return f"{name} + global" if name else "global"

    @property
    def project_name(self) -> str | None:
        if self.project:
            return self.project.name
        return self.ref.name if self.ref else None

    def write_project_id(self, conn: sqlite3.Connection, *, touch: bool = True) -> int | None:
        """The project id new memory goes to (creating the row on first use); None = global."""
        if self.all_projects:
            return None
        if self.project is not None:
            if touch:
                _touch(conn, self.project.id)
            return self.project.id
        if self.ref is not None:
            return ensure(conn, self.ref).id
        return None


EVERYTHING = Scope(all_projects=True)
GLOBAL_ONLY = Scope()


# ------------------------------------------------------------------------------ the one call

def current_scope(conn: sqlite3.Connection, cwd: str | os.PathLike | None = None, *,
                  project: str | None = None, all_projects: bool = False,
                  env: dict | None = None) -> Scope:
    """The scope to read with: `all_projects` → everything; `project` NAME → that project +
    global (`global` → global only; an unknown name is NotFoundError); else the project of
    `cwd` (default: the working directory) or `CTX_PROJECT`, + global."""
    if all_projects and project:
        raise CtxError("give --project or --all-projects, not both")
    if all_projects:
        return EVERYTHING
    if project is not None:
        if project.strip().lower() == GLOBAL:
            return GLOBAL_ONLY
        return Scope(project=get(conn, project))
    ref = repo.resolve(cwd, env=env)
    if ref is None:
        return GLOBAL_ONLY
    found = find(conn, ref)
    return Scope(project=found) if found else Scope(ref=ref)


# ------------------------------------------------------------------------------ rows

def _row(r) -> Project:
    return Project(*r)


def get(conn: sqlite3.Connection, name: str) -> Project:
    """A project by name (case-insensitive)."""
    row = conn.execute(f"SELECT {_COLUMNS} FROM projects WHERE name = ?", (name.strip(),)).fetchone()
    if row is None:
        known = [r[0] for r in conn.execute("SELECT name FROM projects ORDER BY name LIMIT 20")]
        raise NotFoundError(f"no project named {name!r} (projects: {', '.join(known) or 'none yet'}; "
                            f"see `ctx project list`)")
    return _row(row)


def by_id(conn: sqlite3.Connection, project_id: int) -> Project:
    return _row(conn.execute(f"SELECT {_COLUMNS} FROM projects WHERE id = ?", (project_id,)).fetchone())


def find(conn: sqlite3.Connection, ref: ProjectRef) -> Project | None:
    """The stored project for something found on disk: by key, by an alias, else (a repository
    that gained an origin remote) by its path; CTX_PROJECT names are looked up by name."""
    if ref.source == "env":
        clean = repo.clean_name(ref.name)
        row = conn.execute(f"SELECT {_COLUMNS} FROM projects WHERE name = ? OR name = ? OR key = ? "
                           "ORDER BY name = ? DESC LIMIT 1",
                           (ref.name, clean, env_key(clean), ref.name)).fetchone()
        return _row(row) if row else None
    row = conn.execute(f"SELECT {_COLUMNS} FROM projects WHERE key = ?", (ref.key,)).fetchone()
    if row is None:
        row = conn.execute(f"SELECT {', '.join('p.' + c.strip() for c in _COLUMNS.split(','))} "
                           "FROM project_aliases a JOIN projects p ON p.id = a.project_id "
                           "WHERE a.key = ?", (ref.key,)).fetchone()
    if row is None and ref.root and ref.key != ref.root:
        row = conn.execute(f"SELECT {_COLUMNS} FROM projects WHERE key = ?", (ref.root,)).fetchone()
    return _row(row) if row else None


def env_key(name: str) -> str:
    return "name:" + name


def ensure(conn: sqlite3.Connection, ref: ProjectRef, *, now: str | None = None) -> Project:
    """The project's row, created on first use, kept up to date (a moved repository's new root,
    a remote that appeared), and marked active now."""
    now = now or _now()
    found = find(conn, ref)
    if found is None:
        key = env_key(repo.clean_name(ref.name)) if ref.source == "env" else ref.key
        for _ in range(3):  # another process may take the key or the name at the same moment
            name = unique_name(conn, repo.clean_name(ref.name))
            try:
                conn.execute("INSERT INTO projects (key, name, root, remote, created_at, "
                             "last_active_at) VALUES (?, ?, ?, ?, ?, ?)",
                             (key, name, ref.root, ref.remote, now, now))
            except sqlite3.IntegrityError:
                pass
            found = find(conn, ref)
            if found is not None:
                return found
        raise CtxError(f"could not record project {ref.name!r}")
    sets, params = ["last_active_at = ?"], [now]
    if ref.source == "git":
        if ref.root and ref.root != found.root:
            sets.append("root = ?")
            params.append(ref.root)
        if ref.remote != found.remote:
            sets.append("remote = ?")
            params.append(ref.remote)
        if ref.key != found.key and found.key == ref.root:  # gained a remote: key follows it
            conn.execute("INSERT OR IGNORE INTO project_aliases (key, project_id) VALUES (?, ?)",
                         (found.key, found.id))
            sets.append("key = ?")
            params.append(ref.key)
    conn.execute(f"UPDATE projects SET {', '.join(sets)} WHERE id = ?", [*params, found.id])
    return by_id(conn, found.id)


def _touch(conn: sqlite3.Connection, project_id: int) -> None:
    conn.execute("UPDATE projects SET last_active_at = ? WHERE id = ?", (_now(), project_id))


def unique_name(conn: sqlite3.Connection, base: str, *, exclude_id: int | None = None) -> str:
    base = base if base.lower() not in RESERVED else base + "-project"
    taken = {r[0].lower() for r in conn.execute(
        "SELECT name FROM projects WHERE (name = ? OR name LIKE ? ESCAPE '\\') AND id IS NOT ?",
        (base, _like(base) + "-%", exclude_id))}
    if base.lower() not in taken:
        return base
    n = 2
    while f"{base}-{n}".lower() in taken:
        n += 1
    return f"{base}-{n}"


def _like(s: str) -> str:
    return s.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def validate_name(name: str) -> str:
    name = (name or "").strip()
    if not _NAME_RE.match(name):
        raise CtxError(f"project name {name!r} must be letters, digits, '.', '_' or '-' (no spaces, "
                       f"at most 64, starting with a letter or digit)")
    if name.lower() in RESERVED:
        raise CtxError(f"{name!r} is reserved (it means global memory); choose another name")
    return name


def _now() -> str:
    from ctx.core.model import now_iso

    return now_iso()


# ------------------------------------------------------------------------------ commands

def list_projects(conn: sqlite3.Connection) -> list[dict]:
    """Every project with its node counts (live, superseded), most recently active first, and a
    last row for global memory."""
    rows = conn.execute(
        f"SELECT {', '.join('p.' + c.strip() for c in _COLUMNS.split(','))}, "
        "(SELECT count(*) FROM nodes n WHERE n.project_id = p.id AND n.superseded_by IS NULL), "
        "(SELECT count(*) FROM nodes n WHERE n.project_id = p.id AND n.superseded_by IS NOT NULL) "
        "FROM projects p ORDER BY p.last_active_at DESC, p.name").fetchall()
    out = []
    for r in rows:
        d = _row(r[:7]).to_dict()
        d["nodes"], d["superseded"] = r[7], r[8]
        out.append(d)
    return out


def all_rows(conn: sqlite3.Connection) -> list[Project]:
    """Every project, by key."""
    return [_row(r) for r in conn.execute(f"SELECT {_COLUMNS} FROM projects ORDER BY key")]


def global_counts(conn: sqlite3.Connection) -> tuple[int, int]:
    live = conn.execute("SELECT count(*) FROM nodes WHERE project_id IS NULL "
                        "AND superseded_by IS NULL").fetchone()[0]
    gone = conn.execute("SELECT count(*) FROM nodes WHERE project_id IS NULL "
                        "AND superseded_by IS NOT NULL").fetchone()[0]
    return live, gone


def show(conn: sqlite3.Connection, name: str) -> dict:
    p = get(conn, name)
    d = next(x for x in list_projects(conn) if x["key"] == p.key)
    d["aliases"] = [r[0] for r in conn.execute(
        "SELECT key FROM project_aliases WHERE project_id = ? ORDER BY key", (p.id,))]
    from ctx.core.store import Store

    counts = Store(conn).live_counts(project_id=p.id)
    d["by_type"], d["by_tier"] = counts.by_type, counts.by_tier
    return d


def rename(conn: sqlite3.Connection, name: str, new_name: str) -> Project:
    p = get(conn, name)
    new_name = validate_name(new_name)
    clash = conn.execute("SELECT id FROM projects WHERE name = ? AND id != ?", (new_name, p.id)).fetchone()
    if clash:
        raise CtxError(f"a project named {new_name!r} already exists; merge them with "
                       f"`ctx project merge {p.name} {new_name}`")
    conn.execute("UPDATE projects SET name = ? WHERE id = ?", (new_name, p.id))
    return by_id(conn, p.id)


def move(conn: sqlite3.Connection, node_ids: list[str], target: str) -> Project | None:
    """Move nodes (full ids) to project `target` or to `global`. Returns the project (None: global)."""
    dest = None if target.strip().lower() == GLOBAL else get(conn, target)
    conn.executemany("UPDATE nodes SET project_id = ? WHERE id = ?",
                     [(dest.id if dest else None, i) for i in node_ids])
    return dest


def merge(conn: sqlite3.Connection, source: str, into: str) -> tuple[Project, int]:
    """Move every node of `source` into `into` and drop `source`; its key stays as an alias of
    `into`, so its folder resolves to `into` from now on. Returns (into, nodes moved)."""
    a, b = get(conn, source), get(conn, into)
    if a.id == b.id:
        raise CtxError(f"cannot merge project {a.name!r} into itself")
    moved = conn.execute("UPDATE nodes SET project_id = ? WHERE project_id = ?", (b.id, a.id)).rowcount
    conn.execute("UPDATE project_aliases SET project_id = ? WHERE project_id = ?", (b.id, a.id))
    conn.execute("INSERT OR REPLACE INTO project_aliases (key, project_id) VALUES (?, ?)", (a.key, b.id))
    conn.execute("DELETE FROM projects WHERE id = ?", (a.id,))
    return by_id(conn, b.id), moved


def forget(conn: sqlite3.Connection, name: str) -> tuple[Project, int]:
    """Delete the project and every node in it (their tags and edges go with them)."""
    p = get(conn, name)
    ids = [r[0] for r in conn.execute("SELECT id FROM nodes WHERE project_id = ?", (p.id,))]
    # Nodes outside the project that these superseded become live again (as `ctx rm` does).
    for i in range(0, len(ids), 500):
        part = ids[i:i + 500]
        conn.execute(f"DELETE FROM nodes WHERE id IN ({','.join('?' * len(part))})", part)
    conn.execute("DELETE FROM projects WHERE id = ?", (p.id,))
    return p, len(ids)


def count_nodes(conn: sqlite3.Connection, project_id: int) -> int:
    return conn.execute("SELECT count(*) FROM nodes WHERE project_id = ?", (project_id,)).fetchone()[0]
