"""SessionStart: inject the default view, highest priority first, under the character cap.

The text depends only on the store (no render time), so a resumed session whose memory has
not changed gets byte-identical context, which Claude Code de-duplicates. Nodes asked for
with `<ctx:expand/>` are included once (seed §8).
"""
from __future__ import annotations

from ctx.claude.hooks.call import HookCall
from ctx.claude.hooks.store_access import hook_scope, open_store
from ctx.core.text import text_len


def run(call: HookCall) -> str | None:
    from ctx.claude import actions

    with open_store(call) as store:
        scope = hook_scope(call, store)
        expand = actions.take_pending(store, call.session_id, keys=(actions.EXPAND,))
        comp, text = _fit(store, call.max_chars, expand.expand_ids, scope)
        _record_session(call, store, comp, expand.expand_ids, scope)
        if not comp.nodes and not comp.left_out:
            return None
        return text


def _record_session(call: HookCall, store, comp, expand_ids: list[str], scope=None) -> None:
    """The session's "always" items (SPEC §3): what this view sent; reset on clear/compact;
    and the project marked active (created on its first session). A failure here costs the
    record, never the context."""
    from ctx.claude.sessions import start_session

    try:
        if call.session_id and scope is not None:
            scope.write_project_id(store.conn)
        start_session(store.conn, call.session_id, call.text("source"),
                      [n.id for n in comp.nodes if n.id not in set(expand_ids)])
    except Exception as exc:  # noqa: BLE001
        call.warn(f"session record not saved ({type(exc).__name__}: {exc})")


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
