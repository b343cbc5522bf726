"""SessionStart: inject the default view, highest priority first, under the character cap.

The text depends only on the store (no render time), so a resumed session whose memory has
not changed gets byte-identical context, which Claude Code de-duplicates. Nodes asked for
with `<ctx:expand/>` are included once (seed §8).

Before composing, memory shared through the repository (`.ctx/memory.jsonl`, SPEC §2.11)
is imported when the file changed since ctx last read it: a stat when there is no file,
a stat and one row when it is unchanged (ctx.core.share owns the rest). The cached path
(warm.py) stats the same file, so a changed file always reaches this one.
"""
from __future__ import annotations

import os

from ctx.claude.hooks import warm
from ctx.claude.hooks.call import HookCall
from ctx.claude.hooks.store_access import hook_scope, open_store
from ctx.core import hook_cache
from ctx.core.text import text_len

# While a session starts with little memory, it also tells Claude how to add to it: whether
# Claude remembers anything should not depend on it opening the skill. Two lines, the same
# bytes every time (a resumed session's context is de-duplicated by Claude Code).
SMALL_STORE = 10  # memories in the session-start view below which the lines are added
HOW_TO_REMEMBER = (
    "ctx keeps memory across sessions. To remember a decision or fact, write in your reply "
    '<ctx:remember type="decision" tags="tier:reference">what was decided, and why'
    "</ctx:remember> (type: fact, decision, pattern, task…; tier:reference lasts, "
    "tier:working is for the task at hand).\n"
    'To look something up, write <ctx:recall query="a few words"/>: the results come with the '
    "next prompt.\n")


def run(call: HookCall) -> str | None:
    from ctx.claude import handoff

    with open_store(call, optimize=True) as store:
        version = hook_cache.store_version(store.conn)  # before reading: a change meanwhile is a miss
        scope = hook_scope(call, store)
        if _refresh_shared(call, store, scope):
            version = None  # memory came in just now: cache the next, settled answer instead
            if scope.project is None:
                scope = hook_scope(call, store)  # the import created the project's row
        expand = handoff.take_pending(store, call.session_id, keys=(handoff.EXPAND,))
        comp, text = _fit(store, call.max_chars, expand.expand_ids, scope)
        always = [n for n in comp.nodes if n.id not in set(expand.expand_ids)]
        project_id = _record_session(call, store, [n.id for n in always], scope)
        answer = _with_how_to_remember(text if comp.nodes or comp.left_out else None, comp,
                                       call.max_chars)
        if (version is not None and not expand.expand_ids and call.session_id
                and not _reads_clock(comp.query)):
            _remember(call, store, scope, version, project_id, answer, always)
        return answer


def _with_how_to_remember(answer: str | None, comp, cap: int) -> str | None:
    """`answer` and, on an empty or small store, the two lines on how to remember — only
    when they fit under the cap with it (memory always comes first)."""
    if len(comp.nodes) >= SMALL_STORE or comp.left_out:
        return answer
    both = (answer or "") + ("\n" if answer and not answer.endswith("\n\n") else "") + HOW_TO_REMEMBER
    return both if text_len(both) <= cap else answer


def _refresh_shared(call: HookCall, store, scope) -> bool:
    """Import teammates' shared memory if the file changed (True when it was read). Never
    fails the hook: a broken file costs its bad lines (reported on stderr with their
    numbers), never the context."""
    from ctx.core import shared_files

    found = shared_files.shared_file(scope)
    if found is None:
        return False
    if shared_files.unchanged(store.conn, *found):
        return False
    from ctx.core import share

    try:
        report = share.refresh_if_changed(store, scope)
    except Exception as exc:  # noqa: BLE001 — a hook must never break Claude Code
        call.warn(f"{share.FILE} not imported ({type(exc).__name__}: {exc})")
        return False
    if report is None:
        return False
    for problem in report.problems[:5]:
        call.warn(f"{share.FILE} {problem}")
    if len(report.problems) > 5:
        call.warn(f"{share.FILE}: {len(report.problems) - 5} more bad lines; see `ctx project sync`")
    if report.changed and call.verbose:
        call.warn(f"{share.FILE}: " + ", ".join(f"{v} {k}" for k, v in report.counts().items() if v))
    return report.read


def _record_session(call: HookCall, store, always: list[str], scope=None) -> int | None:
    """The session's "always" items (SPEC §3): what this view sent; reset on clear/compact;
    and the project marked active (created on its first session). A failure here costs the
    record, never the context. Returns the session's project id."""
    from ctx.claude.sessions import start_session

    project_id = None
    try:
        if call.session_id and scope is not None:
            project_id = scope.write_project_id(store.conn)
        start_session(store.conn, call.session_id, call.text("source"), always)
    except Exception as exc:  # noqa: BLE001
        call.warn(f"session record not saved ({type(exc).__name__}: {exc})")
    return project_id


def _remember(call: HookCall, store, scope, version: int, project_id, answer, always) -> None:
    """Keep this answer for the next session start in this folder (ctx/claude/hooks/warm.py)."""

    from ctx.core.stamps import content_hash

    if call.warnings:  # a partial answer (a record not saved…) is not one to repeat
        return
    root = None
    if scope is not None and getattr(scope, "project", None) is not None:
        root = scope.project.root
    elif scope is not None and getattr(scope, "ref", None) is not None:
        root = scope.ref.root
    cwd = call.text("cwd") or os.getcwd()
    try:
        warm.remember(store.conn, warm.cache_key(cwd, call.max_chars),
                      version=version, project_id=project_id, checks=warm.checks_for(root, cwd),
                      text=answer or "", items=[(n.id, content_hash(n.content)) for n in always])
    except Exception as exc:  # noqa: BLE001 — the cache is an optimisation; the answer stands
        call.warn(f"session start not cached ({type(exc).__name__}: {exc})")


def _reads_clock(query: str) -> bool:
    """The view's query means something else tomorrow (`created:1h`, `today`): parsed at two
    instants it differs. Such an answer is not kept for the next session start."""
    from datetime import UTC, datetime, timedelta

    from ctx.query import parse

    now = datetime.now(UTC)
    try:
        return parse(query, now=now) != parse(query, now=now + timedelta(days=1, seconds=1))
    except Exception:  # noqa: BLE001 — compose parsed it; if this fails, keep nothing
        return True


def _fit(store, cap: int, extra_ids: list[str], scope=None):
    """Compose under the cap. compose() counts code points; Claude Code counts UTF-16 units,
    so text with characters outside the BMP (emoji) is composed again with a smaller limit."""
    from ctx.core.compose import compose, render_markdown

    limit = cap
    while True:
        comp = compose(store, max_chars=limit, extra_ids=extra_ids, scope=scope)
        text = render_markdown(comp)
        over = text_len(text) - cap
        if over <= 0 or limit <= over:
            return comp, text
        limit -= over
