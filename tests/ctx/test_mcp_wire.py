"""`ctx mcp` answers the handshake from what the SDK answered last time (ctx/mcp/wire.py):
the same answers, before the SDK has loaded; anything else still goes to the SDK."""
from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ctx.mcp import wire

INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "test", "version": "1"}}}
AFTER = [{"jsonrpc": "2.0", "method": "notifications/initialized"},
         {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
         {"jsonrpc": "2.0", "id": "p", "method": "prompts/list", "params": {}},
         {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
          "params": {"name": "status", "arguments": {}}}]


def session(ctx_bin, messages, *, init=INIT) -> tuple[list[dict], float]:
    """Every answer the server gave (in order), and how long `initialize` took."""
    proc = subprocess.Popen([ctx_bin, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    t0 = time.perf_counter()
    proc.stdin.write((json.dumps(init) + "\n").encode())
    proc.stdin.flush()
    answers = [json.loads(proc.stdout.readline())]
    took = time.perf_counter() - t0
    for m in messages:
        proc.stdin.write((json.dumps(m) + "\n").encode())
        proc.stdin.flush()
    expected = sum(1 for m in messages if "id" in m)
    answers += [json.loads(proc.stdout.readline()) for _ in range(expected)]
    proc.stdin.close()
    assert proc.stdout.read() == b""  # nothing after the answers: no duplicates, no noise
    assert proc.wait(timeout=30) == 0
    return answers, took


def by_id(answers):
    return {json.dumps(a["id"]): a for a in answers}


def test_the_second_server_answers_the_handshake_as_the_sdk_did(ctx_bin):
    cold, _ = session(ctx_bin, AFTER)
    path = wire.handshake_file()
    assert os.path.isfile(path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    saved = json.loads(Path(path).read_text())["answers"]
    era = wire.era_of(INIT)
    assert {f"initialize@{era}", f"tools/list@{era}", f"prompts/list@{era}"} <= set(saved)
    warm, _ = session(ctx_bin, AFTER)
    cold, warm = by_id(cold), by_id(warm)
    assert set(cold) == set(warm) == {"0", "1", '"p"', "2"}
    for rid in ("0", "1", '"p"'):
        assert warm[rid] == cold[rid]  # the very answers the SDK gave
    assert not warm["2"]["result"].get("isError") and warm["2"]["result"]["content"]  # a real call
    assert "ctx" in json.dumps(warm["0"]["result"]["serverInfo"])


def test_what_the_file_does_not_know_goes_to_the_sdk(ctx_bin):
    session(ctx_bin, AFTER)
    other = {**INIT, "params": {**INIT["params"], "protocolVersion": "2025-06-18"}}
    answers, _ = session(ctx_bin, [AFTER[0], {"jsonrpc": "2.0", "id": 7, "method": "tools/list",
                                              "params": {"cursor": "x"}}], init=other)
    assert answers[0]["id"] == 0 and "result" in answers[0]
    assert answers[1]["id"] == 7  # answered (or refused) by the SDK, once


def test_a_changed_or_damaged_file_is_ignored(ctx_bin):
    session(ctx_bin, AFTER)
    path = wire.handshake_file()
    data = json.loads(Path(path).read_text())
    data["answers"][f"tools/list@{wire.era_of(INIT)}"] = {"tools": []}
    data["fingerprint"][0] = -1  # written by another ctx/SDK
    Path(path).write_text(json.dumps(data))
    answers, _ = session(ctx_bin, AFTER)
    assert len(by_id(answers)["1"]["result"]["tools"]) == 8
    Path(path).write_text("{not json")
    answers, _ = session(ctx_bin, AFTER)
    assert len(by_id(answers)["1"]["result"]["tools"]) == 8


def test_the_wire_drops_only_the_sdk_answers_it_already_gave():
    era = wire.era_of(INIT)
    w = wire.Wire({f"tools/list@{era}": {"tools": ["x"]}}, [1])
    written = []
    w.write = written.append
    w.from_client((json.dumps(INIT) + "\n").encode())  # (not kept: asks the SDK)
    w.from_client(b'{"jsonrpc":"2.0","id":5,"method":"tools/list"}\n')
    w.from_client(b'{"jsonrpc":"2.0","id":6,"method":"prompts/list"}\n')
    w.from_client(b'not json\n')
    assert [json.loads(x)["id"] for x in written] == [5]
    assert w.from_server(b'{"jsonrpc":"2.0","id":5,"result":{"tools":["y"]}}\n') is False
    w.save = lambda: None
    assert w.from_server(b'{"jsonrpc":"2.0","id":6,"result":{"prompts":[]}}\n') is True
    assert w.learned == {f"prompts/list@{era}": {"prompts": []}}
    assert w.from_server(b'{"jsonrpc":"2.0","method":"notifications/message"}\n') is True
    assert w.from_server(b'{"jsonrpc":"2.0","id":5,"result":{}}\n') is True  # only once


MODERN_META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
               "io.modelcontextprotocol/clientInfo": {"name": "claude-code", "version": "2.1.330"},
               "io.modelcontextprotocol/clientCapabilities": {"roots": {"listChanged": True}}}


def _modern(rid, method):
    return {"jsonrpc": "2.0", "id": rid, "method": method, "params": {"_meta": MODERN_META}}


def test_answers_are_kept_per_era_as_the_sdk_chooses_it():
    """The SDK serves the era the connection's first request chose. Claude Code 2.1.330 probes
    with `server/discover` and, when the probe times out (the SDK still loading), sends
    `initialize` to the same process, which the SDK then refuses: the file must never answer
    that `initialize` (nor a legacy list), even when it holds one from a legacy client."""
    legacy, modern = wire.era_of(INIT), wire.era_of(_modern(1, "server/discover"))
    assert legacy != modern and modern.startswith("modern:2026-07-28:")
    kept = {f"initialize@{legacy}": {"protocolVersion": "2025-11-25"},
            f"tools/list@{legacy}": {"tools": ["legacy"]},
            f"server/discover@{modern}": {"supportedVersions": ["2026-07-28"]},
            f"tools/list@{modern}": {"tools": ["modern"], "resultType": "complete"}}

    def answered(messages):
        w = wire.Wire(kept, [1])
        out = []
        w.write = lambda line: out.append(json.loads(line))
        for m in messages:
            w.from_client((json.dumps(m) + "\n").encode())
        return [(a["id"], a["result"]) for a in out]

    # a modern connection: the probe, Claude Code's late `initialize`, then modern requests
    assert answered([_modern("probe", "server/discover"), INIT, _modern(2, "tools/list"),
                     {"jsonrpc": "2.0", "id": 3, "method": "tools/list"}]) == [
        ("probe", kept[f"server/discover@{modern}"]), (2, kept[f"tools/list@{modern}"])]
    # a legacy connection: `initialize` first, then legacy lists; no modern answer
    assert answered([INIT, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                     _modern(2, "tools/list")]) == [
        (0, kept[f"initialize@{legacy}"]), (1, kept[f"tools/list@{legacy}"])]
    # another protocol version or other client capabilities: the SDK answers
    other = {**MODERN_META, "io.modelcontextprotocol/protocolVersion": "2027-01-01"}
    assert answered([{**_modern(1, "server/discover"), "params": {"_meta": other}}]) == []
    caps = {**MODERN_META, "io.modelcontextprotocol/clientCapabilities": {}}
    assert answered([{**_modern(1, "server/discover"), "params": {"_meta": caps}}]) == []


def test_claude_code_s_discover_is_answered_from_the_file_on_the_second_run(ctx_bin):
    """The modern handshake as Claude Code 2.1.330 sends it: learned from the SDK on the first
    run, answered at once (the same bytes' meaning) on the next."""
    msgs = [_modern(1, "tools/list"), _modern(2, "prompts/list")]
    cold, _ = session(ctx_bin, msgs, init=_modern("probe", "server/discover"))
    warm, _ = session(ctx_bin, msgs, init=_modern("probe", "server/discover"))
    assert by_id(cold) == by_id(warm) and len(by_id(warm)) == 3
    assert "supportedVersions" in by_id(warm)['"probe"']["result"]
    assert len(by_id(warm)["1"]["result"]["tools"]) == 8
    # …from the file (a mark put there comes back), and the SDK's own answer is dropped
    path = Path(wire.handshake_file())
    data = json.loads(path.read_text())
    [key] = [k for k in data["answers"] if k.startswith("server/discover@modern:2026-07-28:")]
    data["answers"][key]["instructions"] = "from the file"
    path.write_text(json.dumps(data))
    marked, _ = session(ctx_bin, msgs, init=_modern("probe", "server/discover"))
    assert by_id(marked)['"probe"']["result"]["instructions"] == "from the file"
    assert len(marked) == 3


def test_the_kept_answers_are_stamped_with_every_module_that_made_them(ctx_bin, monkeypatch):
    """tools/list's enums come from ctx.core.model: a pull that changes it (or any loaded
    module, ours or the SDK's) is a miss; so is any setting (ctx.core.settings.snapshot)."""
    session(ctx_bin, AFTER)
    path = wire.handshake_file()
    data = json.loads(Path(path).read_text())
    stamped = {p for p, _mtime, _size in data["code"]}
    model = str(Path(wire.__file__).parents[1] / "core" / "model.py")
    assert model in stamped and any("/mcp/" in p and "site-packages" in p for p in stamped)
    assert wire.load(wire.fingerprint()) != {}  # as written: used
    for entry in data["code"]:
        if entry[0] == model:
            entry[1] += 1  # model.py as it was before a pull
    data["answers"][f"tools/list@{wire.era_of(INIT)}"] = {"tools": []}
    Path(path).write_text(json.dumps(data))
    assert wire.load(wire.fingerprint()) == {}
    answers, _ = session(ctx_bin, AFTER)
    assert len(by_id(answers)["1"]["result"]["tools"]) == 8
    assert wire.load(wire.fingerprint()) != {}  # kept again, by the SDK's answers
    monkeypatch.setenv("CTX_DEFAULT_BUDGET", "60")
    assert wire.load(wire.fingerprint()) == {}


def test_no_input_line_wedges_the_server_and_closing_stdin_ends_it(ctx_bin):
    """5,000 `[`, a line over MAX_LINE, bytes that are not UTF-8, half a JSON object: each
    gets a JSON-RPC parse error and a line on stderr; the requests after them are answered;
    stdin closing ends the server within a second or so."""
    session(ctx_bin, AFTER)  # (the handshake file written: this run answers from it too)
    proc = subprocess.Popen([ctx_bin, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    bad = [b"[" * 5000, b"x" * (wire.MAX_LINE + 10), b"\xff\xfe\x00binary\x80", b'{"jsonrpc": "2.0", "id": 9,']
    proc.stdin.write((json.dumps(INIT) + "\n").encode())
    for line in bad:
        proc.stdin.write(line + b"\n")
    for m in AFTER:
        proc.stdin.write((json.dumps(m) + "\n").encode())
    proc.stdin.flush()
    answers = [json.loads(proc.stdout.readline()) for _ in range(1 + len(bad) + 3)]
    errors = [a for a in answers if "error" in a and a["id"] is None]
    assert len(errors) == len(bad) and all(e["error"]["code"] == -32700 for e in errors)
    got = by_id([a for a in answers if a.get("id") is not None])
    assert set(got) == {"0", "1", '"p"', "2"}
    assert len(got["1"]["result"]["tools"]) == 8 and not got["2"]["result"].get("isError")
    t0 = time.monotonic()
    proc.stdin.close()
    assert proc.wait(timeout=10) == 0
    # EXIT_GRACE_S (0.5 s) by design; the bound leaves room for a machine at load 10 (3.2 s
    # seen) and still catches the wedge this guards against (no exit within 10 s)
    assert time.monotonic() - t0 < 5
    stderr = proc.stderr.read().decode()
    assert stderr.count("ctx mcp: dropped") == len(bad) and "Traceback" not in stderr


def _catches_sigint(pid: int) -> bool | None:
    """Whether the process has a handler for SIGINT (Python's KeyboardInterrupt one), from
    the kernel's own record; None once it is gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    caught = next(line for line in status.splitlines() if line.startswith("SigCgt:"))
    return bool(int(caught.split()[1], 16) & (1 << (2 - 1)))  # SIGINT is 2


@pytest.mark.parametrize("after", [0.0, 0.3])
def test_sigint_while_the_sdk_loads_ends_the_server_without_a_traceback(ctx_bin, tmp_path, after):
    """Claude Code ends a stdio server with SIGINT, also while it is still starting. From the
    moment ctx's entry point runs (the interpreter's own start-up is Python's), SIGINT ends
    it at once — through ctx's remaining imports (0.0: a KeyboardInterrupt traceback from
    `import signal` was seen there under load) and while the SDK loads (0.3)."""
    import signal

    env = {**os.environ, "CTX_HOME": str(tmp_path / "fresh")}  # no handshake file: SDK path
    proc = subprocess.Popen([ctx_bin, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)
    seen_handler = False
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:  # Python installs its handler, then ctx takes it away
        caught = _catches_sigint(proc.pid)
        assert caught is not None, proc.stderr.read()
        seen_handler |= caught
        if seen_handler and not caught:
            break
        time.sleep(0.001)
    else:
        pytest.fail("ctx mcp never gave SIGINT back to its default")
    time.sleep(after)
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=10) == -signal.SIGINT
    assert b"Traceback" not in proc.stderr.read()


def test_sigint_is_default_before_ctx_mcp_imports_anything(tmp_path):
    """The window the test above cannot time: `ctx mcp` gives SIGINT back to its default
    before importing the wire (json, threading) or `signal` itself (which builds enums, ~20 ms
    under load) — checked at the first import the entry point makes, by an audit hook."""
    probe = (
        "import sys, _signal\n"
        "seen = []\n"
        "def hook(event, args):\n"
        "    if event == 'import' and not seen and args[0] in ('signal', 'json', 'threading', 'ctx.mcp.wire'):\n"
        "        seen.append(args[0])\n"
        "        sys.stderr.write(f'{args[0]} default={_signal.getsignal(_signal.SIGINT) == _signal.SIG_DFL}\\n')\n"
        "sys.argv = ['ctx', 'mcp']\n"
        "from ctx.__main__ import main\n"
        "sys.addaudithook(hook)\n"
        "main()\n"
    )
    env = {**os.environ, "CTX_HOME": str(tmp_path / "fresh")}
    done = subprocess.run([sys.executable, "-c", probe], check=False, stdin=subprocess.DEVNULL,
                          capture_output=True, env=env, timeout=60)
    first = done.stderr.decode().splitlines()[0]
    assert first.endswith("default=True"), done.stderr.decode()


def _listen(rid="listen:0"):
    return {"jsonrpc": "2.0", "id": rid, "method": "subscriptions/listen",
            "params": {"_meta": MODERN_META, "notifications": {
                "toolsListChanged": True, "promptsListChanged": True,
                "resourcesListChanged": True}}}


def _acks(ctx_bin) -> list[dict]:
    """Claude Code 2.1.330's opening (discover, then listen): every acknowledgement the
    server sends, up to stdin's end."""
    proc = subprocess.Popen([ctx_bin, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    for m in (_modern("probe", "server/discover"), _listen()):
        proc.stdin.write((json.dumps(m) + "\n").encode())
    proc.stdin.flush()
    lines = []
    while not any(x.get("method") == wire.ACKNOWLEDGED for x in lines):
        lines.append(json.loads(proc.stdout.readline()))
    time.sleep(1.5)  # (the SDK has loaded by now on a quiet machine; its own ack would follow)
    proc.stdin.close()
    lines += [json.loads(x) for x in proc.stdout.read().splitlines()]
    assert proc.wait(timeout=30) == 0
    return [x for x in lines if x.get("method") == wire.ACKNOWLEDGED]


def test_the_subscription_is_acknowledged_once_as_the_sdk_did(ctx_bin):
    """Claude Code 2.1.330 counts a server connected once its subscriptions/listen is
    acknowledged: on the second run the acknowledgement comes from the file (the SDK's
    last one, with this request's id), and the SDK's own is dropped — exactly one either way."""
    [cold] = _acks(ctx_bin)
    assert cold["params"]["_meta"][wire.SUBSCRIPTION_META] == "listen:0"
    path = Path(wire.handshake_file())
    data = json.loads(path.read_text())
    [key] = [k for k in data["answers"] if k.startswith(wire.LISTEN + "@")]
    [warm] = _acks(ctx_bin)
    assert warm == cold
    data["answers"][key]["mark"] = "from the file"
    path.write_text(json.dumps(data))
    [marked] = _acks(ctx_bin)
    assert marked["params"]["mark"] == "from the file"  # the file's, not the SDK's


def test_the_wire_acknowledges_only_what_it_kept_and_drops_the_sdk_s_own():
    era = wire.era_of(_modern(1, "server/discover"))
    listen = _listen("L1")
    key = (f"{wire.LISTEN}@{era}@"
           f"{json.dumps(listen['params']['notifications'], sort_keys=True)}")
    w = wire.Wire({key: {"notifications": {"toolsListChanged": True}}}, [1])
    out = []
    w.write = lambda line: out.append(json.loads(line))
    w.save = lambda: None
    w.from_client((json.dumps(_modern("probe", "server/discover")) + "\n").encode())
    w.from_client((json.dumps(listen) + "\n").encode())
    assert out == [{"jsonrpc": "2.0", "method": wire.ACKNOWLEDGED, "params": {
        "notifications": {"toolsListChanged": True}, "_meta": {wire.SUBSCRIPTION_META: "L1"}}}]
    sdk = {"jsonrpc": "2.0", "method": wire.ACKNOWLEDGED,
           "params": {"_meta": {wire.SUBSCRIPTION_META: "L1"}, "notifications": {}}}
    assert w.from_server((json.dumps(sdk) + "\n").encode()) is False  # given already
    assert w.from_server((json.dumps(sdk) + "\n").encode()) is True  # (only once)
    # other notifications asked for: not kept, the SDK acknowledges (and is learned from)
    other = {**listen, "id": "L2", "params": {**listen["params"], "notifications": {}}}
    w.from_client((json.dumps(other) + "\n").encode())
    assert len(out) == 1
    sdk2 = {**sdk, "params": {"_meta": {wire.SUBSCRIPTION_META: "L2"}, "notifications": {}}}
    assert w.from_server((json.dumps(sdk2) + "\n").encode()) is True
    assert list(w.learned.values()) == [{"notifications": {}}]
