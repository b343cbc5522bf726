"""Drives ../shared/tools/claude-code (the real Claude Code CLI against a mock model) and reads
back what it recorded. Imported by the e2e tests; the `claude_bin` fixture is in conftest.py."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOOLS = ROOT.parent / "shared" / "tools" / "claude-code"
INSTALL_DIR = ROOT / ".claude-code"



def harness(claude_bin, ctx_bin, out: Path, prompt: str, *, reply=None, reply_text=None,
            turns=(), extra=()):
    argv = [sys.executable, str(TOOLS / "harness.py"), "--claude", claude_bin,
            "--hooks-cmd", f"{ctx_bin} hook", "--out", str(out), "--turn-timeout", "120",
            "--env", f"CTX_DB={os.environ['CTX_DB']}"]
    if reply is not None:
        script = out.parent / f"{out.name}-reply.json"
        script.write_text(json.dumps(reply))
        argv += ["--reply", str(script)]
    else:
        argv += ["--reply-text", reply_text]
    for t in turns:
        argv += ["-t", t]
    argv += [*extra, prompt]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    return Run(out)


class Run:
    def __init__(self, out: Path):
        self.out = out
        self.summary = (out / "summary.txt").read_text()
        self.requests = [json.loads(line) for line in (out / "requests.jsonl").read_text().splitlines()]
        self.main = [r for r in self.requests if r.get("kind") == "main"]
        self.hooks = [json.loads(p.read_text()) for p in sorted((out / "hooks").glob("*.json"))
                      if not p.name.endswith(".started.json")]

    def calls(self, event):
        return [h for h in self.hooks if (h.get("stdin_json") or {}).get("hook_event_name") == event]

    def contexts(self, event):
        out = []
        for h in self.calls(event):
            j = h.get("stdout_json") or {}
            out.append((j.get("hookSpecificOutput") or {}).get("additionalContext"))
        return out

    def request_text(self, n):
        return json.dumps(self.main[n]["body"], ensure_ascii=False)

    def assert_hooks_healthy(self):
        assert self.hooks, "no hook ran"
        for h in self.hooks:
            assert h["exit_code"] == 0, h
            assert h["stderr"] == "", h["stderr"]
            assert h["stdout_json"] is not None, h["stdout"]
        for h in self.calls("Stop"):
            assert h["stdout_json"] == {}, "Stop must end the turn"
