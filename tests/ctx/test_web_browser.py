"""`ctx ui` in a real browser: Debian's headless Chromium driven by selenium against the real
server (`ctx ui --no-browser` on loopback). Loads each page, searches, opens a request's
View Context, changes a tier and sees it in `ctx show`, forgets a node through the confirm
dialog, and saves a screenshot of every page under the test's tmp folder.
"""
from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ctx.claude import requests, sessions
from ctx.core import db
from ctx.core.store import Store

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
BIN = Path(sys.executable).parent

pytestmark = pytest.mark.skipif(
    not (CHROMIUM.exists() and CHROMEDRIVER.exists()),
    reason="needs Debian's chromium and chromium-driver (scripts/system-packages.sh installs them)")


def _populate(cue_home: Path) -> dict:
    from PIL import Image, ImageDraw

    conn = db.connect()
    store = Store(conn)
    a = store.add("Readers use WAL so the writer never blocks them <script>alert(1)</script>",
                  "decision", ["tier:pinned", "project:api"])
    b = store.add("The staging database listens on port 6543", "fact", ["tier:reference"])
    c = store.add("Deploys go out on Tuesdays after the 10:00 stand-up", "pattern")
    d = store.add("Retry failed payments five times with exponential backoff", "decision")
    e = store.add("Why does the nightly export stall on large tables?", "open-question")
    store.link(a.id, b.id, "DEPENDS_ON")
    store.link(c.id, d.id, "RELATES_TO")
    store.link(e.id, a.id, "DERIVED_FROM")
    old = store.add("Retry failed payments three times", "decision")
    store.supersede(old.id, d.id)
    store.add_many([{"content": f"Background note {i} about subsystem {i % 7}",
                     "type": ("fact", "observation", "task")[i % 3]} for i in range(60)])
    sessions.start_session(conn, "sess-browser-1", "startup", [a.id, b.id])
    built = requests.build_request(conn, "sess-browser-1", "which port does the staging database use?",
                             max_chars=10_000)
    conn.close()

    kdir = cue_home / "keyframes"
    kdir.mkdir(parents=True)
    now = time.time()
    for i in range(5):
        im = Image.new("RGB", (1280, 800), (30 + 40 * i, 60, 120))
        ImageDraw.Draw(im).rectangle([80, 80, 600 + 80 * i, 400], fill=(230, 230, 230))
        im.save(kdir / f"{int((now - 250 + 50 * i) * 1000)}.jpg", "JPEG")
    subprocess.run([str(BIN / "cue"), "digests", "list", "--format", "json"], check=True,
                   capture_output=True)
    cdb = sqlite3.connect(cue_home / "cue.db")
    with cdb:
        cdb.execute("INSERT INTO digests (created_at, window_start, window_end, status, backend, "
                    "model, summary, frame_count, event_count, total_ms, model_ms) VALUES "
                    "(?, ?, ?, 'ok', 'local', 'gemma-3-4b', ?, 4, 12, 5400, 5100)",
                    (now, now - 270, now, ("Worked on the ctx web viewer: templates, then the "
                     "security tests in a terminal.")))
        cdb.execute("INSERT INTO memory (created_at, content, backend, model, digest_count) "
                    "VALUES (?, ?, 'local', 'gemma-3-4b', 1)",
                    (now, ("# Memory\n\n## Ongoing projects\n- ctx web viewer\n\n## Open loops\n"
                          "- browser tests\n")))
    cdb.close()
    return {"a": a, "b": b, "e": e, "request": built.record.id}


@pytest.fixture
def server(tmp_path):
    cue_home = Path(os.environ["CUE_HOME"])
    data = _populate(cue_home)
    proc = subprocess.Popen([str(BIN / "ctx"), "ui", "--no-browser"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    url = proc.stdout.readline().strip()
    assert url.startswith("http://127.0.0.1:"), proc.stderr.read() if proc.poll() else url
    yield url, data
    proc.terminate()
    proc.wait(timeout=10)


@pytest.fixture
def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update",
                "--no-first-run", "--window-size=1360,1000"):
        options.add_argument(arg)
    driver = webdriver.Chrome(options=options, service=Service(str(CHROMEDRIVER)))
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


def _shot(driver, tmp_path: Path, name: str) -> Path:
    path = tmp_path / "screenshots" / f"{name}.png"
    path.parent.mkdir(exist_ok=True)
    height = driver.execute_script("return document.body.scrollHeight")
    driver.set_window_size(1360, min(max(800, height + 40), 2400))
    assert driver.save_screenshot(str(path))
    assert path.stat().st_size > 10_000
    return path


def _ctx_show(node_id: str) -> dict:
    out = subprocess.run([str(BIN / "ctx"), "show", node_id, "--format", "json"],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


@pytest.mark.slow
def test_every_page_in_chromium(server, browser, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.select import Select
    from selenium.webdriver.support.ui import WebDriverWait

    url, data = server
    wait = WebDriverWait(browser, 30)
    base = url.split("/?")[0]

    # First load trades the token for a cookie and drops it from the address bar.
    browser.get(url)
    assert browser.current_url == base + "/"
    assert "token=" not in browser.current_url
    rows = browser.find_elements(By.CSS_SELECTOR, "#nodes li.card")
    assert len(rows) == 50 and browser.find_element(By.ID, "next-page")
    assert "65 nodes" in browser.find_element(By.ID, "list-meta").text
    _shot(browser, tmp_path, "01-memory")

    # Search: the same hybrid search as `ctx search`.
    box = browser.find_element(By.ID, "q")
    box.send_keys("which port does staging listen on")
    box.submit()
    wait.until(EC.presence_of_element_located((By.ID, "result-meta")))
    best = browser.find_elements(By.CSS_SELECTOR, "#hits li.card")[0]
    assert "6543" in best.text and best.get_attribute("data-rank") == "1"  # the staging port fact
    _shot(browser, tmp_path, "02-search")

    browser.get(f"{base}/?type=decision&tier=pinned")
    assert "1 node matching" in browser.find_element(By.ID, "list-meta").text

    # Node detail: edges both ways.
    browser.get(f"{base}/node/{data['a'].id}")
    # The <script> in a node is text on the page, and never ran (an alert would be open).
    assert "<script>alert(1)</script>" in browser.find_element(By.ID, "node-content").text
    assert not EC.alert_is_present()(browser)
    edges = browser.find_element(By.ID, "edges").text
    assert "DEPENDS_ON" in edges and "DERIVED_FROM" in edges
    _shot(browser, tmp_path, "03-node")

    # Change the tier with one click; `ctx show` sees it at once.
    Select(browser.find_element(By.ID, "tier-select")).select_by_value("working")
    browser.find_element(By.ID, "tier-button").click()
    wait.until(EC.presence_of_element_located((By.ID, "flash")))
    assert "tier:working" in browser.find_element(By.ID, "flash").text
    assert "tier:working" in _ctx_show(data["a"].id)["tags"]
    _shot(browser, tmp_path, "04-tier-changed")

    browser.get(f"{base}/context")
    assert "staging database" in browser.find_element(By.ID, "context-text").text
    _shot(browser, tmp_path, "05a-session-start")

    browser.get(f"{base}/graph")
    circles = browser.find_elements(By.CSS_SELECTOR, "#graph circle")
    assert len(circles) >= 5
    _shot(browser, tmp_path, "05-graph")

    browser.get(f"{base}/sessions")
    first = browser.find_element(By.CSS_SELECTOR, '#sessions a[href="/sessions/sess-browser-1"]')
    assert "which port does the staging database use?" in first.text  # labelled by its first prompt
    browser.get(f"{base}/sessions/sess-browser-1")
    assert "Always" in browser.find_element(By.ID, "session-items").text
    _shot(browser, tmp_path, "06-session")

    # A request's View Context: a headline, columns by type, names with badges, sent now or
    # already in context, then what was left out.
    browser.get(f"{base}/requests")
    browser.find_element(By.CSS_SELECTOR, f'#requests a[href="/requests/{data["request"]}"]').click()
    wait.until(EC.presence_of_element_located((By.ID, "view-context")))
    view = browser.find_element(By.ID, "view-context").text
    # column headings are upper-cased by the style sheet, and WebDriver's text is as rendered
    assert "DECISIONS (1)" in view.upper() and "FACTS (1)" in view.upper()
    assert "Always" in view and not re.search(r"\d{3} •", view)
    assert "already in context" in view or "sent now" in view
    assert re.search(r"\d+ sent now, \d+ already in context",
                     browser.find_element(By.ID, "headline").text)
    assert browser.find_element(By.ID, "excluded")
    _shot(browser, tmp_path, "07-view-context")

    # cue: the timeline, a digest with thumbnails made from the keyframes, memory.md.
    browser.get(f"{base}/cue")
    assert "Worked on the ctx web viewer" in browser.find_element(By.ID, "digests").text
    _shot(browser, tmp_path, "08-cue-digests")
    browser.find_element(By.CSS_SELECTOR, "#digests a").click()
    wait.until(EC.presence_of_element_located((By.ID, "frames")))
    imgs = browser.find_elements(By.CSS_SELECTOR, "#frames img")
    assert len(imgs) == 4
    wait.until(lambda d: all(d.execute_script("return arguments[0].complete && "
                                              "arguments[0].naturalWidth > 0", i) for i in imgs))
    _shot(browser, tmp_path, "09-digest")
    browser.get(f"{base}/cue/memory")
    assert "Ongoing projects" in browser.find_element(By.ID, "memory-md").text
    _shot(browser, tmp_path, "10-memory-md")

    # Pause and resume cue from the page.
    browser.get(f"{base}/cue")
    browser.find_element(By.ID, "cue-pause").click()
    wait.until(EC.presence_of_element_located((By.ID, "cue-resume")))
    browser.find_element(By.ID, "cue-resume").click()
    wait.until(EC.presence_of_element_located((By.ID, "cue-pause")))

    # Forget asks first (a confirm dialog), then deletes.
    browser.get(f"{base}/node/{data['e'].id}")
    browser.find_element(By.ID, "forget-button").click()
    wait.until(EC.alert_is_present()).dismiss()
    assert browser.current_url.endswith(f"/node/{data['e'].id}")
    browser.find_element(By.ID, "forget-button").click()
    wait.until(EC.alert_is_present()).accept()
    wait.until(EC.presence_of_element_located((By.ID, "flash")))
    assert "Forgot " + data["e"].id in browser.find_element(By.ID, "flash").text
    gone = subprocess.run([str(BIN / "ctx"), "show", data["e"].id], capture_output=True,
                          text=True, check=False)
    assert gone.returncode != 0
    _shot(browser, tmp_path, "11-forgot")

    # Without the cookie (a fresh browser profile would be the same) the server refuses.
    browser.delete_all_cookies()
    browser.get(f"{base}/")
    assert "Forbidden" in browser.find_element(By.TAG_NAME, "body").text


def test_open_change_a_tier_and_see_it_in_ctx_show(server, browser, tmp_path):
    """The short path every `make test` runs in the real browser (the full tour is slow)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.select import Select
    from selenium.webdriver.support.ui import WebDriverWait

    url, data = server
    base = url.split("/?")[0]
    browser.get(url)
    assert browser.current_url == base + "/"
    browser.get(f"{base}/node/{data['b'].id}")
    Select(browser.find_element(By.ID, "tier-select")).select_by_value("pinned")
    browser.find_element(By.ID, "tier-button").click()
    WebDriverWait(browser, 30).until(EC.presence_of_element_located((By.ID, "flash")))
    assert "tier:pinned" in _ctx_show(data["b"].id)["tags"]
    _shot(browser, tmp_path, "tier-changed")
