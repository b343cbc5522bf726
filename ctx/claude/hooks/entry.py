"""`ctx hook EVENT [--db PATH] [--response TEXT] [--max-chars N] [-v]` — the contract every hook keeps.

- stdin: one JSON object from Claude Code (unknown fields ignored, wrong types ignored with a
  warning). stdout: exactly one JSON object — `{}` or
  `{"hookSpecificOutput": {"hookEventName": <event>, "additionalContext": <text>}}` —
  written as UTF-8, the same bytes for the same store (no timestamps).
- additionalContext never exceeds the cap: `--max-chars`, else $CTX_HOOK_MAX_CHARS, else
  9,500. Claude Code does not show the model a context over 10,000 characters (it spills it
  to a file), and counts UTF-16 code units, as we do.
- Exit 0 always — bad stdin, a missing transcript, a locked database, a bug: one line on
  stderr and `{}` — except a corrupt database (exit 1, still `{}`). Never 2: Claude Code
  reads 2 as "block the prompt" / "keep the turn going".

Only the stdlib and ctx's pure modules are imported here (no Typer, rich, numpy…): hooks
run on every prompt's critical path.
"""
from __future__ import annotations

import json
import sys

from ctx.claude.hooks.call import EVENTS, HookCall
from ctx.claude.hooks.warm import MAX_STDIN_BYTES
from ctx.core import settings
from ctx.core.text import text_len

STRING_FIELDS = ("session_id", "transcript_path", "cwd", "hook_event_name", "source", "prompt",
                 "prompt_id", "last_assistant_message")
USAGE = """\
usage: ctx hook session-start|prompt-submit|stop|pre-compact|session-end
                [--db PATH] [--max-chars N] [--response TEXT] [-v]

Claude Code hooks: read the event's JSON on stdin, print one JSON object on stdout.
  session-start   inject the default view (capped at $CTX_HOOK_MAX_CHARS, default 9500 chars)
  prompt-submit   inject pending recall/status/expand results, once
  stop            run the <ctx:...> commands in Claude's reply (transcript since the last
                  Stop, else last_assistant_message; --response TEXT overrides both),
                  then update the session's record from the transcript
  pre-compact     update the session's record before Claude Code compacts the conversation
  session-end     update the session's record as the session ends
ctx's global options may come first: ctx --db PATH -P NAME --traceback hook stop
Example: echo '{"session_id":"test"}' | ctx hook session-start
"""


def parse_args(argv: list[str]) -> tuple[HookCall | None, list[str]]:
    """(call, problems); call is None for help or an unknown event."""
    problems: list[str] = []
    if not argv or argv[0] in ("-h", "--help", "help"):
        return None, problems
    command, rest = argv[0], argv[1:]
    if command not in EVENTS:
        problems.append(f"unknown hook {command!r}; use one of: {', '.join(EVENTS)}")
        return None, problems
    call = HookCall(command, max_chars=settings.hook_max_chars())
    i = 0
    while i < len(rest):
        arg = rest[i]
        name, eq, value = arg.partition("=")
        if name in ("--db", "--response", "--max-chars") and not eq:
            if i + 1 >= len(rest):
                problems.append(f"{name} needs a value; ignored")
                break
            value = rest[i + 1]
            i += 1
        if name == "--db":
            call.db = value
        elif name == "--response":
            call.response = value
        elif name == "--max-chars":
            if value.isdigit() and int(value) > 0:
                call.max_chars = int(value)
            else:
                problems.append(f"--max-chars needs a positive number, not {value!r}; ignored")
        elif arg in ("-v", "--verbose"):
            call.verbose = True
        elif arg == "--all-projects":
            problems.append("--all-projects does not apply to hooks (they read the project of "
                            "their cwd + global); ignored")
        else:
            problems.append(f"unknown option {arg!r}; ignored")
        i += 1
    return call, problems


def read_stdin(call: HookCall, raw: bytes | None = None) -> None:
    """The event's JSON object into `call.payload` (`raw`: what ctx/__main__.py already read)."""
    stdin = sys.stdin
    if raw is None and (stdin is None or stdin.isatty()):
        raw = b""
    else:
        if raw is None:
            raw = stdin.buffer.read(MAX_STDIN_BYTES + 1)
        if len(raw) > MAX_STDIN_BYTES:
            while stdin.buffer.read(1 << 20):  # drain, so the writer does not see a broken pipe
                pass
            call.warn(f"input is larger than {MAX_STDIN_BYTES // (1 << 20)} MB; ignored")
            return
    if not raw.strip():
        if call.response is None:
            call.warn("no input on stdin (expected the hook's JSON object)")
        return
    try:
        data = json.loads(raw.decode("utf-8", "replace"))
    except ValueError as exc:
        call.warn(f"input is not JSON ({exc}); ignored")
        return
    if not isinstance(data, dict):
        call.warn(f"input is JSON {type(data).__name__}, not an object; ignored")
        return
    if not data:
        call.warn("input is an empty JSON object; nothing to do")
        return
    wrong = [f"{k} ({type(data[k]).__name__})" for k in STRING_FIELDS
             if k in data and data[k] is not None and not isinstance(data[k], str)]
    if wrong:
        call.warn(f"ignoring input fields that should be strings: {', '.join(wrong)}")
        data = {k: v for k, v in data.items() if k not in STRING_FIELDS or isinstance(v, str)}
    call.payload = data


def envelope(event: str, context: str | None) -> dict:
    if not context:
        return {}
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": context}}


def main(argv: list[str], *, process_exits: bool = False, stdin: bytes | None = None) -> int:
    try:
        return _main(argv, process_exits=process_exits, stdin=stdin)
    except Exception as exc:  # noqa: BLE001 — the last line of defence: no traceback, no exit 2
        try:
            _emit({}, [f"internal error ({type(exc).__name__}: {exc}); nothing done"],
                  prefix="ctx hook: ")
        except OSError:  # stdout or stderr is gone: nothing left to tell
            pass
        return 0


def _main(argv: list[str], *, process_exits: bool = False, stdin: bytes | None = None) -> int:
    call, problems = parse_args(argv)
    if call is not None:
        call.process_exits = process_exits
    if call is None:
        if problems:  # a mis-wired hook: say so, but never exit 2
            _emit({}, [f"Error: {p}" for p in problems], prefix="ctx hook: ")
            return 1
        sys.stdout.write(USAGE)
        return 0
    for p in problems:
        call.warn(p)
    read_stdin(call, stdin)
    context, code = None, 0
    if call.payload or call.response is not None:
        context, code = _run(call)
    if context and text_len(context) > call.max_chars:  # the handlers fit; this is a backstop
        call.warn(f"context of {text_len(context)} characters exceeds the cap of {call.max_chars}; dropped")
        context = None
    _emit(envelope(call.event, context), call.warnings, prefix=f"ctx hook {call.command}: ")
    return code


def _run(call: HookCall) -> tuple[str | None, int]:
    from ctx.core.errors import CorruptDatabaseError, CtxError

    declared = call.text("hook_event_name")
    if declared and declared != call.event:
        call.warn(f"called for {declared} but this is the {call.event} hook; nothing done "
                  f"(check the hooks in settings.json)")
        return None, 0
    try:
        if call.command == "session-start":
            from ctx.claude.hooks import session_start as handler
        elif call.command == "prompt-submit":
            from ctx.claude.hooks import prompt_submit as handler
        elif call.command == "stop":
            from ctx.claude.hooks import stop as handler
        else:  # pre-compact, session-end: the session record (ctx.claude.capture_hook)
            from ctx.claude import capture_hook as handler
        return handler.run(call), 0
    except CorruptDatabaseError as exc:
        call.warn(f"Error: {exc}")
        return None, 1
    except CtxError as exc:
        call.warn(str(exc))
    except Exception as exc:  # noqa: BLE001 — a hook must never break Claude Code
        import sqlite3

        if isinstance(exc, sqlite3.Error):
            from ctx.core import db

            err = db.translate(exc, call.db)
            call.warn(f"Error: {err}" if isinstance(err, CorruptDatabaseError) else str(err))
            return None, 1 if isinstance(err, CorruptDatabaseError) else 0
        if settings.debug():
            import traceback

            traceback.print_exc()
        call.warn(f"internal error ({type(exc).__name__}: {exc}); nothing injected")
    return None, 0


def _emit(output: dict, warnings: list[str], *, prefix: str) -> None:
    if warnings:
        text = "".join(prefix + line + "\n" for line in warnings)
        sys.stderr.buffer.write(text.encode("utf-8", "replace"))
        sys.stderr.flush()
    data = json.dumps(output, ensure_ascii=False, separators=(",", ":")) + "\n"
    sys.stdout.buffer.write(data.encode("utf-8"))
    sys.stdout.flush()
