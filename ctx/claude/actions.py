"""Carry out the `<ctx:…>` commands from Claude's replies against the store, and hand what
Claude asked to see over to the next prompt (seed §1, §6, §7, §8, §17).

Each command runs in its own savepoint inside one transaction: a command that fails (an
unknown id, a bad type) is rolled back and reported, and the others still happen. What a
command leaves for Claude (recall results, status, expanded nodes, task notes) goes to the
`pending` table under a per-session key and is injected once, at that session's next
prompt-submit (`take_pending` in ctx/claude/handoff.py, rendered by
ctx/claude/hooks/prompt_submit.py). Entries written without a session (a person running
`ctx hook stop --response …`) go under the bare key and reach the next prompt of any session.
"""
from __future__ import annotations

import json
import re
from enum import Enum

# Reading the hand-offs back is ctx/claude/handoff.py (prompt-submit loads only that).
from ctx.claude.handoff import (  # noqa: F401 — re-exported: callers use actions.X
    DUPLICATES,
    EXPAND,
    HANDOFF_KEYS,
    NOTES,
    RECALL,
    SECRETS,
    STATUS,
    Handoff,
    _load_list,
    pending_key,
    take_pending,
)
from ctx.core.errors import CtxError
from ctx.core.ids import short_id
from ctx.core.model import TIER_PRIORITY, Node
from ctx.core.store import Store
from cuectx.value import Value

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing on the hook path
if TYPE_CHECKING:  # session-start and prompt-submit use this module without parsing replies
    from ctx.claude.tags import Command
    from ctx.core.guard import SecretEvent
    from ctx.core.store import Scope

CURRENT_TASK = "current_task"
RECALL_LIMIT = 20
FIELD_PREDICATE = re.compile(r"(?:^|[\s(])-?(?:type|tag|id|created|updated|tokens|has|from|to|"
                             r"project|scope):|"
                             r"\b(?:AND|OR|NOT)\b")


class Status(Enum):
    """What a command did. Edges branch on this, never on the message's wording."""
    DONE = "done"      # did what was asked
    EXISTS = "exists"  # remember: the same live memory was already there (its id: node_ids[0])
    LIKELY = "likely"  # remember: held back as a likely duplicate of node_ids[0] (CTX_DEDUPE)
    FAILED = "failed"  # nothing happened (rolled back); the message says why


class Outcome(Value):
    """One command's result: a status, the nodes it touched, the secrets the store's guard met
    (ctx.core.guard.SecretEvent: kinds and counts, never a value), and one line for a person
    (`message`: what happened, or why not — the error's sentence; `report()` renders it all)."""

    __slots__ = ("command", "message", "node_ids", "secrets", "status")

    def __init__(self, command: str, status: Status, message: str, node_ids: tuple[str, ...] = (),
                 secrets: tuple[SecretEvent, ...] = ()) -> None:
        self.command = command
        self.status = status
        self.message = message
        self.node_ids = node_ids
        self.secrets = secrets

    @property
    def ok(self) -> bool:
        return self.status is not Status.FAILED

    @property
    def secret_kinds(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(k for e in self.secrets for k in e.kinds))

    @property
    def refused(self) -> bool:
        """The guard refused to store a secret (CTX_SECRETS=refuse)."""
        return any(e.action == "refused" for e in self.secrets)

    def report(self, source) -> str:
        """One line for a person or a model: what happened (a failure names its command) and
        what the guard redacted (ctx.core.guard.notice); `source` (a Store or connection)
        shortens the ids."""
        from ctx.core import guard

        line = self.message if self.ok else f"<ctx:{self.command}> failed: {self.message}"
        notice = guard.notice(self.secrets, source)
        return f"{line}; {notice}" if notice else line


class Memory(Value):
    """What `<ctx:remember>` (or the MCP `remember` tool) asks to store."""

    __slots__ = ("content", "dedupe", "rationale", "source", "supersedes", "tags", "tier", "type",
                 "where")

    def __init__(self, content: str, type: str = "fact", tier: str | None = None,
                 tags: tuple[str, ...] = (), rationale: str | None = None,
                 source: str | None = None, supersedes: str | None = None,
                 where: str = "project", dedupe: str | None = None) -> None:
        self.content = content
        self.type = type
        self.tier = tier
        self.tags = tags
        self.rationale = rationale
        self.source = source
        self.supersedes = supersedes  # an id or prefix this memory replaces
        self.where = where  # "project": the scope's project; "global": global memory
        self.dedupe = dedupe  # a likely duplicate: skip | keep | ask (None: $CTX_DEDUPE)


def execute(store: Store, commands: list[Command], *, session_id: str | None = None,
            scope: Scope | None = None) -> list[Outcome]:
    """Run every command; one failing never stops the rest. `scope` (ctx.core.projects) is where the
    session works: remember/summarize store into its project (`scope="global"` attribute:
    global), recall/status/task read its project + global. None: the whole store, global."""
    from ctx.claude.foreign import held_message, split_repeats

    commands, held = split_repeats(store, commands)  # a tag copied from others' memory: not run
    outcomes = []
    with store.transaction():
        if scope is not None and scope.project is None and scope.ref is not None and any(
                c.name in ("remember", "summarize") for c in commands):
            from ctx.core.projects import ensure
            from ctx.core.store import Scope

            # the project's first memory: its row exists before anything reads the scope
            scope = Scope(project=ensure(store.conn, scope.ref))
        for cmd in commands:
            outcome = _guarded(store, cmd.name, lambda cmd=cmd: HANDLERS[cmd.name](
                store, cmd, session_id, scope))
            _leave_secret_notice(store, outcome, session_id)
            outcomes.append(outcome)
        if session_id:
            _note_in_session(store, session_id, commands, outcomes)
    return [Outcome(c.name, Status.FAILED, held_message(c)) for c in held] + outcomes


def _note_in_session(store: Store, session_id: str, commands: list[Command],
                     outcomes: list[Outcome]) -> None:
    """What the session did to memory, for its page in `ctx ui` (ctx.claude.sessions)."""
    done = []
    for cmd, outcome in zip(commands, outcomes, strict=True):
        if outcome.status is not Status.DONE or not outcome.node_ids:
            continue
        if cmd.name == "remember":
            done.append(("remembered", outcome.node_ids[0], None))
            old = (cmd.attrs.get("supersedes") or "").strip()
            if old:
                try:
                    replaced = store.get(old)
                except CtxError:
                    continue
                if replaced.superseded_by == outcome.node_ids[0]:
                    done.append(("superseded", replaced.id, outcome.node_ids[0]))
        elif cmd.name == "supersede" and len(outcome.node_ids) == 2:
            done.append(("superseded", outcome.node_ids[0], outcome.node_ids[1]))
        elif cmd.name == "summarize":
            summary = outcome.node_ids[0]
            done.append(("summarized", summary, None))
            if cmd.flag("archive"):  # its sources left context (tier:off-context)
                done += [("archived", e.to_id, summary) for e in store.edges([summary], ["DERIVED_FROM"])
                         if e.from_id == summary]
    if done:
        from ctx.claude.sessions import record_actions

        record_actions(store.conn, session_id, done)


def remember(store: Store, memory: Memory, *, scope: Scope | None = None) -> Outcome:
    """Store one memory as `<ctx:remember>` does (same de-duplication, tier, task and
    supersede rules), in its own transaction; a failure is an Outcome, not an exception."""
    with store.transaction():
        return _guarded(store, "remember", lambda: _remember(store, memory, scope))


def _guarded(store: Store, name: str, run) -> Outcome:
    """Run one command in a savepoint: a CtxError rolls it back into a FAILED outcome. The
    secrets the store's guard met meanwhile go into the outcome."""
    seen = len(store.secret_events)
    store.conn.execute("SAVEPOINT ctx_command")
    try:
        outcome = run()
    except CtxError as exc:
        store.conn.execute("ROLLBACK TO ctx_command")
        outcome = Outcome(name, Status.FAILED, str(exc))
    store.conn.execute("RELEASE ctx_command")
    events = tuple(store.secret_events[seen:])
    return outcome.replace(secrets=events) if events else outcome


def _leave_secret_notice(store: Store, outcome: Outcome, session_id: str | None) -> None:
    """A remember/summarize that met a secret leaves Claude a note for its next prompt —
    kinds only, never the value."""
    if not outcome.secrets:
        return
    refused = outcome.refused
    _append_pending(store, pending_key(SECRETS, session_id), {
        "command": outcome.command, "action": "refused" if refused else "redacted",
        "kinds": list(outcome.secret_kinds),
        "node_ids": [i for i in outcome.node_ids if i] if not refused else []})


# ------------------------------------------------------------------------------ commands

def _remember_command(store: Store, cmd: Command, session_id: str | None,
                      scope: Scope | None = None) -> Outcome:
    wanted = (cmd.attrs.get("scope") or "").strip().lower()
    if wanted and wanted not in ("global", "project"):
        raise CtxError(f'scope="{cmd.attrs["scope"]}" is not understood; use scope="global" '
                       f'(or leave it out to remember in this project)')
    memory = Memory(cmd.content or "", type=cmd.attrs.get("type", "fact"), tier=cmd.attrs.get("tier"),
                    tags=tuple(cmd.items("tags")), rationale=cmd.attrs.get("rationale"),
                    source=cmd.attrs.get("source"), supersedes=cmd.attrs.get("supersedes"),
                    where="global" if wanted == "global" else "project",
                    dedupe=cmd.attrs.get("dedupe"))
    outcome = _remember(store, memory, scope)
    if outcome.status in (Status.EXISTS, Status.LIKELY):  # Claude hears it at its next prompt
        _append_pending(store, pending_key(DUPLICATES, session_id), {
            "id": outcome.node_ids[0], "message": outcome.message,
            "content": " ".join((cmd.content or "").split())[:120]})
    return outcome


def _remember(store: Store, memory: Memory, scope: Scope | None) -> Outcome:
    tags = list(memory.tags)
    if memory.tier:
        tags.append("tier:" + memory.tier.strip().removeprefix("tier:"))
    tags = _with_task(store, tags)
    metadata = {k: v for k, v in (("rationale", memory.rationale), ("source", memory.source)) if v}
    node_type = memory.type
    # Resolve the old id before the new node exists: a short prefix could match both.
    old_id = store.resolve(memory.supersedes) if memory.supersedes else None
    project_id = None if memory.where == "global" or scope is None else scope.write_project_id(store.conn)
    # ctx.core.dedupe: the same memory again (or a close restatement, as CTX_DEDUPE says)
    # is not stored twice; the existing node gets any new tags.
    # imported here: prompt-submit and a Stop without <ctx:remember> never pay for it (~3 ms)
    from ctx.core import dedupe
    from ctx.core.settings import DEDUPE_POLICIES, dedupe_policy

    policy = memory.dedupe.strip().lower() if memory.dedupe else None
    if policy is not None and policy not in DEDUPE_POLICIES:
        raise CtxError(f'dedupe="{memory.dedupe}" is not understood; use skip, keep or ask')
    from ctx.doctor.paraphrase import paraphrase_of  # by meaning, where the embedder is warm

    dup = dedupe.check(store, _as_stored(store, memory.content), project_id, meaning=paraphrase_of)
    if dup is not None and not dedupe.should_store(dup, dedupe_policy(policy)):
        node = store.get(dup.node_id)
        if tags and dup.blocks:
            node = store.tag(node.id, tags)
        status = Status.EXISTS if dup.blocks else Status.LIKELY
        message = dedupe.message(dup, False, f"{node.type} {short_id(store, node.id)}",
                                 how_to_keep='remember it with dedupe="keep"')
    else:
        node = store.add(memory.content, type=node_type, tags=tags, metadata=metadata or None,
                         project_id=project_id)
        status = Status.DONE
        message = f"remembered {node.type} {short_id(store, node.id)}" + (f" ({node.tier})" if node.tier else
                                                                 " (no tier: not in context)")
        message += f" in project {node.project}" if node.project else " (global)"
        if dup is not None:
            message += f"; likely a duplicate of {short_id(store, dup.node_id)} ({dup.evidence})"
    if old_id and old_id == node.id:
        old_id = None  # remembering the very text it was to supersede: nothing to replace
    if old_id:
        old, _ = store.supersede(old_id, node.id)
        message += f", superseding {short_id(store, old.id)}"
    return Outcome("remember", status, message, (node.id,))


def recall(store: Store, cmd: Command, session_id: str | None,
          scope: Scope | None = None) -> Outcome:
    query = (cmd.attrs.get("query") or cmd.content or "").strip()
    limit = _int(cmd.attrs.get("limit"), RECALL_LIMIT)
    if is_query_language(query):
        nodes, total = search_query(store, query, limit, scope=scope)
        mode = "query"
    else:
        nodes, total, mode = search_plain(store, query, limit, scope=scope)
    entry = {"query": query, "mode": mode, "total": total,
             "nodes": [_snapshot(n) for n in nodes]}
    _append_pending(store, pending_key(RECALL, session_id), entry)
    return Outcome("recall", Status.DONE, f"recall {query!r}: {total} node(s), shown at the next prompt",
                   tuple(n.id for n in nodes))


def status(store: Store, cmd: Command, session_id: str | None,
          scope: Scope | None = None) -> Outcome:
    store.set_pending(pending_key(STATUS, session_id), status_text(store, scope=scope))
    return Outcome("status", Status.DONE, "status shown at the next prompt")


def task(store: Store, cmd: Command, session_id: str | None,
        scope: Scope | None = None) -> Outcome:
    name = cmd.attrs["name"].strip()
    tag = f"task:{name}"
    if cmd.attrs.get("action", "start").strip().lower() == "start":
        store.set_pending(CURRENT_TASK, name)
        working = store.list_nodes(tags=["tier:working"], scope=scope)
        untagged = [n.id for n in working if tag not in n.tags]
        for node_id in untagged:
            store.tag(node_id, [tag])
        return Outcome("task", Status.DONE, f"task {name!r} started; {len(untagged)} working node(s) tagged",
                       tuple(untagged))
    nodes = store.list_nodes(tags=[tag, "tier:working"], scope=scope)
    ids = [n.id for n in nodes]
    store.retag(ids, "tier:working", "tier:off-context")
    if store.get_pending(CURRENT_TASK) == name:
        store.delete_pending(CURRENT_TASK)
    if cmd.flag("summarize") and nodes:
        _append_pending(store, pending_key(NOTES, session_id), {
            "task": name, "nodes": [_snapshot(n) for n in nodes]})
    return Outcome("task", Status.DONE, f"task {name!r} ended; {len(ids)} working node(s) moved to "
                                 f"tier:off-context", tuple(ids))


def summarize(store: Store, cmd: Command, session_id: str | None,
             scope: Scope | None = None) -> Outcome:
    sources = [store.get(ref) for ref in cmd.items("nodes")]
    tags = cmd.items("tags")
    if cmd.attrs.get("tier"):
        tags.append("tier:" + cmd.attrs["tier"].strip().removeprefix("tier:"))
    if not any(t.startswith("tier:") for t in tags):
        tiers = sorted((TIER_PRIORITY[f"tier:{n.tier}"], n.tier) for n in sources
                       if n.tier and f"tier:{n.tier}" in TIER_PRIORITY)
        tags.append(f"tier:{tiers[0][1]}" if tiers else "tier:reference")
    # Summarising only global memory gives global memory; else it belongs to this project.
    project_id = (None if sources and all(n.project is None for n in sources)
                  and not cmd.attrs.get("scope") else _target_project(store, cmd, scope))
    summary = store.add(cmd.content or "", type="summary", tags=_with_task(store, tags),
                        project_id=project_id)
    for node in sources:
        store.link(summary.id, node.id, "DERIVED_FROM")
    message = f"summary {short_id(store, summary.id)} of {len(sources)} node(s)"
    if cmd.flag("archive"):
        store.retag([n.id for n in sources], "", "tier:off-context")
        message += ", sources archived (tier:off-context)"
    return Outcome("summarize", Status.DONE, message, (summary.id,))


def link(store: Store, cmd: Command, session_id: str | None,
        scope: Scope | None = None) -> Outcome:
    edge = store.link(cmd.attrs["from"], cmd.attrs["to"], cmd.attrs.get("type") or "RELATES_TO")
    return Outcome("link", Status.DONE, f"linked {short_id(store, edge.from_id)} {edge.type} "
                                 f"{short_id(store, edge.to_id)}", (edge.from_id, edge.to_id))


def supersede(store: Store, cmd: Command, session_id: str | None,
             scope: Scope | None = None) -> Outcome:
    old, new = store.supersede(cmd.attrs["old"], cmd.attrs["new"])
    return Outcome("supersede", Status.DONE,
                   f"{short_id(store, new.id)} supersedes {short_id(store, old.id)}", (old.id, new.id))


def expand(store: Store, cmd: Command, session_id: str | None,
          scope: Scope | None = None) -> Outcome:
    node = store.get(cmd.attrs.get("node") or cmd.attrs["id"])
    if node.type != "summary":
        raise CtxError(f"{short_id(store, node.id)} is a {node.type}, not a summary; only summaries expand")
    sources = [e.to_id for e in store.edges([node.id], ["DERIVED_FROM"]) if e.from_id == node.id]
    key = pending_key(EXPAND, session_id)
    ids = _load_list(store.get_pending(key))
    ids += [i for i in sources if i not in ids]
    store.set_pending(key, json.dumps(ids))
    return Outcome("expand", Status.DONE, f"{len(sources)} source node(s) of {short_id(store, node.id)} shown at the "
                                   f"next prompt", tuple(sources))


HANDLERS = {"remember": _remember_command, "recall": recall, "status": status, "task": task,
            "summarize": summarize, "link": link, "supersede": supersede, "expand": expand}


# ------------------------------------------------------------------------------ helpers

def is_query_language(query: str) -> bool:
    """True when the query uses field predicates or operators; else it is plain language."""
    return bool(FIELD_PREDICATE.search(query))


def search_query(store: Store, query: str, limit: int, *,
                 scope: Scope | None = None) -> tuple[list[Node], int]:
    """The first `limit` live nodes matching a query-language expression, and how many match
    (within `scope` unless the query names its own)."""
    from ctx.query import compile_expr, names_scope, parse

    expr = parse(query)
    compiled = compile_expr(expr)
    where = f"({compiled.where}) AND n.superseded_by IS NULL"
    params = list(compiled.params)
    if scope is not None and not names_scope(expr):
        scope_sql, scope_params = scope.sql()
        where += f" AND {scope_sql}"
        params += scope_params
    return store.query(query, limit=limit, scope=scope), store.count(where, params)


def search_plain(store: Store, text: str, limit: int, *,
                 scope: Scope | None = None) -> tuple[list[Node], int, str]:
    """Plain-language recall: hybrid search (meaning + words, ctx.semantic) when the model is
    installed, else keyword search. (nodes, how many ranked, mode used).

    Runs inside the Stop hook's transaction, so it does not index: nodes without vectors
    yet are still found by their words, and prompt-submit indexes them as it goes.
    """
    from ctx.semantic.search import Eligibility, SearchOptions, keyword_query, search

    if keyword_query(text) is None:
        return [], 0, "keyword"
    mode = "hybrid" if semantic_available() else "keyword"
    options = SearchOptions(mode=mode, top_k=max(20, limit), top_n=limit)
    eligibility = Eligibility.within(scope)
    try:
        result = search(store.conn, text, options, eligibility=eligibility, ensure_index=False)
    except Exception:  # a broken model must not lose the recall: words still work
        if mode == "keyword":
            raise
        mode = "keyword"
        result = search(store.conn, text, SearchOptions(mode=mode, top_k=max(20, limit),
                                                        top_n=limit),
                        eligibility=eligibility, ensure_index=False)
    ids = [h.node_id for h in result.hits][:limit]
    return store.get_many(ids), len(result.candidates), mode


def semantic_available() -> bool:
    """True when hybrid search can use the embedding model: the model is built and $CTX_SEMANTIC is not off."""
    from ctx.core.settings import semantic_enabled

    if not semantic_enabled():
        return False
    from ctx.semantic.model import locate

    return locate() is not None


def status_text(store: Store, *, scope: Scope | None = None) -> str:
    """What `<ctx:status/>` shows: live nodes per tier and type, the current task, and (with
    `scope`) the current project's and global node counts.

    Counted by Store.live_counts() over the whole store (its fast path: covering indexes),
    as on the hook's critical path it must be.
    """
    counts = store.live_counts()
    tiers, types = counts.by_tier.items(), counts.by_type.items()
    lines = [f"ctx: {counts.live} live nodes, {counts.superseded} superseded, {store.count_edges()} edges"]
    if scope is not None and not scope.all_projects:
        in_global = store.count_live(None)
        if scope.project is not None:
            here = store.count_live(scope.project.id)
            lines.append(f"Project: {scope.project.name} ({here} live nodes; {in_global} global); "
                         f"remember with scope=\"global\" for memory every project should see")
        else:
            where = f"project {scope.ref.name} (nothing stored yet)" if scope.ref else "no project"
            lines.append(f"Project: {where}; {in_global} global live nodes")
    if tiers:
        lines.append("Tiers: " + ", ".join(f"{k} {v}" for k, v in tiers))
    if types:
        lines.append("Types: " + ", ".join(f"{k} {v}" for k, v in types))
    current = store.get_pending(CURRENT_TASK)
    lines.append(f"Current task: {current}" if current else "Current task: none")
    return "\n".join(lines)


def _with_task(store: Store, tags: list[str]) -> list[str]:
    """Seed §6: new working memory joins the current task."""
    if "tier:working" in tags:
        current = store.get_pending(CURRENT_TASK)
        if current and f"task:{current}" not in tags:
            tags = tags + [f"task:{current}"]
    return tags


def _as_stored(store: Store, content: str) -> str:
    """The text as the store would keep it (secrets redacted), to find an identical node."""
    from ctx.core import guard

    mode = guard.policy(store.secrets)
    return guard.screen(content, guard.REDACT)[0] if mode == guard.REDACT else content


def _target_project(store: Store, cmd: Command, scope: Scope | None) -> int | None:
    """Where new memory from `cmd` goes: the session's project, or global with
    `scope="global"` (or when the session is in no project)."""
    wanted = (cmd.attrs.get("scope") or "").strip().lower()
    if wanted == "global" or scope is None:
        return None
    if wanted and wanted != "project":
        raise CtxError(f'scope="{cmd.attrs["scope"]}" is not understood; use scope="global" '
                       f'(or leave it out to remember in this project)')
    return scope.write_project_id(store.conn)


def _snapshot(node: Node) -> dict:
    from ctx.core.trust import author_of, origin_of

    snap = {"id": node.id, "type": node.type, "content": node.content, "tags": list(node.tags)}
    if origin_of(node) is not None:  # shown quoted at the next prompt (ctx.core.text.node_line)
        snap["origin"] = origin_of(node)
        snap["metadata"] = {"shared_author": author_of(node)}
    return snap


def _append_pending(store: Store, key: str, entry: dict) -> None:
    entries = _load_list(store.get_pending(key))
    entries.append(entry)
    store.set_pending(key, json.dumps(entries, ensure_ascii=False))


def _int(raw: str | None, default: int) -> int:
    try:
        value = int(raw) if raw is not None else default
    except ValueError:
        return default
    return value if value > 0 else default
