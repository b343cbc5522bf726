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


# -- the tune half: generated sessions and questions about them --------------------------------

PROJECTS = ("ledger", "storefront", "mapkit", "infra")
# (component file, feature words, a test file, an error that can happen there)
COMPONENTS = {
    "ledger": [
        ("ledger/invoice.py", "invoice rounding", "tests/test_invoice.py",
         "AssertionError: 10.01 != 10.0"),
        ("ledger/tax.py", "VAT rates per country", "tests/test_tax.py",
         "KeyError: 'NO'"),
        ("ledger/migrations/0042_currency.py", "the currency column migration", None,
         "django.db.utils.OperationalError: no such column: invoices.currency"),
        ("ledger/export.py", "CSV export of statements", "tests/test_export.py",
         "UnicodeEncodeError: 'ascii' codec can't encode character"),
        ("ledger/reminders.py", "overdue payment reminder emails", "tests/test_reminders.py",
         "TypeError: send_mail() missing 1 required positional argument: 'to'"),
    ],
    "storefront": [
        ("src/cart/CartSummary.tsx", "the cart summary total", "src/cart/CartSummary.test.tsx",
         "TypeError: Cannot read properties of undefined (reading 'price')"),
        ("src/checkout/payment.ts", "retrying declined card payments", "src/checkout/payment.test.ts",
         "Error: Request failed with status code 402"),
        ("src/search/SearchBox.tsx", "search box debounce", "src/search/SearchBox.test.tsx",
         "ReferenceError: debounce is not defined"),
        ("webpack.config.js", "the production bundle split", None,
         "Module not found: Error: Can't resolve 'lodash-es'"),
        ("src/i18n/ko.json", "Korean translations of the checkout", None,
         "SyntaxError: Unexpected token } in JSON at position 812"),
    ],
    "mapkit": [
        ("mapkit/tiles.go", "tile cache eviction", "mapkit/tiles_test.go",
         "panic: runtime error: index out of range [3] with length 3"),
        ("mapkit/geocode.go", "reverse geocoding timeouts", "mapkit/geocode_test.go",
         "context deadline exceeded"),
        ("mapkit/proj.go", "Web Mercator projection at the poles", "mapkit/proj_test.go",
         "--- FAIL: TestMercatorPole (0.00s)"),
        ("cmd/mapserver/main.go", "the map server's graceful shutdown", None,
         "listen tcp :8080: bind: address already in use"),
    ],
    "infra": [
        ("terraform/rds.tf", "the Postgres instance size", None,
         "Error: creating RDS DB Instance: InvalidParameterCombination"),
        ("k8s/ingress.yaml", "TLS on the ingress", None,
         "error: error validating \"k8s/ingress.yaml\": unknown field \"tls.host\""),
        (".github/workflows/ci.yml", "caching pip in CI", None,
         "Error: Process completed with exit code 1."),
        ("ansible/roles/nginx/tasks/main.yml", "nginx rate limiting", None,
         "fatal: [web1]: FAILED! => {\"msg\": \"nginx: [emerg] unknown directive limit_req_zonee\"}"),
    ],
}
TEST_CMD = {"ledger": "python -m pytest {test} -q", "storefront": "npx jest {test}",
            "mapkit": "go test ./mapkit/...", "infra": None}
BUILD_CMD = {"ledger": "python manage.py migrate", "storefront": "npm run build",
             "mapkit": "go build ./...", "infra": "terraform plan"}
CHAT = ["what does HTTP 418 mean?", "how do I undo the last git commit but keep the changes?",
        "explain the difference between a mutex and a semaphore",
        "what's a good name for a function that rounds money?",
        "데이터베이스 인덱스는 언제 쓰는 게 좋아?", "is Go's map iteration order random?"]


def generate(n: int = 200, seed: int = 39) -> tuple[list[dict], list[dict]]:
    """(scenarios, questions): sessions of varied shape — trivial questions, chats, small
    edits, test-fix loops, failures left unresolved, commits, long sessions — and questions
    about the sessions that did something (answer: the scenario id), plus questions about
    nothing that happened (answer None)."""
    rng = random.Random(seed)
    scenarios, questions = [], []
    for i in range(n):
        project = PROJECTS[i % len(PROJECTS)]
        shape = rng.choices(["trivial", "chat", "small", "fix", "unresolved", "commit", "long"],
                            [18, 8, 18, 22, 12, 12, 10])[0]
        path, feature, test, error = rng.choice(COMPONENTS[project])
        sid = f"tune-{i:03d}"
        sc = {"id": sid, "project": project, "days_ago": rng.randint(0, 60), "prompts": [],
              "edits": [], "commands": [], "errors": [], "assistant_summary": "Done."}
        if shape == "trivial":
            sc["prompts"] = [rng.choice(CHAT)]
        elif shape == "chat":
            sc["prompts"] = rng.sample(CHAT, 3)
        else:
            verb = rng.choice(["Fix", "Improve", "Rework", "Add tests for"])
            sc["prompts"] = [f"{verb} {feature} in {path.rsplit('/', 1)[-1]}"]
            sc["edits"].append({"path": path, "action": "edit"})
            if shape in ("fix", "commit", "long") and test:
                sc["edits"].append({"path": test, "action": rng.choice(["edit", "create"])})
            tcmd = TEST_CMD[project]
            cmd = tcmd.format(test=test or "") if tcmd and test else BUILD_CMD[project]
            if shape in ("fix", "unresolved", "long"):
                sc["errors"].append({"text": error, "resolved": shape != "unresolved"})
            if shape in ("fix", "commit", "long", "small"):
                out = (f"{rng.randint(3, 40)} passed in 0.{rng.randint(1, 9)}s"
                       if tcmd and test and project == "ledger" else "")
                sc["commands"].append({"cmd": cmd, "exit": 0, "output": out})
            if shape in ("commit", "long"):
                msg = f"{verb} {feature}"
                sha = f"{rng.getrandbits(28):07x}"
                sc["commands"].append({"cmd": f'git commit -am "{msg}"', "exit": 0,
                                       "output": f"[main {sha}] {msg}\n 2 files changed"})
            if shape == "long":
                for _ in range(rng.randint(3, 8)):
                    p2 = rng.choice(COMPONENTS[project])[0]
                    sc["edits"].append({"path": p2, "action": "edit"})
                sc["prompts"] += [f"also look at {rng.choice(COMPONENTS[project])[1]}",
                                  "run everything again"]
            if rng.random() < 0.3:
                sc["prompts"].append("thanks, that's all")
        scenarios.append(sc)
        if shape in ("trivial", "chat"):
            continue
        fname = path.rsplit("/", 1)[-1]
        templates = [f"what did we change in {fname}?",
                     f"when did we work on {feature}?",
                     f"{fname}에서 뭘 바꿨었지?"]
        if sc["errors"]:
            templates += [f"why did the build fail with {error.split(':')[0]}?",
                          f"did we ever fix the {error.split(':')[0]} error?"]
        questions.append({"query": rng.choice(templates), "lang": "en", "project": project,
                          "answer": sid})
    for q in ("what did we decide about the logo colours?", "why did the iOS build fail?",
              "what did we change in the billing cron job?", "로그인 페이지는 언제 고쳤지?",
              "did we ever upgrade the Redis cluster?", "what happened with the Kafka consumer lag?"):
        questions.append({"query": q, "lang": "ko" if not q.isascii() else "en",
                          "project": rng.choice(PROJECTS), "answer": None})
    for q in questions:
        if not q["query"].isascii():
            q["lang"] = "ko"
    return scenarios, questions
