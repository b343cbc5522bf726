"""Session capture (SPEC §2.12): what a Claude Code session did, read from its transcript —
no model, no tokens. Pure: transcript lines fold into a `state` (a plain JSON-able dict),
and `render(state, root)` turns a state into the record's text.

The fold is line by line, so a state saved after one Stop and fed the lines the next Stop
brings ends exactly where one pass over the whole transcript ends: the same transcript
gives the same record, byte for byte, however many Stops read it. What the real client
writes (Claude Code 2.1.330, tools/claude-code/README.md): `user` lines hold the prompts (a
string or text blocks) and the `tool_result` blocks (`is_error`, and a `toolUseResult`
beside the message: `type: create|update` for Write, stdout/stderr for Bash); `assistant`
lines hold one block each (`text`, `tool_use`, `thinking`). A failed Bash call comes back
as `is_error: true` with content `Exit code N\\n<output>`. Every other line type is skipped,
and so are sidechain (subagent) lines, meta lines, compaction summaries and local commands.

What a record keeps: the task in the user's words (the first prompts, trimmed), the files
created or edited (relative to the repository), the commands run and how they ended (test
counts when the output says them; commits and branches), errors and whether a later run of
the same command (or edit of the same file) succeeded, and the memories Claude wrote.
What it leaves out (by design): file contents and diffs, command output beyond one error
line, read-only commands that succeeded (`ls`, `cat`, `git status`…: counted only), reads
and searches, Claude's own prose (the model's account is not the record of what happened),
thinking blocks, and everything a subagent did.
"""
from __future__ import annotations

import json
import os
import re

VERSION = 1
MAX_PROMPTS_KEPT = 3  # the task: the first prompts, in the user's words
PROMPT_CHARS = 240
MAX_COMMANDS_KEPT = 80  # a state's command list (the render shows far fewer)
MAX_ERRORS_KEPT = 30
MAX_MEMORIES_KEPT = 6
DEFAULT_MAX_CHARS = 1600  # a record's cap ($CTX_CAPTURE_MAX_CHARS)
TAGS = ("tier:off-context", "capture:session")  # out of session start's view, eligible per prompt
NODE_TYPE = "observation"

EDIT_TOOLS = {"Edit": "file_path", "MultiEdit": "file_path", "Write": "file_path",
              "NotebookEdit": "notebook_path"}
REMEMBER_TOOLS = ("mcp__ctx__remember", "mcp__plugin_ctx_ctx__remember")
SKIP_PROMPT_PREFIXES = ("<command-name>", "<command-message>", "<local-command-",
                        "[Request interrupted", "Caveat:", "<bash-input>", "<bash-stdout>",
                        "<bash-stderr>")
READ_ONLY = {"ls", "cat", "pwd", "echo", "head", "tail", "grep", "rg", "find", "cd", "which",
             "wc", "less", "tree", "file", "stat", "du", "df", "env", "printenv", "type", "sed",
             "awk", "sort", "uniq", "diff", "true"}
READ_ONLY_GIT = {"status", "diff", "log", "show", "blame", "branch", "remote", "rev-parse",
                 "ls-files", "fetch"}

_RE = {}


def _re(name: str) -> re.Pattern:
    """Patterns compile on first use (the hook path pays only for what it meets)."""
    pattern = _RE.get(name)
    if pattern is None:
        pattern = _RE[name] = re.compile(_PATTERNS[name][0], _PATTERNS[name][1])
    return pattern


_PATTERNS = {
    "counts": (r"(\d+) (passed|failed|errors?|skipped|passing|failing|pending|xfailed|xpassed)\b",
               re.IGNORECASE),
    "unittest_ran": (r"^Ran (\d+) tests? in", re.MULTILINE),
    "unittest_end": (r"^(OK|FAILED \((.*)\))", re.MULTILINE),
    "exit": (r"^(?:Error: )?Exit code (\d+)", 0),
    "error_strong": ((r"\b[A-Z]\w*(?:Error|Exception)\b|^FAILED |\berror(?:\[\w+\])?:|\bfatal:|"
                      r"\bpanic:|^E\s{2,}"), 0),
    "error_line": ((r"(\berror\b|\bFAILED\b|\bFAIL\b|\bfatal\b|"
                   r"\bpanic\b|\bnot found\b|\bNo such file\b|\bcannot\b|\bdenied\b)"), re.IGNORECASE),
    "commit": (r"^\[([^\s\]]+)(?: \(root-commit\))? ([0-9a-f]{7,40})\] (.+)$", re.MULTILINE),
    "test_cmd": ((r"\b(pytest|py\.test|unittest|jest|vitest|mocha|go test|cargo test|"
                  r"(?:npm|yarn|pnpm|bun)(?: run)? test|make (?:test|check)|tox|nox|rspec|"
                  r"phpunit|ctest|mvn test|gradle test|dotnet test|manage\.py test)\b"), 0),
    "new_branch": (r"\bgit\s+(?:checkout\s+-[bB]|switch\s+-[cC]|branch)\s+([\w./-]+)", 0),
    "remember_tag": (r"<ctx:remember\b[^>]*>(.*?)</ctx:remember>", re.DOTALL),
    "env_prefix": (r"^(?:[A-Za-z_]\w*=\S*\s+)+", 0),
    "space": (r"\s+", 0),
}


def new_state() -> dict:
    return {"v": VERSION, "first_at": None, "last_at": None, "cwd": None, "branch": None,
            "prompts": [], "n_prompts": 0, "tool_uses": 0, "open": {}, "files": {},
            "commands": [], "n_commands": 0, "read_only": 0, "errors": [], "n_errors": 0,
            "commits": [], "branches": [], "memories": [], "n_memories": 0}


# -- the fold ---------------------------------------------------------------------------------

def fold(state: dict, line: bytes) -> None:
    """Take one transcript line (bytes, one JSON object) into `state`. A line that is not
    JSON, or not a kind this reads, changes nothing.

    Most lines of a busy session need no parsing: other line types, text and thinking
    blocks, calls of tools a record does not describe (Read, Grep…) and their results are
    recognised from their bytes and only counted or time-stamped. Which way a line goes
    depends only on its bytes and the state, so the fold stays deterministic."""
    if b'"isSidechain":true' in line:
        return
    if b'"type":"assistant"' in line:
        if b"<ctx:remember" not in line:
            if b'"tool_use"' not in line:  # a text or thinking block: its time only
                _stamp(state, line)
                return
            m = _re_b("tool_name").search(line)
            if m and m.group(1) not in _DESCRIBED:
                state["tool_uses"] += 1
                _stamp(state, line)
                return
    elif b'"type":"user"' in line:
        if b'"tool_result"' in line and b'"type":"text"' not in line:
            m = _re_b("result_id").search(line)
            if m and m.group(1).decode("utf-8", "replace") not in state["open"]:
                _stamp(state, line)
                return
    elif b'"user"' not in line and b'"assistant"' not in line:  # (another writer's spacing)
        return
    _fold_parsed(state, line)


def _stamp(state: dict, line: bytes) -> None:
    i = line.rfind(b'"timestamp":"')
    if i < 0:
        return
    j = line.find(b'"', i + 13)
    stamp = line[i + 13:j].decode("ascii", "replace") if j > 0 else ""
    if stamp:
        if state["first_at"] is None:
            state["first_at"] = stamp
        state["last_at"] = stamp


def _fold_parsed(state: dict, line: bytes) -> None:
    try:
        entry = json.loads(line)
    except ValueError:
        return
    if not isinstance(entry, dict) or entry.get("isSidechain"):
        return
    kind = entry.get("type")
    if kind not in ("user", "assistant"):
        return
    message = entry.get("message")
    if not isinstance(message, dict):
        return
    stamp = entry.get("timestamp")
    if isinstance(stamp, str) and stamp:
        if state["first_at"] is None:
            state["first_at"] = stamp
        state["last_at"] = stamp
    if state["cwd"] is None and isinstance(entry.get("cwd"), str):
        state["cwd"] = entry["cwd"]
    if isinstance(entry.get("gitBranch"), str) and entry["gitBranch"]:
        state["branch"] = entry["gitBranch"]
    content = message.get("content")
    if kind == "user":
        _fold_user(state, entry, content)
    else:
        _fold_assistant(state, content)


_DESCRIBED = {b"Bash", *(n.encode() for n in EDIT_TOOLS), *(n.encode() for n in REMEMBER_TOOLS)}
_RE_B = {}


def _re_b(name: str) -> re.Pattern:
    pattern = _RE_B.get(name)
    if pattern is None:
        pattern = _RE_B[name] = re.compile({
            "tool_name": rb'"type":"tool_use","id":"[^"]*","name":"([^"\\]*)"',
            "result_id": rb'"tool_use_id":"([^"\\]*)"',
        }[name])
    return pattern


def _fold_user(state: dict, entry: dict, content) -> None:
    prompt_line = not (entry.get("isMeta") or entry.get("isCompactSummary")
                       or entry.get("isVisibleInTranscriptOnly"))
    if isinstance(content, str):
        if prompt_line:
            _prompt(state, content)
        return
    if not isinstance(content, list):
        return
    for block in content:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text" and prompt_line and isinstance(block.get("text"), str):
            _prompt(state, block["text"])
        elif block.get("type") == "tool_result":
            _result(state, block, entry.get("toolUseResult"))


def _prompt(state: dict, text: str) -> None:
    text = text.strip()
    if not text or text.startswith(SKIP_PROMPT_PREFIXES) or "<system-reminder>" in text[:40]:
        return
    state["n_prompts"] += 1
    if len(state["prompts"]) < MAX_PROMPTS_KEPT:
        state["prompts"].append(_clip(_one_line(text), PROMPT_CHARS))


def _fold_assistant(state: dict, content) -> None:
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    if not isinstance(content, list):
        return
    for block in content:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str) and "<ctx:remember" in block["text"]:
            for body in _re("remember_tag").findall(block["text"]):
                _memory(state, body)
        elif kind == "tool_use":
            _tool_use(state, block)


def _tool_use(state: dict, block: dict) -> None:
    name = block.get("name") if isinstance(block.get("name"), str) else ""
    args = block.get("input") if isinstance(block.get("input"), dict) else {}
    tool_id = block.get("id") if isinstance(block.get("id"), str) else None
    state["tool_uses"] += 1
    if name in REMEMBER_TOOLS and isinstance(args.get("content"), str):
        _memory(state, args["content"])
        return
    if name == "Bash" and isinstance(args.get("command"), str):
        target = args["command"]
    elif name in EDIT_TOOLS and isinstance(args.get(EDIT_TOOLS[name]), str):
        target = args[EDIT_TOOLS[name]]
        if _is_auto_memory(target) and name in ("Write", "Edit", "MultiEdit"):
            _memory(state, "auto memory " + os.path.basename(target))
    else:
        return
    if tool_id:
        state["open"][tool_id] = [name, target]


def _result(state: dict, block: dict, extra) -> None:
    tool_id = block.get("tool_use_id")
    opened = state["open"].pop(tool_id, None) if isinstance(tool_id, str) else None
    if opened is None:
        return
    name, target = opened
    failed = block.get("is_error") is True
    text = _result_text(block.get("content"))
    if name == "Bash":
        if isinstance(extra, dict):  # the real stdout/stderr, when the client kept them
            out = "\n".join(s for s in (extra.get("stdout"), extra.get("stderr"))
                            if isinstance(s, str) and s)
            text = out or text
        _command(state, target, failed, text)
        return
    key = "edit:" + target
    if failed:
        _error(state, key, f"{name} {target}: {_first_line(text)}")
        return
    action = "created" if isinstance(extra, dict) and extra.get("type") == "create" else "edited"
    files = state["files"]
    if files.get(target) != "created":  # created then edited stays "created"
        files[target] = action
    _resolve(state, key)


def _command(state: dict, command: str, failed: bool, output: str) -> None:
    state["n_commands"] += 1
    words = _words(command)
    exit_code = None
    m = _re("exit").match(output or "")
    if m:
        exit_code = int(m.group(1))
        failed = failed or exit_code != 0
    tests = _test_counts(output) if output else None
    is_test = bool(tests) or bool(_re("test_cmd").search(command))
    if tests and ("failed" in tests or "error" in tests or "failing" in tests):
        failed = True
    if words and words[0] == "git":
        _git(state, command, output, failed)
        if not failed:  # a commit or a branch is in the Git line; the rest is bookkeeping
            state["read_only"] += 1 if _read_only(words) else 0
            return
    if not failed and not is_test and _read_only(words):
        state["read_only"] += 1
        return
    key = _command_key(words, is_test)
    targets = [w for w in words[1:] if not w.startswith("-")] if is_test else []
    record = {"cmd": _clip(_one_line(command), 120), "key": key, "ok": not failed,
              "exit": exit_code, "tests": tests, "test": is_test}
    commands = state["commands"]
    commands.append(record)
    if len(commands) > MAX_COMMANDS_KEPT:  # drop the oldest plain success, else the oldest
        drop = next((i for i, c in enumerate(commands) if c["ok"] and not c["test"]), 0)
        del commands[drop]
    if failed:
        _error(state, key, _error_line(output, command, exit_code), targets if is_test else None)
    else:
        _resolve(state, key, targets if is_test else None)


def _git(state: dict, command: str, output: str, failed: bool) -> None:
    if failed:
        return
    for branch, sha, subject in _re("commit").findall(output or ""):
        entry = [sha[:7], branch, _clip(subject.strip(), 100)]
        if entry not in state["commits"] and len(state["commits"]) < 20:
            state["commits"].append(entry)
    for branch in _re("new_branch").findall(command):
        if branch not in state["branches"] and not branch.startswith("-") and len(state["branches"]) < 10:
            state["branches"].append(branch)


def _error(state: dict, key: str, text: str, targets: list[str] | None = None) -> None:
    state["n_errors"] += 1
    errors = state["errors"]
    for e in errors:  # the same error again: one entry, unresolved again
        if e["key"] == key and e["text"] == text:
            e["resolved"] = False
            return
    if len(errors) < MAX_ERRORS_KEPT:
        entry = {"key": key, "text": _clip(text, 200), "resolved": False}
        if targets is not None:
            entry["targets"] = targets
        errors.append(entry)


def _resolve(state: dict, key: str, targets: list[str] | None = None) -> None:
    """A success of the same command resolves its errors; a passing test run resolves the
    failed test runs it covers (the same targets, or fewer: the whole suite covers all)."""
    for e in state["errors"]:
        if e["key"] == key or targets is not None and "targets" in e and set(targets) <= set(e["targets"]) \
                and e["key"].split(" ", 1)[0] == key.split(" ", 1)[0]:
            e["resolved"] = True


def _memory(state: dict, text: str) -> None:
    text = _one_line(text)
    if not text:
        return
    state["n_memories"] += 1
    if len(state["memories"]) < MAX_MEMORIES_KEPT:
        state["memories"].append(_clip(text, 90))


# -- reading command output -------------------------------------------------------------------

def _test_counts(output: str) -> str | None:
    """'3 failed, 12 passed' from the last line of the output that states counts."""
    tail = output[-4000:]
    for line in reversed(tail.splitlines()):
        found = _re("counts").findall(line)
        if found:
            seen: dict[str, int] = {}
            for n, word in found:
                word = word.lower()
                word = {"passing": "passed", "failing": "failed", "errors": "error"}.get(word, word)
                seen.setdefault(word, int(n))
            order = ("failed", "error", "passed", "skipped", "pending", "xfailed", "xpassed")
            return ", ".join(f"{seen[w]} {w}" for w in order if w in seen)
    ran = _re("unittest_ran").search(tail)
    if ran:
        end = _re("unittest_end").search(tail)
        if end and end.group(1) == "OK":
            return f"{ran.group(1)} passed"
        if end:
            return f"{ran.group(1)} run, {end.group(2)}"
    return None


def _error_line(output: str, command: str, exit_code: int | None) -> str:
    lines = [ln.strip() for ln in (output or "").splitlines() if ln.strip()]
    lines = [ln for ln in lines if not _re("exit").match(ln)]
    pick = None
    for name in ("error_strong", "error_line"):
        for ln in reversed(lines[-200:]):
            if _re(name).search(ln) and not _re("counts").search(ln):
                pick = ln.strip("=-_ ")
                break
        if pick:
            break
    if pick is None and lines:
        pick = lines[-1]
    head = _clip(_one_line(command), 60)
    status = f"exit {exit_code}" if exit_code is not None else "failed"
    return f"`{head}` {status}" + (f": {_clip(pick, 140)}" if pick else "")


# -- commands ---------------------------------------------------------------------------------

def _words(command: str) -> list[str]:
    first = command.strip().split("\n", 1)[0]
    first = _re("env_prefix").sub("", first)
    for sep in ("&&", "||", ";", "|"):
        first = first.split(sep, 1)[0]
    return first.split()


def _read_only(words: list[str]) -> bool:
    if not words:
        return True
    prog = os.path.basename(words[0])
    if prog == "git":
        return len(words) > 1 and words[1] in READ_ONLY_GIT and not (
            words[1] == "branch" and len(words) > 2 and not words[2].startswith("-"))
    return prog in READ_ONLY


def _command_key(words: list[str], is_test: bool) -> str:
    """Runs that count as 'the same command' when deciding if an error was resolved."""
    if not words:
        return "cmd:"
    prog = os.path.basename(words[0])
    if is_test:
        return "test:" + " ".join(w for w in words if not w.startswith("-"))
    if prog in ("python", "python3", "uv", "poetry", "npx", "node") and len(words) > 1:
        rest = [w for w in words[1:] if not w.startswith("-")]
        return "cmd:" + prog + " " + (rest[0] if rest else "")
    if len(words) > 1 and not words[1].startswith("-"):
        return "cmd:" + prog + " " + words[1]
    return "cmd:" + prog


# -- the record -------------------------------------------------------------------------------

def trivial(state: dict) -> str | None:
    """Why a session is not worth a record (None: it is)."""
    if state["tool_uses"] == 0 and state["n_prompts"] <= 2:
        return "no tool use and at most two prompts"
    if state["n_prompts"] == 0:
        return "no prompt from the user"
    return None


def reason(state: dict) -> str:
    """Why the record was kept, in words (`ctx capture show`)."""
    parts = [f"{state['n_prompts']} prompt{'s' if state['n_prompts'] != 1 else ''}",
             f"{state['tool_uses']} tool use{'s' if state['tool_uses'] != 1 else ''}"]
    if state["files"]:
        parts.append(f"{len(state['files'])} file(s) changed")
    if state["n_commands"]:
        parts.append(f"{state['n_commands']} command(s)")
    return ", ".join(parts)


def render(state: dict, root: str | None, *, max_chars: int = DEFAULT_MAX_CHARS) -> str:
    """The record's text: a few labelled lines, each fitted to its share of `max_chars`."""
    day = (state["first_at"] or "")[:10]
    span = _span(state)
    branch = f" on branch {state['branch']}" if state["branch"] else ""
    task = state["prompts"][0] if state["prompts"] else "(no prompt)"
    lines = [_clip(f"Session {day}{span}{branch}: {task}".replace("Session :", "Session:"), 300)]
    if len(state["prompts"]) > 1 or state["n_prompts"] > 1:
        more = state["n_prompts"] - len(state["prompts"])
        later = "; ".join(f'"{p}"' for p in state["prompts"][1:])
        lines.append(_fit("Then asked: ", [later] if later else [], 360,
                          extra=more, noun="more prompts"))
    created = [_rel(p, root) for p, a in state["files"].items() if a == "created"]
    edited = [_rel(p, root) for p, a in state["files"].items() if a == "edited"]
    if created:
        lines.append(_fit("Created: ", created, 260))
    if edited:
        lines.append(_fit("Edited: ", edited, 300))
    runs = _command_runs(state["commands"])
    if runs or state["read_only"]:
        lines.append(_fit("Commands: ", runs, 420, extra=0,
                          tail=f" (+{state['read_only']} read-only)" if state["read_only"] else ""))
    git = [f'committed {sha} "{subject}" on {branch}' for sha, branch, subject in state["commits"]]
    git += [f"branch {b}" for b in state["branches"] if b not in {c[1] for c in state["commits"]}]
    if git:
        lines.append(_fit("Git: ", git, 260))
    if state["errors"]:
        errs = [f"{e['text']} ({'resolved later' if e['resolved'] else 'not resolved'})"
                for e in state["errors"]]
        lines.append(_fit("Errors: ", errs, 420, extra=max(0, state["n_errors"] - len(errs)),
                          noun="more"))
    if state["memories"]:
        lines.append(_fit("Memories written: ", [f'"{m}"' for m in state["memories"]], 240,
                          extra=state["n_memories"] - len(state["memories"]), noun="more"))
    text = "\n".join(lines)
    while len(text) > max_chars and len(lines) > 1:
        lines.pop()  # the least important lines are last
        text = "\n".join(lines + ["(record cut to fit)"])
    return text[:max_chars]


def _command_runs(commands: list[dict]) -> list[str]:
    """One item per command (by key, in order of first run): its runs' outcomes in order."""
    groups: dict[str, list[dict]] = {}
    for c in commands:
        groups.setdefault(c["key"], []).append(c)
    items = []
    for runs in groups.values():
        shown = runs[-1]["cmd"]
        outcomes: list[str] = []
        for r in runs:
            o = _outcome(r)
            if not outcomes or outcomes[-1] != o:
                outcomes.append(o)
        count = f" ×{len(runs)}" if len(runs) > 1 else ""
        items.append(f"`{_clip(shown, 70)}`{count} " + " → ".join(outcomes[-4:]))
    return items


def _outcome(run: dict) -> str:
    word = ("passed" if run["test"] else "ok") if run["ok"] else "failed"
    if run["tests"]:
        return f"{word} ({run['tests']})"
    if not run["ok"] and run["exit"] is not None:
        return f"failed (exit {run['exit']})"
    return word


def _span(state: dict) -> str:
    a, b = state["first_at"] or "", state["last_at"] or ""
    if len(a) < 16:
        return ""
    if b[:10] == a[:10] and len(b) >= 16:
        return f" {a[11:16]}–{b[11:16]} UTC"
    return f" {a[11:16]} UTC"


def _fit(label: str, items: list[str], cap: int, *, extra: int = 0, noun: str = "more",
         tail: str = "") -> str:
    """`label` + as many whole items as fit in `cap`, then '+N more'."""
    out = label
    shown = 0
    for item in items:
        sep = "; " if shown else ""
        if len(out) + len(sep) + len(item) + len(tail) > cap - 12 and shown:
            break
        out += sep + _clip(item, cap - len(label) - 12)
        shown += 1
    left = len(items) - shown + max(0, extra)
    if left:
        out += f" (+{left} {noun})"
    return out + tail


def _rel(path: str, root: str | None) -> str:
    if root and (path == root or path.startswith(root.rstrip("/") + "/")):
        return os.path.relpath(path, root)
    home = os.path.expanduser("~")
    if home and home != "/" and path.startswith(home + "/"):
        return "~/" + path[len(home) + 1:]
    return path


def _is_auto_memory(path: str) -> bool:
    return "/.claude/projects/" in path and "/memory/" in path and path.endswith(".md")


def _result_text(content) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(b["text"] for b in content
                         if isinstance(b, dict) and isinstance(b.get("text"), str))
    return ""


def _first_line(text: str) -> str:
    for ln in (text or "").splitlines():
        if ln.strip():
            return _clip(ln.strip(), 140)
    return "failed"


def _one_line(text: str) -> str:
    return _re("space").sub(" ", text).strip()


def _clip(text: str, n: int) -> str:
    return text if len(text) <= n else text[: max(0, n - 1)].rstrip() + "…"


def worktree_top(cwd: str | None) -> str | None:
    """The folder of the checkout holding `cwd` (the first parent with a `.git` entry):
    paths in a record are relative to it. File reads only."""
    d = cwd
    while d:
        if os.path.exists(os.path.join(d, ".git")):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent
    return None
