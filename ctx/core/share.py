"""Memory that travels through git (SPEC §2.11): the shared file, its merge rules, tombstones.

`.ctx/memory.jsonl` at a repository's root (and each file of the personal sync clone,
ctx/core/sync.py) holds one record per line: a header, then nodes and tombstones sorted by
id, keys sorted, no volatile fields (no token estimate, no project name, no timestamps of
the export itself) — so a change to one node is a one-line diff. Git merges additions
without conflict because `.ctx/.gitattributes` says `memory.jsonl merge=union` (sorted
lines all append at the end; without union every two people's additions would conflict).

    {"kind":"ctx-share","version":1}
    {"by":"Ann <ann@x>","content":"…","created_at":"…","id":"01J…","kind":"node",
     "metadata":{},"prev":"3f…","tags":["tier:reference"],"type":"fact","updated_at":"…"}
    {"id":"01K…","kind":"tombstone","prev":"9a…"}

A *channel* is one file memory travels through. Per channel and node, `share_base` keeps the
version last exchanged (hash of its line, '-' for a tombstone) and the version before it
(`prev`, also written on the line). Import, per id, compares the local node, the base and
every line for that id (a union merge or conflict markers can leave two):

- a line equal to the local node or to the base brings nothing new;
- otherwise the newest `updated_at` wins (ties: the larger hash, so every machine picks the
  same one); a loser that is not the winner's `prev` is kept as a superseded copy with an
  id derived from (id, its hash) — the same copy on every machine, so they converge;
  a local node unchanged since the exchange and absent from the file is simply replaced;
- a tombstone deletes a local node unchanged since the exchange; an edit beats a deletion
  (the local node is kept, made newest, and travels back);
- provenance: an imported node's metadata gets `shared_by` (the line's `by`: git's user
  where it was first shared) and `shared_from`.

Hostile or broken files: every bad line (conflict marker, invalid JSON, over 2 MB, unknown
kind or type, bad id or tags, an id that is another project's node here) becomes a
`Problem` with its line number and is skipped; the rest is imported. Secrets: the guard
(ctx.core.guard) redacts on the way out, whatever CTX_SECRETS says, and screens on the way in.

This module owns share_base and share_config (migration 7); share_files, what ctx last saw
of each file, is ctx/core/shared_files.py: the session-start hook loads only that when the
file is unchanged, and this module (stdlib only) when it changed.
"""
from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterable, Sequence
from pathlib import Path

from ctx.core import shared_files
from ctx.core.errors import CtxError
from ctx.core.ids import ALPHABET
from ctx.core.model import NODE_TYPES, TIERS, Node, now_iso
from ctx.core.store import Store, validate_content, validate_metadata, validate_tags
from cuectx.value import Value

FILE = ".ctx/memory.jsonl"
ATTRIBUTES = ".ctx/.gitattributes"
ATTRIBUTES_TEXT = ("# ctx: git keeps both sides' lines when two people change the shared memory;\n"
                   "# ctx merges them by id on the next read (see ctx's README, 'Sharing').\n"
                   "memory.jsonl merge=union\n")
FORMAT_VERSION = 1
PRIVATE = "private"
DEFAULT_TIERS = ("pinned", "reference")
MAX_LINE_BYTES = 2 * 1024 * 1024
MAX_FILE_BYTES = 256 * 1024 * 1024
PROVENANCE = ("shared_by", "shared_from", "shared_author", "claude_memory_file", "claude_memory_sha",
              "tombstone_of", "collided_with")
# set by ctx's importers only (ctx.core.trust); a line's metadata never carries them in
DELETED = "-"
_NODE_FIELDS = {"kind", "id", "type", "content", "tags", "metadata", "created_at", "updated_at",
                "superseded_by", "edges", "by", "prev"}
_TOMB_FIELDS = {"kind", "id", "prev"}
_MARKERS = (b"<<<<<<<", b"=======", b">>>>>>>", b"|||||||")


# ------------------------------------------------------------------------------ values

class Selection(Value):
    """What `ctx project share` writes: live nodes in these tiers (of these types, holding
    one of these tags when given); a `private` tag always keeps a node out."""

    __slots__ = ("auto", "tags", "tiers", "types")

    def __init__(self, tiers: tuple[str, ...] = DEFAULT_TIERS, types: tuple[str, ...] = (),
                 tags: tuple[str, ...] = (), auto: bool = False) -> None:
        self.tiers = tiers
        self.types = types
        self.tags = tags
        self.auto = auto

    def validated(self) -> Selection:
        for t in self.tiers:
            if t not in TIERS:
                raise CtxError(f"unknown tier {t!r}; use one of: {', '.join(TIERS)}")
        for t in self.types:
            if t not in NODE_TYPES:
                raise CtxError(f"unknown node type {t!r}; use one of: {', '.join(NODE_TYPES)}")
        validate_tags(self.tags) if self.tags else None
        if not self.tiers:
            raise CtxError("give at least one tier to share")
        return self


class Problem(Value):
    __slots__ = ("line", "message", "skipped")

    def __init__(self, line: int, message: str, skipped: bool = True) -> None:
        self.line = line
        self.message = message
        self.skipped = skipped  # False: the line was imported, with this said about it

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}" if self.line else self.message


class ImportReport(Value):
    __slots__ = ("added", "collisions", "conflicts", "deferred", "deleted", "kept", "path",
                 "problems", "read", "refused", "updated")

    def __init__(self, path: str = "", read: bool = False, added: list[str] | None = None,
                 updated: list[str] | None = None, deleted: list[str] | None = None,
                 conflicts: list[str] | None = None, kept: list[str] | None = None,
                 problems: list[Problem] | None = None) -> None:
        self.path = path
        self.read = read  # the file was read (it had changed)
        self.added = [] if added is None else added
        self.updated = [] if updated is None else updated
        self.deleted = [] if deleted is None else deleted
        self.conflicts = [] if conflicts is None else conflicts  # ids of superseded copies kept
        self.kept = [] if kept is None else kept  # edited here, deleted there: kept
        self.problems = [] if problems is None else problems
        # ids of new nodes made from lines that reused the id of a node they may not change
        self.collisions: list[str] = []
        self.refused: list[str] = []  # deletions of nodes the file may not change: not applied
        self.deferred = ""  # why the file was not read now (too big for a hook), else ""

    @property
    def changed(self) -> bool:
        return bool(self.added or self.updated or self.deleted or self.conflicts or self.kept
                    or self.collisions)

    def counts(self) -> dict[str, int]:
        return {"added": len(self.added), "updated": len(self.updated), "deleted": len(self.deleted),
                "conflicts": len(self.conflicts), "kept": len(self.kept),
                "collisions": len(self.collisions), "refused": len(self.refused),
                "bad_lines": len(self.skipped_lines)}

    @property
    def skipped_lines(self) -> list[Problem]:
        return [p for p in self.problems if p.skipped]

    def merge(self, other: ImportReport) -> None:
        for name in ("added", "updated", "deleted", "conflicts", "kept", "problems", "collisions",
                     "refused"):
            getattr(self, name).extend(getattr(other, name))
        self.read = self.read or other.read
        self.deferred = self.deferred or other.deferred


class ExportReport(Value):
    __slots__ = ("lines_added", "lines_removed", "nodes", "path", "tombstones", "written")

    def __init__(self, path: str, nodes: int, tombstones: int, written: bool, lines_added: int = 0,
                 lines_removed: int = 0) -> None:
        self.path = path
        self.nodes = nodes
        self.tombstones = tombstones
        self.written = written  # False: the file already said exactly this
        self.lines_added = lines_added
        self.lines_removed = lines_removed


class Line(Value):
    """One parsed record of a shared file."""

    __slots__ = ("hash", "lineno", "prev", "record")

    def __init__(self, lineno: int, record: dict, hash: str, prev: str | None) -> None:
        self.lineno = lineno
        self.record = record
        self.hash = hash
        self.prev = prev

    @property
    def id(self) -> str:
        return self.record["id"]

    @property
    def tombstone(self) -> bool:
        return self.record["kind"] == "tombstone"


# ------------------------------------------------------------------------------ lines

def dumps(obj: dict) -> str:
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def header(project_key: str | None = None) -> str:
    head: dict = {"kind": "ctx-share", "version": FORMAT_VERSION}
    if project_key is not None:
        head["project"] = project_key
    return dumps(head)


def version_hash(record: dict) -> str:
    """The version of a node line: everything but kind, `by` and `prev` (16 hex digits)."""
    if record.get("kind") == "tombstone":
        return DELETED
    import hashlib

    core = {k: v for k, v in record.items() if k not in ("kind", "by", "prev")}
    return hashlib.sha256(dumps(core).encode("utf-8")).hexdigest()[:16]


def node_record(node: Node, out_edges: Sequence[tuple[str, str]], *, by: str | None,
                redact: bool = True) -> dict:
    """A node as a line of the file: provenance metadata lifted to `by`, secrets redacted."""
    from ctx.core import guard

    meta = {k: v for k, v in node.metadata.items() if k not in PROVENANCE}
    content = node.content
    if redact:
        content, _ = guard.screen(content, guard.REDACT)
        found: list = []
        meta = guard.screen_value(meta, guard.REDACT, found)
        tags = sorted(set(guard.screen_tags(list(node.tags), guard.REDACT, found)))
    else:
        tags = sorted(node.tags)
    rec: dict = {"kind": "node", "id": node.id, "type": node.type, "content": content,
                 "tags": tags, "metadata": meta, "created_at": node.created_at,
                 "updated_at": node.updated_at}
    if node.superseded_by:
        rec["superseded_by"] = node.superseded_by
    if out_edges:
        rec["edges"] = [[to, kind] for to, kind in sorted(out_edges)]
    shared_by = node.metadata.get("shared_by") if isinstance(node.metadata.get("shared_by"), str) else None
    if shared_by or by:
        rec["by"] = shared_by or by
    return rec


def parse(raw_lines: Iterable[bytes]) -> tuple[list[Line], list[Problem], str | None]:
    """(good records, problems, the header's project key). Never raises on content."""
    good: list[Line] = []
    problems: list[Problem] = []
    project_key = None
    for lineno, raw in enumerate(raw_lines, 1):
        if raw is None:  # a line over the limit (read_lines dropped its body)
            problems.append(Problem(lineno, f"longer than {MAX_LINE_BYTES // (1024 * 1024)} MB; skipped"))
            continue
        stripped = raw.strip()
        if not stripped:
            continue
        if stripped.startswith(_MARKERS):
            problems.append(Problem(lineno, "a merge-conflict marker; skipped (both sides' lines "
                                            "around it are read)"))
            continue
        try:
            rec = json.loads(stripped.decode("utf-8"))
        except UnicodeDecodeError:
            problems.append(Problem(lineno, "not UTF-8 text; skipped"))
            continue
        except ValueError as exc:
            problems.append(Problem(lineno, f"not valid JSON ({getattr(exc, 'msg', exc)}); skipped"))
            continue
        if not isinstance(rec, dict):
            problems.append(Problem(lineno, f"a JSON {type(rec).__name__}, not an object; skipped"))
            continue
        kind = rec.get("kind")
        if kind == "ctx-share":
            if rec.get("version") != FORMAT_VERSION:
                problems.append(Problem(lineno, f"format version {rec.get('version')!r} is not "
                                                f"{FORMAT_VERSION}; read as {FORMAT_VERSION}", False))
            if isinstance(rec.get("project"), str):
                project_key = rec["project"]
            continue
        try:
            line = _check(lineno, rec)
        except CtxError as exc:
            problems.append(Problem(lineno, f"{exc}; skipped"))
            continue
        unknown = sorted(set(rec) - (_NODE_FIELDS if kind == "node" else _TOMB_FIELDS))
        if unknown:
            problems.append(Problem(lineno, f"unknown field{'s' if len(unknown) > 1 else ''} "
                                            f"{', '.join(map(repr, unknown[:5]))} ignored", False))
        good.append(line)
    return good, problems, project_key


def _check(lineno: int, rec: dict) -> Line:
    kind = rec.get("kind")
    if kind not in ("node", "tombstone"):
        raise CtxError(f"unknown record kind {str(kind)[:40]!r} (expected node or tombstone)")
    node_id = rec.get("id")
    if not _is_ulid(node_id):
        raise CtxError(f"id {str(node_id)[:40]!r} is not a ULID")
    prev = rec.get("prev")
    prev = prev if isinstance(prev, str) and len(prev) <= 64 else None
    if kind == "tombstone":
        return Line(lineno, {"kind": "tombstone", "id": node_id}, DELETED, prev)
    if rec.get("type") not in NODE_TYPES:
        raise CtxError(f"unknown node type {str(rec.get('type'))[:40]!r}")
    content = validate_content(rec.get("content"))
    tags = rec.get("tags") or []
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise CtxError("tags must be a list of strings")
    tags = sorted(validate_tags(tags))
    meta = validate_metadata(rec.get("metadata"))
    meta = {k: v for k, v in meta.items() if k not in PROVENANCE}
    for name in ("created_at", "updated_at"):
        if not isinstance(rec.get(name), str) or not 10 <= len(rec[name]) <= 40:
            raise CtxError(f"{name} must be a timestamp")
    out: dict = {"kind": "node", "id": node_id, "type": rec["type"], "content": content,
                 "tags": tags, "metadata": meta, "created_at": rec["created_at"],
                 "updated_at": rec["updated_at"]}
    sup = rec.get("superseded_by")
    if sup is not None:
        if not _is_ulid(sup):
            raise CtxError("superseded_by is not a node id")
        out["superseded_by"] = sup
    edges = rec.get("edges") or []
    if not isinstance(edges, list):
        raise CtxError("edges must be a list of [to, type] pairs")
    clean = []
    for e in edges:
        if (not isinstance(e, list) or len(e) != 2 or not _is_ulid(e[0])
                or e[1] not in ("DEPENDS_ON", "DERIVED_FROM", "SUPERSEDES", "RELATES_TO")):
            raise CtxError("edges must be a list of [to, type] pairs")
        clean.append([e[0], e[1]])
    if clean:
        out["edges"] = sorted(clean)
    if isinstance(rec.get("by"), str) and rec["by"].strip():  # kept on the line, never shown
        out["by"] = " ".join(rec["by"].split())[:200]
    return Line(lineno, out, version_hash(out), prev)


def _is_ulid(value) -> bool:
    return isinstance(value, str) and len(value) == 26 and set(value) <= _ULID_SET


_ULID_SET = set(ALPHABET)


def read_lines(path: Path, *, limit: int = MAX_FILE_BYTES) -> tuple[list[bytes | None], str]:
    """The file's lines (None for one over the limit) and the sha256 of its bytes. Opened
    without following a symlink or blocking on a FIFO, regular files of at most `limit`
    bytes only (ctx.core.trust.open_regular; a CtxError otherwise)."""
    import hashlib

    from ctx.core.trust import open_regular

    digest = hashlib.sha256()
    lines: list[bytes | None] = []
    read = 0
    with open_regular(str(path), limit=limit) as f:
        while True:
            raw = f.readline(MAX_LINE_BYTES + 1)
            if not raw:
                break
            read += len(raw)
            if read > limit:
                raise CtxError(f"{path} grew over the {limit // (1024 * 1024)} MB limit while read")
            digest.update(raw)
            if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
                while True:  # skip the rest of the huge line
                    more = f.readline(MAX_LINE_BYTES)
                    read += len(more)
                    if read > limit:
                        raise CtxError(f"{path} grew over the {limit // (1024 * 1024)} MB limit")
                    digest.update(more)
                    if not more or more.endswith(b"\n"):
                        break
                lines.append(None)
                continue
            lines.append(raw)
    return lines, digest.hexdigest()


def copy_id(node_id: str, version: str) -> str:
    """The id of the superseded copy of `node_id`'s version `version`: the same on every
    machine (so two that resolve the same conflict converge), near the original in id order."""
    import hashlib

    digest = hashlib.sha256(f"{node_id}:{version}".encode()).digest()
    bits = int.from_bytes(digest[:10], "big")
    tail = "".join(ALPHABET[(bits >> (5 * i)) & 31] for i in range(16))
    return node_id[:10] + tail


# ------------------------------------------------------------------------------ bookkeeping

def base_rows(conn, channel: str) -> dict[str, tuple[str, str | None]]:
    return {r[0]: (r[1], r[2]) for r in conn.execute(
        "SELECT node_id, hash, prev FROM share_base WHERE channel = ?", (channel,))}


def _set_base(conn, channel: str, rows: dict[str, tuple[str, str | None]]) -> None:
    conn.executemany("INSERT INTO share_base (channel, node_id, hash, prev) VALUES (?, ?, ?, ?) "
                     "ON CONFLICT(channel, node_id) DO UPDATE SET hash = excluded.hash, "
                     "prev = excluded.prev", [(channel, k, h, p) for k, (h, p) in rows.items()])


def file_state(conn, path: str) -> tuple[int, int, str] | None:
    return shared_files.state(conn, path)


def _record_file(conn, path: str, channel: str, st: os.stat_result, digest: str) -> None:
    shared_files.record(conn, path, channel, st, digest, now_iso())


def get_config(conn, project_id: int) -> Selection | None:
    row = conn.execute("SELECT tiers, types, tags, auto FROM share_config WHERE project_id = ?",
                       (project_id,)).fetchone()
    if row is None:
        return None
    split = lambda s: tuple(x for x in s.split(",") if x)  # noqa: E731
    return Selection(split(row[0]), split(row[1]), split(row[2]), bool(row[3]))


def save_config(conn, project_id: int, sel: Selection) -> None:
    conn.execute("INSERT INTO share_config (project_id, tiers, types, tags, auto, updated_at) "
                 "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(project_id) DO UPDATE SET tiers = excluded.tiers, "
                 "types = excluded.types, tags = excluded.tags, auto = excluded.auto, "
                 "updated_at = excluded.updated_at",
                 (project_id, ",".join(sel.tiers), ",".join(sel.types), ",".join(sel.tags),
                  int(sel.auto), now_iso()))


def _fingerprint(conn, project_id: int) -> str:
    row = conn.execute("SELECT fingerprint FROM share_config WHERE project_id = ?",
                       (project_id,)).fetchone()
    return row[0] if row else ""


def _set_fingerprint(conn, project_id: int, value: str) -> None:
    conn.execute("UPDATE share_config SET fingerprint = ? WHERE project_id = ?", (value, project_id))


def channel_for(project_id: int) -> str:
    return f"share:{project_id}"


# ------------------------------------------------------------------------------ export

def build(store: Store, channel: str, node_ids: Sequence[str], *, by: str | None,
          project_key: str | None = None, tombstone_ids: Iterable[str] = ()) -> tuple[str, dict, int, int]:
    """(file text, new base rows, nodes, tombstones) for `node_ids`: their lines, plus a
    tombstone for every node this channel exchanged that is gone (and for `tombstone_ids`)."""
    base = base_rows(store.conn, channel)
    wanted = set(node_ids)
    nodes = store.get_many(sorted(wanted))
    out_edges: dict[str, list[tuple[str, str]]] = {}
    for e in store.edges(sorted(wanted)):
        if e.from_id in wanted and e.to_id in wanted:
            out_edges.setdefault(e.from_id, []).append((e.to_id, e.type))
    records: dict[str, dict] = {}
    new_base: dict[str, tuple[str, str | None]] = {}
    for n in nodes:
        rec = node_record(n, out_edges.get(n.id, ()), by=by)
        h = version_hash(rec)
        old = base.get(n.id)
        prev = (old[1] if old[0] == h else (old[0] if old[0] != DELETED else old[1])) if old else None
        if prev:
            rec["prev"] = prev
        records[n.id] = rec
        new_base[n.id] = (h, prev)
    present = set(store.project_ids(sorted(base)))
    # gone: deleted here, or hidden by a tombstone that came in (still here, superseded)
    gone = ({i for i in base if i not in present or (base[i][0] == DELETED and i not in records)}
            | (set(tombstone_ids) - set(records)))
    for node_id in sorted(gone):
        old = base.get(node_id)
        prev = (old[0] if old[0] != DELETED else old[1]) if old else None
        rec = {"kind": "tombstone", "id": node_id}
        if prev:
            rec["prev"] = prev
        records[node_id] = rec
        new_base[node_id] = (DELETED, prev)
    lines = [header(project_key)] + [dumps(records[k]) for k in sorted(records)]
    tombs = sum(1 for r in records.values() if r["kind"] == "tombstone")
    return "".join(line + "\n" for line in lines), new_base, len(records) - tombs, tombs


def _existing(path: Path) -> bytes | None:
    """What a file ctx is about to replace holds — never through a symlink, a FIFO or a device
    (None then: the replacement renames over the link itself, it never writes through it)."""
    from ctx.core.trust import read_regular

    try:
        return read_regular(str(path), limit=MAX_FILE_BYTES)
    except (OSError, CtxError):
        return None


def write_file(path: Path, text: str) -> bool:
    """Write atomically when the text differs; False when the file already holds it.

    The mode is the ordinary one for a file in a repository (0666 less the umask, 0644
    usually) — not ctx's 0600 for private data: this file is meant to be committed and read
    by teammates, and it never holds a secret (the guard redacted them)."""
    from cuectx.files import replace_file

    data = text.encode("utf-8")
    if _existing(path) == data:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_file(str(path), [data], mode=0o666, sync=False)  # 0666 less the umask, as git would
    return True


def export_to(store: Store, path: Path, channel: str, node_ids: Sequence[str], *, by: str | None,
              project_key: str | None = None) -> ExportReport:
    """Write `node_ids` (plus this channel's tombstones) to `path` and remember both the
    versions exchanged and the file as written (so reading it back costs nothing)."""
    import hashlib

    text, new_base, n_nodes, n_tombs = build(store, channel, node_ids, by=by, project_key=project_key)
    before = (_existing(path) or b"").decode("utf-8", errors="replace").splitlines()
    written = write_file(path, text)
    after = text.splitlines()
    with store.transaction():
        _set_base(store.conn, channel, new_base)
        st = path.stat()
        _record_file(store.conn, str(path), channel, st, hashlib.sha256(text.encode("utf-8")).hexdigest())
    old, new = set(before), set(after)
    return ExportReport(str(path), n_nodes, n_tombs, written, len(new - old), len(old - new))


def _from_claude_memory(node: Node) -> bool:
    from ctx.core.trust import CLAUDE_MEMORY, origin_of

    return origin_of(node) == CLAUDE_MEMORY


def project_export_ids(store: Store, project_id: int, sel: Selection, source: str | None = None
                       ) -> list[str]:
    """What a project's shared file holds: the selection, plus every node it already carried
    that still exists here and is not private (sharing is sticky until deleted or made
    private), plus the nodes those supersede (supersede links travel)."""
    chosen = set(store.share_selection(project_id, tiers=sel.tiers, types=sel.types, tags=sel.tags,
                                       exclude_tag=PRIVATE))
    base = base_rows(store.conn, channel_for(project_id))
    carried = [i for i, (h, _) in base.items() if h != DELETED and i not in chosen]
    if carried:
        nodes = {n.id: n for n in store.get_many(carried)}
        pids = store.project_ids(list(nodes))
        chosen |= {i for i, n in nodes.items() if pids.get(i) == project_id
                   and PRIVATE not in n.tags and n.superseded_by is None}
    # Text that arrived from elsewhere (a sync remote, Claude Code's memory folder, another
    # repository's file) is never published here: only the user's own and this file's own.
    chosen = {n.id for n in store.get_many(sorted(chosen))
              if (n.metadata.get("shared_from") is None or _repository_file(n.metadata["shared_from"]))
              and not _from_claude_memory(n)
              and "collided_with" not in n.metadata}
    frontier = set(chosen)
    while frontier:
        older = {i for i in store.superseded_by_any(sorted(frontier)) if i not in chosen}
        pids = store.project_ids(sorted(older))
        older = {i for i in older if pids.get(i) == project_id}
        private = {n.id for n in store.get_many(sorted(older)) if PRIVATE in n.tags
                   or not (n.metadata.get("shared_from") is None
                           or _repository_file(n.metadata["shared_from"]))
                   or _from_claude_memory(n)}
        older -= private
        chosen |= older
        frontier = older
    return sorted(chosen)


# ------------------------------------------------------------------------------ import

class HideRefused(CtxError):
    """An import would hide more of the store than `max_hide` allows (a hostile remote?)."""

    def __init__(self, hides: int, live: int, limit: int) -> None:
        super().__init__(f"this import would hide {hides} of your {live} live memories (more than "
                         f"the {limit} a round may hide unattended); nothing was changed")
        self.hides = hides
        self.live = live


def may_change(node: Node, source: str, *, sync: bool, exchanged: bool) -> bool:
    """Whether a record from `source` may update or retire the local `node` (SPEC §2.11: others
    can only change what they gave). A repository's shared file: only nodes that came from that
    same file. The personal sync remote: nodes that came from a sync remote, and the user's own
    that this machine gave to that channel (`exchanged`: its base row, written by an export)."""
    origin = node.metadata.get("shared_from")
    if origin == source or (not sync and _repository_file(origin)):
        return True  # (a repository's file under an older project key is still that file)
    if sync:
        return (isinstance(origin, str) and origin.startswith("sync:")) or (origin is None and exchanged)
    return False


def _repository_file(origin) -> bool:
    """An origin that is a repository's shared file (`<project key>:.ctx/memory.jsonl`); the
    import only ever applies a file's lines to its own project's nodes."""
    return isinstance(origin, str) and (origin == FILE or origin.endswith(":" + FILE))


def import_lines(store: Store, channel: str, lines: Sequence[Line], *, project_id: int | None,
                 source: str, allow_move: bool = False, sync: bool = False,
                 authors: dict[int, str] | None = None, max_hide: int | None = None,
                 before_hide=None) -> ImportReport:
    """Merge a file's records into the store (the rules in this module's docstring).
    One transaction; bad records are reported, never raised. `authors`: line number → git's
    author of that line (recorded as `shared_author`). `max_hide`: raise HideRefused, writing
    nothing, when more local nodes would be hidden; `before_hide()` runs first when any would
    be (a backup)."""
    report = ImportReport()
    by_id: dict[str, list[Line]] = {}
    for line in lines:
        by_id.setdefault(line.id, []).append(line)
    if not by_id:
        return report
    authors = authors or {}
    base = base_rows(store.conn, channel)
    ids = sorted(by_id)
    local_pid = store.project_ids(ids)
    local = {n.id: n for n in store.get_many([i for i in ids if i in local_pid])}
    writes: list[dict] = []
    hides: list[tuple[str, Line]] = []
    touches: list[str] = []
    authored: list[tuple[Node, str]] = []
    new_base: dict[str, tuple[str, str | None]] = {}
    edges: list[tuple[str, str, str, str]] = []

    def record_of(line: Line) -> dict:
        return _store_record(line.record, source, authors.get(line.lineno))

    for node_id in ids:
        cands = by_id[node_id]
        if node_id in local_pid and local_pid[node_id] != project_id and not allow_move:
            for c in cands:
                report.problems.append(Problem(c.lineno, f"id {node_id} is a node of another "
                                                         f"project here; skipped"))
            continue
        node = local.get(node_id)
        local_rec = node_record(node, (), by=None) if node else None
        if node is not None:
            # edges are compared as the file has them: the node's out-edges to nodes in the file
            mine = [(e.to_id, e.type) for e in store.edges([node_id]) if e.from_id == node_id
                    and e.to_id in by_id]
            local_rec = node_record(node, mine, by=None)
        hl = version_hash(local_rec) if local_rec else None
        bh, bprev = base.get(node_id, (None, None))
        seen = {}
        for c in cands:
            seen.setdefault(c.hash, c)
        new = [c for h, c in seen.items() if h != hl and h != bh]
        if node is not None and new and not may_change(node, source, sync=sync,
                                                       exchanged=node_id in base):
            # the id of a node this file may not change: its lines become new nodes, reported
            for c in new:
                if c.tombstone:
                    report.refused.append(node_id)
                    report.problems.append(Problem(c.lineno, f"deletes {node_id}, a memory that did "
                                                             f"not come from this file; not applied",
                                                   False))
                    continue
                cid = copy_id(node_id, c.hash)
                writes.append({**record_of(c), "id": cid, "superseded_by": None,
                               "metadata": {**record_of(c)["metadata"], "collided_with": node_id}})
                report.collisions.append(cid)
                report.problems.append(Problem(c.lineno, f"reuses the id of {node_id}, a memory that "
                                                         f"did not come from this file; kept as a "
                                                         f"new memory {cid}", False))
            continue
        if not new and node is not None and hl in seen and local_pid[node_id] != project_id:
            # moved between projects (sync): the same version, its own provenance kept
            writes.append({**_store_record(seen[hl].record, None), "metadata": dict(node.metadata)})
            new_base[node_id] = (hl, seen[hl].prev)
            continue
        if not new:
            if hl in seen:
                new_base[node_id] = (hl, seen[hl].prev)
                author = authors.get(seen[hl].lineno)
                if (author and node is not None and node.metadata.get("shared_from") == source
                        and node.metadata.get("shared_author") != author):
                    authored.append((node, author))  # git's record, now that git was asked
            elif node is None and DELETED in seen:
                new_base[node_id] = (DELETED, seen[DELETED].prev)
            continue
        live = [c for c in new if not c.tombstone]
        if not live:  # only tombstones are new
            if node is None:
                new_base[node_id] = (DELETED, new[0].prev)
            elif node.superseded_by is not None:
                new_base[node_id] = (DELETED, new[0].prev)  # already out of sight: nothing to hide
            elif hl == bh or new[0].prev == hl:
                hides.append((node_id, new[0]))
                report.deleted.append(node_id)
                new_base[node_id] = (DELETED, new[0].prev)
            else:
                touches.append(node_id)
                report.kept.append(node_id)
            continue
        in_file = hl is not None and hl in seen
        versions = [(c.record["updated_at"], c.hash, c) for c in live]
        if node is not None:
            versions.append((node.updated_at, hl, None))
        versions.sort(key=lambda v: (v[0], v[1]), reverse=True)
        _, win_hash, winner = versions[0]
        local_prev = (bprev if hl == bh else bh) if node is not None else None
        for _, h, loser in versions[1:]:
            if winner is not None and winner.prev == h:
                continue  # the winner was made from it: nothing is lost
            if winner is None and local_prev == h:
                continue
            if loser is None:  # the local version loses
                if hl == bh and not in_file:
                    continue  # exchanged before, unchanged here: the file's history has it
                rec, prov = dict(local_rec), {}
            else:
                rec = dict(loser.record)
                prov = _provenance(loser.record, source, authors.get(loser.lineno))
            cid = copy_id(node_id, h)
            meta = {**(rec.get("metadata") or {}), "conflict_copy_of": node_id, **prov}
            writes.append({**_store_record(rec, None), "id": cid, "metadata": meta,
                           "superseded_by": node_id})
            report.conflicts.append(cid)
        if winner is None:
            continue  # the local version stays; the next export writes it
        writes.append(record_of(winner))
        (report.updated if node is not None else report.added).append(node_id)
        new_base[node_id] = (win_hash, winner.prev)
        for to, kind in winner.record.get("edges", []):
            edges.append((node_id, to, kind, winner.record["updated_at"]))

    if hides and max_hide is not None and len(hides) > max_hide:
        raise HideRefused(len(hides), store.live_counts().live, max_hide)
    if hides and before_hide is not None:
        before_hide()
    report.problems.sort(key=lambda p: p.line)
    with store.transaction():
        if writes:
            _put(store, writes, project_id, report, by_id)
        if hides:
            _hide(store, hides, project_id, source, authors)
        if authored:  # the same version, its author recorded: no new version, no re-export
            store.put_exact([{"id": n.id, "type": n.type, "content": n.content, "tags": list(n.tags),
                              "metadata": {**n.metadata, "shared_author": a}, "created_at": n.created_at,
                              "updated_at": n.updated_at, "superseded_by": n.superseded_by}
                             for n, a in authored], project_id=project_id)
        if touches:
            store.touch(touches)
        if edges:
            store.add_edges_if_present(edges)
        _set_base(store.conn, channel, new_base)
    return report


def _hide(store: Store, hides: list[tuple[str, Line]], project_id: int | None, source: str,
          authors: dict[int, str]) -> None:
    """Tombstones never hard-delete: each hidden node is superseded by a marker memory (off
    context) that says where the deletion came from; `ctx project sync --restore ID` (or
    `ctx doctor`-style history: `ctx show ID`) brings it back."""
    markers = []
    for node_id, line in hides:
        prov = _provenance(line.record, source, authors.get(line.lineno))
        markers.append({"id": copy_id(node_id, DELETED), "type": "observation",
                        "content": f"Deleted through {source}: memory {node_id} is hidden (a "
                                   f"tombstone). Restore it: ctx project sync --restore {node_id}",
                        "tags": ["tier:off-context"],
                        "metadata": {**prov, "tombstone_of": node_id},
                        "created_at": now_iso(), "updated_at": now_iso(), "superseded_by": None})
    store.put_exact(markers, project_id=project_id)
    store.set_superseded([(node_id, copy_id(node_id, DELETED)) for node_id, _ in hides])


def _put(store: Store, writes: list[dict], project_id: int | None, report: ImportReport,
         by_id: dict[str, list[Line]]) -> None:
    # Nodes first without superseded_by, then the links, so order in the batch never matters.
    from ctx.core import guard

    links = [(w["id"], w.get("superseded_by")) for w in writes]
    try:
        store.put_exact([{**w, "superseded_by": None} for w in writes], project_id=project_id)
    except guard.SecretRefusedError:
        kept = []
        for w in writes:  # CTX_SECRETS=refuse: find the lines it refuses, write the rest
            try:
                store.put_exact([{**w, "superseded_by": None}], project_id=project_id)
                kept.append(w["id"])
            except guard.SecretRefusedError as exc:
                line = by_id.get(w["id"], [Line(0, {}, "", None)])[0].lineno
                report.problems.append(Problem(line, f"{exc}"))
                for name in ("added", "updated"):
                    lst = getattr(report, name)
                    if w["id"] in lst:
                        lst.remove(w["id"])
    _link_superseded(store, links)


def _link_superseded(store: Store, links: list[tuple[str, str | None]]) -> None:
    want = [(i, s) for i, s in links if s]
    if not want:
        return
    present = set(store.project_ids(sorted({x for pair in want for x in pair})))
    store.set_superseded([(i, s) for i, s in want if i in present and s in present and i != s])


def _store_record(rec: dict, source: str | None, author: str | None = None) -> dict:
    meta = dict(rec.get("metadata") or {})
    if source is not None:
        meta.update(_provenance(rec, source, author))
    return {"id": rec["id"], "type": rec["type"], "content": rec["content"], "tags": rec["tags"],
            "metadata": meta, "created_at": rec["created_at"], "updated_at": rec["updated_at"],
            "superseded_by": rec.get("superseded_by")}


def _provenance(rec: dict, source: str, author: str | None = None) -> dict:
    """What the importer records of a line's origin: `shared_from` (where it came from),
    `shared_by` (what the line claims; kept so it travels on, never shown) and `shared_author`
    (git's record of who changed the line, when the import could ask git)."""
    out = {"shared_from": source}
    if rec.get("by"):
        out["shared_by"] = rec["by"]
    if author:
        out["shared_author"] = author
    return out


# ------------------------------------------------------------------------------ a repository's file

def shared_path(root: str | os.PathLike) -> Path:
    """`.ctx/memory.jsonl` of the repository at `root` — refused (a CtxError) when a component
    is a symlink or it resolves outside the repository (a committed `.ctx -> ~/.ssh`)."""
    from ctx.core.trust import confined

    return Path(confined(str(root), FILE))


# A session start reads a changed shared file only up to this size and this many lines (a
# 5,000-node import costs 1.4-2 s of CPU here, bench_ctx_share, so 3,000 stay near a second;
# a 100,000-line one would take half a minute, past the hook's timeout); a bigger one is left
# for `ctx project sync`, and the hook says so. Never a partial import: whole or not at all.
HOOK_MAX_BYTES = 2 * 1024 * 1024
HOOK_MAX_LINES = 3_000


def read_and_import(store: Store, path: Path, channel: str, *, project_id: int | None,
                    source: str, allow_move: bool = False, force: bool = False, sync: bool = False,
                    authors_for=None, max_bytes: int = MAX_FILE_BYTES, max_lines: int = 1 << 62,
                    max_hide: int | None = None, before_hide=None) -> ImportReport:
    """Import `path` if it changed since ctx last read or wrote it (a stat, then a hash).
    `authors_for(path)`: line number → git's author, asked only when the file is read.
    A file over `max_bytes` or `max_lines` is not imported: `report.deferred` says why."""
    report = ImportReport(path=str(path))
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return report
    if stat.S_ISLNK(st.st_mode):
        report.problems.append(Problem(0, "a symbolic link; not followed"))
        return report
    if not stat.S_ISREG(st.st_mode):
        report.problems.append(Problem(0, "not a regular file (a FIFO or a device?); not read"))
        return report
    if st.st_size > MAX_FILE_BYTES:
        report.problems.append(Problem(0, f"the file is {st.st_size // (1024 * 1024)} MB, over the "
                                          f"{MAX_FILE_BYTES // (1024 * 1024)} MB limit; not read"))
        return report
    known = file_state(store.conn, str(path))
    if not force and known and known[0] == st.st_size and known[1] == st.st_mtime_ns:
        return report
    if st.st_size > max_bytes:
        report.deferred = (f"{st.st_size / (1024 * 1024):.1f} MB changed; too big to read at session "
                           f"start — run `ctx project sync` to import it")
        report.problems.append(Problem(0, report.deferred, False))  # the hook's stderr says so
        return report
    try:
        raw, digest = read_lines(path, limit=min(max_bytes, MAX_FILE_BYTES))
    except CtxError as exc:
        report.problems.append(Problem(0, f"{exc}"))
        return report
    if not force and known and known[2] == digest:
        with store.transaction():
            _record_file(store.conn, str(path), channel, st, digest)
        return report
    if len(raw) > max_lines:
        report.deferred = (f"{len(raw):,} lines changed; too many to read at session start — run "
                           f"`ctx project sync` to import them")
        report.problems.append(Problem(0, report.deferred, False))
        return report
    good, problems, _ = parse(raw)
    authors = authors_for(path) if authors_for is not None and good else None
    with store.transaction():
        report = import_lines(store, channel, good, project_id=project_id, source=source,
                              allow_move=allow_move, sync=sync, authors=authors,
                              max_hide=max_hide, before_hide=before_hide)
        _record_file(store.conn, str(path), channel, st, digest)
    report.path = str(path)
    report.read = True
    report.problems = sorted(problems + report.problems, key=lambda p: p.line)
    return report


def refresh_if_changed(store: Store, scope) -> ImportReport | None:
    """Session start: import the project's `.ctx/memory.jsonl` when it changed since ctx last
    read it. One stat when nothing changed (or there is no file); None without a repository.
    Bounded: a file over HOOK_MAX_BYTES is deferred (`report.deferred`), never half-read."""
    ref_root = scope.project.root if scope.project is not None else (scope.ref.root if scope.ref else None)
    if not ref_root:
        return None
    try:
        path = shared_path(ref_root)
    except CtxError as exc:
        return ImportReport(path=os.path.join(ref_root, FILE), problems=[Problem(0, str(exc))])
    try:
        st = os.lstat(path)
    except OSError:
        return None
    known = file_state(store.conn, str(path))
    if known and known[0] == st.st_size and known[1] == st.st_mtime_ns:
        return None
    project_id = scope.write_project_id(store.conn)
    return read_and_import(store, path, channel_for(project_id), project_id=project_id,
                           source=_source(scope), max_bytes=HOOK_MAX_BYTES, max_lines=HOOK_MAX_LINES)


def _source(scope) -> str:
    key = scope.project.key if scope.project is not None else (scope.ref.key if scope.ref else "")
    return f"{key}:{FILE}" if key else FILE


def sync_project(store: Store, scope, *, force: bool = True, authors_for=None) -> ImportReport:
    """`ctx project sync`: import the repository's shared file now (whatever its size)."""
    root = _root(scope)
    project_id = scope.write_project_id(store.conn)
    return read_and_import(store, shared_path(root), channel_for(project_id), project_id=project_id,
                           source=_source(scope), force=force, authors_for=authors_for)


def restore(store: Store, ref: str) -> Node:
    """Bring back a memory a tombstone hid (`Deleted through …` marker): it is live again and
    the marker goes. Refused for a node no tombstone hid."""
    node = store.get(ref)
    marker = copy_id(node.id, DELETED)
    if node.superseded_by != marker:
        raise CtxError(f"{node.id} was not hidden by a shared deletion (a tombstone); "
                       f"nothing to restore")
    with store.transaction():
        store.unsupersede(node.id)
        store.delete_many([marker])
    return store.get(node.id)


def _root(scope) -> str:
    root = scope.project.root if scope.project is not None else (scope.ref.root if scope.ref else None)
    if not root:
        raise CtxError("this folder is not in a git repository, so there is no .ctx/memory.jsonl "
                       "to share through (run it inside the repository, or use `ctx sync` for "
                       "your own machines)")
    return root


def share_project(store: Store, scope, selection: Selection | None = None, *, by: str | None,
                  authors_for=None) -> tuple[ImportReport, ExportReport, Selection]:
    """`ctx project share`: read what teammates added to the file first (so nothing of
    theirs is dropped and deletions are told from additions), then write the project's
    shared memory. `selection` None: the one saved for the project, else the defaults."""
    root = _root(scope)
    project_id = scope.write_project_id(store.conn)
    with store.transaction():
        if selection is None:
            selection = get_config(store.conn, project_id) or Selection()
        selection = selection.validated()
        save_config(store.conn, project_id, selection)
    path = shared_path(root)
    imported = read_and_import(store, path, channel_for(project_id), project_id=project_id,
                               source=_source(scope), authors_for=authors_for)
    exported = export_to(store, path, channel_for(project_id),
                         project_export_ids(store, project_id, selection, _source(scope)), by=by)
    write_attributes(Path(root))
    with store.transaction():
        _set_fingerprint(store.conn, project_id, store.project_fingerprint(project_id))
    return imported, exported, selection


def write_attributes(root: Path) -> bool:
    """`.ctx/.gitattributes` (memory.jsonl merge=union), unless one is there already."""
    from ctx.core.trust import confined
    from cuectx.files import replace_file

    path = Path(confined(str(root), ATTRIBUTES))
    if os.path.lexists(path):
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_file(str(path), [ATTRIBUTES_TEXT.encode("utf-8")], mode=0o666, sync=False)
    return True


def auto_share(store: Store, scope, *, by_lookup) -> ExportReport | None:
    """The Stop hook: when the project shares with --auto and its memory changed since the
    last write (a fingerprint), write the file again. `by_lookup()` gives git's user."""
    if scope.project is None or not scope.project.root:
        return None
    project_id = scope.project.id
    sel = get_config(store.conn, project_id)
    if sel is None or not sel.auto:
        return None
    fp = store.project_fingerprint(project_id)
    if fp == _fingerprint(store.conn, project_id):
        return None
    _, exported, _ = share_project(store, scope, sel, by=by_lookup())
    return exported
