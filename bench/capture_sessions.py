"""Claude Code transcripts in the real client's format (2.1.330, as the harness recorded them),
for the session-capture tests and benchmark: `Transcript` writes one, `scenario_transcript`
turns a scenario (prompts, edits, commands, errors, a closing summary) into one, and
`generate` makes the tune half's 200 sessions of varied shape with questions about them.

Line shapes copied from a harness run: a `user` line per prompt (content a string, with
`promptId`), one `assistant` line per block (text / tool_use) sharing `message.id`, and a
`user` line per `tool_result` with `toolUseResult` beside it (Write: `type: create|update`;
Edit: `filePath`…; Bash: stdout/stderr, or the string `Error: Exit code N` when it failed,
with content `Exit code N\\n<output>` and `is_error: true`). Noise lines the client writes
(`attachment`, `api-request-blob` replaying earlier requests, `system`) are mixed in.
"""
from __future__ import annotations

import json
import random
import uuid
from datetime import UTC, datetime, timedelta


def _uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


class Transcript:
    def __init__(self, session_id: str, cwd: str, start: datetime, *, branch: str = "main",
                 seed: int = 0) -> None:
        self.session_id = session_id
        self.cwd = cwd
        self.t = start
        self.branch = branch
        self.rng = random.Random(seed)
        self.lines: list[dict] = []
        self.parent: str | None = None
        self.prompt_id: str | None = None
        self.n_tool = 0

    def _base(self, kind: str) -> dict:
        self.t += timedelta(seconds=self.rng.randint(1, 40))
        u = _uuid(self.rng)
        entry = {"parentUuid": self.parent, "isSidechain": False, "type": kind, "uuid": u,
                 "timestamp": self.t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.t.microsecond // 1000:03d}Z",
                 "userType": "external", "entrypoint": "sdk-cli", "cwd": self.cwd,
                 "sessionId": self.session_id, "version": "2.1.330", "gitBranch": self.branch}
        self.parent = u
        return entry

    def prompt(self, text: str) -> str:
        self.prompt_id = _uuid(self.rng)
        self.lines.append({"type": "queue-operation", "operation": "enqueue",
                           "timestamp": self.t.isoformat(), "sessionId": self.session_id,
                           "content": text})
        e = self._base("user")
        e["promptId"] = self.prompt_id
        e["message"] = {"role": "user", "content": text}
        self.lines.append(e)
        self.lines.append({"parentUuid": self.parent, "isSidechain": False, "type": "attachment",
                           "attachment": {"type": "hook_additional_context",
                                          "content": ["<ctx:remember>replayed</ctx:remember>"]},
                           "timestamp": self.t.isoformat(), "uuid": _uuid(self.rng)})
        return self.prompt_id

    def _assistant(self, blocks: list[dict], stop_reason: str) -> None:
        mid = "msg_" + _uuid(self.rng).replace("-", "")[:24]
        for block in blocks:
            e = self._base("assistant")
            e["message"] = {"id": mid, "type": "message", "role": "assistant",
                            "model": "claude-opus-5-5", "content": [block],
                            "stop_reason": stop_reason, "usage": {"input_tokens": 100}}
            e["requestId"] = "req_" + mid[4:]
            self.lines.append(e)

    def say(self, text: str) -> None:
        self._assistant([{"type": "text", "text": text}], "end_turn")

    def tool(self, name: str, args: dict, content: str, *, is_error: bool = False,
             result=None, text: str | None = None) -> None:
        self.n_tool += 1
        tid = f"toolu_{self.session_id[:8]}{self.n_tool:04d}"
        blocks = ([{"type": "text", "text": text}] if text else [])
        blocks.append({"type": "tool_use", "id": tid, "name": name, "input": args})
        self._assistant(blocks, "tool_use")
        e = self._base("user")
        e["promptId"] = self.prompt_id
        block = {"tool_use_id": tid, "type": "tool_result", "content": content}
        if is_error or name == "Bash":
            block["is_error"] = is_error
        e["message"] = {"role": "user", "content": [block]}
        if result is not None:
            e["toolUseResult"] = result
        self.lines.append(e)
        if self.n_tool % 3 == 0:  # the client replays requests; none of it is new activity
            self.lines.append({"type": "api-request-blob", "timestamp": self.t.isoformat(),
                               "body": json.dumps({"messages": [{"role": "assistant", "content": [
                                   {"type": "tool_use", "id": "toolu_old", "name": "Bash",
                                    "input": {"command": "rm -rf /replayed"}}]}]})})

    def bash(self, command: str, *, exit: int = 0, output: str = "") -> None:
        if exit:
            content = f"Exit code {exit}" + (f"\n{output}" if output else "")
            self.tool("Bash", {"command": command, "description": "run"}, content, is_error=True,
                      result=f"Error: Exit code {exit}")
        else:
            self.tool("Bash", {"command": command, "description": "run"},
                      output or "(Bash completed with no output)",
                      result={"stdout": output, "stderr": "", "interrupted": False,
                              "isImage": False, "noOutputExpected": False})

    def edit(self, path: str, action: str = "edit") -> None:
        full = path if path.startswith("/") else f"{self.cwd}/{path}"
        if action == "create":
            self.tool("Write", {"file_path": full, "content": "x = 1\n"},
                      f"File created successfully at: {full}",
                      result={"type": "create", "filePath": full, "content": "x = 1\n",
                              "structuredPatch": [], "originalFile": None})
        else:
            self.tool("Edit", {"replace_all": False, "file_path": full, "old_string": "a",
                               "new_string": "b"},
                      f"The file {full} has been updated successfully.",
                      result={"filePath": full, "oldString": "a", "newString": "b",
                              "structuredPatch": [], "userModified": False})

    def read(self, path: str) -> None:
        full = path if path.startswith("/") else f"{self.cwd}/{path}"
        self.tool("Read", {"file_path": full}, "     1\tx = 1\n" * 40,
                  result={"type": "text", "file": {"filePath": full}})

    def stop_summary(self) -> None:
        e = self._base("system")
        e.update({"subtype": "stop_hook_summary", "hookCount": 1, "hookInfos": [],
                  "hookErrors": [], "preventedContinuation": False})
        self.lines.append(e)

    def text(self) -> str:
        return "".join(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n"
                       for line in self.lines)


def scenario_transcript(scenario: dict, cwd: str, *, now: datetime | None = None,
                        session_id: str | None = None) -> Transcript:
    """A transcript for one scenario: {"id", "days_ago", "prompts", "edits": [{"path",
    "action"}], "commands": [{"cmd", "exit", "output"}], "errors": [{"text", "resolved"}],
    "assistant_summary"}. The first prompt opens the session; edits and commands follow in
    order, split over the prompts; each error becomes a failing command whose output is the
    error text, followed — when it was resolved — by the same command succeeding."""
    now = now or datetime(2026, 11, 28, 12, 0, tzinfo=UTC)
    sid = session_id or str(uuid.uuid5(uuid.NAMESPACE_URL, "scenario:" + str(scenario["id"])))
    start = now - timedelta(days=float(scenario.get("days_ago") or 0), hours=2)
    seed = int(uuid.uuid5(uuid.NAMESPACE_URL, sid).int % 10**6)
    t = Transcript(sid, cwd, start, seed=seed)
    prompts = [p for p in scenario.get("prompts") or [] if isinstance(p, str)] or ["(no prompt)"]
    steps: list[tuple] = []
    for e in scenario.get("edits") or []:
        steps.append(("edit", e))
    for c in scenario.get("commands") or []:
        steps.append(("cmd", c))
    for err in scenario.get("errors") or []:
        steps.append(("err", err))
    per = max(1, -(-len(steps) // len(prompts)))
    for i, p in enumerate(prompts):
        t.prompt(p)
        for kind, item in steps[i * per:(i + 1) * per]:
            if kind == "edit":
                t.edit(str(item.get("path") or "file"), item.get("action") or "edit")
            elif kind == "cmd":
                t.bash(str(item.get("cmd") or "true"), exit=int(item.get("exit") or 0),
                       output=str(item.get("output") or ""))
            else:
                text = str(item.get("text") or "error")
                cmd = _command_for_error(text)
                t.bash(cmd, exit=1, output=text)
                if item.get("resolved"):
                    t.bash(cmd, exit=0, output="")
        last = i == len(prompts) - 1
        t.say(str(scenario.get("assistant_summary") or "Done.") if last else "Working on it.")
        t.stop_summary()
    return t


def _command_for_error(text: str) -> str:
    low = text.lower()
    if "test" in low or "assert" in low:
        return "python -m pytest -q"
    if "migrat" in low:
        return "python manage.py migrate"
    if "npm" in low or "node" in low or "module not found" in low:
        return "npm run build"
    return "make"
