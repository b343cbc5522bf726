"""The viewer never answers 500 (issue 26): 1,200 seeded random requests — odd paths, huge and
non-ASCII ids, typed-wrong query values, forms with fields sent as files, wrong methods,
wrong Hosts, a WebSocket upgrade — each gets a page or a 4xx. In-process (Starlette's
TestClient: real routing, middleware and SQLite), a few seconds."""
from __future__ import annotations

import random
import time

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from ctx.core import db
from ctx.core.store import Store
from ctx.web.app import create_app

PORT = 48766
TOKEN = "fuzz-token-0123456789abcdef"
BASE = f"http://127.0.0.1:{PORT}"
N = 1200

WEIRD = ["", "0", "-1", "9" * 5000, "1e308", "nan", "%00", "..%2f..%2fetc%2fpasswd", "../../etc/passwd",
         "\u00e9\u00e8", "\U0001f600", "<script>", "' OR 1=1 --", "a" * 3000, "01", "ZZZZZZZZ",
         "01ARZ3NDEKTSV4RRFFQ69G5FAV", "%ff%fe", "null", "[]", "{}", "tier:pinned", "٣٤٥", "²"]
PATHS = ["/", "/node/{x}", "/node/{x}/tier", "/node/{x}/supersede", "/node/{x}/forget",
         "/node/{x}/session", "/context", "/graph", "/sessions", "/sessions/{x}", "/sessions/{x}/add",
         "/sessions/{x}/remove", "/requests", "/requests/{x}", "/cue/digests/{x}", "/cue/thumb/{x}.jpg",
         "/cue/pause", "/cue/resume", "/static/{x}", "/{x}", "/node/", "//{x}"]
PARAMS = ["q", "mode", "k", "limit", "depth", "focus", "before", "project", "flash", "all", "type",
          "tag", "tier", "scope", "token", "page"]
FIELDS = ["csrf", "tier", "new", "next", "session", "node", "op"]


@pytest.fixture
def client():
    conn = db.connect()
    try:
        store = Store(conn)
        a = store.add("Readers use WAL so writers never block them", "decision", ["tier:pinned"])
        b = store.add("Staging database listens on port 6543", "fact", ["tier:reference"])
        store.link(a.id, b.id, "DEPENDS_ON")
        ids = [a.id, b.id]
    finally:
        conn.close()
    app = create_app(token=TOKEN, port=PORT)
    with TestClient(app, base_url=BASE, follow_redirects=False, raise_server_exceptions=False) as c:
        assert c.get(f"/?token={TOKEN}").status_code == 303
        yield c, ids


def _value(rng: random.Random, ids: list[str]) -> str:
    pick = rng.random()
    if pick < 0.3:
        return rng.choice(ids)[: rng.choice([4, 8, 26])]
    if pick < 0.8:
        return rng.choice(WEIRD)
    return "".join(rng.choice("abcXYZ019-_:%/.~ \u00e9") for _ in range(rng.randint(1, 40)))


def test_no_request_gets_a_500(client):
    c, ids = client
    rng = random.Random(26)
    statuses: dict[int, int] = {}
    failures = []
    slow: list = []
    t0 = time.monotonic()
    for _ in range(N):
        path = rng.choice(PATHS).replace("{x}", _value(rng, ids).replace("/", "%2F") if rng.random() < .7
                                         else _value(rng, ids))
        if path.startswith("/cue/digests/") and path[13:].isdigit() and len(path) < 40:
            path += "x"  # a real digest id asks the `cue` CLI (0.5 s): test_web_security covers it
        params = {rng.choice(PARAMS): _value(rng, ids) for _ in range(rng.randint(0, 3))}
        if "q" in params:
            params["mode"] = "keyword"  # hybrid search (the model) has its own tests; keep this fast
        method = rng.choices(["GET", "POST", "HEAD", "PUT", "DELETE", "OPTIONS", "PATCH"],
                             [50, 35, 5, 3, 3, 2, 2])[0]
        headers = {}
        if rng.random() < 0.05:
            headers["host"] = rng.choice(["evil.example", f"127.0.0.1:{PORT + 1}", ""])
        if rng.random() < 0.05:
            headers["origin"] = rng.choice(["http://evil.example", "null", BASE])
        kwargs = {"params": params, "headers": headers}
        if method == "POST":
            fields = {f: _value(rng, ids) for f in rng.sample(FIELDS, rng.randint(0, 4))}
            if rng.random() < 0.6 and not path.startswith("/cue/"):  # (a valid pause runs `cue`)
                fields["csrf"] = TOKEN
            if rng.random() < 0.25:  # some fields (csrf among them) as files
                name = rng.choice(list(fields) or ["csrf"])
                kwargs["files"] = {name: ("x.txt", TOKEN.encode() if name == "csrf" else b"\x00\xff", "text/plain")}
                fields.pop(name, None)
            if rng.random() < 0.1:
                kwargs["content"] = rng.choice([b"\xff\xfe", b"csrf=%zz", b"a" * 10_000, b"csrf=" + TOKEN.encode()])
                kwargs["headers"]["content-type"] = rng.choice(
                    ["application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "text/plain"])
            else:
                kwargs["data"] = fields
        started = time.monotonic()
        try:
            r = c.request(method, path, **kwargs)
        except Exception as exc:  # a client-side refusal of a malformed URL is fine
            if "Invalid" in type(exc).__name__ or isinstance(exc, (ValueError, UnicodeError)):
                continue
            raise
        statuses[r.status_code] = statuses.get(r.status_code, 0) + 1
        slow.append((time.monotonic() - started, method, path[:40]))
        if r.status_code >= 500:
            failures.append((method, path, params, r.status_code, r.text[:200]))
    elapsed = time.monotonic() - t0
    assert not failures, failures[:5]
    assert sum(statuses.values()) >= 1000, statuses
    assert {200, 303, 403, 404, 405} <= set(statuses), statuses
    assert elapsed < 60, (elapsed, sorted(slow)[-5:])


@pytest.mark.parametrize("headers", [{}, {"host": "evil.example"}])
def test_a_websocket_upgrade_is_refused_with_or_without_the_token(client, headers):
    c, _ = client
    with pytest.raises(WebSocketDisconnect) as refused, c.websocket_connect("/", headers=headers):
        pass
    assert refused.value.code == 1008


def test_a_digest_id_of_thousands_of_digits_is_a_404(client):
    c, _ = client
    assert c.get("/cue/digests/" + "9" * 4301).status_code == 404
    assert c.get("/cue/digests/²").status_code == 404


def test_a_csrf_field_sent_as_a_file_is_refused_not_a_crash(client):
    c, ids = client
    r = c.post(f"/node/{ids[0]}/forget", files={"csrf": ("csrf", TOKEN.encode(), "text/plain")})
    assert r.status_code == 403
    assert c.get(f"/node/{ids[0]}").status_code == 200
