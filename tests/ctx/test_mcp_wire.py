"""`ctx mcp` answers the handshake from what the SDK answered last time (ctx/mcp/wire.py):
the same answers, before the SDK has loaded; anything else still goes to the SDK."""
from __future__ import annotations

import json
import os
import stat
import subprocess
import time
from pathlib import Path

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
    assert {"initialize:2025-11-25", "tools/list", "prompts/list"} <= set(saved)
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
    data["answers"]["tools/list"] = {"tools": []}
    data["fingerprint"][0] = -1  # written by another ctx/SDK
    Path(path).write_text(json.dumps(data))
    answers, _ = session(ctx_bin, AFTER)
    assert len(by_id(answers)["1"]["result"]["tools"]) == 8
    Path(path).write_text("{not json")
    answers, _ = session(ctx_bin, AFTER)
    assert len(by_id(answers)["1"]["result"]["tools"]) == 8


def test_the_wire_drops_only_the_sdk_answers_it_already_gave():
    w = wire.Wire({"tools/list": {"tools": ["x"]}}, [1])
    written = []
    w.write = written.append
    w.from_client(b'{"jsonrpc":"2.0","id":5,"method":"tools/list"}\n')
    w.from_client(b'{"jsonrpc":"2.0","id":6,"method":"prompts/list"}\n')
    w.from_client(b'not json\n')
    assert [json.loads(x)["id"] for x in written] == [5]
    assert w.from_server(b'{"jsonrpc":"2.0","id":5,"result":{"tools":["y"]}}\n') is False
    w.save = lambda: None
    assert w.from_server(b'{"jsonrpc":"2.0","id":6,"result":{"prompts":[]}}\n') is True
    assert w.learned == {"prompts/list": {"prompts": []}}
    assert w.from_server(b'{"jsonrpc":"2.0","method":"notifications/message"}\n') is True
    assert w.from_server(b'{"jsonrpc":"2.0","id":5,"result":{}}\n') is True  # only once


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
    data["answers"]["tools/list"] = {"tools": []}
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
    assert time.monotonic() - t0 < 3
    stderr = proc.stderr.read().decode()
    assert stderr.count("ctx mcp: dropped") == len(bad) and "Traceback" not in stderr


def test_sigint_while_the_sdk_loads_ends_the_server_without_a_traceback(ctx_bin, tmp_path):
    import signal

    env = {**os.environ, "CTX_HOME": str(tmp_path / "fresh")}  # no handshake file: SDK path
    proc = subprocess.Popen([ctx_bin, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=10)
    assert b"Traceback" not in proc.stderr.read()
