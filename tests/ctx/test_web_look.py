"""What the viewer looks like, in a real browser (Debian's headless Chromium via selenium):
at 390, 1024 and 1440 px wide, in light and dark, every page fits without sideways
scrolling, the keyboard focus is visible, dark follows the system, and each page shows its
key content. The slow tour saves a screenshot of every page at every width and scheme
(to $SCREENSHOT_DIR, else the test's tmp folder) — look at them.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.ctx.test_web_browser import CHROMEDRIVER, CHROMIUM, server  # noqa: F401 (fixture)

pytestmark = pytest.mark.skipif(
    not (CHROMIUM.exists() and CHROMEDRIVER.exists()),
    reason="needs Debian's chromium and chromium-driver (scripts/system-packages.sh installs them)")

WIDTHS = (390, 1024, 1440)
SCHEMES = ("light", "dark")


@pytest.fixture(scope="module")
def chrome():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update",
                "--no-first-run", "--hide-scrollbars", "--window-size=1440,1000"):
        options.add_argument(arg)
    driver = webdriver.Chrome(options=options, service=Service(str(CHROMEDRIVER)))
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


def pages(data) -> list[tuple[str, str, str]]:
    """(name, path, text the page must show)."""
    return [
        ("memory", "/", "65 nodes"),
        ("search", "/?q=which+port+does+staging+listen+on", "ranked by"),
        ("node", f"/node/{data['a'].id}", "Readers use WAL"),
        ("session-start", "/context", "staging database"),
        ("graph", "/graph", "edges shown"),
        ("health", "/health", "finds in the stored memory"),
        ("sessions", "/sessions", "which port does the staging database use?"),
        ("session", "/sessions/sess-browser-1", "which port does the staging database use?"),
        ("requests", "/requests", "which port does the staging database use?"),
        ("request", f"/requests/{data['request']}", "already in context"),
        ("cue-digests", "/cue", "Worked on the ctx web viewer"),
        ("cue-memory", "/cue/memory", "Ongoing projects"),
    ]


def look(driver, width: int, scheme: str) -> None:
    driver.set_window_size(width, 900)
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {
        "features": [{"name": "prefers-color-scheme", "value": scheme}]})
    # the window's outer size includes no chrome headless; make the layout viewport exact
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": 900, "deviceScaleFactor": 1, "mobile": width < 600})


def overflow(driver) -> int:
    """How many pixels the page is wider than the window (0: no sideways scrolling)."""
    return driver.execute_script(
        "return Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)"
        " - document.documentElement.clientWidth")


def background_luminance(driver) -> float:
    rgb = driver.execute_script(
        "return getComputedStyle(document.body).backgroundColor.match(/\\d+/g).slice(0, 3)"
        ".map(Number)")
    return sum(c * w for c, w in zip(rgb, (0.2126, 0.7152, 0.0722), strict=True)) / 255


def focus_ring(driver) -> tuple[str, float]:
    """Tab once from the top of the page; the focused element's outline style and width."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    driver.execute_script("document.activeElement && document.activeElement.blur();"
                          "window.scrollTo(0, 0);")
    ActionChains(driver).send_keys(Keys.TAB).perform()
    style = driver.execute_script(
        "var s = getComputedStyle(document.activeElement);"
        "return [document.activeElement.tagName, s.outlineStyle, parseFloat(s.outlineWidth)];")
    return style[1], style[2]


def open_viewer(chrome, url: str) -> str:
    chrome.get(url)  # trades the token for the cookie
    return url.split("/?")[0]


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("width", WIDTHS)
def test_key_pages_fit_focus_shows_and_dark_follows_the_system(server, chrome, width,  # noqa: F811
                                                              scheme):
    from selenium.webdriver.common.by import By

    url, data = server
    base = open_viewer(chrome, url)
    look(chrome, width, scheme)
    for name, path, text in [p for p in pages(data) if p[0] in ("memory", "node", "request",
                                                                    "graph", "sessions")]:
        chrome.get(base + path)
        body = chrome.find_element(By.TAG_NAME, "body").text
        assert text in body, (name, width, scheme)
        assert overflow(chrome) <= 0, (name, width, scheme, overflow(chrome))
        lum = background_luminance(chrome)
        assert (lum < 0.25) if scheme == "dark" else (lum > 0.85), (name, scheme, lum)
        outline, thickness = focus_ring(chrome)
        assert outline not in ("none", "") and thickness >= 2, (name, outline, thickness)


@pytest.mark.slow
def test_screenshot_tour_of_every_page(server, chrome, tmp_path):  # noqa: F811
    """Every page at every width in both schemes, saved as PNGs to look at."""
    from selenium.webdriver.common.by import By

    url, data = server
    out = Path(os.environ.get("SCREENSHOT_DIR") or tmp_path / "screenshots")
    out.mkdir(parents=True, exist_ok=True)
    base = open_viewer(chrome, url)
    failures = []
    for scheme in SCHEMES:
        for width in WIDTHS:
            look(chrome, width, scheme)
            for name, path, text in pages(data):
                chrome.get(base + path)
                if text not in chrome.find_element(By.TAG_NAME, "body").text:
                    failures.append((name, width, scheme, "missing " + text))
                if overflow(chrome) > 0:
                    failures.append((name, width, scheme, f"{overflow(chrome)} px too wide"))
                height = chrome.execute_script("return document.documentElement.scrollHeight")
                chrome.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
                    "width": width, "height": min(max(900, height), 4000), "deviceScaleFactor": 1,
                    "mobile": width < 600})
                shot = out / f"{name}-{width}-{scheme}.png"
                assert chrome.save_screenshot(str(shot)) and shot.stat().st_size > 5_000
                look(chrome, width, scheme)
    assert not failures, failures


# ------------------------------------------------------------------ layout rules, measured

CLIPPED = """
// Elements whose box runs past the right edge of the window (or of the scroll box they are
// in, for the graph and <pre>, which scroll on their own): each one is text cut off.
var out = [], vw = document.documentElement.clientWidth;
document.querySelectorAll("main *").forEach(function (el) {
  if (el.closest("svg, .graph-wrap, pre, details:not([open]), .sr") || !el.getClientRects().length) return;
  var r = el.getBoundingClientRect();
  if (r.width && r.right > vw + 0.5)
    out.push(el.tagName + "#" + el.id + "." + el.className + " " + Math.round(r.right));
  var s = getComputedStyle(el);
  if ((s.overflowX === "hidden" || s.overflowX === "clip") && el.scrollWidth > el.clientWidth + 1
      && s.textOverflow !== "ellipsis" && !s.webkitLineClamp.match(/^\\d/))
    out.push("cut inside " + el.tagName + "." + el.className);
});
return out;
"""

LABELS = """
// The graph's drawn labels: their boxes on screen, and the SVG's.
var svg = document.getElementById("graph"), r = svg.getBoundingClientRect();
var boxes = Array.from(svg.querySelectorAll("text.label")).map(function (t) {
  var b = t.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom, t.textContent]; });
return {svg: [r.left, r.top, r.right, r.bottom], labels: boxes,
        edges: svg.querySelectorAll("line").length,
        edgeWidth: parseFloat(getComputedStyle(svg.querySelector("line")).strokeWidth)};
"""


def wait_for_health(chrome, base: str) -> None:
    import time

    from selenium.webdriver.common.by import By

    for _ in range(120):
        chrome.get(base + "/health")
        if not chrome.find_elements(By.ID, "health-checking"):
            return
        time.sleep(0.5)
    raise AssertionError("the Health check never finished")


def test_layout_rules_hold_at_every_width_in_both_schemes(server, chrome):  # noqa: F811
    """Measured in Chromium, not just rendered: nothing runs past the window at 390, 1024 or
    1440 px; the graph's labels never overlap each other and lie inside the drawing, its
    edges are drawn and thick enough to see; every filter shows its count; Health shows
    memories' texts in cards with one button each; the focus ring is blue, not an error's
    red or orange; View Context puts what was sent now first."""
    from selenium.webdriver.common.by import By

    url, data = server
    base = open_viewer(chrome, url)
    wait_for_health(chrome, base)
    for scheme in SCHEMES:
        for width in WIDTHS:
            look(chrome, width, scheme)
            where = (width, scheme)
            for path in ("/", "/graph?project=all", "/health", f"/requests/{data['request']}",
                         "/sessions", f"/node/{data['a'].id}", "/context"):
                chrome.get(base + path)
                assert overflow(chrome) <= 0, (path, where, overflow(chrome))
                assert chrome.execute_script(CLIPPED) == [], (path, where)

            chrome.get(base + "/graph?project=all")
            g = chrome.execute_script(LABELS)
            assert len(g["labels"]) >= 10 and g["edges"] >= 3 and g["edgeWidth"] >= 1.5, where
            sx0, sy0, sx1, sy1 = g["svg"]
            for i, (x0, y0, x1, y1, text) in enumerate(g["labels"]):
                assert sx0 - 0.5 <= x0 and x1 <= sx1 + 0.5 and sy0 - 0.5 <= y0 and y1 <= sy1 + 0.5, \
                    (text, where)
                for (a0, b0, a1, b1, other) in g["labels"][i + 1:]:
                    assert not (x0 < a1 - 0.5 and a0 < x1 - 0.5 and y0 < b1 - 0.5 and b0 < y1 - 0.5), \
                        (text, other, where)
            if width == 390:  # the drawing keeps a readable scale and scrolls in its own box
                font = chrome.execute_script(
                    "var t = document.querySelector('#graph text.label');"
                    "return t.getBoundingClientRect().height;")
                assert font >= 9, (font, where)

            chrome.get(base + "/")
            facets = chrome.find_element(By.CSS_SELECTOR, "details.facets")
            rows = facets.find_elements(By.CSS_SELECTOR, "li")
            assert rows and all(r.find_elements(By.CSS_SELECTOR, ".n") for r in rows), where
            assert chrome.find_element(By.ID, "no-tier-count").get_attribute("textContent").isdigit()
            for select in ("f-type", "f-tier", "f-project"):  # (no project select without projects)
                options = chrome.find_elements(By.CSS_SELECTOR, f"#{select} option")[1:]
                assert (options or select == "f-project") and all(o.get_attribute("textContent").rstrip().endswith(")")
                                       for o in options), (select, where)
            assert "picked for a prompt" in chrome.find_element(By.ID, "legend").text
            ring = chrome.execute_script(
                "var q = document.getElementById('q'); q.focus();"
                "return getComputedStyle(q).outlineColor.match(/\\d+/g).map(Number);")
            assert ring[2] > ring[0] + 40, (ring, where)  # blue, not red or orange

            chrome.get(base + "/health")
            cards = chrome.find_elements(By.CSS_SELECTOR, "#health-findings li.card.finding")
            assert cards, where
            for card in cards:
                assert len(card.find_elements(By.CSS_SELECTOR, "button")) == 1
                assert card.find_elements(By.CSS_SELECTOR, ".memories a.text"), card.text
                evidence = card.find_element(By.CSS_SELECTOR, ".evidence").text
                assert not re.search(r"\b[0-9A-HJKMNP-TV-Z]{26}\b", evidence), evidence

            chrome.get(f"{base}/requests/{data['request']}")
            groups = [g.get_attribute("id") for g in
                      chrome.find_elements(By.CSS_SELECTOR, "#view-context section.sent-group")]
            assert groups and groups == sorted(groups, key=["sent-now", "sent-earlier",
                                                            "sent-unsent"].index), where
