"""Project rows (SPEC §2.8): the `projects` and `project_aliases` tables — finding a folder's
project, creating its row on first use, names, renames.

A node is global (`project_id` NULL) or belongs to one project. What a reader sees (`Scope`,
`current_scope()`) and what moves, merges or forgets a project's nodes are SQL over the nodes
table, so they live with the store (ctx/core/store.py), which imports this module; this one
never imports the store.

Pure core: takes a connection, returns value classes (cuectx.value), raises CtxError
subclasses. Stdlib only (the hooks use it).
"""
from __future__ import annotations

import re
import sqlite3

from ctx.core import repo
from ctx.core.errors import CtxError, NotFoundError
from ctx.core.repo import ProjectRef
from cuectx.value import Value

GLOBAL = "global"
RESERVED = ("global", "none", "all", "-")
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
COLUMNS = "id, key, name, root, remote, created_at, last_active_at"


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


# ------------------------------------------------------------------------------ rows

def from_row(r) -> Project:
    """A Project from a row of `COLUMNS`."""
    return Project(*r)


def get(conn: sqlite3.Connection, name: str) -> Project:
    """A project by name (case-insensitive)."""
    row = conn.execute(f"SELECT {COLUMNS} FROM projects WHERE name = ?", (name.strip(),)).fetchone()
    if row is None:
        known = [r[0] for r in conn.execute("SELECT name FROM projects ORDER BY name LIMIT 20")]
        raise NotFoundError(f"no project named {name!r} (projects: {', '.join(known) or 'none yet'}; "
                            f"see `ctx project list`)")
    return from_row(row)


def by_id(conn: sqlite3.Connection, project_id: int) -> Project:
    return from_row(conn.execute(f"SELECT {COLUMNS} FROM projects WHERE id = ?", (project_id,)).fetchone())


def find(conn: sqlite3.Connection, ref: ProjectRef) -> Project | None:
    """The stored project for something found on disk: by key, by an alias, else (a repository
    that gained an origin remote) by its path; CTX_PROJECT names are looked up by name."""
    if ref.source == "env":
        clean = repo.clean_name(ref.name)
        row = conn.execute(f"SELECT {COLUMNS} FROM projects WHERE name = ? OR name = ? OR key = ? "
                           "ORDER BY name = ? DESC LIMIT 1",
                           (ref.name, clean, env_key(clean), ref.name)).fetchone()
        return from_row(row) if row else None
    row = conn.execute(f"SELECT {COLUMNS} FROM projects WHERE key = ?", (ref.key,)).fetchone()
    if row is None:
        row = conn.execute(f"SELECT {', '.join('p.' + c.strip() for c in COLUMNS.split(','))} "
                           "FROM project_aliases a JOIN projects p ON p.id = a.project_id "
                           "WHERE a.key = ?", (ref.key,)).fetchone()
    if row is None and ref.root and ref.key != ref.root:
        row = conn.execute(f"SELECT {COLUMNS} FROM projects WHERE key = ?", (ref.root,)).fetchone()
    return from_row(row) if row else None


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
            add_alias(conn, found.key, found.id)
            sets.append("key = ?")
            params.append(ref.key)
    conn.execute(f"UPDATE projects SET {', '.join(sets)} WHERE id = ?", [*params, found.id])
    return by_id(conn, found.id)


def touch(conn: sqlite3.Connection, project_id: int) -> None:
    """Mark the project active now."""
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

def count(conn: sqlite3.Connection) -> int:
    """How many projects the store holds."""
    return conn.execute("SELECT count(*) FROM projects").fetchone()[0]


def all_rows(conn: sqlite3.Connection) -> list[Project]:
    """Every project, by key."""
    return [from_row(r) for r in conn.execute(f"SELECT {COLUMNS} FROM projects ORDER BY key")]


def by_activity(conn: sqlite3.Connection) -> list[Project]:
    """Every project, most recently active first (then by name)."""
    return [from_row(r) for r in conn.execute(
        f"SELECT {COLUMNS} FROM projects ORDER BY last_active_at DESC, name")]


def names(conn: sqlite3.Connection) -> dict[int, str]:
    """Project id → name (a small table: read whole)."""
    return dict(conn.execute("SELECT id, name FROM projects").fetchall())


def exists(conn: sqlite3.Connection, project_id: int) -> bool:
    return conn.execute("SELECT 1 FROM projects WHERE id = ?", (project_id,)).fetchone() is not None


def id_for_key(conn: sqlite3.Connection, key: str) -> int | None:
    """The id of the project with this key, or that has it as an alias."""
    row = conn.execute("SELECT id FROM projects WHERE key = ? UNION ALL "
                       "SELECT project_id FROM project_aliases WHERE key = ?", (key, key)).fetchone()
    return row[0] if row else None


def insert(conn: sqlite3.Connection, key: str, name: str, root: str | None, remote: str | None,
           created_at: str, last_active_at: str) -> int:
    """A new project row as given (an import's); its id."""
    conn.execute("INSERT INTO projects (key, name, root, remote, created_at, last_active_at) "
                 "VALUES (?, ?, ?, ?, ?, ?)", (key, name, root, remote, created_at, last_active_at))
    return conn.execute("SELECT id FROM projects WHERE key = ?", (key,)).fetchone()[0]


def add_alias(conn: sqlite3.Connection, key: str, project_id: int) -> None:
    """`key` resolves to the project too (kept if it already resolves elsewhere)."""
    conn.execute("INSERT OR IGNORE INTO project_aliases (key, project_id) VALUES (?, ?)",
                 (key, project_id))


def remotes(conn: sqlite3.Connection) -> list[tuple[str, str | None]]:
    """(name, remote) of every project, by name."""
    return [tuple(r) for r in conn.execute("SELECT name, remote FROM projects ORDER BY name")]


def rewrite_remote(conn: sqlite3.Connection, name: str, rewrite) -> None:
    """Replace the project's remote with `rewrite(remote)` (the secret scan's redaction)."""
    (remote,) = conn.execute("SELECT remote FROM projects WHERE name = ?", (name,)).fetchone()
    conn.execute("UPDATE projects SET remote = ? WHERE name = ?", (rewrite(remote), name))


def rename(conn: sqlite3.Connection, name: str, new_name: str) -> Project:
    p = get(conn, name)
    new_name = validate_name(new_name)
    clash = conn.execute("SELECT id FROM projects WHERE name = ? AND id != ?", (new_name, p.id)).fetchone()
    if clash:
        raise CtxError(f"a project named {new_name!r} already exists; merge them with "
                       f"`ctx project merge {p.name} {new_name}`")
    conn.execute("UPDATE projects SET name = ? WHERE id = ?", (new_name, p.id))
    return by_id(conn, p.id)


def aliases(conn: sqlite3.Connection, project_id: int) -> list[str]:
    """The keys that also resolve to the project (a merged project's, a key before a remote)."""
    return [r[0] for r in conn.execute(
        "SELECT key FROM project_aliases WHERE project_id = ? ORDER BY key", (project_id,))]


def merge_rows(conn: sqlite3.Connection, source: Project, into: Project) -> None:
    """Drop `source`'s row; its key and aliases resolve to `into` from now on (its nodes are
    the store's to move first: Store.merge_projects)."""
    conn.execute("UPDATE project_aliases SET project_id = ? WHERE project_id = ?", (into.id, source.id))
    conn.execute("INSERT OR REPLACE INTO project_aliases (key, project_id) VALUES (?, ?)",
                 (source.key, into.id))
    conn.execute("DELETE FROM projects WHERE id = ?", (source.id,))


def delete(conn: sqlite3.Connection, project: Project) -> None:
    """Drop the project's row (its nodes are the store's to delete first: Store.forget_project)."""
    conn.execute("DELETE FROM projects WHERE id = ?", (project.id,))
