"""Which project a directory belongs to (SPEC §2.8), from file reads alone.

The hook path calls this on every event, so it never spawns `git` and imports only the
stdlib: a handful of `stat`s walking up from `cwd` and at most three small file reads
(`.git` file, `commondir`, `config`). Nothing is cached across processes.

- `CTX_PROJECT` wins: a project name (`CTX_PROJECT=global` means "no project").
- Else the first `.git` above the folder: a `.git` *directory* makes its folder the main
  worktree; a `.git` *file* (`gitdir: PATH`) is a linked worktree when PATH holds a
  `commondir` (the main worktree is then the common dir's parent) and a submodule (its own
  project) otherwise. A bare repository, or a common dir not named `.git`, stands for itself.
- Identity (`key`): the origin remote, normalised to `host/org/repo`, so a moved or
  re-cloned repository keeps its memory; without one, the real path of the main worktree.
- Else no project: only global memory applies.
"""
from __future__ import annotations

import os
import re

from ctx.core import settings
from cuectx.value import Value

ENV = "CTX_PROJECT"
GLOBAL_WORDS = ("global", "-", "none")
MAX_NAME = 64
_NAME_BAD = re.compile(r"[^A-Za-z0-9_.-]+")
_SCP = re.compile(r"^(?:[^@/:]+@)?([^/:]+):(?!//)(.+)$")  # git@host:org/repo.git
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://(?:[^@/]*@)?([^/:]*)(?::\d*)?(/.*)?$")
_SECTION = re.compile(r'^\s*\[\s*remote\s+"((?:[^"\\]|\\.)*)"\s*\]')


class ProjectRef(Value):
    """A project as found on disk (or named by CTX_PROJECT); the database row is elsewhere."""

    __slots__ = ("key", "name", "remote", "root", "source")

    def __init__(self, key: str, name: str, root: str | None, remote: str | None,
                 source: str) -> None:
        self.key = key  # normalised remote, else the main worktree's real path ("" for env)
        self.name = name  # display name to start from (the store makes it unique)
        self.root = root  # main worktree (submodule folder, bare repo), real path
        self.remote = remote  # origin URL as written in the config
        self.source = source  # "git" | "env"


def resolve(cwd: str | os.PathLike | None = None, *, env: dict | None = None) -> ProjectRef | None:
    """The project for `cwd` (default: the process's), or None for "global only"."""
    forced = settings.project(env)
    if forced:
        if forced.lower() in GLOBAL_WORDS:
            return None
        return ProjectRef(key="", name=forced, root=None, remote=None, source="env")
    try:
        start = os.path.abspath(os.fspath(cwd) if cwd is not None else os.getcwd())
    except (OSError, TypeError, ValueError):
        return None
    found = find_repository(start)
    if found is None:
        return None
    root, common = found
    remote = origin_url(common)
    root = os.path.realpath(root)
    key = normalise_remote(remote) if remote else None
    return ProjectRef(key=key or root, name=display_name(root), root=root,
                      remote=_without_credentials(remote), source="git")


def _without_credentials(url: str | None) -> str | None:
    """The origin URL as ctx stores and shows it: a token or password in it (a CI clone,
    `https://x-access-token:ghp_…@github.com/…`) redacted (cuectx.secrets). The key is made
    from the URL as written, so identity does not change."""
    if not url or "@" not in url or "://" not in url:
        return url
    from cuectx.secrets import redact

    return redact(url)


def find_repository(start: str) -> tuple[str, str] | None:
    """(main worktree or project folder, git common dir) for the repository holding `start`."""
    d = start
    while True:
        dot = os.path.join(d, ".git")
        try:
            if os.path.isdir(dot):
                return d, dot
            if os.path.isfile(dot):
                linked = _from_git_file(d, dot)
                if linked is not None:
                    return linked
            elif _is_git_dir(d):  # inside a bare repository or a .git folder itself
                if os.path.basename(d) == ".git":
                    return os.path.dirname(d), d
                return d, d
        except OSError:
            return None
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def _from_git_file(folder: str, dot: str) -> tuple[str, str] | None:
    text = _read(dot, 4096)
    if text is None or not text.startswith("gitdir:"):
        return None
    gitdir = text[len("gitdir:"):].strip().splitlines()[0].strip() if text.strip() else ""
    if not gitdir:
        return None
    gitdir = os.path.normpath(os.path.join(folder, gitdir))
    common_rel = _read(os.path.join(gitdir, "commondir"), 4096)
    if common_rel is None or not common_rel.strip():
        return folder, gitdir  # a submodule (or a separate git dir): its own project
    common = os.path.normpath(os.path.join(gitdir, common_rel.strip()))
    if os.path.basename(common) == ".git":
        return os.path.dirname(common), common
    return common, common  # a linked worktree of a bare repository


def _is_git_dir(d: str) -> bool:
    return (os.path.isfile(os.path.join(d, "HEAD")) and os.path.isdir(os.path.join(d, "objects"))
            and os.path.isdir(os.path.join(d, "refs")))


def _read(path: str, limit: int) -> str | None:
    try:
        with open(path, "rb") as f:
            return f.read(limit).decode("utf-8", "replace")
    except OSError:
        return None


def origin_url(common: str) -> str | None:
    """`url` of `[remote "origin"]` in `<common>/config`, or None."""
    text = _read(os.path.join(common, "config"), 256 * 1024)
    if not text:
        return None
    in_origin = False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("["):
            m = _SECTION.match(stripped)
            in_origin = bool(m) and m.group(1) == "origin"
            continue
        if in_origin:
            name, eq, value = stripped.partition("=")
            if eq and name.strip().lower() == "url":
                value = value.split(" #")[0].split(" ;")[0].strip().strip('"').strip()
                return value or None
    return None


def normalise_remote(url: str) -> str | None:
    """`git@github.com:Org/Repo.git`, `https://user@github.com/org/repo`, `ssh://git@github.com:22/org/repo/`
    → `github.com/org/repo`. Local paths stay paths (without `.git`). None when unusable."""
    url = (url or "").strip()
    if not url:
        return None
    m = _URL.match(url)
    if m:
        host, path = m.group(1), m.group(2) or ""
        if url.lower().startswith("file:"):
            host = ""
    elif "://" not in url and not url.startswith(("/", ".", "~")) and _SCP.match(url) \
            and not re.match(r"^[A-Za-z]:[\\/]", url):
        sm = _SCP.match(url)
        host, path = sm.group(1), "/" + sm.group(2)
    else:  # a local path
        host, path = "", url
    path = re.sub(r"/+", "/", path.replace("\\", "/")).strip("/")
    if path.endswith(".git"):
        path = path[:-4].rstrip("/")
    if not path and not host:
        return None
    out = f"{host.lower()}/{path}" if host else "/" + path
    return out.lower()


def display_name(root: str) -> str:
    """A name to show and type: the folder's last part, made of letters, digits, `._-`."""
    base = os.path.basename(root.rstrip("/\\")) or "root"
    if base.endswith(".git") and len(base) > 4:
        base = base[:-4]
    return clean_name(base)


def clean_name(raw: str) -> str:
    name = _NAME_BAD.sub("-", raw).strip("-.") or "project"
    if not name[0].isalnum():
        name = "p" + name
    return name[:MAX_NAME]


def git_user(start: str | os.PathLike | None = None, *, env: dict | None = None) -> str | None:
    """git's user as `Name <email>` (who shares memory), from file reads like the rest of this
    module: $GIT_AUTHOR_NAME/$GIT_AUTHOR_EMAIL, else `[user]` in the repository's config, then
    ~/.gitconfig and ~/.config/git/config. None when git has no user."""
    environ = os.environ if env is None else env
    name, email = environ.get("GIT_AUTHOR_NAME"), environ.get("GIT_AUTHOR_EMAIL")
    files = []
    found = find_repository(os.path.abspath(os.fspath(start))) if start is not None else None
    if found:
        files.append(os.path.join(found[1], "config"))
    home = os.path.expanduser("~")
    files.append(os.path.join(home, ".gitconfig"))
    xdg = environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    files.append(os.path.join(xdg, "git", "config"))
    for path in files:
        if name and email:
            break
        got = _user_section(_read(path, 256 * 1024) or "")
        name = name or got.get("name")
        email = email or got.get("email")
    if not name and not email:
        return None
    return f"{name or 'unknown'} <{email}>" if email else name


def _user_section(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    in_user = False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("["):
            in_user = stripped.lower().replace(" ", "") == "[user]"
            continue
        if in_user:
            key, eq, value = stripped.partition("=")
            if eq and key.strip().lower() in ("name", "email"):
                out.setdefault(key.strip().lower(), value.split(" #")[0].strip().strip('"'))
    return out
