"""cue record without an X server: the loop against a scripted backend, prune, settings,
the atomic writer, the lock, and the refusal on platforms it does not support."""
from __future__ import annotations

import math
import os
import random
from pathlib import Path

import pytest
from cue_runner import run_cue
from PIL import Image, ImageDraw

from cue.core import config, paths
from cue.core.config import DEFAULT_EXCLUDE_APPS, DEFAULT_EXCLUDE_TITLES
from cue.core.errors import CueError, ExitCode
from cue.core.sizes import parse_size
from cue.inputs.events import TOPIC_INPUT, TOPIC_PAUSE, TOPIC_WINDOW, read_events
from cue.inputs.keyframes import list_keyframes
from cue.record import prune
from cue.record.backend import (
    CaptureBackend,
    CaptureUnavailable,
    Grab,
    Monitor,
    WindowInfo,
)
from cue.record.exclusions import Exclusions
from cue.record.loop import Recorder, RecordSettings
from cue.record.platform import detect
from cue.record.writer import RecorderLock, keyframe_path, recorder_running

T0 = 1_763_766_000.0  # 2025-11-21 23:00 UTC


# ---------------------------------------------------------------- a scripted backend

class FakeClock:
    """Time that only moves when the loop waits (so a 2-hour session runs in milliseconds)."""

    def __init__(self, start: float):
        self.now = start
        self.stopped = False

    def __call__(self) -> float:
        return self.now

    # the loop's stop event
    def is_set(self) -> bool:
        return self.stopped

    def wait(self, secs: float) -> bool:
        self.now += max(secs, 0.01)
        return self.stopped


class ScriptedBackend(CaptureBackend):
    """Screens, windows and input from a script keyed by time (seconds after T0)."""

    name = "fake"

    def __init__(self, clock: FakeClock, script, monitors: int = 1):
        self.clock = clock
        self.script = sorted(script, key=lambda s: s[0])  # (t, kind, value)
        self.n = monitors
        self.front = WindowInfo("Code", "main.py")
        self.visible: list[WindowInfo] = []
        self.screen = 0
        self.keys = 0
        self.input_paused = False
        self.changes: list[tuple[float, WindowInfo]] = []
        self.grabbed: list[float] = []

    def _advance(self) -> None:
        while self.script and T0 + self.script[0][0] <= self.clock():
            t, kind, value = self.script.pop(0)
            if kind == "window":
                self.front = value
                self.changes.append((T0 + t, value))
            elif kind == "screen":
                self.screen = value
            elif kind == "keys" and not self.input_paused and not self.excluded(self.front):
                self.keys += value
            elif kind == "visible":
                self.visible = value

    def start(self, excluded):
        self.excluded = excluded
        self.changes.append((self.clock(), self.front))

    def stop(self):
        pass

    def describe(self):
        return "fake"

    def monitors(self):
        return [Monitor(i + 1, 0, 0, 640, 400) for i in range(self.n)]

    def grab(self, monitor):
        self._advance()
        self.grabbed.append(self.clock())
        img = Image.new("RGB", (640, 400), "white")
        draw = ImageDraw.Draw(img)
        rng = random.Random(self.screen)  # each screen state: its own black blocks
        for _ in range(12 if self.screen else 0):
            x, y = rng.randrange(600), rng.randrange(360)
            draw.rectangle((x, y, x + rng.randrange(20, 120), y + rng.randrange(20, 120)),
                           fill="black")
        return Grab(img)

    def active_window(self):
        self._advance()
        return self.front

    def visible_windows(self):
        return self.visible

    def window_changes(self):
        self._advance()
        out, self.changes = self.changes, []
        return out

    def take_input_counts(self):
        self._advance()
        keys, self.keys = self.keys, 0
        return keys, 0

    def set_input_paused(self, paused):
        self.input_paused = paused


def settings(tmp_path: Path, **kw) -> RecordSettings:
    ex = Exclusions.from_settings(DEFAULT_EXCLUDE_APPS, DEFAULT_EXCLUDE_TITLES)
    base = {"keyframes": tmp_path / "keyframes", "events": tmp_path / "events",
            "home": tmp_path, "exclusions": ex, "interval": 2.0, "heartbeat": 30.0,
            "change_threshold": 6, "max_width": 320, "quality": 60}
    return RecordSettings(**{**base, **kw})


def record(tmp_path, script, secs, *, paused_at=(), monitors=1, **kw):
    clock = FakeClock(T0)
    backend = ScriptedBackend(clock, script, monitors)

    def is_paused():
        return any(T0 + a <= clock() < T0 + b for a, b in paused_at)

    rec = Recorder(backend, settings(tmp_path, **kw), is_paused=is_paused, clock=clock)
    rec.run(clock, until=T0 + secs)
    frames = list_keyframes(tmp_path / "keyframes", 0, 9e9)
    events = read_events(tmp_path / "events", 0, math.inf)
    return rec, backend, frames, events


def offsets(frames):
    return [round(f.ts - T0) for f in frames]


# ---------------------------------------------------------------- the loop

def test_only_changes_are_kept_and_idle_writes_nothing(tmp_path):
    _, backend, frames, events = record(
        tmp_path, [(20, "screen", 3), (41, "screen", 6)], secs=120)
    assert offsets(frames) == [0, 20, 42]  # first, then only when the screen moved
    # …although it looked every 2 s, and every 10 s after a minute without input
    assert [round(t - T0) for t in backend.grabbed] == [*range(0, 60, 2), *range(60, 120, 10)]
    assert [e.topic for e in events] == [TOPIC_WINDOW]


def test_activity_after_idle_brings_the_interval_back(tmp_path):
    _, backend, frames, _ = record(tmp_path, [(95, "keys", 4), (95, "screen", 2)], secs=110)
    grabbed = [round(t - T0) for t in backend.grabbed]
    back = next(t for t in grabbed if t > 90)
    assert 95 <= back <= 96, grabbed  # at once, not at the idle pace (100)
    assert grabbed[grabbed.index(back):] == list(range(back, 110, 2))
    assert back in offsets(frames)


def test_a_screen_that_keeps_changing_is_kept_when_it_settles(tmp_path):
    # the screen changes every 2 s from 11 s to 37 s (a scrolling log), then stays
    script = [(t, "screen", t) for t in range(11, 38, 2)]
    _, _, frames, _ = record(tmp_path, script, secs=60)
    assert offsets(frames) == [0, 12, 22, 32, 40]  # every min_gap (10 s), then settled


def test_heartbeat_only_while_active(tmp_path):
    # typing that barely changes the screen: a frame every 30 s while keys arrive (the one
    # at 90 shows the end of the typing), then none while idle
    script = [(t, "keys", 3) for t in range(1, 70)]
    _, _, frames, events = record(tmp_path, script, secs=180)
    assert offsets(frames) == [0, 30, 60, 90]
    assert sum(e.data["keys"] for e in events if e.topic == TOPIC_INPUT) == 69 * 3


def test_window_change_makes_a_keyframe_and_an_event(tmp_path):
    script = [(10, "window", WindowInfo("Firefox", "Docs — Mozilla Firefox"))]
    _, _, frames, events = record(tmp_path, script, secs=20)
    assert offsets(frames) == [0, 10]
    assert [(e.data["app"], e.data["title"]) for e in events if e.topic == TOPIC_WINDOW] == [
        ("Code", "main.py"), ("Firefox", "Docs — Mozilla Firefox")]


def test_excluded_front_or_visible_window_takes_no_screenshot(tmp_path):
    vault = WindowInfo("KeePassXC", "Passwords.kdbx", "keepassxc")
    private = WindowInfo("firefox", "New Private Tab — Mozilla Firefox Private Browsing")
    script = [(10, "window", vault), (10, "keys", 12), (20, "window", WindowInfo("Code", "a.py")),
              (30, "visible", [private]), (30, "screen", 4), (40, "visible", []),
              (50, "window", private)]
    _, backend, frames, events = record(tmp_path, script, secs=60)
    grabbed = [round(t - T0) for t in backend.grabbed]
    assert not [t for t in grabbed if 10 <= t < 20 or 30 <= t < 40 or t >= 50]
    assert offsets(frames) == [0, 20, 40]
    wins = [(e.data["app"], e.data["title"]) for e in events if e.topic == TOPIC_WINDOW]
    assert wins == [("Code", "main.py"), ("[excluded]", "[excluded]"), ("Code", "a.py"),
                    ("[excluded]", "[excluded]")]
    assert not [e for e in events if e.topic == TOPIC_INPUT]  # typing into the vault: not counted


def test_pause_writes_nothing_between_the_pause_events(tmp_path):
    script = [(15, "window", WindowInfo("Slack", "secret channel")), (16, "keys", 5),
              (17, "screen", 5), (25, "window", WindowInfo("Code", "b.py"))]
    _, backend, frames, events = record(tmp_path, script, secs=40, paused_at=[(10, 30)])
    pauses = [(round(e.ts - T0), e.data["state"]) for e in events if e.topic == TOPIC_PAUSE]
    assert pauses == [(10, "paused"), (30, "resumed")]
    assert not [e for e in events if 10 < e.ts - T0 < 30 and e.topic != TOPIC_PAUSE]
    assert not [t for t in backend.grabbed if 10 <= t - T0 < 30]
    assert "secret channel" not in repr(events)
    assert offsets(frames) == [0, 30]  # the screen after resuming is news
    after = [e for e in events if e.topic == TOPIC_WINDOW and e.ts - T0 >= 30]
    assert after[0].data == {"app": "Code", "title": "b.py"}


def test_several_monitors_get_display_prefixes(tmp_path):
    _, _, frames, _ = record(tmp_path, [], secs=1, monitors=2)
    names = sorted(f.path.name for f in frames)
    assert [n.split("-")[0] for n in names] == ["display1", "display2"]
    assert all(f.ts == pytest.approx(T0, abs=0.01) for f in frames)


def test_a_new_event_file_each_hour_restates_the_window(tmp_path):
    script = [(3590, "keys", 1), (3605, "keys", 2)]
    _, _, _, _ = record(tmp_path, script, secs=3700, interval=600.0)
    files = sorted((tmp_path / "events").glob("*.mcap"))
    assert len(files) == 2
    second = read_events(files[1], 0, math.inf)
    assert second[0].topic == TOPIC_WINDOW and second[0].data["app"] == "Code"


def test_keyframes_are_downscaled_jpeg_and_private(tmp_path):
    _, _, frames, _ = record(tmp_path, [], secs=1, max_width=320)
    with Image.open(frames[0].path) as img:
        assert img.format == "JPEG" and img.size == (320, 200)
    assert frames[0].path.parent.name.count("-") == 2  # a day folder
    assert os.stat(frames[0].path).st_mode & 0o777 == 0o600
    assert os.stat(frames[0].path.parent).st_mode & 0o777 == 0o700


# ---------------------------------------------------------------- exclusions

@pytest.mark.parametrize("window,excluded", [
    (WindowInfo("KeePassXC", "db.kdbx"), True),
    (WindowInfo("Firefox", "x", "keepassxc"), True),
    (WindowInfo("1password", "Vault"), True),
    (WindowInfo("firefox", "Mozilla Firefox Private Browsing"), True),
    (WindowInfo("Google-chrome", "New Tab - Google Chrome (Incognito)"), True),
    (WindowInfo("Microsoft-edge", "[InPrivate] Bing"), True),
    (WindowInfo("Code", "change password — settings"), True),
    (WindowInfo("Code", "private_key_loader.py — cue"), False),
    (WindowInfo("XTerm", "vim main.py"), False),
    (WindowInfo("XTerm", "비밀번호 변경 — 은행"), True),
    # decomposed Hangul (a title built from an NFD file name) and full-width letters
    (WindowInfo("XTerm", "\u1107\u1175\u1106\u1175\u11af\u1107\u1165\u11ab\u1112\u1169"), True),
    (WindowInfo("XTerm", "ｐａｓｓｗｏｒｄ reset"), True),
    (WindowInfo("ＫｅｅＰａｓｓＸＣ", "db"), True),
    # a window manager may show WM_NAME where _NET_WM_NAME differs
    (WindowInfo("XTerm", "vim", other_titles=("パスワード 設定",)), True),
    # a title cue could not decode is excluded whatever its legible part says
    (WindowInfo("XTerm", "ab\ufffd\ufffd", exact=False), True),
])
def test_default_exclusions(window, excluded):
    ex = Exclusions.from_settings(DEFAULT_EXCLUDE_APPS, DEFAULT_EXCLUDE_TITLES)
    assert ex.excludes(window) is excluded


def test_exclude_undecodable_is_a_setting(tmp_path):
    from cue.record.loop import record_settings

    on = record_settings(config.load(tmp_path / "none.toml", env={})).exclusions
    off = record_settings(config.load(tmp_path / "none.toml", env={}).replace(
        record__exclude_undecodable=False)).exclusions
    garbled = WindowInfo("XTerm", "notes \ufffd", exact=False)
    assert on.excludes(garbled) and not off.excludes(garbled)


def test_undecodable_titles_can_be_let_through_and_still_match_their_legible_text():
    ex = Exclusions.from_settings(DEFAULT_EXCLUDE_APPS, DEFAULT_EXCLUDE_TITLES, undecodable=False)
    assert not ex.excludes(WindowInfo("XTerm", "notes \ufffd", exact=False))
    assert ex.excludes(WindowInfo("XTerm", "password \ufffd", exact=False))


# ---------------------------------------------------------------- names, lock

def test_keyframe_names_follow_the_contract(tmp_path):
    from cue.inputs.keyframes import capture_time_from_name

    one = keyframe_path(tmp_path, T0 + 0.25, 1, 1)
    two = keyframe_path(tmp_path, T0 + 0.25, 2, 3)
    assert one.name == "1763766000250.jpg" and two.name == "display2-1763766000250.jpg"
    assert capture_time_from_name(two.name) == pytest.approx(T0 + 0.25)


def test_one_recorder_per_home(tmp_path):
    first = RecorderLock(tmp_path)
    first.acquire()
    try:
        assert recorder_running(tmp_path) == os.getpid()
        with pytest.raises(CueError, match="already running"):
            RecorderLock(tmp_path).acquire()
    finally:
        first.release()
    assert recorder_running(tmp_path) is None


# ---------------------------------------------------------------- platforms

@pytest.mark.parametrize("platform,env,says", [
    ("darwin", {"DISPLAY": ":0"}, "macOS"),
    ("win32", {}, "Windows"),
    ("linux", {"XDG_SESSION_TYPE": "wayland", "WAYLAND_DISPLAY": "wayland-0",
               "DISPLAY": ":0"}, "Wayland"),
    ("linux", {}, "DISPLAY is not set"),
])
def test_unsupported_platforms_are_refused_with_the_way_out(platform, env, says):
    with pytest.raises(CaptureUnavailable) as exc:
        detect(env, platform)
    msg = str(exc.value)
    assert says in msg and "Linux with an X11 session" in msg and "Input contract" in msg


def test_cue_record_without_a_display_is_one_error_line(monkeypatch, capsysbinary):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setenv("XDG_SESSION_TYPE", "tty")
    code, out, err = run_cue(monkeypatch, capsysbinary, "record", "--for", "1s")
    assert code == int(CaptureUnavailable.exit_code) != 0
    assert out == "" and err.count("\n") == 1 and err.startswith("Error: no X display")
    assert not (paths.home() / "recorder.lock").exists()


# ---------------------------------------------------------------- settings

@pytest.mark.parametrize("key,value", [
    ("record.interval", "0"), ("record.quality", "100"), ("record.max_width", "10"),
    ("record.change_threshold", "300"), ("record.keep", "10m"), ("record.keep", "forever"),
    ("record.max_disk", "1KB"), ("record.max_disk", "lots"), ("record.exclude_titles", "(")])
def test_bad_record_settings_are_refused(monkeypatch, capsysbinary, key, value):
    code, out, err = run_cue(monkeypatch, capsysbinary, "config", "set", key, value)
    assert code == ExitCode.ERROR and out == ""
    assert err.startswith("Error: ") and key in err and err.count("\n") == 1


def test_record_settings_round_trip(monkeypatch, capsysbinary):
    code, _, err = run_cue(monkeypatch, capsysbinary, "config", "set", "record.max_disk",
                           "500MB")
    assert code == 0, err
    cfg = config.load()
    assert cfg["record.max_disk"] == "500MB" and cfg["record.keep"] == "7d"
    assert parse_size(cfg["record.max_disk"]) == 500 * 10**6


def test_parse_size():
    assert parse_size("2GB") == 2 * 10**9
    assert parse_size("1.5 GiB") == int(1.5 * 2**30)
    assert parse_size("1048576") == 2**20
    with pytest.raises(CueError):
        parse_size("2 parsecs")


# ---------------------------------------------------------------- prune

def _capture_home(now: float) -> dict[str, Path]:
    """Keyframes 10 days old, 2 days old and fresh; an old and a fresh event log; a stale
    temp file; and the things prune must never touch."""
    home = paths.ensure_home()
    k, e = paths.keyframes_dir(), paths.events_dir()
    made = {}
    for name, age, size in (("old", 10 * 86400, 1000), ("mid", 2 * 86400, 4000),
                            ("new", 60, 4000)):
        p = keyframe_path(k, now - age, 1, 1)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(b"x" * size)
        made[name] = p
    e.mkdir(parents=True, exist_ok=True)
    for name, age in (("log_old", 9 * 86400), ("log_new", 30)):
        p = e / f"{name}.mcap"
        p.write_bytes(b"y" * 500)
        os.utime(p, (now - age, now - age))
        made[name] = p
    tmp = made["new"].parent / ".1763766000000.jpg.1.tmp"
    tmp.write_bytes(b"z" * 10)
    os.utime(tmp, (now - 7200, now - 7200))
    made["tmp"] = tmp
    for keep in ("digest.md", "memory.md", "privacy.log", "cue.db"):
        (home / keep).write_text("keep me")
        made[keep] = home / keep
    return made


def test_prune_by_age_then_budget_oldest_first(monkeypatch, capsysbinary):
    import time as _time

    now = _time.time()
    made = _capture_home(now)
    code, out, err = run_cue(monkeypatch, capsysbinary, "prune", "--dry-run", "--format",
                             "json", now=now)
    assert code == 0, err
    import json

    plan = json.loads(out)
    gone = {Path(r["path"]).name: r["why"] for r in plan["remove"]}
    assert gone == {made["old"].name: "older than record.keep",
                    made["log_old"].name: "older than record.keep",
                    made["tmp"].name: "unfinished temp file"}
    assert all(p.exists() for p in made.values())  # --dry-run removed nothing

    monkeypatch.setenv("CUE_RECORD_MAX_DISK", "10MB")
    for p in (made["mid"], made["new"]):  # make the fresh ones big enough to pass 10 MB
        p.write_bytes(b"x" * 6_000_000)
    code, out, err = run_cue(monkeypatch, capsysbinary, "prune", now=now)
    assert code == 0, err
    assert not made["old"].exists() and not made["log_old"].exists()
    assert not made["tmp"].exists()
    assert not made["mid"].exists()  # over budget: the oldest left goes first
    assert made["new"].exists() and made["log_new"].exists()
    for keep in ("digest.md", "memory.md", "privacy.log", "cue.db"):
        assert made[keep].read_text() == "keep me"
    assert "Removed 4 files" in out


def test_prune_spares_the_log_a_recorder_has_open(tmp_path):
    import time as _time

    now = _time.time()
    log = tmp_path / "events" / "open.mcap"
    log.parent.mkdir()
    log.write_bytes(b"y" * 100)
    os.utime(log, (now - 30 * 86400,) * 2)
    p = prune.plan([tmp_path / "events"], keep_secs=86400, max_bytes=1, now=now, protect=[log])
    assert p.remove == []


def test_status_tells_whether_a_recorder_runs_and_the_disk_use(monkeypatch, capsysbinary):
    import json
    import time as _time

    now = _time.time()
    _capture_home(now)["cue.db"].unlink()  # (a "keep me" text file is no database)
    code, out, err = run_cue(monkeypatch, capsysbinary, "status", now=now)
    assert code == 0, err
    assert "Recorder: not running (start it with `cue record`)" in out
    assert "capture files 10.0 KB of 2.0 GB (0 %) (record.max_disk), kept 7d" in out
    lock = RecorderLock(paths.home())
    lock.acquire()
    try:
        code, out, _ = run_cue(monkeypatch, capsysbinary, "status", "--format", "json", now=now)
    finally:
        lock.release()
    rec = json.loads(out)["recorder"]
    assert rec["running"] is True and rec["pid"] == os.getpid()
    assert rec["disk_bytes"] == 1000 + 4000 + 4000 + 500 + 500 + 10


def test_starting_while_paused_logs_the_pause_and_captures_nothing(tmp_path):
    _, backend, frames, events = record(tmp_path, [], secs=10, paused_at=[(0, 5)])
    assert [(round(e.ts - T0), e.topic) for e in events] == [
        (0, TOPIC_PAUSE), (5, TOPIC_PAUSE), (5, TOPIC_WINDOW)]
    assert min(backend.grabbed) - T0 >= 5 and offsets(frames) == [5]
