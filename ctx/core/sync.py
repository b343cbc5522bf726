"""Your own memory on every machine (SPEC §2.11): `ctx sync` through a git remote you control.

A clone under the ctx home (`$CTX_HOME/sync/repo`) holds every project's memory and the
global memory — all tiers, superseded nodes and private ones too (it is yours) — in the
shared-file format of ctx/core/share.py, one file per project:

    global.jsonl                 global memory
    projects.jsonl               one line per project: key, name, remote
    projects/<name>-<hash>.jsonl that project's nodes (the header names its key)
    .gitattributes               *.jsonl merge=union

A round: export → commit → pull --rebase → import → export again (conflict copies, the
merged files sorted) → commit → push, with the system `git`. Offline, the commits queue in
the clone and go out with the next round that reaches the remote. Two machines that edit
the same node converge by share's rules (newer live, the other superseded).

Why here, in ctx/core: nothing in it knows Claude Code, MCP or a terminal; it is the domain's
file and process I/O like db.py (SQLite) and share.py (the files), so any edge can call it.
It spawns `git`, so the hook path never imports it (tests/ctx/test_share.py checks).
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import socket
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from ctx.core import paths, projects, share
from ctx.core.errors import CtxError
from ctx.core.store import Store

BRANCH = "main"
ATTRIBUTES_TEXT = "*.jsonl merge=union\n"
GLOBAL_FILE = "global.jsonl"
PROJECTS_FILE = "projects.jsonl"
GIT_TIMEOUT = 120


class SyncError(CtxError):
    """git failed in a way the next round will not fix by itself."""


@dataclass
class SyncReport:
    remote: str
    clone: str
    exported_nodes: int = 0
    committed: bool = False
    fetched: bool = False
    pushed: bool = False
    offline: str | None = None       # why the remote could not be reached
    imported: share.ImportReport = field(default_factory=share.ImportReport)
    ahead: int = 0                   # commits waiting to be pushed after the round
    behind: int = 0


@dataclass(frozen=True)
class SyncStatus:
    remote: str | None
    clone: str
    ahead: int
    behind: int
    unexported: bool                 # the store holds changes not yet in the clone
    reachable: bool
    last_commit: str | None


def clone_dir() -> Path:
    return paths.home() / "sync" / "repo"


# ------------------------------------------------------------------------------ git

def _git(repo: Path, *args: str, check: bool = True, timeout: int = GIT_TIMEOUT
         ) -> subprocess.CompletedProcess:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "true",
           "LC_ALL": "C", "GIT_SSH_COMMAND": os.environ.get("GIT_SSH_COMMAND", "ssh -oBatchMode=yes")}
    try:
        proc = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True,
                              env=env, timeout=timeout, check=False)
    except FileNotFoundError:
        raise SyncError("`git` is not installed (ctx sync uses the system git)") from None
    except subprocess.TimeoutExpired:
        raise SyncError(f"git {args[0]} took longer than {timeout} s") from None
    if check and proc.returncode != 0:
        raise SyncError(f"git {' '.join(args[:2])} failed: {_last_line(proc.stderr)}")
    return proc


def _last_line(text: str) -> str:
    lines = [line for line in (text or "").strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else "no message"


def _identity() -> list[str]:
    from ctx.core.repo import git_user

    user = git_user() or ""
    m = re.match(r"^(.*?)\s*<([^>]*)>$", user)
    name, email = (m.group(1), m.group(2)) if m else (user or "ctx sync", "")
    return ["-c", f"user.name={name or 'ctx sync'}",
            "-c", f"user.email={email or 'ctx-sync@' + socket.gethostname()}"]


def configured_remote(repo: Path | None = None) -> str | None:
    repo = repo or clone_dir()
    if not (repo / ".git").exists():
        return None
    proc = _git(repo, "remote", "get-url", "origin", check=False)
    return proc.stdout.strip() or None if proc.returncode == 0 else None


def ensure_clone(remote: str | None) -> tuple[Path, str]:
    """The clone (created on first use), pointed at `remote` (else the one it has)."""
    repo = clone_dir()
    current = configured_remote(repo)
    if remote is None:
        if current is None:
            raise CtxError("no sync remote yet; give one: ctx sync --remote URL (any git remote "
                           "you control, e.g. a bare repository: git init --bare /media/usb/ctx.git)")
        return repo, current
    if not (repo / ".git").exists():
        repo.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.chmod(repo.parent, 0o700)  # it holds every memory you have: yours only
        _git(repo, "init", "-q", "-b", BRANCH)
        _git(repo, "remote", "add", "origin", remote)
    elif current != remote:
        if current is None:
            _git(repo, "remote", "add", "origin", remote)
        else:
            _git(repo, "remote", "set-url", "origin", remote)
    return repo, remote


def _fetch(repo: Path) -> str | None:
    """None when fetched, else why not (offline, remote missing…)."""
    proc = _git(repo, "fetch", "-q", "origin", check=False)
    return None if proc.returncode == 0 else _last_line(proc.stderr)


def _has_ref(repo: Path, ref: str) -> bool:
    return _git(repo, "rev-parse", "-q", "--verify", ref, check=False).returncode == 0


def _counts(repo: Path) -> tuple[int, int]:
    if not _has_ref(repo, "HEAD"):
        return 0, 0
    if not _has_ref(repo, f"origin/{BRANCH}"):
        return int(_git(repo, "rev-list", "--count", "HEAD").stdout.strip() or 0), 0
    out = _git(repo, "rev-list", "--left-right", "--count", f"HEAD...origin/{BRANCH}").stdout.split()
    return int(out[0]), int(out[1])


# ------------------------------------------------------------------------------ files

def project_file(key: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", key).strip("-.")[-40:] or "project"
    return f"projects/{slug}-{hashlib.sha1(key.encode('utf-8')).hexdigest()[:8]}.jsonl"


def _channel(rel: str) -> str:
    return f"sync:{rel}"


def export_all(store: Store, repo: Path) -> int:
    """Every project's and the global memory into the clone; returns the nodes written."""
    from ctx.core.repo import git_user

    by = git_user()
    n = 0
    lines = [share.header()]
    for p in projects.all_rows(store.conn):
        pid, key = p.id, p.key
        rel = project_file(key)
        lines.append(share.dumps({"kind": "project", "key": key, "name": p.name, "remote": p.remote,
                                  "created_at": p.created_at, "file": rel}))
        report = share.export_to(store, repo / rel, _channel(rel), store.ids_in_project(pid),
                                 by=by, project_key=key)
        n += report.nodes
    report = share.export_to(store, repo / GLOBAL_FILE, _channel(GLOBAL_FILE),
                             store.ids_in_project(None), by=by)
    share.write_file(repo / PROJECTS_FILE, "".join(line + "\n" for line in lines))
    return n + report.nodes


def import_all(store: Store, repo: Path, remote: str) -> share.ImportReport:
    """Every file of the clone that changed since ctx last read or wrote it; projects first."""
    from ctx.core.transfer import import_projects

    total = share.ImportReport(path=str(repo))
    records: list[dict] = []
    files: dict[str, str] = {}
    path = repo / PROJECTS_FILE
    if path.exists():
        raw, _ = share.read_lines(path)
        seen = set()
        for i, line in enumerate(raw, 1):
            try:
                rec = json.loads(line) if line else None
            except ValueError:
                total.problems.append(share.Problem(i, f"{PROJECTS_FILE}: not valid JSON; skipped"))
                continue
            if (isinstance(rec, dict) and rec.get("kind") == "project" and isinstance(rec.get("key"), str)
                    and isinstance(rec.get("name"), str) and rec["key"] not in seen):
                seen.add(rec["key"])
                records.append({"key": rec["key"], "name": rec["name"], "remote": rec.get("remote"),
                                 "created_at": rec.get("created_at") or ""})
                files[rec["key"]] = project_file(rec["key"])
    with store.transaction():
        ids = import_projects(store, records)
    source = f"sync:{remote}"
    for key, rel in sorted(files.items()):
        report = share.read_and_import(store, repo / rel, _channel(rel), project_id=ids[key],
                                       source=source, allow_move=True)
        total.merge(report)
        total.problems += [share.Problem(p.line, f"{rel}: {p.message}", p.skipped) for p in report.problems]
    report = share.read_and_import(store, repo / GLOBAL_FILE, _channel(GLOBAL_FILE), project_id=None,
                                   source=source, allow_move=True)
    total.merge(report)
    return total


def _commit(repo: Path, message: str) -> bool:
    _git(repo, "add", "-A")
    if _git(repo, "diff", "--cached", "--quiet", check=False).returncode == 0:
        return False
    _git(repo, *_identity(), "commit", "-q", "--no-verify", "-m", message)
    return True


# ------------------------------------------------------------------------------ the round

def run(store: Store, remote: str | None = None) -> SyncReport:
    """One round: export → commit → pull (rebase) → import → export → commit → push."""
    repo, remote = ensure_clone(remote)
    report = SyncReport(remote=remote, clone=str(repo))
    why = _fetch(repo)
    report.fetched = why is None
    report.offline = why
    if report.fetched and not _has_ref(repo, "HEAD") and _has_ref(repo, f"origin/{BRANCH}"):
        # a new machine: start from what the others wrote, so its first export merges into it
        _git(repo, "checkout", "-q", "-B", BRANCH, f"origin/{BRANCH}")
        report.imported.merge(import_all(store, repo, remote))
    if not (repo / ".gitattributes").exists():
        (repo / ".gitattributes").write_text(ATTRIBUTES_TEXT, encoding="utf-8")
    report.exported_nodes = export_all(store, repo)
    host = socket.gethostname()
    report.committed = _commit(repo, f"ctx sync from {host}")
    if report.fetched and _has_ref(repo, f"origin/{BRANCH}") and _has_ref(repo, "HEAD"):
        proc = _git(repo, *_identity(), "rebase", "-q", f"origin/{BRANCH}", check=False)
        if proc.returncode != 0:
            _git(repo, "rebase", "--abort", check=False)
            raise SyncError(f"git could not rebase the sync clone onto the remote "
                            f"({_last_line(proc.stderr)}); your commits stay queued in {repo}")
    merged = import_all(store, repo, remote)
    report.imported.merge(merged)
    if merged.read:  # sorted, deduplicated files with the merge's superseded copies
        export_all(store, repo)
    if _commit(repo, f"ctx sync from {host}: merged"):
        report.committed = True
    if report.fetched and _has_ref(repo, "HEAD"):
        proc = _git(repo, "push", "-q", "origin", f"{BRANCH}:{BRANCH}", check=False)
        report.pushed = proc.returncode == 0
        if not report.pushed:
            report.offline = _last_line(proc.stderr)
    if report.pushed:
        _fetch(repo)
    report.ahead, report.behind = _counts(repo)
    return report


def status(store: Store, *, fetch: bool = True) -> SyncStatus:
    repo = clone_dir()
    remote = configured_remote(repo)
    if remote is None:
        return SyncStatus(None, str(repo), 0, 0, False, False, None)
    reachable = _fetch(repo) is None if fetch else False
    ahead, behind = _counts(repo)
    last = None
    if _has_ref(repo, "HEAD"):
        last = _git(repo, "log", "-1", "--format=%cI %s").stdout.strip() or None
    return SyncStatus(remote, str(repo), ahead, behind, _unexported(store, repo), reachable, last)


def _unexported(store: Store, repo: Path) -> bool:
    """Would an export change a file of the clone? (Built in memory; nothing is written.)"""
    for p in projects.all_rows(store.conn):
        pid, key = p.id, p.key
        rel = project_file(key)
        text, *_ = share.build(store, _channel(rel), store.ids_in_project(pid), by=None, project_key=key)
        if _differs(repo / rel, text):
            return True
    text, *_ = share.build(store, _channel(GLOBAL_FILE), store.ids_in_project(None), by=None)
    return _differs(repo / GLOBAL_FILE, text)


def _differs(path: Path, text: str) -> bool:
    try:
        old = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return text.count("\n") > 1
    strip = lambda s: [re.sub(r',"by":"[^"]*"', "", x) for x in s.splitlines()]  # noqa: E731
    return strip(old) != strip(text)
