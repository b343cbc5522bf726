"""`ctx mcp` (SPEC §2.9) through the official SDK's own stdio client, against a real `ctx mcp`
subprocess: every tool, every error path, concurrent calls, stdout, start-up."""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp_types.version import LATEST_HANDSHAKE_VERSION

TOOLS = {"remember", "recall", "show", "supersede", "link", "forget", "status", "compose"}


@asynccontextmanager
async def server(ctx_bin, *, cwd=None, env=None, errlog=None, args=("mcp",)):
    params = StdioServerParameters(command=ctx_bin, args=list(args), cwd=str(cwd) if cwd else None,
                                   env={"CTX_DB": os.environ["CTX_DB"], "HOME": os.environ["HOME"],
                                        **(env or {})})
    # the server's stderr: opening a local file does not block the event loop in any way that matters
    with open(errlog or os.devnull, "w") as err:  # noqa: ASYNC230
        async with stdio_client(params, errlog=err) as (r, w), ClientSession(r, w) as session:
            await session.initialize()
            yield session


async def call(session, tool, **args):
    """(is_error, parsed JSON or text) of one call."""
    res = await session.call_tool(tool, args)
    text = res.content[0].text
    if res.is_error:
        return True, text
    try:
        return False, json.loads(text)
    except ValueError:
        return False, text


async def ok(session, tool, **args):
    err, out = await call(session, tool, **args)
    assert not err, f"{tool}({args}) failed: {out}"
    return out


def run(fn):
    return anyio.run(fn)


def ctx_cli(ctx_bin, *args, cwd=None, input=None):
    p = subprocess.run([ctx_bin, *args], capture_output=True, text=True, cwd=cwd, input=input,
                       check=False)
    assert p.returncode == 0, p.stderr
    return p.stdout


# ------------------------------------------------------------------------------ the tools

def test_tools_are_described_for_a_model(ctx_bin, tmp_path):
    async def main():
        async with server(ctx_bin, cwd=tmp_path) as s:
            init_tools = {t.name: t for t in (await s.list_tools()).tools}
            return init_tools

    tools = run(main)
    assert set(tools) == TOOLS
    for t in tools.values():
        assert len(t.description) > 40, t.name
        assert t.input_schema["type"] == "object"
        for name, prop in t.input_schema.get("properties", {}).items():
            assert prop.get("description"), f"{t.name}.{name} has no description"
    remember = tools["remember"].input_schema
    assert remember["required"] == ["content"]
    assert "open-question" in remember["properties"]["type"]["enum"]
    assert tools["recall"].input_schema["properties"]["limit"]["maximum"] == 50
    assert tools["forget"].annotations.destructive_hint is True
    assert tools["recall"].annotations.read_only_hint is True


def test_every_tool_round_trip_and_the_cli_and_hooks_see_it(ctx_bin, tmp_path):
    async def main():
        async with server(ctx_bin, cwd=tmp_path) as s:
            port = await ok(s, "remember", content="Staging Postgres listens on port 6543",
                            tier="reference", tags=["topic:db"])
            again = await ok(s, "remember", content="Staging Postgres listens on port 6543",
                             tier="reference")
            decision = await ok(s, "remember", content="We use SQLite in WAL mode for the store",
                                type="decision", tier="pinned", rationale="one file, no server")
            found = await ok(s, "recall", query="which port does the staging database use?")
            by_query = await ok(s, "recall", query="type:decision")
            shown = await ok(s, "show", ids=[port["node"]["id"][:20]])  # a prefix will do
            linked = await ok(s, "link", from_id=decision["node"]["id"], to_id=port["node"]["id"],
                              type="DEPENDS_ON")
            moved = await ok(s, "supersede", old=port["node"]["id"],
                             content="Staging Postgres moved to port 7000")
            after = await ok(s, "recall", query="staging postgres port", mode="keyword")
            status = await ok(s, "status")
            composed = await s.call_tool("compose", {})
            extra = await ok(s, "remember", content="a scratch note", tier="working")
            gone = await ok(s, "forget", ids=[extra["node"]["id"]])
            return (port, again, decision, found, by_query, shown, linked, moved, after, status,
                    composed, gone)

    (port, again, decision, found, by_query, shown, linked, moved, after, status, composed,
     gone) = run(main)
    pid = port["node"]["id"]
    assert port["status"] == "remembered" and port["node"]["tier"] == "reference"
    assert sorted(port["node"]["tags"]) == ["tier:reference", "topic:db"]
    assert again["status"] == "already remembered" and again["node"]["id"] == pid  # kept once
    assert decision["node"]["metadata"] == {"rationale": "one file, no server"}
    # plain words → hybrid search with MiniLM: the paraphrase finds the port, with a score
    assert found["mode"] == "hybrid" and found["results"][0]["id"] == pid
    assert 0.3 < found["results"][0]["score"] <= 1 and found["results"][0]["type"] == "fact"
    assert [r["id"] for r in by_query["results"]] == [decision["node"]["id"]]
    assert by_query["mode"] == "query" and by_query["results"][0]["score"] is None
    assert shown["nodes"][0]["content"] == "Staging Postgres listens on port 6543"
    assert linked["edge"] == {**linked["edge"], "from": decision["node"]["id"], "to": pid,
                              "type": "DEPENDS_ON"}
    new = moved["new"]
    assert moved["old"]["superseded_by"] == new["id"]
    assert new["tier"] == "reference" and "topic:db" in new["tags"]  # kept from the old node
    assert [r["id"] for r in after["results"]] == [new["id"]]  # the old one no longer recalled
    assert status["live_nodes"] == 2 and status["superseded_nodes"] == 1
    assert status["semantic"]["model"]
    text = composed.content[0].text
    assert text.startswith("<!-- ctx: 2 nodes") and "Staging Postgres moved to port 7000" in text
    assert composed.structured_content is None  # the model reads the markdown itself
    assert gone["forgotten"][0]["content"] == "a scratch note"

    # the CLI reads what the server wrote…
    listed = json.loads(ctx_cli(ctx_bin, "query", "type:fact", "--format", "json", cwd=tmp_path))
    assert [n["content"] for n in listed] == ["Staging Postgres moved to port 7000"]
    # …and so does the SessionStart hook
    hook = subprocess.run([ctx_bin, "hook", "session-start"], cwd=tmp_path, capture_output=True,
                          text=True, check=False,
                          input=json.dumps({"session_id": "s1", "hook_event_name": "SessionStart",
                                            "cwd": str(tmp_path), "source": "startup"}))
    context = json.loads(hook.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "Staging Postgres moved to port 7000" in context and "SQLite in WAL mode" in context


BAD_CALLS = [
    # (tool, arguments, what the error must say)
    ("remember", {"content": "   "}, "content is empty"),
    ("remember", {"content": "x", "type": "facts"}, "`type`: Input should be 'fact'"),
    ("remember", {"content": "x", "tier": "important"}, "`tier`"),
    ("remember", {"content": "x", "tags": ["two words"]}, "malformed tag 'two words'"),
    ("remember", {"content": "x", "tags": ["tier:pinned"], "tier": "reference"}, "one tier"),
    ("remember", {"content": "x", "tag": ["a"]}, "unknown argument 'tag'; remember takes: content"),
    ("remember", {}, "`content`: Field required"),
    ("remember", {"content": "x", "supersedes": "ZZZZZZZZ"}, "no node with id 'ZZZZZZZZ'"),
    ("remember", {"content": "x\x00y"}, "NUL"),
    ("recall", {"query": "type:fact AND ("}, "query syntax error at column"),
    ("recall", {"query": "type:nonsense"}, "nonsense"),
    ("recall", {"query": "  "}, "the query is empty"),
    ("recall", {"query": "x", "limit": 0}, "`limit`"),
    ("recall", {"query": "x", "limit": "lots"}, "`limit`"),
    ("recall", {"query": "x", "mode": "fuzzy"}, "`mode`"),
    ("recall", {"query": "deploy", "filter": "type:("}, "query syntax error"),
    ("recall", {"query": "type:fact", "filter": "tag:x"}, "`filter` goes with plain-words"),
    ("show", {"ids": ["ZZZZZZZZ"]}, "no node with id 'ZZZZZZZZ'"),
    ("show", {"ids": ["01"]}, "too short"),
    ("show", {"ids": []}, "`ids`"),
    ("show", {"ids": "01JD8Z3K"}, "`ids`: Input should be a valid list"),
    ("supersede", {"old": "ZZZZZZZZ", "content": "y"}, "no node with id 'ZZZZZZZZ'"),
    ("supersede", {"old": "{A}"}, "give exactly one of `new`"),
    ("supersede", {"old": "{A}", "new": "{A}"}, "itself"),
    ("link", {"from_id": "{A}", "to_id": "{A}"}, "cannot be linked to itself"),
    ("link", {"from_id": "{A}", "to_id": "{B}", "type": "LOVES"}, "`type`: Input should be"),
    ("link", {"from_id": "{A}", "to_id": "ZZZZZZZZ"}, "no node with id"),
    ("forget", {"ids": ["{A}", "ZZZZZZZZ"]}, "no node with id 'ZZZZZZZZ'"),
    ("compose", {"view": "nope"}, "nope"),
    ("compose", {"budget": -5}, "`budget`"),
    ("compose", {"budget": 10**6}, "`budget`: Input should be less than or equal to 20000"),
    ("compose", {"query": "AND AND"}, "query syntax error"),
    ("status", {"verbose": True}, "unknown argument 'verbose'"),
    ("teleport", {}, "unknown tool 'teleport'; ctx has: remember"),
]


def test_every_bad_call_is_a_tool_error_that_says_what_to_fix(ctx_bin, tmp_path):
    log = tmp_path / "stderr.txt"

    async def main():
        async with server(ctx_bin, cwd=tmp_path, errlog=log) as s:
            a = (await ok(s, "remember", content="node A", tier="reference"))["node"]["id"]
            b = (await ok(s, "remember", content="node B", tier="reference"))["node"]["id"]
            out = []
            for tool, args, _ in BAD_CALLS:
                args = {k: [x.format(A=a, B=b) for x in v] if isinstance(v, list)
                        else v.format(A=a, B=b) if isinstance(v, str) else v
                        for k, v in args.items()}
                out.append(await call(s, tool, **args))
            survivors = await ok(s, "status")  # still serving
            return out, survivors

    results, status = run(main)
    for (tool, args, expected), (is_error, text) in zip(BAD_CALLS, results, strict=True):
        assert is_error, f"{tool}({args}) should fail, got {text}"
        assert expected in text, f"{tool}({args}): {text!r} does not say {expected!r}"
        assert "Traceback" not in text and "errors.pydantic.dev" not in text
    assert status["live_nodes"] == 2  # nothing half-written: forget of [A, unknown] deleted nothing
    assert "Traceback" not in log.read_text()


def test_the_secret_guard_covers_remember(ctx_bin, tmp_path):
    secret = "postgres://admin:S3cr3tPassw0rd@db.internal:5432/app"

    async def main(policy):
        async with server(ctx_bin, cwd=tmp_path, env={"CTX_SECRETS": policy}) as s:
            return await call(s, "remember", content=f"The app database is {secret}")

    err, redacted = run(lambda: main("redact"))
    assert not err and "S3cr3tPassw0rd" not in json.dumps(redacted)
    assert redacted["secrets_redacted"] == ["database-password"]
    assert "[SECRET:" in redacted["node"]["content"] and "do not store secrets" in redacted["message"]
    err, refused = run(lambda: main("refuse"))
    assert err and "refused to store" in refused and "S3cr3tPassw0rd" not in refused


def test_without_meaning_search_recall_falls_back_to_words_and_says_so(ctx_bin, tmp_path):
    async def main():
        async with server(ctx_bin, cwd=tmp_path, env={"CTX_SEMANTIC": "0"}) as s:
            await ok(s, "remember", content="Backups run nightly at 02:00", tier="reference")
            return (await ok(s, "recall", query="when do backups run"),
                    await call(s, "recall", query="when do backups run", mode="semantic"))

    words, semantic = run(main)
    assert words["mode"] == "keyword" and "switched off" in words["note"]
    assert words["results"][0]["content"] == "Backups run nightly at 02:00"
    assert semantic[0] and "switched off" in semantic[1] and 'mode "keyword"' in semantic[1]


def test_a_database_that_cannot_open_is_a_tool_error_not_a_crash(ctx_bin, tmp_path):
    broken = tmp_path / "broken.db"
    broken.write_bytes(b"this is not a database" * 100)

    async def main():
        async with server(ctx_bin, cwd=tmp_path, env={"CTX_DB": str(broken)}) as s:
            first = await call(s, "status")
            second = await call(s, "remember", content="still here?")
            return first, second, (await s.list_tools()).tools

    first, second, tools = run(main)
    assert first[0] and "not a usable ctx database" in first[1]
    assert second[0] and "not a usable ctx database" in second[1]
    assert len(tools) == 8  # the server lives on


def test_concurrent_calls_and_concurrent_cli_writers(ctx_bin, tmp_path):
    n = 12

    async def main():
        async with server(ctx_bin, cwd=tmp_path) as s:
            results: list = []

            async def remember(i):
                results.append(await call(s, "remember", content=f"parallel fact number {i}",
                                          tier="reference"))

            async def recall(i):
                results.append(await call(s, "recall", query=f"parallel fact {i}", mode="keyword"))

            async def cli_writer():  # a hook or the CLI writing at the same time (WAL)
                for i in range(4):
                    await anyio.to_thread.run_sync(
                        lambda i=i: ctx_cli(ctx_bin, "add", "--tag", "tier:reference",
                                            f"cli fact {i}", cwd=tmp_path))

            async with anyio.create_task_group() as tg:
                for i in range(n):
                    tg.start_soon(remember, i)
                    tg.start_soon(recall, i)
                tg.start_soon(cli_writer)
            return results, await ok(s, "status")

    results, status = run(main)
    assert len(results) == 2 * n
    assert all(not err for err, _ in results), [out for err, out in results if err]
    assert status["live_nodes"] == n + 4


# ------------------------------------------------------------------------------ scope

def _git_repo(path: Path) -> Path:
    path.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return path


def test_memory_is_scoped_to_the_servers_project_like_the_hooks(ctx_bin, tmp_path):
    api, web = _git_repo(tmp_path / "api"), _git_repo(tmp_path / "web")

    async def in_api():
        async with server(ctx_bin, cwd=api) as s:
            here = await ok(s, "remember", content="api deploys with blue-green", tier="reference")
            everywhere = await ok(s, "remember", content="the user prefers short answers",
                                  tier="pinned", where="global")
            return here, everywhere

    async def in_web():
        async with server(ctx_bin, cwd=web) as s:
            return (await ok(s, "recall", query="deploys answers", mode="keyword"),
                    await ok(s, "recall", query="deploys answers", mode="keyword", all_projects=True),
                    await ok(s, "recall", query="project:api"),
                    await ok(s, "status"))

    here, everywhere = run(in_api)
    assert here["node"]["project"] == "api" and everywhere["node"]["project"] is None
    scoped, every, named, status = run(in_web)
    assert [r["content"] for r in scoped["results"]] == ["the user prefers short answers"]
    assert len(every["results"]) == 2
    assert [r["content"] for r in named["results"]] == ["api deploys with blue-green"]
    assert status["project"] == "web" and status["live_nodes"] == 1

    async def pinned():  # `ctx --project NAME mcp`, e.g. for Claude Desktop (no repository)
        async with server(ctx_bin, cwd=tmp_path, args=("--project", "api", "mcp")) as s:
            return await ok(s, "remember", content="api uses gRPC internally", tier="reference")

    assert run(pinned)["node"]["project"] == "api"
    # the hooks agree: a session in api sees the api memory
    hook = subprocess.run([ctx_bin, "hook", "session-start"], cwd=api, capture_output=True,
                          text=True, check=False,
                          input=json.dumps({"session_id": "s", "hook_event_name": "SessionStart",
                                            "cwd": str(api), "source": "startup"}))
    assert "api deploys with blue-green" in hook.stdout


# ------------------------------------------------------------------------------ the wire

def _rpc(id_, method, params=None):
    msg = {"jsonrpc": "2.0", "method": method}
    if id_ is not None:
        msg["id"] = id_
    if params is not None:
        msg["params"] = params
    return json.dumps(msg) + "\n"


INIT = {"protocolVersion": LATEST_HANDSHAKE_VERSION, "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}


def test_stdout_carries_only_the_protocol_even_when_the_model_loads(ctx_bin, tmp_path):
    """Every byte on stdout is a JSON-RPC message: the SDK answers on a private copy of fd 1 and
    fd 1 itself points at stderr, so even native libraries (onnxruntime loading MiniLM) and a
    stray print cannot corrupt the stream."""
    # The server answers requests concurrently (as MCP allows), so the recall goes out only
    # after the remember it should find has been answered — as a real client would do.
    first = [
        _rpc(1, "initialize", INIT), _rpc(None, "notifications/initialized"),
        _rpc(2, "tools/call", {"name": "remember", "arguments": {"content": "fd hygiene matters",
                                                                  "tier": "reference"}}),
    ]
    then = [
        _rpc(3, "tools/call", {"name": "recall", "arguments": {"query": "why keep stdout clean"}}),
        _rpc(4, "tools/call", {"name": "show", "arguments": {"ids": ["nope"]}}),
        _rpc(5, "tools/call", {"name": "status", "arguments": {}}),
        "this line is not JSON\n",
        _rpc(6, "tools/list"),
    ]
    proc = subprocess.Popen([ctx_bin, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    messages, by_id = [], {}

    def read_until(ids, deadline):
        while not ids <= set(by_id) and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            if line.strip():
                messages.append(json.loads(line))  # every line parses
                by_id[messages[-1].get("id")] = messages[-1]

    try:
        deadline = time.monotonic() + 120
        proc.stdin.write("".join(first))
        proc.stdin.flush()
        read_until({1, 2}, deadline)
        proc.stdin.write("".join(then))
        proc.stdin.flush()
        read_until({1, 2, 3, 4, 5, 6}, deadline)
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
        rest, err = proc.stdout.read(), proc.stderr.read()
    messages += [json.loads(ln) for ln in rest.splitlines() if ln.strip()]
    assert all(m.get("jsonrpc") == "2.0" for m in messages)
    assert {1, 2, 3, 4, 5, 6} <= set(by_id), err[-2000:]
    recall = json.loads(by_id[3]["result"]["content"][0]["text"])
    assert recall["mode"] == "hybrid" and recall["results"][0]["content"] == "fd hygiene matters"
    assert by_id[4]["result"]["isError"] is True
    assert proc.returncode == 0, err[-2000:]


def test_starts_fast_and_loads_no_model_until_a_semantic_recall(ctx_bin, tmp_path):
    code = ("import sys; import ctx.mcp.server as m; m.build_server(sys.argv[1]); "
            "heavy = {'numpy', 'onnxruntime', 'tokenizers', 'ctx.semantic.embed', 'ctx.semantic.search',"
            " 'presidio_analyzer', 'anthropic', 'llama_cpp'}; print(sorted(heavy & set(sys.modules)))")
    p = subprocess.run([sys.executable, "-c", code, str(tmp_path / "s.db")], capture_output=True,
                       text=True, check=False)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "[]"

    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        proc = subprocess.Popen([ctx_bin, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, cwd=tmp_path)
        proc.stdin.write(_rpc(1, "initialize", INIT).encode())
        proc.stdin.flush()
        answer = json.loads(proc.stdout.readline())
        times.append(time.perf_counter() - t0)
        proc.stdin.close()
        proc.wait(timeout=30)
        assert answer["result"]["serverInfo"]["name"] == "ctx"
    # ~0.85 s on a quiet two-core machine, nearly all of it importing the SDK (SPEC §2.9;
    # `make bench` reports it against 1 s). Only a ceiling here: the tests share a busy machine
    # (3.5 s seen at load 6), and a model loaded at start would add seconds on top.
    assert statistics.median(times) < 5.0, times


def test_mcp_stays_off_the_hook_and_core_paths(ctx_bin, tmp_path):
    code = (
        "import sys; sys.argv = ['ctx', '--db', sys.argv[1], 'add', 'x']\n"
        "from ctx.cli.app import app\n"
        "try:\n    app()\nexcept SystemExit:\n    pass\n"
        "from ctx.claude.hooks.entry import main\n"
        "print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith(('mcp.', 'mcp_types',"
        " 'ctx.mcp', 'ctx.cli.mcp'))))\n")
    p = subprocess.run([sys.executable, "-c", code, str(tmp_path / "h.db")], capture_output=True,
                       text=True, check=False)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip().splitlines()[-1] == "[]"


def test_ctx_mcp_is_a_documented_command(ctx_bin):
    p = subprocess.run([ctx_bin, "mcp", "--help"], capture_output=True, text=True, check=False)
    assert p.returncode == 0 and "remember, recall" in p.stdout and "Example:" in p.stdout


@pytest.mark.parametrize("limit", [3])
def test_recall_limit_and_long_content_is_cut(ctx_bin, tmp_path, limit):
    long = "deploy " + "x" * 5000

    async def main():
        async with server(ctx_bin, cwd=tmp_path) as s:
            for i in range(6):
                await ok(s, "remember", content=f"deploy note {i}", tier="reference")
            big = await ok(s, "remember", content=long, tier="reference")
            out = await ok(s, "recall", query="deploy", mode="keyword", limit=limit)
            full = await ok(s, "show", ids=[big["node"]["id"]])
            return out, full

    out, full = run(main)
    assert len(out["results"]) == limit and out["total"] >= 7
    cut = [r for r in out["results"] if r.get("truncated")]
    for r in cut:
        assert len(r["content"]) <= 2001
    assert full["nodes"][0]["content"] == long


def test_unknown_prompts_and_resources_are_invalid_params_without_a_traceback(ctx_bin, tmp_path):
    """Issue 26: `prompts/get` with an unknown name answered error code 0 and logged a traceback."""
    from mcp.shared.exceptions import MCPError
    from mcp_types import INVALID_PARAMS

    log = tmp_path / "stderr.txt"

    async def main():
        async with server(ctx_bin, cwd=tmp_path, errlog=log) as s:
            errors = []
            for ask in (lambda: s.get_prompt("nope", {}), lambda: s.read_resource("ctx://nope")):
                try:
                    await ask()
                except MCPError as exc:
                    errors.append((exc.code, exc.message))
            errors.append((await ok(s, "status"))["live_nodes"])  # still serving
            return errors

    prompt, resource, live = run(main)
    assert prompt[0] == INVALID_PARAMS and "unknown prompt 'nope'" in prompt[1]
    assert resource[0] == INVALID_PARAMS and "unknown resource" in resource[1]
    assert live == 0
    assert "Traceback" not in log.read_text()
