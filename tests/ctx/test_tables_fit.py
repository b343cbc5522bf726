"""Tables fit the terminal (issue 27): the free-text column takes the spare width, fixed
columns keep their headers whole, nothing is wider than the terminal; times read "3 h ago"
in tables and stay absolute in JSON; candidates left out are listed by rank."""
from __future__ import annotations

import json
import os
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ctx.cli.app import app
from cuectx.human import ago, plural
from cuectx.output import GAP, Col, Environment, fit_widths, use_environment

runner = CliRunner()
WIDTHS = (80, 100, 160)
LONG = ("Staging Postgres listens on port 6543 behind the bastion host; connect through the "
        "tunnel described in the runbook, never straight from a laptop")


def ctx(*args, width: int | None = None, input=None):
    env = Environment(stdout_isatty=True, width=width) if width else Environment(stdout_isatty=False)
    with use_environment(env):
        r = runner.invoke(app, list(args), input=input, catch_exceptions=False)
    assert r.exit_code == 0, r.stderr
    return r.stdout


def header_line(out: str, first: str) -> str:
    return next(line for line in out.splitlines() if line.startswith(first + " "))


def assert_fits(out: str, width: int, headers: list[str], first: str = "id"):
    assert out.strip(), "no table"
    assert max(len(line.rstrip()) for line in out.splitlines()) <= width, out
    head = header_line(out, first).split()
    assert head == headers, (head, out)  # every header whole, none cut to "it…"


def free_column_width(out: str, header: str, first: str = "id") -> int:
    line = header_line(out, first)
    start = line.index(header)
    rule = next(ln for ln in out.splitlines() if ln.startswith("─"))
    return len(rule.rstrip()) - start


def test_fit_widths_gives_the_spare_to_the_free_column_and_keeps_headers():
    cols = [Col("id"), Col("when"), Col("session"), Col("tags", squeeze=True), Col("prompt", free=True)]
    natural = [10, 7, 8, 40, 300]
    for width in WIDTHS:
        w = fit_widths(cols, natural, width)
        assert sum(w) + GAP * (len(cols) - 1) <= width
        assert all(wi >= len(c.header) for wi, c in zip(w, cols))
        assert w[:3] == [10, 7, 8]  # fixed columns never shrink
        assert w[4] >= 24          # the free column keeps a readable floor
    assert fit_widths(cols, natural, 160)[4] > fit_widths(cols, natural, 100)[4]
    assert fit_widths(cols, [10, 7, 8, 4, 12], 160)[4] == 12  # short text: no padding out


@pytest.mark.parametrize("width", WIDTHS)
def test_ctx_list_fits_and_content_gets_the_width(width):
    ctx("add", "--tag", "tier:reference", "--tag", "area:database-infrastructure", LONG)
    ctx("add", "--type", "open-question", "--global", "Should rate limits be per token or per user?")
    out = ctx("list", width=width)
    assert_fits(out, width, ["id", "type", "/", "tier", "content", "project"])  # tags under content
    assert "Staging Postgres" in out and "global" in out and "open-question" in out and "reference" in out
    assert free_column_width(out, "content") >= (24 if width == 80 else 40)


def test_ctx_list_content_is_wider_on_a_wider_terminal():
    ctx("add", LONG)
    widths = [free_column_width(ctx("list", width=w), "content") for w in WIDTHS]
    assert widths[0] < widths[1] < widths[2]


def test_project_list_keeps_paths_whole(tmp_path, monkeypatch):
    repo = tmp_path / "a-fairly-long-folder-name" / "checkouts" / "payments-service"
    (repo / ".git").mkdir(parents=True)
    monkeypatch.chdir(repo)
    ctx("add", "a fact in this project")
    out = ctx("project", "list", width=80)
    assert f"  {repo}\n" in out  # the whole path on a line of its own, never cut or folded
    assert "payments-service  1 node, 0 superseded · active just now" in out  # relative …
    rows = [json.loads(line) for line in ctx("project", "list").splitlines()]
    assert re.match(r"\d{4}-\d\d-\d\dT", rows[0]["last_active_at"])  # … absolute in JSON


REQUESTS = [{"id": f"01JD3K8W{i:02d}ABCDEFGHJKMNPQRS", "created_at": (
    datetime.now(UTC) - timedelta(hours=3)).isoformat(), "session_id": "5f2c1a2b-77",
    "path": "semantic", "items": 12, "agent": 3, "injected_now": 4, "injected_chars": 1234,
    "prompt": "how should we throttle clients that hammer the API when the " * 3}
    for i in range(3)]


@pytest.mark.parametrize("width", WIDTHS)
def test_requests_list_fits(width, capsys):
    from ctx.cli.semantic import _requests_table

    with use_environment(Environment(stdout_isatty=True, width=width)):
        _requests_table(REQUESTS)
    out = capsys.readouterr().out
    assert_fits(out, width, ["id", "when", "session", "path", "sent", "items", "prompt"])
    assert "3 h ago" in out and "how should we throttle" in out
    assert free_column_width(out, "prompt") >= 24


def _view():
    item = {"included": False, "injected": None, "type": "fact", "deleted": False,
            "include_mode": "agent", "priority": 4, "tier": None}
    return {
        "id": "01JD3K8W00ABCDEFGHJKMNPQRS", "created_at": datetime.now(UTC).isoformat(),
        "session_id": "5f2c1a2b", "path": "semantic", "fallback_reason": None,
        "prompt": "which port is staging on?", "injected_chars": 190, "elapsed_ms": 12.0,
        "items": [
            {**item, "included": True, "injected": "now", "node_id": "A", "short_id": "01AAAAAA",
             "name": "Staging Postgres listens on port 6543", "score": 0.57, "rank": 1,
             "reason": None},
            {**item, "included": True, "injected": "earlier", "include_mode": "always",
             "node_id": "B", "short_id": "01BBBBBB", "name": "Answer in English", "score": None,
             "rank": None, "reason": None},
            # left out: listed by rank (as request_view sorts them), each with its score
            {**item, "node_id": "C", "short_id": "01CCCCCC", "name": "The nightly backup runs at 02:00",
             "score": 0.31, "rank": 2, "reason": "below threshold"},
            {**item, "node_id": "D", "short_id": "01DDDDDD", "name": "Deploys need a green CI run",
             "score": 0.26, "rank": 3, "reason": "below threshold"},
        ]}


@pytest.mark.parametrize("width", WIDTHS)
def test_request_show_has_a_headline_and_fits(width, capsys):
    from ctx.cli.semantic import _request_display

    with use_environment(Environment(stdout_isatty=True, width=width)):
        _request_display(_view())
    out = capsys.readouterr().out
    assert max(len(line.rstrip()) for line in out.splitlines()) <= width, out
    assert "1 sent now, 1 already in context" in out
    assert "001 •" not in out
    assert out.index("0.31") < out.index("0.26")  # by rank, with the score that ranked them


def test_left_out_candidates_are_ordered_by_rank(tmp_path):
    from ctx.claude import request_view
    from ctx.claude.requests import RequestItem, RequestRecord
    from ctx.core import db
    from ctx.core.store import Store

    conn = db.connect(tmp_path / "s.db")
    store = Store(conn)
    ids = {name: store.add(f"{name} memory").id for name in ("alpha", "beta", "gamma")}
    record = RequestRecord("R1", "S1", "2026-11-25T10:00:00Z", "p", "semantic", items=[
        RequestItem(ids["alpha"], "agent", False, score=0.17, rank=3, reason="below threshold"),
        RequestItem(ids["beta"], "agent", False, score=0.31, rank=1, reason="below threshold"),
        RequestItem(ids["gamma"], "agent", False, score=0.26, rank=2, reason="below threshold"),
    ])
    view = request_view.request_view(conn, record)
    conn.close()
    assert [i["rank"] for i in view["items"]] == [1, 2, 3]


def test_status_does_not_show_transcript_cursors_as_pending(tmp_path):
    from ctx.core import db
    from ctx.core.store import Store

    conn = db.connect(tmp_path / "s.db")
    store = Store(conn)
    store.set_pending("cursor:session-1", "{}")
    store.set_pending("handoff:next", "x")
    assert store.stats()["pending"] == ["handoff:next"]
    conn.close()


def test_plurals_and_relative_times():
    assert [plural(n, "node") for n in (0, 1, 2)] == ["0 nodes", "1 node", "2 nodes"]
    assert plural(1, "keyframe") == "1 keyframe" and plural(3, "hypothesis") == "3 hypotheses"
    now = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
    assert ago("2026-11-25T09:00:00Z", now) == "3 h ago"
    assert ago("2026-11-25T11:59:58.000Z", now) == "just now"
    assert ago("2026-11-25T11:48:00+00:00", now) == "12 min ago"
    assert ago("2026-11-20T12:00:00Z", now) == "5 d ago"
    assert ago(None) == ""


def test_help_groups_commands_by_task_and_never_cuts_descriptions():
    out = runner.invoke(app, ["--help"], env={"COLUMNS": "80"}).stdout
    for heading in ("Start here:", "Remember and find:", "What Claude is given:"):
        assert heading in out
    assert "ctx install --plugin" in out.split("Options:")[0]  # a start-here example
    assert "..." not in out.split("Options:")[1]  # (the usage line's [ARGS]... is click's)
    add = runner.invoke(app, ["add", "--help"], env={"COLUMNS": "80"}).stdout
    examples = [line.strip() for line in add.splitlines() if line.strip().startswith("Example:")]
    assert len(examples) == 2  # each on its own line
    sub = runner.invoke(app, ["requests", "--help"], env={"COLUMNS": "80"}).stdout
    assert "..." not in sub.split("Options:")[1] and "Always/Manual/Agent" in sub.replace("\n", " ").replace("  ", "")


# --------------------------------------------------------------- the 80-column sweep (issue 38)
# Every table and every help page of both programs, at 80, 100 and 160 columns: no line wider
# than the terminal, no word broken or cut to a stub and an ellipsis. A word is "broken" when
# the narrow rendering holds a word the same page rendered 400 wide does not: a fold ("wor",
# "ks"), a cut ("orders…"), a header split in two. A lone "…" (a long text cut between words)
# is allowed; no test word is longer than the columns it sits in.

def words(text: str) -> set[str]:
    return {w for w in text.split() if not set(w) <= set("─━│┃╭╮╰╯…")}


def assert_unbroken(render, width: int) -> str:
    narrow, wide = render(width), render(400)
    assert narrow.strip(), "nothing rendered"
    too_long = [line for line in narrow.splitlines() if len(line.rstrip()) > width]
    assert not too_long, (width, too_long)
    broken = words(narrow) - words(wide)
    assert not broken, (width, sorted(broken), narrow)
    return narrow


@pytest.fixture
def busy_store(tmp_path, monkeypatch):
    """Memory the way a few weeks of work leave it: two projects with long names and remotes,
    long tags, untiered memories, a contradiction, sessions with requests."""
    import tempfile

    from ctx.core import db
    from ctx.core.store import Store

    # a home-sized path (/tmp/ctx-…/orders-service), not pytest's 80-character folder
    repo = Path(tempfile.mkdtemp(prefix="ctx-")) / "orders-service"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "config").write_text(
        '[remote "origin"]\n\turl = git@github.com:acme-corporation/orders-service.git\n')
    monkeypatch.chdir(repo)
    monkeypatch.setenv("CTX_DB", str(repo.parent / "store.db"))  # `ctx status` prints it
    ctx("add", "--tag", "tier:reference", "--tag", "area:database-infrastructure",
        "--tag", "owner:platform-team", LONG)
    ctx("add", "-t", "open-question", "--tag", "tier:working",
        "Should rate limits be per token or per user when one customer runs many workers?")
    ctx("add", "-t", "fact", "--tag", "tier:reference", "We use pytest for the orders tests")
    ctx("add", "-t", "fact", "--dedupe", "keep", "--tag", "tier:reference",
        "We use unittest for the orders tests")
    ctx("add", "-t", "observation", "The nightly backup of the staging database runs at two")
    ctx("add", "--global", "-t", "pattern", "--tag", "tier:pinned",
        "Run every schema migration inside one transaction with its version record")
    monkeypatch.setenv("CTX_SEMANTIC", "0")  # keyword selection: no model to load
    conn = db.connect(os.environ["CTX_DB"])
    from ctx.claude.requests import build_request
    from ctx.claude.sessions import start_session
    from ctx.core.store import current_scope

    scope = current_scope(conn, str(repo))
    node = Store(conn).list_nodes()[0].id
    for sid in ("5f2c1a2b-77d1-4c1e-9a0b-2f3e4d5c6b7a", "9a8b7c6d-1111-4c1e-9a0b-2f3e4d5c6b7a"):
        start_session(conn, sid, "startup", [node])
        build_request(conn, sid, "how should we throttle clients that hammer the API when the "
                      "nightly backup of the staging database runs?", max_chars=9500, scope=scope)
    conn.commit()
    conn.close()
    yield repo
    import shutil

    shutil.rmtree(repo.parent, ignore_errors=True)


TABLES = [("list",), ("query", "type:fact OR type:pattern"), ("status",),
          ("search", "staging database", "--mode", "keyword"), ("project", "list"),
          ("project", "show"), ("session", "list"), ("session", "show"), ("requests", "list"),
          ("requests", "show", "--last"), ("doctor",), ("view", "list"), ("show",)]


@pytest.mark.parametrize("width", WIDTHS)
def test_every_ctx_table_keeps_words_whole(busy_store, width):
    first = ctx("list", "-f", "ids").split()[0]
    for args in TABLES:
        args = (*args, first) if args == ("show",) else args

        def render(w, args=args):
            env = Environment(stdout_isatty=True, width=w)
            with use_environment(env):
                r = runner.invoke(app, list(args), catch_exceptions=False)
            assert r.exit_code in (0, 1), (args, r.stderr)  # doctor: 1 = found something
            return r.stdout

        out = assert_unbroken(render, width)
        if args == ("status",):
            assert "no tier 1" in out  # the observation has none
        if args == ("session", "list"):
            assert "orders-service" in out and "how should we throttle" in out
            assert "5f2c1a2b" in out  # an id prefix --session takes


def _help_pages():
    import sys

    sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1]))
    from test_readme import all_commands

    pages = {("ctx",), ("cue",)}
    for path, _ in all_commands():
        parts = tuple(path.split())
        pages.update(parts[:i] for i in range(2, len(parts) + 1))
    return sorted(pages)


@pytest.mark.parametrize("width", WIDTHS)
def test_every_help_page_of_both_programs_keeps_words_whole(width):
    from cue.cli.app import app as cue_app

    for page in _help_pages():
        program = app if page[0] == "ctx" else cue_app

        def render(w, page=page, program=program):
            r = runner.invoke(program, [*page[1:], "--help"], env={"COLUMNS": str(w)})
            assert r.exit_code == 0, (page, r.output)
            return r.stdout

        assert_unbroken(render, width)
