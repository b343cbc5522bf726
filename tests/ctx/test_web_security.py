"""`ctx ui` answers only its own loopback name, only with the run's token, changes state only
by POST with the token in the form, escapes everything, serves no file it was not built
with, and shows no keyframe from outside $CUE_HOME or from a paused interval.

The app runs in-process under Starlette's TestClient (real routing, real middleware, real
SQLite and the real `cue` CLI); one test starts the real server on loopback.
"""
from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
from datetime import datetime
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from ctx.claude import requests, sessions
from ctx.core import db
from ctx.core.store import Store
from ctx.web.app import create_app
from ctx.web.security import cookie_value
from ctx.web.thumbs import Frame
from tests.ctx.ctx_runner import ok

PORT = 48765
TOKEN = "test-token-0123456789abcdef"
BASE = f"http://127.0.0.1:{PORT}"
SCRIPT = "<script>alert('pwned')</script>"


@pytest.fixture
def store():
    conn = db.connect()
    try:
        yield Store(conn)
    finally:
        conn.close()


@pytest.fixture
def memory(store):
    """A few nodes, an edge, a supersede chain, a session and one recorded request."""
    a = store.add(f"Readers use WAL so writers never block them {SCRIPT}", "decision",
                  ["tier:pinned", "project:api"])
    b = store.add("Staging database listens on port 6543", "fact", ["tier:reference"])
    old = store.add("Retry payments three times", "decision")
    new = store.add("Retry payments five times with backoff", "decision")
    store.supersede(old.id, new.id)
    store.link(a.id, b.id, "DEPENDS_ON")
    sessions.start_session(store.conn, "sess-0001", "startup", [a.id, b.id])
    built = requests.build_request(store.conn, "sess-0001", "which port does staging use?",
                             max_chars=10_000)
    return {"a": a, "b": b, "old": old, "new": new, "request": built.record.id}


@pytest.fixture
def some_nodes(store):
    """Content that must never leak to a refused request (no session/request: fast)."""
    return store.add(f"Readers use WAL so writers never block them {SCRIPT}", "decision")


@pytest.fixture
def client():
    app = create_app(token=TOKEN, port=PORT)
    with TestClient(app, base_url=BASE, follow_redirects=False) as c:
        yield c


@pytest.fixture
def authed(client):
    r = client.get(f"/?token={TOKEN}")
    assert r.status_code == 303
    return client


def post(client, path, **fields):
    return client.post(path, data={"csrf": TOKEN, **fields})


# ------------------------------------------------------------------ token

PAGES = ["/", "/graph", "/health", "/sessions", "/requests", "/cue", "/cue/memory", "/static/style.css",
         "/node/01ABCDEFGH", "/cue/thumb/abc.jpg", "/nowhere"]


@pytest.mark.parametrize("path", PAGES)
def test_every_page_needs_the_token(client, some_nodes, path):
    r = client.get(path)
    assert r.status_code == 403
    assert "Readers use WAL" not in r.text
    r = client.get(path, params={"token": TOKEN[:-1] + "x"})
    assert r.status_code == 403


def test_token_in_the_url_becomes_a_cookie_and_leaves_the_url(client, some_nodes):
    r = client.get(f"/graph?token={TOKEN}&depth=1")
    assert r.status_code == 303
    assert r.headers["location"] == "/graph?depth=1"
    cookie = r.headers["set-cookie"]
    assert f"ctx_ui_{PORT}={cookie_value(TOKEN, PORT)}" in cookie and TOKEN not in cookie
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    r = client.get("/graph?depth=1")
    assert r.status_code == 200 and "edges shown" in r.text


def test_a_token_for_another_run_does_not_open_this_one(client, some_nodes):
    client.cookies.set(f"ctx_ui_{PORT}", "some-other-runs-token")
    assert client.get("/").status_code == 403
    client.cookies.set(f"ctx_ui_{PORT + 1}", TOKEN)  # the right token under another run's name
    assert client.get("/").status_code == 403


def test_the_cookie_is_bound_to_the_port_and_is_not_the_token(client, some_nodes):
    """Issue 26: browsers send 127.0.0.1 cookies to every port. The cookie is an HMAC over the
    port: a server on another port learns no token, and its own port's value does not open this one."""
    client.cookies.set(f"ctx_ui_{PORT}", TOKEN)  # the raw token as the cookie: not accepted
    assert client.get("/").status_code == 403
    client.cookies.set(f"ctx_ui_{PORT}", cookie_value(TOKEN, PORT + 1))  # bound to another port
    assert client.get("/").status_code == 403
    client.cookies.set(f"ctx_ui_{PORT}", cookie_value(TOKEN, PORT))
    assert client.get("/").status_code == 200


def test_the_browser_is_opened_with_a_one_time_code_not_the_token(some_nodes):
    app = create_app(token=TOKEN, port=PORT, codes=("one-time-code-xyz",))
    with TestClient(app, base_url=BASE, follow_redirects=False) as first, \
            TestClient(app, base_url=BASE, follow_redirects=False) as second:
        r = first.get("/graph?code=one-time-code-xyz&depth=1")
        assert r.status_code == 303 and r.headers["location"] == "/graph?depth=1"
        assert first.get("/graph?depth=1").status_code == 200
        assert second.get("/?code=one-time-code-xyz").status_code == 403  # used: gone


def test_the_browser_launcher_never_sees_the_token(monkeypatch):
    from ctx.web import server

    running = server.bind(0)
    try:
        assert running.token not in running.browser_url and running.code in running.browser_url
        assert running.token in running.url  # what is printed for the person
    finally:
        running.sock.close()


def test_token_redirect_cannot_leave_the_site(client):
    r = client.get(f"//evil.example/?token={TOKEN}")
    assert r.status_code == 303
    assert r.headers["location"].startswith("/") and not r.headers["location"].startswith("//")


# ------------------------------------------------------------------ Host (DNS rebinding)

@pytest.mark.parametrize("host", ["evil.example", f"evil.example:{PORT}", f"127.0.0.1:{PORT + 1}",
                                  "127.0.0.1", f"0.0.0.0:{PORT}", f"[::1]:{PORT}", ""])
def test_wrong_host_header_is_refused_even_with_the_token(authed, some_nodes, host):
    r = authed.get(f"/?token={TOKEN}", headers={"host": host})
    assert r.status_code == 403
    assert "Readers use WAL" not in r.text


def test_localhost_name_is_accepted(authed, some_nodes):
    assert authed.get("/", headers={"host": f"localhost:{PORT}"}).status_code == 200


# ------------------------------------------------------------------ POST only, CSRF

def test_changes_need_post(authed, memory):
    a = memory["a"]
    for path in (f"/node/{a.id}/tier?tier=working&csrf={TOKEN}", f"/node/{a.id}/forget",
                 "/cue/pause"):
        assert authed.get(path).status_code == 405
    assert authed.request("PUT", "/").status_code == 405
    assert authed.request("DELETE", f"/node/{a.id}").status_code == 405
    assert "tier:pinned" in ok("show", a.id, "--format", "json")


def test_post_without_the_form_token_changes_nothing(authed, memory):
    a = memory["a"]
    r = authed.post(f"/node/{a.id}/tier", data={"tier": "working"})
    assert r.status_code == 403
    r = authed.post(f"/node/{a.id}/tier", data={"tier": "working", "csrf": "nope"})
    assert r.status_code == 403
    r = authed.post(f"/node/{a.id}/forget", data={"csrf": TOKEN},
                    headers={"origin": "http://evil.example"})
    assert r.status_code == 403
    shown = json.loads(ok("show", a.id, "--format", "json"))
    assert "tier:pinned" in shown["tags"]


def test_post_with_the_cookie_but_no_cookie_token_is_refused(client, memory):
    r = client.post(f"/node/{memory['a'].id}/forget", data={"csrf": TOKEN})
    assert r.status_code == 403
    assert json.loads(ok("show", memory["a"].id, "--format", "json"))["id"] == memory["a"].id


# ------------------------------------------------------------------ escaping

def test_content_is_escaped_everywhere(authed, memory):
    a = memory["a"]
    pages = ["/", f"/node/{a.id}", f"/requests/{memory['request']}", "/sessions/sess-0001",
             f"/graph?focus={a.id}", "/?q=writers+block&mode=keyword"]
    for page in pages:
        r = authed.get(page)
        assert r.status_code == 200, page
        assert SCRIPT not in r.text, page
        assert "alert(" not in r.text or "&lt;script&gt;alert(" in r.text, page
    assert "&lt;script&gt;alert(&#39;pwned&#39;)&lt;/script&gt;" in authed.get(f"/node/{a.id}").text


def test_pages_forbid_inline_script_and_framing(authed, memory):
    r = authed.get("/")
    csp = r.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["referrer-policy"] == "same-origin"
    assert "<script>" not in r.text.replace('<script src="/static/app.js" defer></script>', "")


def test_query_parameters_are_escaped_too(authed, memory):
    r = authed.get("/", params={"q": '"><img src=x onerror=alert(1)>', "mode": "keyword",
                                "tag": "<b>x</b>"})
    assert r.status_code == 200
    assert "<img src=x" not in r.text and "<b>x</b>" not in r.text


# ------------------------------------------------------------------ traversal

@pytest.mark.parametrize("path", [
    "/static/../app.py", "/static/..%2fapp.py", "/static/%2e%2e%2f%2e%2e%2fdb.py",
    "/static/..%2F..%2F..%2Fetc%2Fpasswd", "/static/style.css%00.py", "/static/",
    "/static/app.py", "/static/../../pyproject.toml", "/static//etc/passwd",
    "/cue/thumb/..%2F..%2Fcue.db.jpg", "/cue/thumb/%2Fetc%2Fpasswd.jpg",
    "/node/..%2F..%2Fetc%2Fpasswd",
])
def test_no_file_outside_the_package_is_served(authed, path):
    r = authed.get(path)
    assert r.status_code in (403, 404), path
    assert "root:" not in r.text and "import " not in r.text and "[project]" not in r.text


def test_static_files_come_from_the_package(authed):
    r = authed.get("/static/style.css")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/css")
    here = Path(__file__).resolve().parents[2] / "ctx" / "web" / "static" / "style.css"
    assert r.text == here.read_text()
    assert authed.get("/static/app.js").status_code == 200


def test_next_field_cannot_redirect_off_site(authed, memory):
    a = memory["a"]
    for target in ("//evil.example/x", "http://evil.example/", "/\\evil.example"):
        r = post(authed, f"/node/{a.id}/tier", tier="working", next=target)
        assert r.status_code == 303
        assert r.headers["location"].startswith(f"/node/{a.id}?flash=")


# ------------------------------------------------------------------ actions reach the CLI

def test_tier_change_shows_in_ctx_show(authed, memory):
    a = memory["a"]
    r = post(authed, f"/node/{a.id}/tier", tier="working")
    assert r.status_code == 303
    page = authed.get(r.headers["location"])
    assert "is now tier:working" in page.text
    tags = json.loads(ok("show", a.id, "--format", "json"))["tags"]
    assert "tier:working" in tags and "tier:pinned" not in tags
    post(authed, f"/node/{a.id}/tier", tier="none")
    tags = json.loads(ok("show", a.id, "--format", "json"))["tags"]
    assert not [t for t in tags if t.startswith("tier:")]
    r = post(authed, f"/node/{a.id}/tier", tier="bogus")
    assert "unknown tier" in authed.get(r.headers["location"]).text


def test_supersede_and_forget(authed, memory):
    a, b = memory["a"], memory["b"]
    r = post(authed, f"/node/{b.id}/supersede", new=a.id.lower())
    assert r.status_code == 303
    assert json.loads(ok("show", b.id, "--format", "json"))["superseded_by"] == a.id
    r = post(authed, f"/node/{a.id}/supersede", new="01ZZZZZZZZ")
    assert "no node with id" in authed.get(r.headers["location"]).text
    r = post(authed, f"/node/{a.id}/forget")
    assert r.status_code == 303 and r.headers["location"].startswith("/?flash=")
    assert "Forgot " + a.id in authed.get(r.headers["location"]).text
    from tests.ctx.ctx_runner import ctx

    assert ctx("show", a.id).exit_code != 0


def test_session_add_and_remove(authed, memory):
    new = memory["new"]
    r = post(authed, f"/node/{new.id}/session", session="sess-0001", op="add")
    assert r.status_code == 303
    shown = json.loads(ok("session", "show", "sess-0001", "--format", "json"))
    item = next(i for i in shown["items"] if i["node_id"] == new.id)
    assert item["include_mode"] == "manual" and item["state"] == "active"
    r = post(authed, "/sessions/sess-0001/remove", node=new.id)
    assert r.headers["location"].startswith("/sessions/sess-0001")
    shown = json.loads(ok("session", "show", "sess-0001", "--format", "json"))
    assert next(i for i in shown["items"] if i["node_id"] == new.id)["state"] == "removed"


def test_cue_pause_and_resume(authed):
    r = post(authed, "/cue/pause")
    assert r.status_code == 303
    status = json.loads(subprocess.run([str(Path(sys.executable).parent / "cue"), "status",
                                        "--format", "json"], capture_output=True, text=True,
                                       check=True).stdout)
    assert status["paused"] is True
    assert 'id="cue-resume"' in authed.get("/cue").text
    post(authed, "/cue/resume")
    status = json.loads(subprocess.run([str(Path(sys.executable).parent / "cue"), "status",
                                        "--format", "json"], capture_output=True, text=True,
                                       check=True).stdout)
    assert status["paused"] is False


# ------------------------------------------------------------------ pages

def test_pages_show_what_the_store_holds(authed, memory):
    a, old, new = memory["a"], memory["old"], memory["new"]
    home = authed.get("/").text
    assert "3 nodes" in home  # the superseded one is left out
    node = authed.get(f"/node/{new.id}").text
    assert old.id in node and "supersede chain" in node
    detail = authed.get(f"/node/{a.id}").text
    assert "DEPENDS_ON" in detail and memory["b"].id in detail and "project:api" in detail
    assert "which port does staging use?" in detail  # the requests that named it
    assert '"badge always"' in authed.get("/").text  # include mode per node in the list
    assert "DEPENDS_ON" in authed.get(f"/node/{memory['b'].id}").text  # incoming edge
    view = authed.get(f"/requests/{memory['request']}").text
    assert "View Context" in view and '"badge always"' in view and "Decisions" in view
    assert re.search(r"\d+ sent now</span>, \d+ already in context", view)  # the headline
    assert "sess-000" in authed.get("/sessions").text
    assert "which port does staging use?" in authed.get("/requests").text
    assert "No memory yet" in authed.get("/cue/memory").text or "no memory" in \
        authed.get("/cue/memory").text
    assert authed.get("/node/01ZZZZZZZZZZ").status_code == 404


def test_filters_and_paging(authed, store):
    store.add_many([{"content": f"note {i}", "type": "fact" if i % 2 else "task",
                     "tags": ["tier:working"] if i % 3 == 0 else []} for i in range(130)])
    first = authed.get("/?type=task").text
    assert "65 nodes matching" in first
    older = re.search(r'id="next-page" href="([^"]+)"', first).group(1).replace("&amp;", "&")
    second = authed.get(older).text
    assert "note " in second and "older than" in second
    tiered = authed.get("/?tier=working").text
    assert "44 nodes matching" in tiered
    assert "no tier" in authed.get("/?tier=none").text
    assert "unknown tier" in authed.get("/?tier=../../x").text


def test_bad_input_is_a_page_not_a_traceback(authed, memory):
    for path in ("/node/x", "/requests/zz", "/sessions/nope", "/graph?focus=01ZZZZZZZZ",
                 "/cue/digests/99999", "/?type=nonsense", "/graph?depth=abc"):
        r = authed.get(path)
        assert r.status_code in (200, 400, 404), path
        assert "Traceback" not in r.text


# ------------------------------------------------------------------ thumbnails

def _keyframes(cue_home: Path, times: list[float]) -> list[Path]:
    from PIL import Image

    kdir = cue_home / "keyframes"
    kdir.mkdir(parents=True, exist_ok=True)
    out = []
    for i, ts in enumerate(times):
        path = kdir / f"{int(ts * 1000)}.jpg"
        Image.new("RGB", (640, 400), (40 * i % 255, 90, 160)).save(path, "JPEG")
        out.append(path)
    return out


def _digest(cue_home: Path, start: float, end: float, frames: int) -> int:
    cue = str(Path(sys.executable).parent / "cue")
    subprocess.run([cue, "digests", "list", "--format", "json"], check=True,
                   capture_output=True)  # creates and migrates cue.db
    conn = sqlite3.connect(cue_home / "cue.db")
    with conn:
        cur = conn.execute(
            "INSERT INTO digests (created_at, window_start, window_end, status, backend, model, "
            "summary, frame_count, event_count, total_ms) VALUES (?, ?, ?, 'ok', 'local', 'tiny', "
            "?, ?, 0, 1234)", (end, start, end, f"Edited ctx/web {SCRIPT}", frames))
    conn.close()
    return cur.lastrowid


def test_digest_page_shows_frames_with_thumbnails(authed):
    cue_home = Path(os.environ["CUE_HOME"])
    now = time.time()
    times = [now - 300 + 30 * i for i in range(6)]
    _keyframes(cue_home, times)
    did = _digest(cue_home, now - 320, now, 4)
    timeline = authed.get("/cue").text
    assert f"/cue/digests/{did}" in timeline and SCRIPT not in timeline
    page = authed.get(f"/cue/digests/{did}").text
    keys = re.findall(r"/cue/thumb/([0-9a-f]+)\.jpg", page)
    assert len(keys) == 4
    r = authed.get(f"/cue/thumb/{keys[0]}.jpg")
    assert r.status_code == 200 and r.headers["content-type"] == "image/jpeg"
    from io import BytesIO

    from PIL import Image

    assert max(Image.open(BytesIO(r.content)).size) <= 360
    assert authed.get("/cue/thumb/" + "0" * 24 + ".jpg").status_code == 404


def test_paused_frames_get_no_thumbnail(authed):
    cue_home = Path(os.environ["CUE_HOME"])
    cue = str(Path(sys.executable).parent / "cue")
    subprocess.run([cue, "pause"], check=True, capture_output=True)
    now = time.time()
    # Two frames before the pause, three taken while paused (the pause runs from `now`).
    _keyframes(cue_home, [now - 60, now - 30, now + 2, now + 4, now + 6])
    did = _digest(cue_home, now - 90, now + 8, 5)
    page = authed.get(f"/cue/digests/{did}").text
    keys = re.findall(r"/cue/thumb/([0-9a-f]+)\.jpg", page)
    assert 1 <= len(keys) <= 2
    shown = re.findall(r'#\d+ · <time datetime="([^"]+)"', page)
    assert shown and all(datetime.fromisoformat(s).timestamp() < now for s in shown)


def test_thumbnail_rules(tmp_path):
    """The route's own checks, apart from what `cue select` returns: a frame outside
    $CUE_HOME (also through a symlink), inside a paused interval, or marked excluded is
    never made into an image."""
    from PIL import Image

    from ctx.web.thumbs import Refused, Thumbnails

    cue_home = Path(os.environ["CUE_HOME"])
    (cue_home / "keyframes").mkdir(parents=True)
    inside = cue_home / "keyframes" / "1763733787250.jpg"
    Image.new("RGB", (100, 80)).save(inside)
    outside = tmp_path / "secret.jpg"
    Image.new("RGB", (100, 80)).save(outside)
    link = cue_home / "keyframes" / "1763733787999.jpg"
    link.symlink_to(outside)
    thumbs = Thumbnails(TOKEN, cue_home)
    assert thumbs.jpeg(thumbs.register(Frame(str(inside), 1763733787.25)))[:2] == b"\xff\xd8"
    refused = [Frame(str(outside), 1.0), Frame(str(link), 1.0),
               Frame(str(cue_home / "keyframes" / ".." / ".." / "secret.jpg"), 1.0),
               Frame(str(inside), 1763733787.25, paused=((1763733780.0, 1763733790.0),)),
               Frame(str(inside), 1763733787.25, excluded=True),
               Frame(str(cue_home / "cue.db"), None), Frame("/etc/passwd", None)]
    for frame in refused:
        with pytest.raises(Refused):
            thumbs.jpeg(thumbs.register(frame))
    # From `cue select` JSON: a frame showing a window cue's recorder excludes is refused too.
    from ctx.web.thumbs import frame_from_selection

    entry = {"path": str(inside), "ts": 1763733787.25, "app": "Firefox", "title": "docs"}
    assert thumbs.jpeg(thumbs.register(frame_from_selection(entry, [])))
    for bad in ({"app": "[excluded]"}, {"title": "[excluded]"}, {"excluded": True}):
        with pytest.raises(Refused):
            thumbs.jpeg(thumbs.register(frame_from_selection({**entry, **bad}, [])))
    with pytest.raises(Refused):
        thumbs.jpeg(thumbs.register(frame_from_selection(entry, [[1763733787.0, 1763733788.0]])))


# ------------------------------------------------------------------ the real server

def test_real_server_on_loopback_with_token_and_clean_ctrl_c(tmp_path):
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([str(Path(sys.executable).parent / "ctx"), "ui", "--no-browser"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        url = proc.stdout.readline().strip()
        m = re.fullmatch(r"http://127\.0\.0\.1:(\d+)/\?token=([A-Za-z0-9_-]{32})", url)
        assert m, url
        port = int(m.group(1))
        with pytest.raises(urllib.error.HTTPError) as denied:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5)
        assert denied.value.code == 403
        import http.client

        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("GET", f"/?token={m.group(2)}")
        resp = conn.getresponse()
        resp.read()
        assert resp.status == 303 and resp.getheader("location") == "/"
        bound = cookie_value(m.group(2), port)  # an HMAC over the port, not the token
        assert resp.getheader("set-cookie").startswith(f"ctx_ui_{port}={bound};")
        conn.request("GET", "/", headers={"Cookie": f"ctx_ui_{port}={bound}"})
        resp = conn.getresponse()
        assert resp.status == 200 and b"newest first" in resp.read()
        conn.request("GET", "/", headers={"Cookie": f"ctx_ui_{port}={bound}",
                                          "Host": "attacker.example"})
        resp = conn.getresponse()
        assert resp.status == 403
        resp.read()
        conn.close()
        out = subprocess.run(["ss", "-ltnH", f"sport = :{port}"], capture_output=True,
                             text=True, check=False).stdout
        if out.strip():
            assert all("127.0.0.1:" in line for line in out.strip().splitlines()), out
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=10) == 0
        assert "stopped" in proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_taken_port_is_one_error_line(tmp_path):
    import socket

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(1)
    try:
        p = subprocess.run([str(Path(sys.executable).parent / "ctx"), "ui", "--no-browser",
                            "--port", str(sock.getsockname()[1])], capture_output=True,
                           text=True, timeout=30, check=False)
    finally:
        sock.close()
    assert p.returncode != 0 and p.stdout == ""
    assert p.stderr.startswith("Error: cannot listen on 127.0.0.1:") and "Traceback" not in p.stderr


def test_other_commands_do_not_load_the_web_stack(tmp_path):
    code = ("import sys; sys.argv = ['ctx', '--db', sys.argv[1], 'add', 'x']\n"
            "from ctx.cli.app import app\n"
            "try:\n    app()\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in ('starlette', 'uvicorn', 'jinja2', 'multipart', 'ctx.web')"
            " if m in sys.modules))\n")
    p = subprocess.run([sys.executable, "-c", code, str(tmp_path / "w.db")], capture_output=True,
                       text=True, check=False)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip().splitlines()[-1] == "[]"


def test_project_filter_uses_the_store_projects(authed, store):
    from ctx.core import projects as scope
    from ctx.core.repo import ProjectRef

    api = scope.ensure(store.conn, ProjectRef(key="", name="api", root=None, remote=None,
                                              source="env"))
    store.add("Payments API retries with backoff", "decision", project_id=api.id)
    store.add("A global preference: answer in English", "fact")
    home = authed.get("/").text
    assert "2 nodes" in home and ">api</a>" in home and ">global</a>" in home
    only_api = authed.get("/?project=api").text
    assert "1 node matching" in only_api and "Payments API" in only_api
    assert "A global preference" not in only_api
    only_global = authed.get("/?project=global").text
    assert "A global preference" in only_global and "Payments API" not in only_global
    found = authed.get("/?q=payments+retry&mode=keyword&project=global").text
    assert "Payments API" not in found
    assert "not a project name" in authed.get("/?project=../x").text


def test_a_broken_database_is_a_page_not_a_traceback(tmp_path):
    bad = tmp_path / "not-a-db.db"
    bad.write_bytes(b"this is not sqlite" * 100)
    app = create_app(token=TOKEN, port=PORT, db_path=str(bad))
    with TestClient(app, base_url=BASE, follow_redirects=False,
                    raise_server_exceptions=False) as c:
        c.get(f"/?token={TOKEN}")
        r = c.get("/")
    assert r.status_code == 503
    assert "not a usable ctx database" in r.text and "Traceback" not in r.text
    p = subprocess.run([str(Path(sys.executable).parent / "ctx"), "--db", str(bad), "ui",
                        "--no-browser"], capture_output=True, text=True, timeout=30, check=False)
    assert p.returncode == 4 and p.stdout == "" and p.stderr.startswith("Error: ")


def test_a_pasted_id_opens_the_node(authed, memory):
    a = memory["a"]
    r = authed.get("/", params={"q": a.id.lower()})
    assert r.status_code == 303 and r.headers["location"] == f"/node/{a.id}"
    r = authed.get("/", params={"q": "database", "mode": "keyword"})  # a word, not an id
    assert r.status_code == 200 and "Staging database" in r.text


def test_graph_stays_bounded(authed, store):
    from ctx.web.graph import MAX_NODES

    nodes = store.add_many([{"content": f"node {i}"} for i in range(MAX_NODES + 50)])
    ids = [n.id for n in nodes]
    with db.transaction(store.conn):
        store.conn.executemany(
            "INSERT OR IGNORE INTO edges (from_id, to_id, type, created_at) VALUES (?, ?, "
            "'RELATES_TO', '2026-01-01T00:00:00.000Z')",
            [(ids[i], ids[(i * 7 + 1) % 400]) for i in range(400)]
            + [(ids[0], ids[j]) for j in range(1, 60)]
            + [(ids[h * 30], ids[(h * 30 + j) % 400]) for h in range(1, 12) for j in range(1, 25)])
    page = authed.get("/graph").text
    assert 1 <= page.count("<circle") <= MAX_NODES and "capped at" in page
    assert f"/node/{ids[0]}" in page  # the most connected node is in the overview
    around = authed.get(f"/graph?focus={ids[0]}&depth=3").text
    assert around.count("<circle") <= MAX_NODES


def test_opens_the_browser_unless_told_not_to(tmp_path):
    """`ctx ui` without --no-browser runs $BROWSER (a script that records its argv) without
    holding up the server — on a one-time code, never the token (argv is world-readable);
    the code opens the viewer once."""
    seen = tmp_path / "opened.txt"
    fake = tmp_path / "fake-browser"
    fake.write_text(f"#!/bin/sh\necho \"$1\" > {seen}\n")
    fake.chmod(0o755)
    env = {**os.environ, "BROWSER": str(fake)}
    proc = subprocess.Popen([str(Path(sys.executable).parent / "ctx"), "ui"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = proc.stdout.readline().strip()
        deadline = time.time() + 15
        while not seen.exists() and time.time() < deadline:
            time.sleep(0.1)
        assert seen.exists()
        opened = seen.read_text().strip()
        token = url.split("token=")[1]
        assert token not in opened and opened.startswith(url.split("?")[0] + "?code=")
        import http.client

        port = int(url.split(":")[2].split("/")[0])
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        for expected in (303, 403):  # the code works once
            conn.request("GET", "/?" + opened.split("?")[1])
            resp = conn.getresponse()
            resp.read()
            assert resp.status == expected
        conn.close()
    finally:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=10) == 0


def test_changes_reach_the_hooks_at_once(authed, store, ctx_bin):
    """What the page changes, the next hook sees: a node added to the session is injected at
    the next prompt; a node moved out of the always tiers leaves the next session start."""
    def hook(event, payload):
        p = subprocess.run([ctx_bin, "hook", event], input=json.dumps(payload).encode(),
                           capture_output=True, timeout=60, check=False)
        assert p.returncode == 0, p.stderr
        out = json.loads(p.stdout or b"{}")
        return (out.get("hookSpecificOutput") or {}).get("additionalContext", "")

    pinned = store.add("Always answer in terse English.", tags=["tier:pinned"])
    extra = store.add("The office plant is watered on Fridays.")
    assert "terse English" in hook("session-start", {"session_id": "H1", "source": "startup",
                                                     "hook_event_name": "SessionStart"})
    post(authed, f"/node/{extra.id}/session", session="H1", op="add")
    text = hook("prompt-submit", {"session_id": "H1", "hook_event_name": "UserPromptSubmit",
                                  "prompt": "what is the deploy process?"})
    assert "office plant" in text and "Added to this session by the user" in text
    post(authed, f"/node/{pinned.id}/tier", tier="off-context")
    assert "terse English" not in hook("session-start", {"session_id": "H2", "source": "startup",
                                                         "hook_event_name": "SessionStart"})


def test_search_without_the_model_says_so_and_uses_keywords(authed, some_nodes, monkeypatch,
                                                             tmp_path):
    monkeypatch.setenv("CTX_MODEL_DIR", str(tmp_path / "no-model-here"))
    page = authed.get("/", params={"q": "writers block readers"}).text
    assert "keyword search" in page and "make model" in page
    assert "Readers use WAL" in page


def test_hooks_do_not_load_the_web_stack(tmp_path):
    code = ("import io, json, sys\n"
            "sys.stdin = io.TextIOWrapper(io.BytesIO(json.dumps({'session_id': 'W', "
            "'hook_event_name': 'SessionStart', 'source': 'startup'}).encode()))\n"
            "from ctx.claude.hooks.entry import main\n"
            "main(['session-start'], process_exits=False)\n"
            "print()\n"
            "print(sorted(m for m in ('starlette', 'uvicorn', 'jinja2', 'multipart', 'ctx.web')"
            " if m in sys.modules))\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip().splitlines()[-1] == "[]"


def test_session_start_page_shows_what_the_hook_injects(authed, memory, ctx_bin):
    page = authed.get("/context").text
    assert "Staging database listens on port 6543" in page
    assert "&lt;script&gt;" in page and SCRIPT not in page
    p = subprocess.run([ctx_bin, "hook", "session-start"], capture_output=True, check=False,
                       input=json.dumps({"session_id": "C1", "source": "startup",
                                         "hook_event_name": "SessionStart"}).encode())
    injected = json.loads(p.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "Staging database listens on port 6543" in injected
    assert memory["old"].content not in page  # no tier, superseded: not given
    assert "all projects" in authed.get("/context?project=all").text
    assert authed.get("/context?project=no-such-project").status_code == 404


def test_ctx_ui_project_option_is_the_session_start_pages_project(store):
    """`ctx ui -P NAME` (-P is the project everywhere; the port is --port only): the Session
    start page shows that project unless the page names another."""
    from ctx_runner import ctx

    from ctx.core import projects
    from ctx.core.repo import ProjectRef

    projects.ensure(store.conn, ProjectRef(key="git:example.com/a/api", name="api", root=None,
                                           remote=None, source="git"))
    app = create_app(token=TOKEN, port=PORT, project="api")
    with TestClient(app, base_url=BASE, follow_redirects=False) as c:
        assert c.get(f"/?token={TOKEN}").status_code == 303
        assert "api + global" in c.get("/context").text
        assert "all projects" in c.get("/context?project=all").text
    r = ctx("ui", "-P", "no-such-project", "--no-browser")
    assert r.exit_code == 3 and "no-such-project" in r.stderr and r.stdout == ""
    r = ctx("ui", "-p", "8765", "--no-browser")
    assert r.exit_code == 2 and "-p" in r.stderr


def test_search_can_rank_more_candidates(authed, store):
    store.add_many([{"content": f"rollback plan number {i} for the payments service"}
                    for i in range(40)])
    first = authed.get("/", params={"q": "rollback payments", "mode": "keyword", "all": "1"}).text
    assert "20 of 20 ranked" in first and 'id="more-candidates"' in first
    more = authed.get("/", params={"q": "rollback payments", "mode": "keyword", "all": "1",
                                   "k": "100"}).text
    assert "40 of 40 ranked" in more


def test_supersede_chain_reads_oldest_first_from_any_version(authed, store):
    from ctx.web.data import supersede_chain

    v1, v2, v3 = (store.add(f"Deploy window, version {i}", "decision") for i in (1, 2, 3))
    store.supersede(v1.id, v2.id)
    store.supersede(v2.id, v3.id)
    for node in (v1, v2, v3):
        assert supersede_chain(store.conn, node.id) == [v1.id, v2.id, v3.id]
    page = authed.get(f"/node/{v2.id}").text
    chain = page[page.index('id="chain"'):]
    assert chain.index("version 1") < chain.index("version 2") < chain.index("version 3")


# ------------------------------------------------------------------ health (ctx doctor)

def health_page(client, path="/health"):
    """The Health page once its background diagnosis is there (it reloads itself until then)."""
    for _ in range(200):
        page = client.get(path)
        if 'http-equiv="refresh"' not in page.text:
            return page
        time.sleep(0.05)
    raise AssertionError("the diagnosis never finished")


def test_health_page_shows_findings_and_fixes_one_with_a_post(authed, store):
    old = store.add("The search service listens on port 7001 [/b]", created_at="2026-10-01T00:00:00.000Z")
    new = store.add("The search service listens on port 7002 [/b]", created_at="2026-11-01T00:00:00.000Z")
    store.conn.commit()
    page = health_page(authed)
    assert page.status_code == 200 and "contradiction" in page.text and "7001 vs 7002" in page.text
    assert authed.get(f"/health/fix?kind=contradiction&ids={old.id},{new.id}").status_code == 405
    r = authed.post("/health/fix", data={"kind": "contradiction", "ids": f"{old.id},{new.id}"})
    assert r.status_code == 403  # no form token: nothing changed
    assert json.loads(ok("show", old.id, "--format", "json"))["superseded_by"] is None
    r = post(authed, "/health/fix", kind="contradiction", ids=f"{old.id},{new.id}")
    assert r.status_code == 303
    assert "superseded by" in authed.get(r.headers["location"]).text
    assert json.loads(ok("show", old.id, "--format", "json"))["superseded_by"] == new.id
    r = post(authed, "/health/fix", kind="contradiction", ids=f"{old.id},{new.id}")
    assert "no longer there" in authed.get(r.headers["location"]).text
    r = post(authed, "/health/undo")
    assert "Undid 1 change" in authed.get(r.headers["location"]).text
    assert json.loads(ok("show", old.id, "--format", "json"))["superseded_by"] is None


def test_health_page_answers_at_once_and_shows_the_diagnosis_when_it_is_made(authed, store,
                                                                             monkeypatch):
    """A diagnosis takes seconds over a large store: it is made in the background, the page
    answers with what it has and reloads itself, and a store change starts a new one."""
    import threading

    from ctx.web import health

    old = store.add("The search service listens on port 7001 [/b]", created_at="2026-10-01T00:00:00.000Z")
    store.add("The search service listens on port 7002 [/b]", created_at="2026-11-01T00:00:00.000Z")
    store.conn.commit()
    release = threading.Event()
    real = health.diagnose

    def slow(*args, **kwargs):  # the real diagnosis, held until the test lets it finish
        release.wait(10)
        return real(*args, **kwargs)

    monkeypatch.setattr(health, "diagnose", slow)
    t0 = time.perf_counter()
    page = authed.get("/health")
    assert time.perf_counter() - t0 < 5  # not held by the diagnosis
    assert page.status_code == 200 and 'http-equiv="refresh"' in page.text
    assert "Checking 2 memories" in page.text and "Not checked yet" in page.text
    release.set()
    page = health_page(authed)
    assert "7001 vs 7002" in page.text and "Checking" not in page.text
    # a change: the previous findings stay on the page, marked, while a new check runs
    release.clear()
    ok("tag", old.id, "tier:reference")
    page = authed.get("/health")
    assert "Memory changed since this check" in page.text and "7001 vs 7002" in page.text
    release.set()


def test_health_findings_come_a_page_at_a_time(authed, store, monkeypatch):
    import ctx.web.app as web_app

    monkeypatch.setattr(web_app, "HEALTH_PAGE", 1)
    for service, port in (("search", 70), ("billing", 80)):
        store.add(f"The {service} service listens on port {port}01", created_at="2026-10-01T00:00:00.000Z")
        store.add(f"The {service} service listens on port {port}02", created_at="2026-11-01T00:00:00.000Z")
    store.conn.commit()
    first = health_page(authed).text
    assert "2 findings (showing 1–1)" in first and 'id="next-findings"' in first
    assert 'id="prev-findings"' not in first and first.count('class="card finding ') == 1
    second = authed.get("/health?start=1").text
    assert "(showing 2–2)" in second and 'id="prev-findings"' in second
    assert 'id="next-findings"' not in second
    assert ("7001 vs 7002" in first) != ("7001 vs 7002" in second)  # each finding on one page
    for odd in ("99999", "-5", "abc", "9" * 5000):  # clamped or ignored, never an error
        assert authed.get(f"/health?start={odd}").status_code == 200
