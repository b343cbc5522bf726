"""`ctx show|list|query|search` before Typer loads (ctx/cli/fast.py): the forms it takes print the
same bytes, the same `Error:` line and the same exit code as the Typer path; everything else
goes to Typer; and it loads no Typer, click or rich."""
from __future__ import annotations

import collections
import inspect
import io
import json
import os
import subprocess
import sys

import pytest
import typer

import ctx.cli.app as typer_app
from ctx.__main__ import global_options, main
from ctx.cli import fast, nodes, reads, semantic
from ctx.cli.fast import root_options
from ctx.cli.output import NODE_FORMATS, ROW_FORMATS
from ctx.core import db
from ctx.core.projects import current_scope
from ctx.core.store import Store
from cuectx.output import Environment, use_environment

# ------------------------------------------------------------ the table is the Typer commands'


def typer_commands() -> dict:
    app = typer.Typer()
    nodes.register(app)
    semantic.register(app)
    group = typer.main.get_command(app)
    return {name: group.commands[name] for name in fast.OPTIONS}


def is_a(value, class_name: str) -> bool:
    """Typer vendors its click: its classes are told by name."""
    return class_name in {c.__name__ for c in type(value).__mro__}


def declared(command, formats=NODE_FORMATS) -> tuple[dict, tuple | None]:
    """(option → (parameter, kind), the argument) as the Typer command declares them, in the
    table's terms."""
    options, argument = {}, None
    for p in command.params:
        if p.param_type_name == "argument":
            assert argument is None and p.required
            argument = (p.name, fast.MANY if p.nargs == -1 else fast.ONE)
            assert p.nargs in (-1, 1)
            continue
        if "--help" in p.opts:
            continue
        if p.is_flag:
            kind = fast.FLAG
        elif p.multiple:
            kind = fast.TEXTS
        elif is_a(p.type, "IntRange"):
            assert (p.type.min, p.type.max, p.type.min_open) == (1, None, False)
            kind = fast.COUNT
        elif is_a(p.type, "FloatRange"):
            assert (p.type.min, p.type.max, p.type.min_open, p.type.max_open) == (0, 1, False,
                                                                                False)
            kind = fast.SHARE
        elif hasattr(p.type, "choices"):  # click's Choice, Typer's TyperChoice
            assert sorted(p.type.choices) == sorted(["auto", *formats])
            assert p.type.case_sensitive
            kind = fast.FORMAT
        else:
            assert is_a(p.type, "StringParamType") and p.nargs == 1, (p.name, p.type)
            kind = fast.TEXT
        for opt in [*p.opts, *p.secondary_opts]:
            options[opt] = (p.name, kind)
    return options, argument


@pytest.mark.parametrize("name", sorted(fast.OPTIONS))
def test_the_fast_table_is_what_the_typer_command_declares(name):
    """An option added to `ctx list` (nodes.py) must be taught to ctx/cli/fast.py too, or the
    fast path would hand it on to Typer forever (slow) — or worse, read it wrongly."""
    options, argument = declared(typer_commands()[name],
                                 ROW_FORMATS if name in fast.ROWS else NODE_FORMATS)
    assert fast.OPTIONS[name] == options
    assert fast.ARGUMENTS[name] == argument


@pytest.mark.parametrize("name", sorted(fast.OPTIONS))
def test_the_bodies_take_what_the_typer_commands_take(name):
    typer_fn = {"show": nodes.show, "list": nodes.list_, "query": nodes.query,
                "search": semantic.search_cmd}[name]
    body = getattr(reads, fast.BODIES[name])
    want = [(p.name, p.default) for p in inspect.signature(typer_fn).parameters.values()]
    got = [(p.name, p.default) for p in inspect.signature(body).parameters.values()]
    assert got == want


def test_the_table_check_can_fail():
    options, _ = declared(typer_commands()["list"])
    options.pop("--tag")
    assert options != fast.OPTIONS["list"]


# ------------------------------------------------------------ a store to read

CONTENTS = [
    "Staging DB listens on port 6543",
    "배포는 금요일에 하지 않는다 — 한국어 메모",
    "emoji 🧠 and combining é (e\u0301) and a line\u2028separator",
    "rich markup stays literal: [/b] [link] [bold red]x[/bold red] arr[i]",
    'quotes "inside" and \\backslashes\\ and\ttabs\nand a second line',
    "rollback flaky tests on the worker queue",
    "cache latency budget for the prompt hook",
    "x" * 700,
]
TYPES = ("fact", "decision", "pattern", "observation", "task")
TIERS = ("tier:pinned", "tier:reference", "tier:working", "tier:off-context", None)


def make_repo(path, remote: str) -> str:
    (path / ".git").mkdir(parents=True)
    (path / ".git" / "config").write_text(f'[remote "origin"]\n\turl = {remote}\n')
    return str(path)


@pytest.fixture
def store_tree(tmp_path, monkeypatch):
    """Nodes in two projects (api, web) and global memory; some superseded, some linked."""
    api = make_repo(tmp_path / "api", "git@example.com:org/api.git")
    web = make_repo(tmp_path / "web", "https://example.com/org/web")
    conn = db.connect()
    store = Store(conn, secrets="allow")
    where = [current_scope(conn, api).write_project_id(conn),
             current_scope(conn, web).write_project_id(conn), None]
    ids = []
    for i in range(48):
        tier = TIERS[i % len(TIERS)]
        tags = [f"topic:{['auth', 'deploy', 'cache'][i % 3]}", *([tier] if tier else [])]
        node = store.add(f"{CONTENTS[i % len(CONTENTS)]} #{i}", type=TYPES[i % len(TYPES)],
                         tags=tags, metadata={"n": i, "note": "ü"} if i % 4 == 0 else None,
                         project_id=where[i % 3])
        ids.append(node.id)
    for old, new in ((ids[0], ids[3]), (ids[5], ids[8]), (ids[9], ids[12])):
        store.supersede(old, new)
    store.link(ids[3], ids[6], "DEPENDS_ON")
    store.link(ids[1], ids[3], "DERIVED_FROM")
    conn.close()
    monkeypatch.chdir(api)
    return {"ids": ids, "api": api, "web": web, "outside": str(tmp_path)}


def run(argv: list[str], entry) -> tuple[int, bytes, bytes]:
    """`ctx ARGV` in this process through `entry`: (exit code, stdout bytes, stderr bytes)."""
    out_b, err_b = io.BytesIO(), io.BytesIO()
    out = io.TextIOWrapper(out_b, encoding="utf-8", write_through=True)
    err = io.TextIOWrapper(err_b, encoding="utf-8", write_through=True)
    saved = sys.stdout, sys.stderr, sys.argv
    sys.stdout, sys.stderr, sys.argv = out, err, ["ctx", *argv]
    code = 0
    try:
        entry()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        out.flush()
        err.flush()
        sys.stdout, sys.stderr, sys.argv = saved
        os.environ.pop("CTX_DEBUG", None)  # --traceback sets it for the process
    return code, out_b.getvalue(), err_b.getvalue()


def typer_never_runs():
    raise AssertionError("the fast path handed this to Typer")


def both_paths(argv, monkeypatch):
    """(fast, typer) results of `ctx ARGV`; fails if the fast path did not take it."""
    with monkeypatch.context() as m:
        m.setattr(typer_app, "run", typer_never_runs)
        fast_result = run(argv, main)
    return fast_result, run(argv, typer_app.run)


def cases(ids: list[str], other_db: str) -> list[list[str]]:
    one, two, gone = ids[3], ids[6], ids[0]
    forms = [[], ["-f", "json"], ["-f", "ndjson"], ["-f", "ids"], ["-f", "markdown"],
             ["--format=json"], ["-fndjson"], ["-f", "auto"]]
    out = []
    for f in forms:
        out += [["list", *f], ["query", "tag:topic:auth OR 한국어", *f], ["show", one, *f]]
    out += [
        # limits, types, tags, superseded
        ["list", "--limit", "5", "-f", "json"], ["list", "-n5", "-f", "json"],
        ["list", "-n", "3", "-n", "7", "-f", "ids"], ["list", "--limit=2"],
        ["list", "-t", "decision", "--tag", "tier:reference", "-f", "json"],
        ["list", "--tag", "topic:cache", "--tag", "tier:pinned", "-f", "ndjson"],
        ["list", "--type=task", "-f", "markdown"], ["list", "--include-superseded", "-f", "json"],
        ["list", "--include-superseded", "-n", "4", "-f", "ndjson"],
        ["query", "type:decision AND NOT tag:tier:off-context", "-f", "ids"],
        ["query", "rollback flaky", "--limit", "50", "-f", "json"],
        ["query", "cache latency", "-n", "2", "-f", "ids"],
        ["query", '"second line"', "-f", "json"], ["query", "🧠", "-f", "ndjson"],
        ["query", "type:fact", "--include-superseded", "-f", "markdown"],
        ["query", "-f", "json", "--", "tag:topic:deploy"], ["query", "nothing-matches-this"],
        ["query", "project:web", "-f", "ids"], ["query", "scope:global", "-f", "json"],
        # scopes: the folder's project, -P before or after, global, every project
        ["-P", "web", "list", "-f", "json"], ["list", "-P", "web", "-f", "json"],
        ["--project=web", "query", "tag:topic:*", "-f", "ids"], ["-Pglobal", "list"],
        ["list", "--project", "global", "-f", "markdown"],
        ["--all-projects", "list", "-f", "markdown"], ["query", "x*", "--all-projects"],
        ["-P", "api", "list", "--all-projects"],  # refused: both
        ["-P", "nope", "list"],  # unknown project
        # show: prefixes, several, superseded, errors
        ["show", one[:8], two, "-f", "json"], ["show", one, two, "-f", "markdown"],
        ["show", gone, "-f", "json"], ["show", one, "-f", "ids"], ["show", "01ZZZZZZ"],
        ["show", "01"], ["show", one, "--format", "ndjson"],
        # bad input: the error edge
        ["query", "rollback AND ("], ["query", "tag:"], ["query", "created:>tomorrow"],
        ["list", "-t", "nonsense"], ["query", '"unclosed'],
        # root options
        ["--db", other_db, "list", "-f", "json"], [f"--db={other_db}", "query", "x"],
        ["--traceback", "list", "-f", "ids"], ["--db", other_db, "--db", other_db, "show", one],
        # search: modes, options, scopes, errors
        ["search", "how do we cache the prompt hook?", "-f", "json"],
        ["search", "rollback flaky", "--mode", "keyword", "-f", "ids"],
        ["search", "배포 금요일", "-m", "semantic", "--top-n", "3", "-f", "ndjson"],
        ["search", "auth", "--include-score", "0.25", "--all", "-f", "json"],
        ["search", "deploy", "--include-score=.5", "--top-k=4", "-f", "ids"],
        ["search", "cache", "--filter", "type:decision", "-f", "json"],
        ["search", "cache", "--filter", "project:web", "-f", "ids"],
        ["search", "tabs and quotes", "--include-superseded", "--top-n", "9", "-f", "json"],
        ["-P", "web", "search", "deploy", "-f", "json"], ["search", "x", "-Pglobal", "-f", "ids"],
        ["search", "emoji 🧠", "--all-projects", "-f", "ndjson"],
        ["search", "-f", "json", "--", "--looks-like-an-option"],
        ["search", "", "-f", "json"], ["search", "x", "--mode", "bogus", "-f", "json"],
        ["search", "x", "--filter", "tag:", "-f", "json"], ["search", "x", "-P", "nope"],
        ["--db", other_db, "search", "über", "-m", "keyword", "-f", "json"],
    ]
    return out


def test_the_fast_path_prints_what_typer_prints(store_tree, tmp_path, monkeypatch):
    other = tmp_path / "other.db"
    conn = db.connect(other)
    Store(conn).add("in the other database: über", tags=["tier:pinned"])
    conn.close()
    seen = collections.Counter()
    run(["--all-projects", "index"], typer_app.run)  # (a first search would draw its bar)
    for folder in (store_tree["api"], store_tree["outside"]):
        monkeypatch.chdir(folder)
        for argv in cases(store_tree["ids"], str(other)):
            fast_result, typer_result = both_paths(argv, monkeypatch)
            assert fast_result == typer_result, (folder, argv)
            code, out, err = fast_result
            seen[code, bool(out), err.startswith(b"Error: ")] += 1
    # the comparisons saw data and each kind of error, not only empty output
    assert seen[0, True, False] > 100, seen
    assert seen[1, False, True] >= 10 and seen[3, False, True] >= 4, seen
    _, out, _ = run(["list", "-f", "json"], main)
    assert len(json.loads(out)) > 10


def test_errors_the_same_way_without_a_usable_database(tmp_path, monkeypatch):
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"garbage" * 1000)
    for argv in (["--db", str(bad), "list", "-f", "json"],
                 ["--db", str(tmp_path / "missing" / "s.db"), "query", "x", "-f", "ids"]):
        fast_result, typer_result = both_paths(argv, monkeypatch)
        assert fast_result == typer_result, argv
        assert fast_result[0] == 4 and fast_result[1] == b"", fast_result


def test_traceback_raises_the_same_exception(store_tree, monkeypatch):
    from ctx.core.errors import QuerySyntaxError

    argv = ["--traceback", "query", "rollback AND ("]
    with monkeypatch.context() as m:
        m.setattr(typer_app, "run", typer_never_runs)
        with pytest.raises(QuerySyntaxError):
            run(argv, main)
    with pytest.raises(QuerySyntaxError):
        run(argv, typer_app.run)


def test_ctx_db_environment_is_the_default_database(store_tree, tmp_path, monkeypatch):
    other = tmp_path / "env.db"
    conn = db.connect(other)
    Store(conn).add("from $CTX_DB", tags=["tier:pinned"])
    conn.close()
    monkeypatch.setenv("CTX_DB", str(other))
    fast_result, typer_result = both_paths(["list", "-f", "json"], monkeypatch)
    assert fast_result == typer_result and b"from $CTX_DB" in fast_result[1]
    monkeypatch.setenv("CTX_DB", "")  # empty: as if unset (click's rule)
    assert root_options([])["db_path"] is None


# ------------------------------------------------------------ what goes on to Typer

@pytest.mark.parametrize("argv", [
    ["query", "--help"], ["list", "--help"], ["show", "x", "--help"],
    ["list", "-n", "0"], ["list", "-n", "x"], ["list", "--limit=-1"], ["list", "-n", " 5"],
    ["list", "-n", "٣"],  # a digit click would read, but not ASCII: Typer decides
    ["query", "a", "b"], ["query"], ["show"], ["list", "extra"],
    ["list", "-f", "table"], ["show", "x", "-f", "csv"], ["list", "--format", "JSON"],
    ["list", "--bogus"], ["list", "--db", "x.db"], ["list", "--tag"], ["list", "--tag", "-x"],
    ["list", "--include-superseded=1"], ["query", "-retry"], ["list", "-P"],
    ["list", "--all-projects=yes"], ["query", "x", "--limi", "5"],
    ["search", "--help"], ["search"], ["search", "a", "b"], ["search", "x", "--top-k", "0"],
    ["search", "x", "--include-score", "1.5"], ["search", "x", "--include-score", "1e-1"],
    ["search", "x", "--include-score", "-0"], ["search", "x", "--include-score", " .5"],
    ["search", "x", "--include-score=1.", "-f", "markdown"], ["search", "x", "--all=1"],
    ["search", "x", "-f", "table"], ["search", "x", "--mode"],
])
def test_forms_the_fast_path_is_not_sure_of_go_to_typer(argv, monkeypatch):
    ran = []
    monkeypatch.setattr(typer_app, "run", lambda: ran.append(True))
    code, out, err = run(argv, main)
    assert ran == [True] and (code, out, err) == (0, b"", b""), argv


@pytest.mark.parametrize("argv", [["--help", "list"], ["--bogus", "list"], ["--db"],
                                  ["status"], ["add", "x"], ["list-x"]])
def test_other_commands_and_root_forms_go_to_typer(argv, monkeypatch):
    ran = []
    monkeypatch.setattr(typer_app, "run", lambda: ran.append(True))
    assert run(argv, main) == (0, b"", b"") and ran == [True]


def test_a_terminal_gets_typers_table_but_json_stays_fast(store_tree, monkeypatch):
    ran = []
    monkeypatch.setattr(typer_app, "run", lambda: ran.append(True))
    with use_environment(Environment(stdout_isatty=True, width=100)):
        assert run(["list"], main) == (0, b"", b"") and ran == [True]  # auto → table: rich
        code, out, _ = run(["list", "-f", "json"], main)
    assert code == 0 and json.loads(out) and ran == [True]


def test_global_options_are_read_as_click_reads_them(monkeypatch):
    monkeypatch.delenv("CTX_DB")
    assert global_options(["--db", "a.db", "-Papi", "--all-projects", "list", "-n", "2"]) == (
        [("--db", "a.db"), ("-P", "api"), ("--all-projects", None)], 4)
    assert global_options(["-P=api", "--project=web", "list"])[0] == [("-P", "=api"), ("-P", "web")]
    assert root_options([("-P", "a"), ("-P", "b"), ("--traceback", None)]) == {
        "db_path": None, "project": "b", "all_projects": False, "traceback": True}
    for argv in (["--db"], ["--traceback=1", "list"], ["--help", "list"], ["-x", "list"]):
        assert global_options(argv) is None, argv


def test_minus_p_equals_is_the_value_with_its_equals_sign_as_in_typer(store_tree, monkeypatch):
    fast_result, typer_result = both_paths(["-P=api", "list"], monkeypatch)
    assert fast_result == typer_result and fast_result[0] == 3 and b"'=api'" in fast_result[2]


# ------------------------------------------------------------ a real process, nothing heavy

UI = ("typer", "click", "rich", "numpy", "onnxruntime", "presidio_analyzer", "anthropic")
# What the hook path does without too (tests/ctx/test_hooks.py): a read needs none of them.
SLOW_STDLIB = ("dataclasses", "typing", "inspect", "ast", "tokenize", "pathlib", "threading",
               "hashlib")


def test_a_fast_search_loads_no_typer_click_or_rich(ctx_bin, store_tree):
    """(A search loads numpy and a thread for the model: only the CLI's weight is spared.)"""
    run(["--all-projects", "index"], typer_app.run)  # (else its progress bar loads rich)
    for argv in (["search", "cache latency", "-f", "json"],
                 ["search", "cache latency", "-m", "keyword", "-f", "ids"]):
        proc = subprocess.run([sys.executable, "-X", "importtime", ctx_bin, *argv],
                              capture_output=True, timeout=120, check=False)
        assert proc.returncode == 0 and proc.stdout.strip(), (argv, proc.stderr[-1500:])
        imported = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.decode().splitlines()
                    if line.startswith("import time:")}
        assert "ctx.cli.fast" in imported and "ctx.semantic.search" in imported
        assert {name.split(".")[0] for name in imported}.isdisjoint({"typer", "click", "rich"})
        assert "ctx.cli.app" not in imported and "ctx.cli.semantic" not in imported, argv


def test_fast_reads_load_no_typer_click_rich_or_slow_stdlib(ctx_bin, store_tree):
    node = store_tree["ids"][3]
    for argv, code in ((["query", "type:decision AND NOT tag:tier:off-context", "-f", "ids"], 0),
                       (["query", "rollback flaky", "--limit", "50", "--format", "json"], 0),
                       (["list", "-n", "5", "-f", "ndjson"], 0),
                       (["show", node, "-f", "json"], 0),
                       (["query", "rollback AND ("], 1)):
        proc = subprocess.run([sys.executable, "-X", "importtime", ctx_bin, *argv],
                              capture_output=True, timeout=60, check=False)
        assert proc.returncode == code, (argv, proc.stderr[-1500:])
        lines = proc.stderr.decode().splitlines()
        imported = {line.rsplit("|", 1)[-1].strip() for line in lines
                    if line.startswith("import time:")}
        assert "ctx.cli.fast" in imported and "sqlite3" in imported  # the probe works
        tops = {name.split(".")[0] for name in imported}
        assert tops.isdisjoint(UI), (argv, tops & set(UI))
        assert imported.isdisjoint(SLOW_STDLIB), (argv, sorted(imported & set(SLOW_STDLIB)))
        assert "ctx.cli.app" not in imported and "ctx.cli.nodes" not in imported, argv
        if code:
            assert lines[-1].startswith("Error: query syntax error")
        else:
            assert proc.stdout.strip()


TYPER_ONLY = "import sys; sys.argv[0] = 'ctx'; from ctx.cli.app import run; run()"


def test_a_closed_pipe_exits_as_typer_does(ctx_bin, store_tree):
    """`ctx list | head -1`: Typer exits 1 without a word; the fast path too."""
    conn = db.connect()
    Store(conn).add_many({"content": f"line {i} " + "y" * 200} for i in range(3000))
    conn.close()
    argv = ["--all-projects", "list", "-f", "ndjson"]
    results = []
    for command in ([ctx_bin, *argv], [sys.executable, "-c", TYPER_ONLY, *argv]):
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert proc.stdout.readline().startswith(b'{"id": ')
        proc.stdout.close()
        results.append((proc.wait(timeout=60), proc.stderr.read()))
        proc.stderr.close()
    assert results[0] == results[1] == (1, b"")


@pytest.mark.parametrize("buffered", [True, False])
def test_a_reader_gone_before_the_first_byte_ends_as_on_typers_path(ctx_bin, store_tree, buffered):
    """The reader closed before anything was written (`ctx list -f ids | true`): the fast path
    ends the process itself (no interpreter teardown), but not this way: the same exit code and
    stderr as Typer's path, with stdout buffered (the interpreter's exit finds the pipe closed)
    or not (the first write does)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if not buffered:
        env["PYTHONUNBUFFERED"] = "1"
    argv = ["list", "-n", "3", "-f", "ids"]
    results = []
    for command in ([ctx_bin, *argv], [sys.executable, "-c", TYPER_ONLY, *argv]):
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        proc.stdout.close()
        results.append((proc.wait(timeout=60), proc.stderr.read()))
        proc.stderr.close()
    assert results[0] == results[1]
    assert results[0][0] == (120 if buffered else 1), results
