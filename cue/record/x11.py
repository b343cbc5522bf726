"""Linux X11 capture: mss for screens, python-xlib for windows and input counts.

Three X connections, because Xlib connections are not thread-safe and RECORD blocks its own:
- the *watcher* thread selects PropertyChangeMask on the root window (`_NET_ACTIVE_WINDOW`)
  and on the active window (`_NET_WM_NAME`, `WM_NAME` — xterm sets only the latter) and
  sleeps in select() on the socket until the server pushes an event: no polling;
- the *record* thread runs the RECORD extension over KeyPress/ButtonPress device events and
  adds 1 to a counter per event. The event's detail (the keycode or button) is never read
  into a variable, stored or logged;
- the loop's own connection answers the synchronous pre-capture question "what is in front
  and what is visible right now?".
"""
from __future__ import annotations

import select
import threading
import time
from collections.abc import Callable

from cue.record.backend import (
    CaptureBackend,
    CaptureUnavailable,
    Grab,
    Monitor,
    WindowInfo,
)
from cue.record.x11_text import Decoded, decode_list

NO_WINDOW = WindowInfo("", "")
NONE_GRACE_SECS = 0.4


class _Atoms:
    def __init__(self, d):
        self.active = d.intern_atom("_NET_ACTIVE_WINDOW")
        self.net_name = d.intern_atom("_NET_WM_NAME")
        self.utf8 = d.intern_atom("UTF8_STRING")
        self.wm_name = d.intern_atom("WM_NAME")
        self.wm_class = d.intern_atom("WM_CLASS")
        self.compound = d.intern_atom("COMPOUND_TEXT")
        self.types = {self.utf8: "UTF8_STRING", self.compound: "COMPOUND_TEXT",
                      d.intern_atom("STRING"): "STRING"}
        self.stacking = d.intern_atom("_NET_CLIENT_LIST_STACKING")
        self.client_list = d.intern_atom("_NET_CLIENT_LIST")
        self.state = d.intern_atom("_NET_WM_STATE")
        self.hidden = d.intern_atom("_NET_WM_STATE_HIDDEN")


def _open(name: str):
    from Xlib import display, error

    try:
        return display.Display(name)
    except (error.DisplayError, error.ConnectionClosedError, OSError) as exc:
        raise CaptureUnavailable(f"cannot open X display {name!r}: {exc}") from None


def _text_property(d, atoms: _Atoms, win, atom) -> list[Decoded] | None:
    """A text property of `win` decoded by its type (None: not set)."""
    from Xlib import X

    prop = win.get_full_property(atom, X.AnyPropertyType)
    if prop is None or not prop.value:
        return None
    if prop.format != 8:  # a 16/32-bit "title": nothing legible
        return [Decoded("", False)]
    raw = prop.value if isinstance(prop.value, bytes) else bytes(prop.value)
    return decode_list(raw, atoms.types.get(prop.property_type))


def _window_info(d, atoms: _Atoms, wid: int) -> WindowInfo:
    """App (WM_CLASS class), title (_NET_WM_NAME, else WM_NAME — xterm sets only WM_NAME) of
    window `wid`, each decoded by its property type (cue.record.x11_text). `exact` is False
    when any of them could not be decoded (the text is then the legible part)."""
    from Xlib import error

    if not wid:
        return NO_WINDOW
    win = d.create_resource_object("window", wid)
    try:
        props = [_text_property(d, atoms, win, a) for a in (atoms.net_name, atoms.wm_name)]
        cls = _text_property(d, atoms, win, atoms.wm_class) or []
    except (error.BadWindow, error.BadDrawable, error.BadValue, error.BadAtom):
        return NO_WINDOW
    names = []
    for parts in filter(None, props):
        joined = Decoded(" ".join(p.text for p in parts if p.text), all(p.exact for p in parts))
        if joined.text or not joined.exact:
            names.append(joined)
    # The exact one first: _NET_WM_NAME when it decodes, WM_NAME when only that one does; the
    # window counts as undecodable if either could not be read (a WM may show that one).
    title = next((n for n in names if n.exact), names[0] if names else Decoded("", True))
    instance = cls[0] if cls else Decoded("", True)
    app = cls[1] if len(cls) > 1 else instance
    exact = all(n.exact for n in names) and all(p.exact for p in cls)
    others = tuple(n.text for n in names if n is not title and n.text and n.text != title.text)
    return WindowInfo(app.text or instance.text or "unknown", title.text, instance.text,
                      exact=exact, other_titles=others)


def _active_id(d, atoms: _Atoms, root) -> int:
    from Xlib import X, error

    try:
        prop = root.get_full_property(atoms.active, X.AnyPropertyType)
    except error.XError:
        return 0
    return int(prop.value[0]) if prop and len(prop.value) else 0


class _ShotGrab(Grab):
    """An mss screenshot. `small()` samples every 4th pixel of the green channel (the
    largest share of luminance) straight from the BGRA buffer: ~0.3 ms at 2560×1600, where
    a full-size RGB conversion plus a box reduce costs ~11 ms — per grab, every 2 s, all
    day. dhash then low-pass filters it to 17×16. The RGB image is built only for a
    keyframe that will be written."""

    def __init__(self, shot):
        self._shot = shot

    @property
    def size(self) -> tuple[int, int]:
        return tuple(self._shot.size)

    def small(self):
        import numpy as np
        from PIL import Image

        w, h = self._shot.size
        pixels = np.frombuffer(self._shot.raw, np.uint8).reshape(h, w, 4)
        return Image.fromarray(np.ascontiguousarray(pixels[::4, ::4, 1]))

    def rgb(self):
        from PIL import Image

        return Image.frombuffer("RGB", self._shot.size, self._shot.raw, "raw", "BGRX", 0, 1)


class X11Backend(CaptureBackend):
    name = "x11"

    def __init__(self, display_name: str):
        self.display_name = display_name
        self._lock = threading.Lock()
        self._changes: list[tuple[float, WindowInfo]] = []
        self._keys = 0
        self._clicks = 0
        self._input_paused = False
        self._front_excluded = False
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._record_ok = False
        self._mss = None
        self._main = None
        self._record = None
        self._record_ctx = None

    # ------------------------------------------------------------------ lifecycle
    def start(self, excluded: Callable[[WindowInfo], bool]) -> None:
        import mss

        self._excluded = excluded
        self._main = _open(self.display_name)
        self._atoms = _Atoms(self._main)
        self._root = self._main.screen().root
        try:
            self._mss = mss.MSS(display=self.display_name)
        except Exception as exc:  # noqa: BLE001 - mss raises its own ScreenShotError and more
            raise CaptureUnavailable(f"cannot grab the screen of {self.display_name}: {exc}") \
                from None
        watcher = _open(self.display_name)
        front = _window_info(watcher, _Atoms(watcher), _active_id(watcher, _Atoms(watcher),
                                                                   watcher.screen().root))
        self._front_excluded = excluded(front)
        self._changes.append((time.time(), front))
        t = threading.Thread(target=self._watch, args=(watcher, front), name="cue-x11-windows",
                             daemon=True)
        t.start()
        self._threads.append(t)
        self._start_record()

    def stop(self) -> None:
        if self._stop.is_set():
            return
        self._stop.set()
        if self._record_ctx is not None and self._main is not None:
            try:  # wakes the blocked record_enable_context on the other connection
                self._main.record_disable_context(self._record_ctx)
                self._main.flush()
            except Exception:  # noqa: BLE001, S110 - the server may be gone already
                pass
        for t in self._threads:
            t.join(timeout=2.0)
        for d in (self._record, self._main):
            if d is not None:
                try:
                    d.close()
                except Exception:  # noqa: BLE001, S110
                    pass
        if self._mss is not None:
            try:  # with the X server gone mss raises its own XError; the capture is over anyway
                self._mss.close()
            except Exception:  # noqa: BLE001, S110
                pass

    def describe(self) -> str:
        mons = self.monitors()
        sizes = ", ".join(f"{m.width}×{m.height}" for m in mons)
        counting = "" if self._record_ok else "; input counts unavailable (no RECORD extension)"
        return f"X11 display {self.display_name}: {len(mons)} monitor(s) {sizes}{counting}"

    @property
    def input_available(self) -> bool:
        return self._record_ok

    # ------------------------------------------------------------------ screens
    def monitors(self) -> list[Monitor]:
        mons = self._mss.monitors[1:] or self._mss.monitors[:1]
        return [Monitor(i + 1, m["left"], m["top"], m["width"], m["height"])
                for i, m in enumerate(mons)]

    def grab(self, monitor: Monitor) -> Grab:
        from mss.exception import ScreenShotError

        try:
            shot = self._mss.grab({"left": monitor.left, "top": monitor.top,
                                   "width": monitor.width, "height": monitor.height})
        except ScreenShotError as exc:
            raise self._lost(exc) from None
        except (AssertionError, ValueError):
            # mss 10's XCB backend asserts on the NULL reply a closed connection gives (under
            # -O: a NULL pointer's ValueError). Lost only if our own connection agrees.
            if self._answers():
                raise
            raise self._lost(ConnectionError("the X server stopped answering")) from None
        return _ShotGrab(shot)

    def _answers(self) -> bool:
        """One round trip on the window-reading connection: is the X server still there?"""
        from Xlib import error

        try:
            self._main.get_input_focus()
        except (error.ConnectionClosedError, OSError):
            return False
        return True

    def _lost(self, exc: Exception) -> CaptureUnavailable:
        return CaptureUnavailable(f"lost the X display {self.display_name} ({exc}); "
                                  "the event log was finished cleanly")

    # ------------------------------------------------------------------ windows
    def active_window(self) -> WindowInfo:
        from Xlib import error

        try:
            return _window_info(self._main, self._atoms,
                                _active_id(self._main, self._atoms, self._root))
        except (error.ConnectionClosedError, OSError) as exc:
            raise self._lost(exc) from None

    def visible_windows(self) -> list[WindowInfo]:
        """Managed windows that are mapped and not minimized (what a screenshot can show)."""
        from Xlib import X, error

        d, a = self._main, self._atoms
        try:  # the server gone mid-way is CaptureUnavailable (exit 5), like active_window
            try:
                prop = self._root.get_full_property(a.client_list, X.AnyPropertyType)
            except error.XError:
                return []
            out = []
            for wid in (prop.value if prop else []):
                win = d.create_resource_object("window", int(wid))
                try:
                    if win.get_attributes().map_state != X.IsViewable:
                        continue
                    state = win.get_full_property(a.state, X.AnyPropertyType)
                    if state and a.hidden in state.value:
                        continue
                except error.XError:
                    continue
                out.append(_window_info(d, a, int(wid)))
            return out
        except (error.ConnectionClosedError, OSError) as exc:
            raise self._lost(exc) from None

    def window_changes(self) -> list[tuple[float, WindowInfo]]:
        with self._lock:
            changes, self._changes = self._changes, []
        return changes

    def _watch(self, d, front: WindowInfo) -> None:
        """The window thread. The X server can go at any of its calls — the first reads as it
        starts, pending_events(), select() on a closed socket: the main thread's next read
        reports the lost display (exit 5), and this thread ends quietly, not with a traceback."""
        from Xlib import error

        try:
            self._follow_windows(d, front)
        except (error.ConnectionClosedError, OSError, ValueError):
            return
        d.close()

    def _follow_windows(self, d, front: WindowInfo) -> None:
        """Follow the foreground window by PropertyNotify; sleeps in select() between events."""
        from Xlib import X, error

        atoms = _Atoms(d)
        root = d.screen().root
        root.change_attributes(event_mask=X.PropertyChangeMask)
        watched = None
        last = front  # start() reported it already
        pending_none: float | None = None

        def follow() -> None:
            nonlocal watched, pending_none
            wid = _active_id(d, atoms, root)
            if wid != watched:
                if watched:
                    try:
                        d.create_resource_object("window", watched).change_attributes(
                            event_mask=X.NoEventMask)
                    except error.XError:
                        pass
                if wid:
                    try:
                        d.create_resource_object("window", wid).change_attributes(
                            event_mask=X.PropertyChangeMask)
                    except error.XError:
                        pass
                watched = wid
            info = _window_info(d, atoms, wid)
            if info == NO_WINDOW and last != NO_WINDOW:
                # Window managers clear _NET_ACTIVE_WINDOW for a moment while focus moves:
                # only a lasting "nothing in front" is news (emit() after NONE_GRACE_SECS).
                pending_none = pending_none or time.time()
                return
            pending_none = None
            emit(info, time.time())

        def emit(info: WindowInfo, ts: float) -> None:
            nonlocal last
            if info != last:
                last = info
                excluded = self._excluded(info)
                with self._lock:
                    self._front_excluded = excluded
                    self._changes.append((ts, info))

        d.set_error_handler(lambda *args: None)  # windows vanish between event and read
        follow()
        d.flush()
        fd = d.fileno()
        titles = (atoms.net_name, atoms.wm_name)
        while not self._stop.is_set():
            if pending_none is not None and time.time() - pending_none >= NONE_GRACE_SECS:
                emit(NO_WINDOW, pending_none)
                pending_none = None
            if not d.pending_events():
                ready, _, _ = select.select([fd], [], [], 0.5 if pending_none is None else 0.1)
                if not ready:
                    continue
            changed = False
            while d.pending_events():
                ev = d.next_event()
                if ev.type != X.PropertyNotify:
                    continue
                wid = ev.window.id
                changed |= (wid == root.id and ev.atom == atoms.active) or (
                    wid == watched and ev.atom in titles)
            if changed:
                follow()
                d.flush()

    # ------------------------------------------------------------------ input counts
    def _start_record(self) -> None:
        from Xlib import X
        from Xlib.ext import record

        rec = _open(self.display_name)
        if not rec.has_extension("RECORD"):
            rec.close()
            return
        # Create and enable the context on the same connection (creating it elsewhere and
        # enabling here fails with BadContext: the create was not flushed).
        self._record_ctx = rec.record_create_context(0, [record.AllClients], [{
            "core_requests": (0, 0), "core_replies": (0, 0),
            "ext_requests": (0, 0, 0, 0), "ext_replies": (0, 0, 0, 0),
            "delivered_events": (0, 0), "device_events": (X.KeyPress, X.ButtonPress),
            "errors": (0, 0), "client_started": False, "client_died": False}])
        self._record = rec
        self._record_ok = True
        t = threading.Thread(target=self._run_record, name="cue-x11-input", daemon=True)
        t.start()
        self._threads.append(t)

    def _run_record(self) -> None:
        from Xlib import X
        from Xlib.ext import record
        from Xlib.protocol import rq

        field = rq.EventField(None)
        rec = self._record

        def on_reply(reply) -> None:
            if reply.category != record.FromServer or reply.client_swapped or not reply.data:
                return
            data = reply.data
            keys = clicks = 0
            while len(data):
                event, data = field.parse_binary_value(data, rec.display, None, None)
                # Only the event *type* is looked at; event.detail (which key) is not.
                if event.type == X.KeyPress:
                    keys += 1
                elif event.type == X.ButtonPress:
                    clicks += 1
            with self._lock:
                if not (self._input_paused or self._front_excluded):
                    self._keys += keys
                    self._clicks += clicks

        try:
            rec.record_enable_context(self._record_ctx, on_reply)
        except Exception:  # noqa: BLE001 - the server went away or the context was disabled
            return
        finally:
            try:
                rec.record_free_context(self._record_ctx)
            except Exception:  # noqa: BLE001, S110
                pass

    def take_input_counts(self) -> tuple[int, int]:
        with self._lock:
            counts = (self._keys, self._clicks)
            self._keys = self._clicks = 0
        return counts

    def set_input_paused(self, paused: bool) -> None:
        with self._lock:
            self._input_paused = paused
            if paused:
                self._keys = self._clicks = 0
