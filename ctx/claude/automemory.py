"""Claude Code's own automatic memory, brought into ctx (`ctx import --claude-memory`).

What Claude Code 2.1.330 does (SPEC §2.10; checked with the real client through
../shared/tools/claude-code — its system prompt and the folders it creates):
- the folder is `~/.claude/projects/<project path, every non-alphanumeric character as
  `-`>/memory/` (`$CLAUDE_CONFIG_DIR` instead of `~/.claude`), or the `autoMemoryDirectory`
  setting as written (`~` expanded) — one folder then, whatever the project;
- `MEMORY.md` is an index, one line per memory: `- [Title](file.md) — hook`;
- each memory is one file holding one fact, with frontmatter
  `name` (a kebab-case slug), `description` (one line), `metadata: type:` one of user,
  feedback, project, reference; the body may link others as `[[name]]`.

Each topic file becomes one node of the folder's project: its body as content, the type
mapped (user, project → fact; feedback → pattern; reference → source), tags `claude-memory`
and `claude-memory:<type>`, and where it came from in metadata (`claude_memory_file`, the
file's hash). No tier by default: like Claude Code's topic files they are read on demand
(per-prompt selection), not at every session start. Importing again changes nothing; an
edited file becomes a new node that supersedes the old one; a file that repeats a live
memory (ctx.core.dedupe) is not imported.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

from ctx.core import dedupe
from ctx.core.errors import CtxError
from ctx.core.store import Store
from cuectx.value import Value

SOURCE = "claude-memory"
TYPES = {"user": "fact", "project": "fact", "feedback": "pattern", "reference": "source"}
_FRONT = re.compile(r"\A---\s*\n(.*?)\n---\s*(\n|\Z)", re.DOTALL)
_FRONT_OPEN = re.compile(r"\A---\s*\n")
_INDEX_LINE = re.compile(r"^\s*[-*]\s*\[([^\]]*)\]\(([^)]+)\)\s*(?:[—–-]+\s*(.*))?$")


class Memory(Value):
    __slots__ = ("body", "description", "digest", "file", "memory_type", "name", "title")

    def __init__(self, file: str, name: str, description: str, memory_type: str, body: str,
                 digest: str, title: str = "") -> None:
        self.file = file  # name inside the folder
        self.name = name
        self.description = description
        self.memory_type = memory_type  # user | feedback | project | reference | ""
        self.body = body
        self.digest = digest  # sha256 of the file's bytes (first 16 hex)
        self.title = title  # from MEMORY.md


class ImportReport(Value):
    __slots__ = ("added", "duplicates", "folder", "skipped", "unchanged", "updated")

    def __init__(self, folder: str, added: list[str] | None = None,
                 updated: list[tuple[str, str]] | None = None, unchanged: list[str] | None = None,
                 duplicates: list[tuple[str, str]] | None = None,
                 skipped: list[str] | None = None) -> None:
        self.folder = folder
        self.added = [] if added is None else added
        self.updated = [] if updated is None else updated  # (old id, new id)
        self.unchanged = [] if unchanged is None else unchanged
        self.duplicates = [] if duplicates is None else duplicates  # (file, existing id)
        self.skipped = [] if skipped is None else skipped  # files not understood

    def to_dict(self) -> dict:
        return {"folder": self.folder, "added": self.added,
                "updated": [{"old": o, "new": n} for o, n in self.updated],
                "unchanged": self.unchanged,
                "duplicates": [{"file": f, "id": i} for f, i in self.duplicates],
                "skipped": self.skipped}


def _config_dir(env) -> Path:
    raw = env.get("CLAUDE_CONFIG_DIR")
    return Path(raw).expanduser() if raw else Path(env.get("HOME") or Path.home()) / ".claude"


def _setting(project_root: Path | None, env) -> str | None:
    """`autoMemoryDirectory` from the user's own settings (`~/.claude/settings.json`) only.
    Claude Code ignores it in a repository's `.claude/settings.json` and `settings.local.json`
    "for security" (a cloned repository could point it at `~/.ssh`), and so does ctx."""
    del project_root  # deliberately unused: the repository's settings are not asked
    from ctx.core.trust import read_regular

    try:
        data = json.loads(read_regular(str(_config_dir(env) / "settings.json"), limit=4 * 1024 * 1024))
    except (OSError, ValueError, CtxError):
        return None
    value = data.get("autoMemoryDirectory") if isinstance(data, dict) else None
    return value.strip() if isinstance(value, str) and value.strip() else None


def folder_key(path: str) -> str:
    """Claude Code's name for a project folder: every non-alphanumeric character as `-`."""
    return re.sub(r"[^A-Za-z0-9]", "-", path)


def memory_dir(cwd: str | None = None, *, env=None) -> Path:
    """The automatic-memory folder Claude Code uses for the repository at `cwd`."""
    from ctx.core.repo import find_repository

    env = os.environ if env is None else env
    start = os.path.abspath(cwd or os.getcwd())
    found = find_repository(start)
    root = Path(found[0]) if found else Path(start)
    configured = _setting(root, env)
    if configured:
        path = Path(os.path.expanduser(configured))
        return path if path.is_absolute() else root / path
    return _config_dir(env) / "projects" / folder_key(str(root)) / "memory"


def _frontmatter(text: str) -> tuple[dict, str]:
    """A small reader for the frontmatter Claude Code writes (key: value, one nested map)."""
    m = _FRONT.match(text)
    if not m:
        return {}, text
    out: dict = {}
    parent = None
    for line in m.group(1).splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        key, sep, value = line.strip().partition(":")
        if not sep:
            continue
        value = value.strip().strip("'\"")
        if line[:1] in (" ", "\t") and isinstance(out.get(parent), dict):
            out[parent][key.strip()] = value
        elif value == "":
            parent = key.strip()
            out[parent] = {}
        else:
            out[key.strip()] = value
            parent = None
    return out, text[m.end():]


MAX_FILE_BYTES = 1024 * 1024  # one memory file; Claude Code's are a few hundred bytes


def _read_file(folder: Path, name: str) -> str:
    """One file of the folder as text: never through a symlink (the memory folder must not
    lead to `~/.aws/config`), a regular file of at most MAX_FILE_BYTES, UTF-8 without NUL.
    A CtxError names what is wrong."""
    from ctx.core.trust import confined, read_regular

    path = confined(str(folder), name, what="the memory folder")
    raw = read_regular(path, limit=MAX_FILE_BYTES)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise CtxError("not UTF-8 text") from None
    if "\x00" in text:
        raise CtxError("contains a NUL character")
    return text


def read_folder(folder: Path) -> tuple[list[Memory], list[str]]:
    """(memories, files that could not be read, each as `name: why`) — MEMORY.md gives
    titles, never content. A bad file is skipped and named; the others are read."""
    titles: dict[str, str] = {}
    memories, skipped = [], []
    try:
        index = _read_file(folder, "MEMORY.md") if os.path.lexists(folder / "MEMORY.md") else ""
    except (OSError, CtxError) as exc:
        skipped.append(f"MEMORY.md: {_why(exc)}")
        index = ""
    for line in index.splitlines():
        m = _INDEX_LINE.match(line)
        if m:
            titles[m.group(2).strip()] = m.group(1).strip()
    try:
        names = sorted(e.name for e in os.scandir(folder) if e.name.endswith(".md"))
    except OSError as exc:
        raise CtxError(f"cannot list {folder}: {exc.strerror or exc}") from None
    for name in names:
        if name == "MEMORY.md":
            continue
        try:
            text = _read_file(folder, name)
        except (OSError, CtxError) as exc:
            skipped.append(f"{name}: {_why(exc)}")
            continue
        if _FRONT_OPEN.match(text) and not _FRONT.match(text):
            skipped.append(f"{name}: its front matter (---) is never closed")
            continue
        meta, body = _frontmatter(text)
        nested = meta.get("metadata") if isinstance(meta.get("metadata"), dict) else {}
        mtype = str(nested.get("type") or meta.get("type") or "").strip().lower()
        mtype = mtype if re.fullmatch(r"[a-z][a-z0-9_-]{0,39}", mtype) else ""  # it becomes a tag
        body = body.strip() or str(meta.get("description") or "").strip()
        if not body:
            skipped.append(f"{name}: no text")
            continue
        from ctx.core.store import MAX_CONTENT_CHARS

        if len(body) > MAX_CONTENT_CHARS:
            skipped.append(f"{name}: {len(body):,} characters, over the {MAX_CONTENT_CHARS:,} a memory holds")
            continue
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
        memories.append(Memory(name, str(meta.get("name") or Path(name).stem)[:200],
                               str(meta.get("description") or "")[:1000], mtype[:40], body,
                               digest, titles.get(name, "")[:200]))
    return memories, skipped


def _why(exc: BaseException) -> str:
    if isinstance(exc, CtxError):
        return str(exc).split(": ", 1)[-1] if str(exc).startswith("/") else str(exc)
    return getattr(exc, "strerror", None) or str(exc)


def import_folder(store: Store, folder: Path, project_id: int | None, *,
                  tier: str | None = None, policy: str | None = None) -> ImportReport:
    """Bring every topic file in `folder` into the store (one transaction)."""
    from ctx.core.settings import dedupe_policy

    if not folder.is_dir():
        raise CtxError(f"no Claude Code memory folder at {folder} (Claude Code creates it the "
                       f"first time it saves a memory in this repository; `autoMemoryDirectory` "
                       f"in settings.json moves it)")
    policy = dedupe_policy(policy)
    policy = "keep" if policy == "ask" else policy  # an import asks nobody
    memories, skipped = read_folder(folder)
    report = ImportReport(str(folder), skipped=skipped)
    key = str(folder.resolve())
    with store.transaction():
        for mem in memories:
            source = f"{key}/{mem.file}"
            old = [n for n in store.find_by_metadata("claude_memory_file", source)]
            if old and any(n.metadata.get("claude_memory_sha") == mem.digest for n in old):
                report.unchanged.append(old[0].id)
                continue
            if not old:
                dup = dedupe.check(store, dedupe.as_stored(mem.body, store.secrets), project_id)
                if not dedupe.should_store(dup, policy):
                    report.duplicates.append((mem.file, dup.node_id))
                    continue
            tags = [SOURCE] + ([f"{SOURCE}:{mem.memory_type}"] if mem.memory_type else [])
            if tier:
                tags.append(f"tier:{tier.removeprefix('tier:')}")
            metadata = {"source": SOURCE, "claude_memory_file": source,
                        "claude_memory_sha": mem.digest, "name": mem.name}
            if mem.description:
                metadata["description"] = mem.description
            if mem.title:
                metadata["title"] = mem.title
            if mem.memory_type:
                metadata["claude_memory_type"] = mem.memory_type
            try:
                node = store.add(mem.body, type=TYPES.get(mem.memory_type, "fact"), tags=tags,
                                 metadata=metadata, project_id=project_id)
            except CtxError as exc:  # one bad file costs itself, named, never the others
                report.skipped.append(f"{mem.file}: {exc}")
                continue
            if old:
                for n in old:
                    store.supersede(n.id, node.id)
                report.updated.append((old[-1].id, node.id))
            else:
                report.added.append(node.id)
    return report
