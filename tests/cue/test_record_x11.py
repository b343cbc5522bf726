"""`cue record` against a real X server: Xvfb (2560×1600) + openbox + real xterm windows,
driven by xdotool. One scripted session (≈20 s) runs once for the module; each test checks
one promise against what it left in CUE_HOME.

Script: idle → typing in `alpha` → alpha's title changed → switch to `beta` → a window of
class KeePassXC (a password manager) comes up, is typed into, goes away → `cue pause`,
typing and a title change while paused, back to alpha → `cue resume` → SIGTERM.
"""
from __future__ import annotations

import json
import math
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cue.inputs.events import TOPIC_INPUT, TOPIC_PAUSE, TOPIC_WINDOW, read_events
from cue.inputs.keyframes import list_keyframes

TOOLS = ("Xvfb", "openbox", "xdotool", "xterm")
MISSING = [t for t in TOOLS if shutil.which(t) is None]
pytestmark = pytest.mark.skipif(
    bool(MISSING), reason=f"needs {', '.join(MISSING)} (Debian packages xvfb openbox xdotool "
    "xterm; `make test` installs them as root: scripts/system-packages.sh)")

CUE = str(Path(sys.executable).parent / "cue")
TYPED = "hunter2 swordfish"       # typed into alpha: must never be in any file
VAULT_TYPED = "vaultpass"         # typed into the password manager
PAUSED_TYPED = "whilepaused"      # typed while paused
PAUSED_TITLE = "pausedtitle"      # a title set while paused


class Session:
    """What the scripted session did, and when (unix seconds, same clock as the recorder)."""

    def __init__(self, home: Path):
        self.home = home
        self.marks: dict[str, float] = {}
        self.returncode: int | None = None
        self.stdout = ""
        self.stderr = ""

    def mark(self, name: str) -> float:
        self.marks[name] = time.time()
        return self.marks[name]

    def events(self):
        return read_events(self.home / "events", 0, math.inf)

    def frames(self):
        return list_keyframes(self.home / "keyframes", 0, 9_999_999_999.0)

    def between(self, items, a: str, b: str):
        return [x for x in items if self.marks[a] <= x.ts <= self.marks[b]]


def _x(env, *args, check=True):
    return subprocess.run(["xdotool", *args], env=env, capture_output=True, text=True,
                          timeout=15, check=check).stdout.strip()


def _wait_for(pred, timeout=10.0, what="condition"):
    end = time.time() + timeout
    while time.time() < end:
        if pred():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def _start_xvfb(tmp: Path) -> tuple[subprocess.Popen, str]:
    r, w = os.pipe()
    proc = subprocess.Popen(["Xvfb", "-displayfd", str(w), "-screen", "0", "2560x1600x24",
                             "-nolisten", "tcp"], pass_fds=(w,), stdout=subprocess.DEVNULL,
                            stderr=open(tmp / "xvfb.log", "wb"))  # noqa: SIM115
    os.close(w)
    with os.fdopen(r) as fh:
        number = fh.readline().strip()
    if not number:
        proc.kill()
        pytest.fail(f"Xvfb did not start: {(tmp / 'xvfb.log').read_text()[-500:]}")
    return proc, f":{number}"


def _xterm(env, title: str, *extra: str) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(["xterm", "-T", title, "-geometry", "100x30", *extra, "-e",
                             "sh", "-c", "stty -echo 2>/dev/null; exec cat >/dev/null"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wid = _x(env, "search", "--sync", "--onlyvisible", "--name", f"^{title}$").splitlines()[0]
    return proc, wid


def _wm_running(env) -> bool:
    """openbox has claimed the screen (xprop from x11-utils; without it, assume so)."""
    if shutil.which("xprop") is None:
        time.sleep(0.5)
        return True
    out = subprocess.run(["xprop", "-root", "_NET_SUPPORTING_WM_CHECK"], env=env,
                         capture_output=True, text=True, check=False).stdout
    return "window id" in out


def _activate(env, wid: str) -> None:
    _x(env, "windowactivate", "--sync", wid, check=False)


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("record-x11")
    home = tmp / "cue"
    xvfb, display = _start_xvfb(tmp)
    procs: list[subprocess.Popen] = []
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp),
           "DISPLAY": display, "CUE_HOME": str(home), "LANG": "C.UTF-8",
           "CUE_RECORD_INTERVAL": "0.5", "CUE_RECORD_HEARTBEAT": "0"}
    s = Session(home)
    rec = None
    try:
        procs.append(subprocess.Popen(["openbox"], env=env, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL))
        _wait_for(lambda: _wm_running(env), what="openbox")
        p, alpha = _xterm(env, "alpha")
        procs.append(p)
        p, beta = _xterm(env, "beta")
        procs.append(p)
        _activate(env, alpha)

        rec = subprocess.Popen([CUE, "record", "--format", "json"], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        _wait_for(lambda: s.frames() if (home / "keyframes").is_dir() else False,
                  timeout=60, what="the first keyframe")

        def logged(pred, what):  # wait for the recorder to log something (it flushes each second)
            since = time.time() - 0.5
            _wait_for(lambda: any(pred(e) for e in s.events() if e.ts >= since - 30),
                      timeout=20, what=what)
        time.sleep(0.8)  # let the first grabs settle
        s.status_running = json.loads(subprocess.run(
            [CUE, "status", "--format", "json"], env=env, capture_output=True, text=True,
            timeout=20, check=True).stdout)["recorder"]

        s.mark("idle0")
        time.sleep(2.5)
        s.mark("idle1")

        s.mark("type0")
        _x(env, "type", "--delay", "30", TYPED)
        _wait_for(lambda: _keys(e for e in s.events() if e.ts >= s.marks["type0"])
                  >= len(TYPED), timeout=20, what="the typing to be counted")
        time.sleep(0.2)
        s.mark("type1")

        _x(env, "set_window", "--name", "alpha renamed", alpha)
        logged(lambda e: e.data.get("title") == "alpha renamed", "the title change")
        s.mark("switch")
        _activate(env, beta)
        logged(lambda e: e.ts >= s.marks["switch"] and e.data.get("title") == "beta", "beta")
        _wait_for(lambda: [f for f in s.frames() if f.ts >= s.marks["switch"]], timeout=20,
                  what="a keyframe after the switch")

        p, vault = _xterm(env, "vault", "-class", "KeePassXC")
        _activate(env, vault)
        logged(lambda e: e.data.get("app") == "[excluded]", "the [excluded] event")
        s.mark("vault0")
        _x(env, "type", "--delay", "30", VAULT_TYPED)
        time.sleep(1.5)
        s.mark("vault1")
        p.kill()
        p.wait()
        _activate(env, alpha)
        logged(lambda e: e.ts >= s.marks["vault1"] and e.data.get("title") == "alpha renamed",
               "back to alpha")

        subprocess.run([CUE, "pause"], env=env, check=True, capture_output=True, timeout=20)
        logged(lambda e: e.data.get("state") == "paused", "the pause event")
        s.mark("paused0")
        _activate(env, beta)
        _x(env, "set_window", "--name", PAUSED_TITLE, beta)
        _x(env, "type", "--delay", "30", PAUSED_TYPED)
        _x(env, "set_window", "--name", "beta", beta)
        _activate(env, alpha)
        time.sleep(0.6)
        s.mark("paused1")
        subprocess.run([CUE, "resume"], env=env, check=True, capture_output=True, timeout=20)
        logged(lambda e: e.data.get("state") == "resumed", "the resume event")
        time.sleep(0.5)

        s.mark("term")
        rec.send_signal(signal.SIGTERM)
        try:
            out, err = rec.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            rec.kill()
            out, err = rec.communicate()
        s.returncode, s.stdout, s.stderr = rec.returncode, out.decode(), err.decode()
        s.mark("end")
        yield s
    finally:
        if rec is not None and rec.poll() is None:
            rec.kill()
            rec.wait()
        for p in reversed(procs):
            p.kill()
            p.wait()
        xvfb.terminate()
        xvfb.wait()


def _window_news(events):
    """The window events that change the window: each new hourly file restates the current
    window first (a session that crosses the hour logs it twice), which is not news."""
    news, last = [], None
    for e in events:
        if e.topic == TOPIC_WINDOW:
            shown = (e.data["app"], e.data["title"])
            if shown != last:
                news.append(e)
            last = shown
    return news


def _windows(events):
    return [(e.data["app"], e.data["title"]) for e in _window_news(events)]


def _keys(events):
    return sum(e.data["keys"] for e in events if e.topic == TOPIC_INPUT)


def test_sigterm_exits_0_and_leaves_a_finished_mcap(session):
    assert session.returncode == 0, session.stderr
    summary = json.loads(session.stdout)
    assert summary["keyframes"] >= 3 and summary["events"] >= 5
    files = sorted((session.home / "events").glob("*.mcap"))
    assert files
    for f in files:
        assert f.read_bytes().endswith(b"\x89MCAP0\r\n")  # finish() wrote the footer
    notes: list[str] = []
    assert read_events(session.home / "events", 0, math.inf, notes=notes)
    assert notes == []  # read through the index, nothing recovered
    status = json.loads((session.home / "recorder.json").read_text())
    assert status["running"] is False
    assert lock_pid_gone(session.home)


def lock_pid_gone(home: Path) -> bool:
    from cue.record.writer import recorder_running

    return recorder_running(home) is None


def test_status_shows_the_running_recorder(session):
    rec = session.status_running
    assert rec["running"] is True and rec["pid"] > 0
    assert rec["last_frame"] and rec["disk_bytes"] > 0 and rec["max_disk_bytes"] == 2 * 10**9


def test_window_switches_and_title_changes_are_logged(session):
    # ("(none)" may show between two windows if focus takes over 0.4 s to move under load)
    wins = [w for w in _windows(session.events()) if w[0] != "(none)"]
    assert ("XTerm", "alpha") in wins
    assert ("XTerm", "alpha renamed") in wins  # PropertyNotify on WM_NAME (xterm has no _NET_WM_NAME)
    after = [w for w in _windows([e for e in _window_news(session.events())
                                  if e.ts >= session.marks["switch"]]) if w[0] != "(none)"]
    assert after[0] == ("XTerm", "beta")
    i = wins.index(("XTerm", "alpha renamed"))
    assert wins[i - 1] == ("XTerm", "alpha") and wins[i + 1] == ("XTerm", "beta")


def test_typing_is_counted(session):
    typed = session.between(session.events(), "type0", "type1")
    assert _keys(typed) >= len(TYPED)  # xdotool may add modifier presses, never fewer
    assert all(set(e.data) == {"keys", "clicks"} for e in typed if e.topic == TOPIC_INPUT)


def _everything(home: Path) -> bytes:
    """Every byte under CUE_HOME, plus every MCAP message payload decompressed."""
    from mcap.records import Message, Schema
    from mcap.stream_reader import StreamReader

    blob = []
    for path in home.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            blob.append(data)
            if path.suffix == ".mcap":
                with open(path, "rb") as fh:
                    for rec in StreamReader(fh).records:
                        if isinstance(rec, Message | Schema):
                            blob.append(bytes(rec.data))
    return b"\n".join(blob)


def test_no_key_identities_anywhere(session):
    blob = _everything(session.home).lower()
    for secret in (TYPED, "hunter2", "swordfish", VAULT_TYPED, PAUSED_TYPED):
        assert secret.encode() not in blob, secret
    # the decompressed payloads really are in the blob (so the check can fail)
    assert b'"keys":' in blob and b"alpha renamed" in blob


def test_unchanged_screen_writes_no_keyframes(session):
    frames = session.frames()
    assert frames, "nothing recorded at all"
    assert session.between(frames, "idle0", "idle1") == []
    # …while the screen changes do: typing shows on screen, switching windows too
    assert [f for f in frames if session.marks["switch"] <= f.ts <= session.marks["vault0"]]


def test_excluded_window_is_never_captured(session):
    events = session.events()
    wins = _windows(events)
    assert ("[excluded]", "[excluded]") in wins
    assert not any("KeePassXC" in a or t == "vault" for a, t in wins)
    assert session.between(session.frames(), "vault0", "vault1") == []
    assert _keys(session.between(events, "vault0", "vault1")) == 0  # not even counted


def test_pause_stops_everything(session):
    events = session.events()
    pauses = [(e.ts, e.data["state"]) for e in events if e.topic == TOPIC_PAUSE]
    assert [state for _, state in pauses] == ["paused", "resumed"]
    (p0, _), (p1, _) = pauses
    assert p0 <= session.marks["paused0"] and p1 >= session.marks["paused1"]
    inside = [e for e in events if p0 < e.ts < p1]
    assert inside == []
    assert [f for f in session.frames() if p0 <= f.ts <= p1] == []
    assert PAUSED_TITLE.encode() not in _everything(session.home)
    # after resuming, the foreground is restated
    after = [e for e in events if e.ts >= p1 and e.topic == TOPIC_WINDOW]
    assert after and (after[0].data["app"], after[0].data["title"]) == ("XTerm", "alpha renamed")


def test_files_are_private(session):
    for path in [session.home, *session.home.rglob("*")]:
        mode = path.stat().st_mode & 0o777
        if path.is_dir():
            assert mode == 0o700, path
        else:
            assert mode & 0o077 == 0, (path, oct(mode))


REPLY = "The user typed in a terminal, renamed it and switched windows."


def test_cue_digest_reads_the_recording(session, cloud, monkeypatch):
    env = {**os.environ, "CUE_HOME": str(session.home)}
    end = session.marks["end"] + 1
    since = str(round(end - session.marks["idle0"] + 30))
    proc = subprocess.run([CUE, "digest", "--since", since, "--end", str(end), "--format",
                           "json"], env=env, capture_output=True, text=True, timeout=120,
                          check=False)
    assert proc.returncode == 0, proc.stderr
    record = json.loads(proc.stdout)
    assert REPLY in json.dumps(record)
    assert cloud.count == 1
    body = cloud.requests[0]["body"]
    images = [b for m in body["messages"] for b in m["content"] if isinstance(b, dict)
              and b.get("type") == "image"]
    assert images


def test_losing_the_x_server_finishes_the_log_and_exits_5(tmp_path):
    xvfb, display = _start_xvfb(tmp_path)
    home = tmp_path / "cue"
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path),
           "DISPLAY": display, "CUE_HOME": str(home), "CUE_RECORD_INTERVAL": "0.5"}
    rec = subprocess.Popen([CUE, "record"], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
    try:
        _wait_for(lambda: (home / "recorder.json").exists(), timeout=60, what="the recorder")
    finally:
        xvfb.kill()
        xvfb.wait()
    _, err = rec.communicate(timeout=30)
    assert rec.returncode == 5, err
    lines = err.decode().strip().splitlines()
    assert lines[-1].startswith("Error: lost the X display") and "Traceback" not in err.decode()
    files = list((home / "events").glob("*.mcap"))
    assert files and all(f.read_bytes().endswith(b"\x89MCAP0\r\n") for f in files)



def test_a_grab_that_fails_on_a_dead_server_is_a_lost_display_and_on_a_live_one_a_bug(tmp_path):
    """mss 10's XCB backend reports a closed connection as a bare AssertionError (a NULL
    reply); the recorder took it for a crash (exit 1, a traceback) when the server went away
    between two grabs. It is a lost display only if the server is gone; otherwise it stays a bug."""
    from cue.record.backend import CaptureUnavailable
    from cue.record.x11 import X11Backend

    xvfb, display = _start_xvfb(tmp_path)
    backend = X11Backend(display)
    backend.start(lambda w: False)
    try:
        mon = backend.monitors()[0]

        def null_reply(_monitor):
            raise AssertionError

        backend._mss.grab = null_reply
        with pytest.raises(AssertionError):  # the server answers: not ours to hide
            backend.grab(mon)
        xvfb.kill()
        xvfb.wait()
        with pytest.raises(CaptureUnavailable, match="lost the X display"):
            backend.grab(mon)
    finally:
        if xvfb.poll() is None:
            xvfb.kill()
            xvfb.wait()
        backend.stop()


def _change_root_until_gone(display: str) -> None:
    from Xlib import X, Xatom, error
    from Xlib import display as xdisplay

    d = xdisplay.Display(display)
    atom = d.intern_atom("CUE_TEST_TICK")
    root = d.screen().root
    try:
        for i in range(1_000_000):
            root.change_property(atom, Xatom.STRING, 8, str(i).encode(), X.PropModeReplace)
            d.flush()
    except (error.ConnectionClosedError, OSError):
        return


def test_the_window_watcher_ends_quietly_when_the_server_goes(tmp_path):
    """The window-watching thread can meet the lost connection in any call (pending_events(),
    select(), a property read); it ends without a traceback on stderr — the main thread's next
    read is what reports the lost display (exit 5). CI once saw a thread's traceback here."""
    import threading

    from Xlib import display as xdisplay

    from cue.record.x11 import NO_WINDOW, X11Backend

    xvfb, display = _start_xvfb(tmp_path)  # gone before the thread's first read
    d = xdisplay.Display(display)
    xvfb.kill()
    xvfb.wait()
    X11Backend(display)._watch(d, NO_WINDOW)  # returns: no exception out of the thread

    seen: list = []
    old = threading.excepthook
    threading.excepthook = seen.append
    try:
        for _ in range(2):  # the server gone between events, while a client keeps changing
            xvfb, display = _start_xvfb(tmp_path)  # root properties (each one an event)
            backend = X11Backend(display)
            backend.start(lambda w: False)
            (watcher,) = [t for t in backend._threads if t.name == "cue-x11-windows"]
            spam = threading.Thread(target=_change_root_until_gone, args=(display,), daemon=True)
            spam.start()
            time.sleep(0.3)
            xvfb.kill()
            xvfb.wait()
            spam.join(timeout=10)
            watcher.join(timeout=10)
            assert not watcher.is_alive()
            backend.stop()
    finally:
        threading.excepthook = old
    assert seen == [], [(a.exc_type, a.exc_value) for a in seen]


# ---------------------------------------------------------------- titles in every encoding
# Each title is set the ways real clients set it: xprop's COMPOUND_TEXT (`8t`, what xterm and
# Xlib's XmbTextListToTextProperty write), STRING holding raw UTF-8 (`8s`), UTF8_STRING on
# WM_NAME (`8u`) and on _NET_WM_NAME, and `xdotool set_window --name` (STRING on both).
TITLES = {"korean": "회의록 정리 — 팀 채널", "japanese": "議事録 — 東京オフィス",
          "emoji": "🚀 launch notes 🎉", "em-dash": "billing-api — vim"}
WAYS = ("8t", "8s", "8u", "net-8u", "xdotool")
SECRET = "비밀번호 변경 — 은행"  # 비밀번호 (password) is in the default record.exclude_titles


def _set_title(env, wid: str, way: str, title: str) -> None:
    subprocess.run(["xprop", "-id", wid, "-remove", "_NET_WM_NAME"], env=env, check=False,
                   capture_output=True, timeout=15)
    if way == "xdotool":
        _x(env, "set_window", "--name", title, wid)
        return
    prop = "_NET_WM_NAME" if way == "net-8u" else "WM_NAME"
    fmt = "8u" if way == "net-8u" else way
    subprocess.run(["xprop", "-id", wid, "-f", prop, fmt, "-set", prop, title], env=env,
                   check=True, capture_output=True, timeout=15)
    if way == "net-8u":  # WM_NAME differs: the window shows _NET_WM_NAME
        subprocess.run(["xprop", "-id", wid, "-f", "WM_NAME", "8s", "-set", "WM_NAME", "x"],
                       env=env, check=True, capture_output=True, timeout=15)


def _set_raw(display: str, wid: str, prop: str, type_: str, data: bytes) -> None:
    """Bytes no xprop call writes (an undecodable COMPOUND_TEXT), set with python-xlib."""
    from Xlib import X
    from Xlib import display as xdisplay

    d = xdisplay.Display(display)
    try:
        win = d.create_resource_object("window", int(wid))
        win.change_property(d.intern_atom(prop), d.intern_atom(type_), 8, data, X.PropModeReplace)
        d.sync()
    finally:
        d.close()


@pytest.fixture(scope="module")
def desktop(tmp_path_factory):
    """Xvfb + openbox + one xterm, for reading titles back through cue's X11 backend."""
    if shutil.which("xprop") is None:
        pytest.skip("needs xprop (Debian package x11-utils)")
    tmp = tmp_path_factory.mktemp("x11-titles")
    xvfb, display = _start_xvfb(tmp)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp),
           "DISPLAY": display, "LANG": "C.UTF-8"}
    procs = []
    try:
        procs.append(subprocess.Popen(["openbox"], env=env, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL))
        _wait_for(lambda: _wm_running(env), what="openbox")
        p, wid = _xterm(env, "plain")
        procs.append(p)
        _activate(env, wid)
        yield env, display, wid
    finally:
        for p in reversed(procs):
            p.kill()
            p.wait()
        xvfb.terminate()
        xvfb.wait()


def _front(display: str):
    from cue.record.x11 import X11Backend

    backend = X11Backend(display)
    backend.start(lambda w: False)
    try:
        return backend.active_window()
    finally:
        backend.stop()


@pytest.mark.parametrize("way", WAYS)
def test_titles_are_decoded_by_property_type(desktop, way):
    env, display, wid = desktop
    seen = {}
    for name, title in TITLES.items():
        _set_title(env, wid, way, title)
        front = _front(display)
        seen[name] = (front.app, front.title, front.exact)
    assert seen == {name: ("XTerm", title, True) for name, title in TITLES.items()}


@pytest.mark.parametrize("fmt", ["8t", "8s", "8u"])
def test_class_is_decoded_by_property_type(desktop, fmt):
    env, display, wid = desktop
    try:
        subprocess.run(["xprop", "-id", wid, "-f", "WM_CLASS", fmt, "-set", "WM_CLASS", "메모장 — ✓"],
                       env=env, check=True, capture_output=True, timeout=15)
        front = _front(display)
        assert (front.app, front.instance, front.exact) == ("메모장 — ✓", "메모장 — ✓", True)
    finally:
        _set_raw(display, wid, "WM_CLASS", "STRING", b"xterm\x00XTerm\x00")


def test_an_undecodable_title_is_flagged_with_its_legible_part(desktop):
    env, display, wid = desktop
    _set_title(env, wid, "8s", "x")
    _set_raw(display, wid, "WM_NAME", "COMPOUND_TEXT", b"notes \x1b$(Z\x21\x22")
    front = _front(display)
    assert front.title.startswith("notes") and front.exact is False


@pytest.fixture(scope="module")
def exclusion_session(tmp_path_factory):
    """`cue record` while a second xterm is titled SECRET each way (and once undecodably),
    brought to the front, typed into, and minimized again."""
    if shutil.which("xprop") is None:
        pytest.skip("needs xprop (Debian package x11-utils)")
    tmp = tmp_path_factory.mktemp("x11-exclusion")
    home = tmp / "cue"
    xvfb, display = _start_xvfb(tmp)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp),
           "DISPLAY": display, "CUE_HOME": str(home), "LANG": "C.UTF-8",
           "CUE_RECORD_INTERVAL": "0.3", "CUE_RECORD_HEARTBEAT": "0"}
    s = Session(home)
    s.cases = []
    procs: list[subprocess.Popen] = []
    rec = None
    try:
        procs.append(subprocess.Popen(["openbox"], env=env, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL))
        _wait_for(lambda: _wm_running(env), what="openbox")
        p, work = _xterm(env, "billing-api — vim")  # xterm -T: COMPOUND_TEXT
        procs.append(p)
        p, vault = _xterm(env, "scratch")
        procs.append(p)
        _x(env, "windowminimize", "--sync", vault, check=False)
        _activate(env, work)
        rec = subprocess.Popen([CUE, "record", "--format", "json"], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        _wait_for(lambda: s.frames() if (home / "keyframes").is_dir() else False,
                  timeout=60, what="the first keyframe")

        def excluded_since(t):
            return any(e.ts >= t and e.data.get("app") == "[excluded]" for e in s.events())

        for way in (*WAYS, "undecodable"):
            if way == "undecodable":
                _set_title(env, vault, "8s", "x")
                _set_raw(display, vault, "WM_NAME", "COMPOUND_TEXT", b"notes \x1b$(Z\x21\x22")
            else:
                _set_title(env, vault, way, SECRET)
            t0 = s.mark(f"{way}0")
            _activate(env, vault)
            _wait_for(lambda t0=t0: excluded_since(t0), timeout=20, what=f"[excluded] ({way})")
            # (keys typed before the recorder has seen the focus change would be counted:
            # the same wait as the vault in the session above)
            s.mark(f"{way}k")
            _x(env, "type", "--delay", "20", "typed")
            time.sleep(0.6)
            s.mark(f"{way}1")
            _x(env, "windowminimize", "--sync", vault, check=False)
            _activate(env, work)
            _wait_for(lambda w=way: any(e.ts >= s.marks[f"{w}1"] and e.data.get("title")
                                        == "billing-api — vim" for e in s.events()),
                      timeout=20, what=f"back to work after {way}")
            s.cases.append(way)
        rec.send_signal(signal.SIGTERM)
        out, err = rec.communicate(timeout=15)
        s.returncode, s.stdout, s.stderr = rec.returncode, out.decode(), err.decode()
        yield s
    finally:
        if rec is not None and rec.poll() is None:
            rec.kill()
            rec.wait()
        for p in reversed(procs):
            p.kill()
            p.wait()
        xvfb.terminate()
        xvfb.wait()


def test_exclusion_holds_for_every_title_encoding(exclusion_session):
    s = exclusion_session
    assert s.returncode == 0, s.stderr
    assert s.cases == [*WAYS, "undecodable"]
    events, frames = s.events(), s.frames()
    news = _window_news(events)
    for way in s.cases:
        assert s.between(frames, f"{way}0", f"{way}1") == [], way
        assert _keys(s.between(events, f"{way}k", f"{way}1")) == 0, way
        inside = _windows(s.between(news, f"{way}0", f"{way}1"))
        assert inside in ([], [("[excluded]", "[excluded]")]), way
    titles = {t for _, t in _windows(events)}
    assert "billing-api — vim" in titles  # the work window's COMPOUND_TEXT title, decoded
    blob = _everything(s.home)
    for secret in (SECRET, "비밀번호", "notes"):
        assert secret.encode() not in blob
