"""What the viewer's pages say, as a person reads them (issue 38): Health shows each memory's
text with the evidence in words and one action; sessions carry their real project; a memory
is replaced only by one the person searched for, never by a redacted secret; every filter has
its count; View Context shows what was sent now first, each score beside its threshold; the
graph's labels never overlap and fit its viewBox; a memory can be edited (a new version, the
old one kept) and added with a token-checked POST; a session's page lists what Claude did.

The app runs in-process under Starlette's TestClient, over real SQLite and the real actions.
"""
from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from ctx.claude import actions, requests, sessions
from ctx.claude.tags import parse
from ctx.core import db
from ctx.core.store import Store, current_scope
from ctx.web.app import create_app
from tests.ctx.ctx_runner import ok

PORT = 48766
TOKEN = "test-token-viewer-0123456789"
BASE = f"http://127.0.0.1:{PORT}"


@pytest.fixture
def store():
    conn = db.connect()
    try:
        yield Store(conn)
    finally:
        conn.close()


@pytest.fixture
def client():
    with TestClient(create_app(token=TOKEN, port=PORT), base_url=BASE,
                    follow_redirects=False) as c:
        assert c.get(f"/?token={TOKEN}").status_code == 303
        yield c


def post(client, path, **fields):
    return client.post(path, data={"csrf": TOKEN, **fields})


def text_of(page: str) -> str:
    """The page as words: tags dropped, entities decoded, spaces collapsed."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def project_id(store, name):
    return current_scope(store.conn, env={"CTX_PROJECT": name}).write_project_id(
        store.conn)


def health(client) -> str:
    import time

    for _ in range(200):
        page = client.get("/health").text
        if "http-equiv=\"refresh\"" not in page:
            return page
        time.sleep(0.05)
    raise AssertionError("the check never finished")


# ------------------------------------------------------------------ health

def cards_of(page: str) -> list[str]:
    """Each finding's card, from its kind class to the next card."""
    findings = page.split('id="health-findings"', 1)[1].split("\n</ol>", 1)[0]
    return findings.split('<li class="card finding ')[1:]


def test_health_shows_the_memories_texts_the_evidence_in_words_and_one_action(client, store):
    old = store.add("The search service listens on port 7001", created_at="2026-10-01T00:00:00.000Z")
    new = store.add("The search service listens on port 7002", created_at="2026-11-01T00:00:00.000Z")
    store.conn.commit()
    page = health(client)
    cards = [c for c in cards_of(page) if c.startswith("k-contradiction")]
    assert len(cards) == 1
    words = text_of(cards[0])
    assert "The search service listens on port 7001" in words
    assert "The search service listens on port 7002" in words
    assert "7001 vs 7002" in words and "The newer one wins" in words
    # the evidence and the action name the memories by letter, never by a raw 26-character id
    evidence = re.search(r'<p class="evidence">(.*?)</p>', cards[0], re.DOTALL).group(1)
    assert old.id not in evidence and new.id not in evidence
    assert len(re.findall(r"<button", cards[0])) == 1
    assert "Keep B, retire A" in words and "Supersede A by B" in words


def test_a_stored_secret_is_shown_masked_on_its_card(client, store):
    key = "sk-ant-api03-" + "Q7v9Xk2Lm4Np6Rs8Tu0Wy1Za3Bc5De7Fg9Hi1Jk3Lm5No7Pq9Rs"
    node = Store(store.conn, secrets="allow").add(f"CI deploys with {key} from the vault")
    store.conn.commit()
    page = health(client)
    assert key not in page
    card = next(c for c in cards_of(page) if c.startswith("k-secret"))
    assert "CI deploys with" in text_of(card) and "(the secret)" in text_of(card)
    assert node.id in card  # the link to open it


# ------------------------------------------------------------------ sessions

def test_sessions_are_labelled_by_the_project_their_hooks_saw(client, store):
    orders, web = project_id(store, "orders-svc"), project_id(store, "web-app")
    store.add("Orders go through the outbox", project_id=orders)
    store.add("The catalogue uses server components", project_id=web)
    for sid, name in (("sess-orders", "orders-svc"), ("sess-web", "web-app")):
        sessions.start_session(store.conn, sid, "startup", [])  # no items at all
        requests.build_request(store.conn, sid, "what did we decide about the outbox?",
                               max_chars=10_000,
                               scope=current_scope(store.conn, project=name))
    sessions.start_session(store.conn, "sess-none", "startup", [])
    store.conn.commit()
    page = client.get("/sessions").text
    cards = dict(re.findall(r'href="/sessions/(sess-[a-z]+)">.*?<p class="meta">(.*?)</p>', page,
                            re.DOTALL))
    assert "orders-svc" in text_of(cards["sess-orders"])
    assert "web-app" in text_of(cards["sess-web"])
    assert "global" not in text_of(cards["sess-orders"]) + text_of(cards["sess-web"])
    assert "project not known yet" in text_of(cards["sess-none"])
    assert "orders-svc" in text_of(client.get("/sessions/sess-orders").text)


def test_ctx_session_list_and_the_viewer_name_the_same_project(client, store):
    """One rule for both: the scope the session's latest request ran in wins over where most
    of its items come from (a session in web-app that was given orders-svc memory)."""
    orders = project_id(store, "orders-svc")
    project_id(store, "web-app")
    ids = [store.add(f"Orders note {i}", project_id=orders).id for i in range(3)]
    sessions.start_session(store.conn, "sess-moved", "startup", ids)
    requests.build_request(store.conn, "sess-moved", "how is the catalogue rendered?",
                           max_chars=10_000,
                           scope=current_scope(store.conn, project="web-app"))
    sessions.start_session(store.conn, "sess-items", "startup", ids[:2])  # no request
    store.conn.commit()
    listed = {r["id"]: r["project"] for r in sessions.session_overview(store.conn)}
    assert listed["sess-moved"] == "web-app" and listed["sess-items"] == "orders-svc"
    page = client.get("/sessions").text
    cards = dict(re.findall(r'href="/sessions/(sess-[a-z]+)">.*?<p class="meta">(.*?)</p>', page,
                            re.DOTALL))
    assert "web-app" in text_of(cards["sess-moved"])
    assert "orders-svc" in text_of(cards["sess-items"])


def test_a_sessions_page_lists_what_claude_remembered_and_superseded_in_it(client, store):
    sessions.start_session(store.conn, "sess-did", "startup", [])
    first = actions.execute(store, parse('<ctx:remember type="decision">Payments retry three '
                                         'times</ctx:remember>').commands, session_id="sess-did")
    old_id = first[0].node_ids[0]
    second = actions.execute(store, parse(
        f'<ctx:remember type="decision" supersedes="{old_id}">Payments retry five times with '
        f'backoff</ctx:remember>').commands, session_id="sess-did")
    actions.execute(store, parse("<ctx:remember>Somebody else's note</ctx:remember>").commands,
                    session_id="sess-other")
    note = store.add("Payments used to retry on a fixed timer")
    actions.execute(store, parse(f'<ctx:summarize nodes="{note.id}" archive="true">How payments '
                                 f'retry, in short</ctx:summarize>').commands,
                    session_id="sess-did")
    store.conn.commit()
    did = text_of(re.search(r'<ul class="plain" id="session-did">(.*?)</ul>',
                            client.get("/sessions/sess-did").text, re.DOTALL).group(1))
    assert "remembered Payments retry three times" in did
    assert "remembered Payments retry five times with backoff" in did
    assert "superseded Payments retry three times" in did and "by Payments retry five" in did
    assert "summarized How payments retry, in short" in did
    assert "archived Payments used to retry on a fixed timer" in did
    assert "Somebody else" not in did
    ok("rm", second[0].node_ids[0])
    did = client.get("/sessions/sess-did").text
    assert "(forgotten since)" in did  # the record outlives the memory, its text does not


# ------------------------------------------------------------------ node: replace, edit

def test_replacements_are_offered_only_after_a_search_and_never_a_redacted_secret(client, store):
    node = store.add("Deploys use the blue key", "decision")
    store.add("Deploys now use the green key, rotated monthly", "decision")
    store.add("Deploy key: -----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbm"
              "UAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZWQyNTUxOQAAACDx\n-----END OPENSSH PRIVATE"
              " KEY-----", "fact")
    store.conn.commit()
    page = client.get(f"/node/{node.id}").text
    assert 'id="replacements"' not in page and "/supersede" not in page.split('<details>')[0] \
        .split('id="replace-search"')[1]
    assert "Type words from the newer memory" in text_of(page)
    found = client.get(f"/node/{node.id}?replace=deploys+key").text
    offered = re.search(r'<ul class="plain" id="replacements">(.*?)</ul>', found, re.DOTALL).group(1)
    assert "green key" in offered
    assert "SECRET" not in offered and "Deploy key:" not in offered
    assert "blue key" not in offered  # never the node itself


def test_edit_saves_a_new_version_under_the_same_id_and_keeps_the_old_one(client, store):
    node = store.add("Retry payments three times", "decision", ["tier:working", "billing"])
    store.conn.commit()
    r = client.post(f"/node/{node.id}/edit", data={"content": "x"})
    assert r.status_code == 403  # no form token: nothing changed
    assert client.get(f"/node/{node.id}/edit").status_code == 405
    r = post(client, f"/node/{node.id}/edit", content="Retry payments five times\r\nwith backoff",
             type="pattern", tags="billing, payments")
    assert r.status_code == 303
    assert "version 1" in client.get(r.headers["location"]).text
    shown = json.loads(ok("show", node.id, "--format", "json"))
    assert shown["content"] == "Retry payments five times\nwith backoff"
    assert shown["type"] == "pattern"
    assert sorted(shown["tags"]) == ["billing", "payments", "tier:working"]  # the tier is kept
    assert Store(store.conn).versions(node.id)[0]["content"] == "Retry payments three times"
    page = client.get(f"/node/{node.id}").text
    assert "Earlier versions" in page and "Retry payments three times" in page
    r = post(client, f"/node/{node.id}/edit", content="Retry payments five times\nwith backoff",
             type="pattern", tags="billing payments")
    assert "Nothing changed" in client.get(r.headers["location"]).text
    assert len(Store(store.conn).versions(node.id)) == 1
    r = post(client, f"/node/{node.id}/edit", content="  ", type="pattern", tags="")
    assert "needs some text" in client.get(r.headers["location"]).text


def test_add_stores_a_memory_as_ctx_add_does(client, store):
    orders = project_id(store, "orders-svc")
    store.add("Orders go through the outbox", project_id=orders)
    store.conn.commit()
    r = post(client, "/add", content="Refunds are issued from the ledger service",
             type="decision", tier="reference", project="orders-svc", tags="billing")
    assert r.status_code == 303 and r.headers["location"].startswith("/node/")
    node_id = r.headers["location"].split("/node/")[1].split("?")[0]
    shown = json.loads(ok("show", node_id, "--format", "json"))
    assert shown["type"] == "decision" and "tier:reference" in shown["tags"]
    assert "billing" in shown["tags"] and shown["project"] == "orders-svc"
    again = post(client, "/add", content="Refunds are issued from the ledger service",
                 type="decision", project="orders-svc")
    assert node_id in again.headers["location"]  # a duplicate: the one already stored
    assert client.post("/add", data={"content": "x"}).status_code == 403


# ------------------------------------------------------------------ memory list, View Context

def test_every_filter_has_its_count_and_the_include_modes_are_explained(client, store):
    store.add("Pinned decision", "decision", ["tier:pinned"])
    for i in range(3):
        store.add(f"Untiered fact {i}")
    old = store.add("Old fact")
    new = store.add("New fact")
    store.supersede(old.id, new.id)
    store.conn.commit()
    page = client.get("/").text
    assert re.search(r'id="no-tier-count">4<', page)
    assert "no tier (4)" in page and "pinned (1)" in page and "decision (1)" in page
    assert "with superseded (1)" in page
    legend = text_of(re.search(r'<dl class="legend" id="legend">(.*?)</dl>', page, re.DOTALL).group(1))
    assert "Agent picked for a prompt when it is about it" in legend
    assert "Always" in legend and "Manual" in legend


def test_view_context_shows_what_was_sent_now_first(client, store):
    a = store.add("The staging database listens on port 6543", "fact", ["tier:pinned"])
    b = store.add("Deploys go out on Tuesdays", "pattern", ["tier:reference"])
    sessions.start_session(store.conn, "sess-vc", "startup", [a.id, b.id])
    store.add("The staging database is reset every night at 02:00", "fact")
    built = requests.build_request(store.conn, "sess-vc", "when is the staging database reset?",
                                   max_chars=10_000)
    store.conn.commit()
    page = client.get(f"/requests/{built.record.id}").text
    now, earlier = page.find('id="sent-now"'), page.find('id="sent-earlier"')
    assert earlier > 0 and (now == -1 or now < earlier)
    if now > 0:
        assert "reset every night" in page[now:earlier]
    sent_now = [i for i in built.record.items if i.injected == "now"]
    for item in sent_now:
        assert item.node_id in page[now:earlier]


def test_a_score_is_shown_beside_its_threshold():
    from ctx.web.app import _threshold

    assert _threshold({"path": "semantic", "params": {"floor": 0.82, "include_score": 0.7}}) == 0.7
    assert _threshold({"path": "semantic", "params": {"floor": 0.6, "include_score": 0.7}}) == 0.6
    assert _threshold({"path": "keyword", "params": {"floor": 0.6, "include_score": 0.7}}) is None
    import jinja2

    from ctx.web.app import HERE

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(HERE / "templates"), autoescape=True)
    score = env.get_template("_macros.html").module.score
    assert text_of(str(score(0.83, 0.7))) == "0.83 ≥ 0.70"
    below = str(score(0.41, 0.7))
    assert text_of(below) == "0.41 < 0.70" and "below" in below
    assert text_of(str(score(11.2, None))) == "11.20"


# ------------------------------------------------------------------ graph

def test_graph_labels_never_overlap_and_fit_the_view_box(store):
    from ctx.web import graph

    hub = store.add("Orders are written through the outbox table and relayed to Kafka", "decision")
    for i in range(60):
        other = store.add(f"Checkout component {i} calls the ledger, the outbox and the queue "
                          f"services in turn", "fact")
        store.link(other.id, hub.id, "RELATES_TO")
    store.add("오더 서비스는 아웃박스 테이블을 통해 이벤트를 발행한다", "decision")
    store.conn.commit()
    g = graph.build(store.conn)
    labelled = [n for n in g.nodes if n.label]
    # crowded around the hub: not every name fits, the most connected first; the rest on hover
    assert len(labelled) >= len(g.nodes) // 3 and any(n.id == hub.id for n in labelled)
    boxes = []
    for n in labelled:
        w = graph.text_width(n.label)
        x0 = {"start": n.lx, "end": n.lx - w, "middle": n.lx - w / 2}[n.anchor]
        boxes.append((x0, n.ly - 11, x0 + w, n.ly + 3))  # from the baseline: ascent, descent
    for i, p in enumerate(boxes):
        assert g.x0 <= p[0] and p[2] <= g.x0 + g.width and g.y0 <= p[1] and p[3] <= g.y0 + g.height
        for q in boxes[i + 1:]:
            assert not (p[0] < q[2] and q[0] < p[2] and p[1] < q[3] and q[1] < p[3]), (p, q)


# ------------------------------------------------------------------ cue's recorder

def test_the_cue_badge_says_recording_only_while_the_recorder_holds_its_lock(client):
    """From `cue status --format json` (the recorder's lock, not a status file left behind)."""
    import fcntl
    import os

    from cue.record.writer import lock_path, write_status

    home = Path(os.environ["CUE_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    write_status(home, {"last_frame": "2026-11-28T04:00:00Z"})  # left by a recorder that died
    page = text_of(client.get("/cue").text)
    assert "not recording" in page and "cue record is not running" in page
    fd = os.open(lock_path(home), os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.write(fd, str(os.getpid()).encode())
        page = text_of(client.get("/cue").text)
        assert "recording cue record is running" in page and "not recording" not in page
    finally:
        os.close(fd)
    assert "not recording" in text_of(client.get("/cue").text)
