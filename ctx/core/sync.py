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
import time
from pathlib import Path

from ctx.core import paths, projects, share
from ctx.core.errors import CtxError
from ctx.core.store import Store
from cuectx.value import Value

BRANCH = "main"
ATTRIBUTES_TEXT = "*.jsonl merge=union\n"
GLOBAL_FILE = "global.jsonl"
PROJECTS_FILE = "projects.jsonl"
GIT_TIMEOUT = 120


class SyncError(CtxError):
    """git failed in a way the next round will not fix by itself."""


class SyncReport(Value):
    __slots__ = ("ahead", "behind", "clone", "committed", "exported_nodes", "fetched", "imported",
                 "offline", "pushed", "remote")

    def __init__(self, remote: str, clone: str, exported_nodes: int = 0, committed: bool = False,
                 fetched: bool = False, pushed: bool = False, offline: str | None = None,
                 imported: share.ImportReport | None = None, ahead: int = 0,
                 behind: int = 0) -> None:
        self.remote = remote
        self.clone = clone
        self.exported_nodes = exported_nodes
        self.committed = committed
        self.fetched = fetched
        self.pushed = pushed
        self.offline = offline  # why the remote could not be reached
        self.imported = share.ImportReport() if imported is None else imported
        self.ahead = ahead  # commits waiting to be pushed after the round
        self.behind = behind


class SyncStatus(Value):
    __slots__ = ("ahead", "behind", "clone", "last_commit", "reachable", "remote", "unexported")

    def __init__(self, remote: str | None, clone: str, ahead: int, behind: int, unexported: bool,
                 reachable: bool, last_commit: str | None) -> None:
        self.remote = remote
        self.clone = clone
        self.ahead = ahead
        self.behind = behind
        self.unexported = unexported  # the store holds changes not yet in the clone
        self.reachable = reachable
        self.last_commit = last_commit


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
        raise SyncError(f"git {_subcommand(args)} failed: {_last_line(proc.stderr)}")
    return proc


def _subcommand(args: tuple[str, ...]) -> str:
    """The git subcommand of `args`, past any `-c name=value` options (for messages)."""
    rest = list(args)
    while len(rest) >= 2 and rest[0] == "-c":
        rest = rest[2:]
    return " ".join(rest[:2]) or "git"


# git's words for "the network or the host is not there now" — a round that may work later.
# Anything else (no such repository, permission denied, not a git repository, dubious
# ownership) will not fix itself: the round fails, non-zero, with git's own reason.
_OFFLINE = re.compile(r"could not resolve host|couldn't resolve host|network is unreachable|"
                      r"connection (refused|timed out|reset)|operation timed out|no route to host|"
                      r"temporary failure in name resolution|could not connect|failed to connect|"
                      r"ssh: connect to host|unable to access .*: (failed|could not)|"
                      r"connection closed by remote host", re.IGNORECASE)


def offline_reason(stderr: str) -> bool:
    return bool(_OFFLINE.search(stderr or ""))


def _last_line(text: str) -> str:
    """git's reason: its first `fatal:`/`error:` line (the last lines of a failed fetch are
    boilerplate: "Please make sure you have the correct access rights…"), else the last line."""
    lines = [line.strip() for line in (text or "").strip().splitlines() if line.strip()]
    for line in lines:
        if line.startswith(("fatal:", "error:")):
            return line
    return lines[-1] if lines else "no message"


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
    """None when fetched, else git's reason (see `_fetch_why`)."""
    return _fetch_why(repo)[0]


def _fetch_why(repo: Path) -> tuple[str | None, bool]:
    """(None, False) when fetched, else (git's reason, whether it is the network: a round
    that may work later, rather than no such repository, permission denied…)."""
    proc = _git(repo, "fetch", "-q", "origin", check=False)
    if proc.returncode == 0:
        return None, False
    return _last_line(proc.stderr), offline_reason(proc.stderr)


def _has_ref(repo: Path, ref: str) -> bool:
    return _git(repo, "rev-parse", "-q", "--verify", ref, check=False).returncode == 0


def _counts(repo: Path) -> tuple[int, int]:
    if not _has_ref(repo, "HEAD"):
        return 0, 0
    if not _has_ref(repo, f"origin/{BRANCH}"):
        return int(_git(repo, "rev-list", "--count", "HEAD").stdout.strip() or 0), 0
    out = _git(repo, "rev-list", "--left-right", "--count", f"HEAD...origin/{BRANCH}").stdout.split()
    return int(out[0]), int(out[1])


def blame_authors(path: Path) -> dict[int, str]:
    """Line number → who last changed that line of a file in a repository, as git records it
    (`Name <email>`; lines not committed yet: none). What ctx shows as a shared memory's
    author — never the line's own `by`. Spawns git, so only commands call it, never a hook;
    any failure (not a repository, git missing) gives {} and the author reads `unknown`."""
    from ctx.core.trust import clean_author

    folder = path.parent
    try:
        proc = subprocess.run(["git", "-C", str(folder), "blame", "--line-porcelain", "--", path.name],
                              capture_output=True, text=True, timeout=GIT_TIMEOUT, check=False,
                              env={**os.environ, "LC_ALL": "C", "GIT_TERMINAL_PROMPT": "0"},
                              errors="replace")
    except (OSError, subprocess.TimeoutExpired):
        return {}
    if proc.returncode != 0:
        return {}
    out: dict[int, str] = {}
    name = mail = ""
    final = 0
    for line in proc.stdout.splitlines():
        if line.startswith("\t"):
            author = clean_author(f"{name} <{mail}>" if mail else name)
            if author and mail != "not.committed.yet" and final:
                out[final] = author
            name = mail = ""
            continue
        head, _, rest = line.partition(" ")
        if len(head) == 40 and all(c in "0123456789abcdef" for c in head):
            parts = rest.split()
            final = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0
        elif head == "author":
            name = rest
        elif head == "author-mail":
            mail = rest.strip("<>")
    return out


# ------------------------------------------------------------------------------ files

def project_file(key: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", key).strip("-.")[-40:] or "project"
    return f"projects/{slug}-{hashlib.sha1(key.encode('utf-8')).hexdigest()[:8]}.jsonl"


def _path(repo: Path, rel: str) -> Path:
    """A file of the clone, refused when a component is a symlink or it leaves the clone (a
    remote that commits `projects -> ~/.ssh` gets an error, never a write there)."""
    from ctx.core.trust import confined

    try:
        return Path(confined(str(repo), rel, what="the sync clone"))
    except CtxError as exc:
        raise SyncError(f"{exc} (committed by the remote?); nothing was written") from None


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
        report = share.export_to(store, _path(repo, rel), _channel(rel), store.ids_in_project(pid),
                                 by=by, project_key=key)
        n += report.nodes
    report = share.export_to(store, _path(repo, GLOBAL_FILE), _channel(GLOBAL_FILE),
                             store.ids_in_project(None), by=by)
    share.write_file(_path(repo, PROJECTS_FILE), "".join(line + "\n" for line in lines))
    return n + report.nodes


def import_all(store: Store, repo: Path, remote: str, *, max_hide: int | None = None,
               before_hide=None) -> share.ImportReport:
    """Every file of the clone that changed since ctx last read or wrote it; projects first.
    `max_hide`/`before_hide`: see share.import_lines (a hostile remote's mass deletion)."""
    from ctx.core.transfer import import_projects

    total = share.ImportReport(path=str(repo))
    records: list[dict] = []
    files: dict[str, str] = {}
    path = _path(repo, PROJECTS_FILE)
    if os.path.lexists(path):
        try:
            raw, _ = share.read_lines(path)
        except CtxError as exc:
            raise SyncError(f"{PROJECTS_FILE}: {exc}") from None
        seen = set()
        for i, line in enumerate(raw, 1):
            try:
                rec = json.loads(line) if line else None
            except ValueError:
                total.problems.append(share.Problem(i, f"{PROJECTS_FILE}: not valid JSON; skipped"))
                continue
            if (isinstance(rec, dict) and rec.get("kind") == "project" and isinstance(rec.get("key"), str)
                    and isinstance(rec.get("name"), str) and rec["key"] not in seen
                    and 0 < len(rec["key"]) <= 1000):
                seen.add(rec["key"])
                remote_url = rec.get("remote")
                ok = isinstance(remote_url, str) and len(remote_url) <= 500 and remote_url.isprintable()
                records.append({"key": rec["key"], "name": rec["name"],  # name: transfer.safe_name
                                "remote": remote_url if ok else None,
                                "created_at": rec.get("created_at") if isinstance(rec.get("created_at"), str)
                                else ""})
                files[rec["key"]] = project_file(rec["key"])
    with store.transaction():
        ids = import_projects(store, records)
    source = f"sync:{remote}"
    for key, rel in sorted(files.items()):
        report = share.read_and_import(store, _path(repo, rel), _channel(rel), project_id=ids[key],
                                       source=source, allow_move=True, sync=True,
                                       max_hide=max_hide, before_hide=before_hide)
        total.merge(report)
        total.problems += [share.Problem(p.line, f"{rel}: {p.message}", p.skipped) for p in report.problems]
    report = share.read_and_import(store, _path(repo, GLOBAL_FILE), _channel(GLOBAL_FILE), project_id=None,
                                   source=source, allow_move=True, sync=True, max_hide=max_hide,
                                   before_hide=before_hide)
    total.merge(report)
    return total


def _commit(repo: Path, message: str) -> bool:
    _git(repo, "add", "-A")
    if _git(repo, "diff", "--cached", "--quiet", check=False).returncode == 0:
        return False
    _git(repo, *_identity(), "commit", "-q", "--no-verify", "-m", message)
    return True


# ------------------------------------------------------------------------------ the round

HIDE_SHARE = 0.2   # a round may hide at most this share of the live store unattended…
HIDE_MIN = 3       # …or this many memories, whichever is more
BACKUPS_KEPT = 5
LOCK_WAIT = 300    # seconds a round waits for another one in the same home


def hide_limit(store: Store) -> int:
    live = store.live_counts().live
    return max(HIDE_MIN, int(live * HIDE_SHARE))


def backup(store: Store) -> Path:
    """The whole store as a `ctx export` file (0600) under $CTX_HOME/sync/backups, before a
    round hides anything; the newest BACKUPS_KEPT are kept. `ctx import` reads it back."""
    from ctx.core.transfer import export_lines
    from cuectx.files import replace_file

    folder = paths.home() / "sync" / "backups"
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime()) + f"-{os.getpid()}"
    path = folder / f"before-{stamp}.jsonl"
    replace_file(str(path), ((line + "\n").encode("utf-8") for line in export_lines(store)), mode=0o600)
    for old in sorted(folder.glob("before-*.jsonl"))[:-BACKUPS_KEPT]:
        old.unlink(missing_ok=True)
    return path


class _Lock:
    """One round at a time in a home: an exclusive flock on $CTX_HOME/sync/lock (waits up to
    LOCK_WAIT seconds for a round already running, then a SyncError)."""

    def __enter__(self):
        import fcntl

        folder = paths.home() / "sync"
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.fd = os.open(str(folder / "lock"), os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
        deadline = time.monotonic() + LOCK_WAIT
        while True:
            try:
                fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return self
            except BlockingIOError:
                if time.monotonic() > deadline:
                    os.close(self.fd)
                    raise SyncError(f"another ctx sync round has held {folder / 'lock'} for over "
                                    f"{LOCK_WAIT} s; try again later") from None
                time.sleep(0.2)

    def __exit__(self, *exc) -> None:
        os.close(self.fd)  # closing releases the lock


def _repair_attributes(repo: Path) -> bool:
    """`*.jsonl merge=union` for the clone, whatever the remote committed: in `.git/info/
    attributes` (git reads it first, so a remote's `*.jsonl -merge` cannot break a rebase) and
    in `.gitattributes` (rewritten when it says anything else). True when the file changed."""
    from cuectx.files import replace_file

    info = repo / ".git" / "info"
    info.mkdir(parents=True, exist_ok=True)
    replace_file(str(info / "attributes"), [ATTRIBUTES_TEXT.encode()], mode=0o600, sync=False)
    path = _path(repo, ".gitattributes")
    if share._existing(path) == ATTRIBUTES_TEXT.encode():
        return False
    replace_file(str(path), [ATTRIBUTES_TEXT.encode()], mode=0o600, sync=False)
    return True


def run(store: Store, remote: str | None = None, *, confirm=None) -> SyncReport:
    """One round: export → commit → pull (rebase) → import → export → commit → push, under
    the home's lock. `confirm(hides, live)`: asked (a person at a terminal) when the remote
    would hide more than `hide_limit`; without it such a round fails and hides nothing."""
    with _Lock():
        return _round(store, remote, confirm)


def _import(store: Store, repo: Path, remote: str, confirm) -> share.ImportReport:
    made: list[Path] = []

    def before() -> None:
        if not made:
            made.append(backup(store))

    try:
        return import_all(store, repo, remote, max_hide=hide_limit(store), before_hide=before)
    except share.HideRefused as exc:
        if confirm is None or not confirm(exc.hides, exc.live):
            raise SyncError(f"{exc}. The remote's deletions look like more than a sync should "
                            f"make; run `ctx sync` at a terminal to confirm them") from None
    return import_all(store, repo, remote, before_hide=before)


def _round(store: Store, remote: str | None, confirm) -> SyncReport:
    repo, remote = ensure_clone(remote)
    report = SyncReport(remote=remote, clone=str(repo))
    why, offline = _fetch_why(repo)
    report.fetched = why is None
    report.offline = why
    _repair_attributes(repo)
    if report.fetched and not _has_ref(repo, "HEAD") and _has_ref(repo, f"origin/{BRANCH}"):
        # a new machine: start from what the others wrote, so its first export merges into it
        _git(repo, "checkout", "-q", "-f", "-B", BRANCH, f"origin/{BRANCH}")
        _repair_attributes(repo)
        report.imported.merge(_import(store, repo, remote, confirm))
    report.exported_nodes = export_all(store, repo)
    host = socket.gethostname()
    report.committed = _commit(repo, f"ctx sync from {host}")
    for attempt in range(3):
        if report.fetched and _has_ref(repo, f"origin/{BRANCH}") and _has_ref(repo, "HEAD"):
            proc = _git(repo, *_identity(), "rebase", "-q", f"origin/{BRANCH}", check=False)
            if proc.returncode != 0:
                _git(repo, "rebase", "--abort", check=False)
                raise SyncError(f"git could not rebase the sync clone onto the remote "
                                f"({_last_line(proc.stderr)}); your commits stay queued in {repo}")
        if _repair_attributes(repo):
            _commit(repo, f"ctx sync from {host}: .gitattributes")
        merged = _import(store, repo, remote, confirm)
        report.imported.merge(merged)
        if merged.read:  # sorted, deduplicated files with the merge's superseded copies
            export_all(store, repo)
        if _commit(repo, f"ctx sync from {host}: merged"):
            report.committed = True
        if not (report.fetched and _has_ref(repo, "HEAD")):
            break
        proc = _git(repo, "push", "-q", "origin", f"{BRANCH}:{BRANCH}", check=False)
        report.pushed = proc.returncode == 0
        if report.pushed:
            break
        if offline_reason(proc.stderr):
            report.offline = _last_line(proc.stderr)
            break
        # another machine pushed first (or the remote refuses): fetch, rebase, try again
        if attempt == 2 or _fetch(repo) is not None:
            raise SyncError(f"git push failed: {_last_line(proc.stderr)}; your commits stay "
                            f"queued in {repo}")
    if report.pushed:
        _fetch(repo)
    report.ahead, report.behind = _counts(repo)
    if why is not None and not offline:  # not the network: the next round will not fix it
        raise SyncError(f"git fetch failed: {why} (remote {remote}); "
                        f"{report.ahead} commit{'s' if report.ahead != 1 else ''} queued in {repo}")
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
