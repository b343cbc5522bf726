"""Stop: run the `<ctx:…>` commands Claude wrote in this turn (SPEC §2.6), each exactly once.

Where the reply comes from, in order: `--response TEXT` (a person or a test), else every
assistant text block in the transcript after this session's cursor (so a tag written before
a tool call counts), plus any command in `last_assistant_message` the transcript did not
have (a transcript that is missing or not yet flushed). The cursor, the commands' effects
and the record of which `last_assistant_message` was handled commit in one transaction, so
a second Stop for the same turn does nothing and a failed one is retried by the next.

Always returns nothing (`{}`): any other Stop output makes Claude Code continue the turn.
"""
from __future__ import annotations

import hashlib

from ctx.claude import capture_hook
from ctx.claude.hooks.call import HookCall
from ctx.claude.hooks.store_access import hook_scope, open_store

CURSOR_KEY = "cursor:{session_id}"


def run(call: HookCall) -> None:
    from ctx.claude import actions
    from ctx.claude.tags import parse

    if call.response is not None:
        parsed = parse(call.response)
        if not parsed.commands and not parsed.warnings:
            return
        with open_store(call) as store:
            _report(call, store, parsed.warnings, actions.execute(store, parsed.commands,
                                                                  session_id=call.session_id,
                                                                  scope=hook_scope(call, store)))
            _auto_share(call, store)
        return

    session_id = call.session_id
    path = call.text("transcript_path")
    last_message = call.text("last_assistant_message")
    prompt_id = call.text("prompt_id")
    if not path and not (last_message or "").strip():
        return
    with open_store(call) as store:
        with store.transaction():
            key = CURSOR_KEY.format(session_id=session_id or "")
            cursor = _load_cursor(store.get_pending(key)) if session_id else None
            texts, new_cursor = _read_transcript(call, path, cursor, prompt_id)
            commands, warnings = [], []
            for text in texts:
                parsed = parse(text)
                commands += parsed.commands
                warnings += parsed.warnings
            digest = None
            if (last_message or "").strip():
                digest = hashlib.sha256(f"{prompt_id}\0{last_message}".encode()).hexdigest()[:32]
                if cursor is None or cursor.last_message != digest:
                    seen = {_identity(c) for c in commands}
                    extra = parse(last_message)
                    commands += [c for c in extra.commands if _identity(c) not in seen]
                    if not texts:
                        warnings += extra.warnings
            outcomes = actions.execute(store, commands, session_id=session_id,
                                       scope=hook_scope(call, store) if commands else None)
            if session_id:
                base = new_cursor or cursor or _empty_cursor()
                last = digest or (cursor.last_message if cursor else None)
                store.set_pending(key, base.replace(last_message=last).to_json())
            _report(call, store, warnings, outcomes)
        _auto_share(call, store)
        capture_hook.after_stop(call, store)  # the session record (SPEC §2.12)
    return


def _auto_share(call: HookCall, store) -> None:
    """`ctx project share --auto`: write the repository's shared file again when the
    project's memory changed. Only where a shared file exists (one stat otherwise)."""
    from ctx.core.shared_files import shared_file

    try:
        scope = hook_scope(call, store)
        if shared_file(scope) is None:
            return
        from ctx.core import repo, share

        share.auto_share(store, scope, by_lookup=lambda: repo.git_user(scope.project.root))
    except Exception as exc:  # noqa: BLE001 — a hook must never break Claude Code
        call.warn(f".ctx/memory.jsonl not updated ({type(exc).__name__}: {exc})")


def _load_cursor(raw):
    from ctx.claude.transcript import Cursor

    return Cursor.from_json(raw)


def _empty_cursor():
    from ctx.claude.transcript import Cursor

    return Cursor("", 0)


def _read_transcript(call: HookCall, path: str | None, cursor, prompt_id: str | None):
    """(assistant texts, cursor after them); ([], None) when the transcript can't be read."""
    from ctx.claude.transcript import read_replies

    if not path:
        return [], None
    try:
        reading = read_replies(path, cursor, prompt_id=prompt_id)
    except FileNotFoundError:
        call.warn(f"transcript {path} does not exist; used last_assistant_message")
        return [], None
    except OSError as exc:
        call.warn(f"cannot read transcript {path} ({exc.strerror or exc}); used last_assistant_message")
        return [], None
    if reading.partial_tail:
        call.warn("the transcript ends in a half-written line; it is read at the next Stop")
    return reading.texts, reading.cursor


def _identity(cmd) -> tuple:
    return cmd.name, tuple(sorted(cmd.attrs.items())), cmd.content


def _report(call: HookCall, store, warnings: list[str], outcomes) -> None:
    for w in warnings:
        call.warn(w)
    for o in outcomes:
        if not o.ok or call.verbose or o.secrets:  # a secret met is always reported (ctx.core.guard)
            call.warn(o.report(store))
