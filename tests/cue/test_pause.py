"""Pause history: cue pause / resume / status, and paused intervals from both sources."""
from __future__ import annotations

import json
import math
import sqlite3
import subprocess
import time

import pytest
from typer.testing import CliRunner

from cue.cli.app import app
from cue.core import paths
from cue.core.db import connect
from cue.inputs.events import Event, EventWriter
from cue.inputs.pauses import (
    intervals_from_events,
    is_paused,
    merge,
    pause,
    pause_state,
    paused_intervals,
    resume,
)

T0 = 1_763_766_000.0
runner = CliRunner()


def _pe(ts, state):
    return Event(ts, "/cue/pause", {"state": state})


def test_pause_resume_round_trip():
    conn = connect()
    assert not pause_state(conn, now=T0).paused
    state = pause(conn, now=T0, reason="lunch")
    assert state.paused and state.since == T0 and state.until is None and state.reason == "lunch"
    assert is_paused(conn, T0 + 3600)
    assert resume(conn, now=T0 + 60)
    assert not resume(conn, now=T0 + 61)  # nothing left to resume
    assert not is_paused(conn, T0 + 61)
    assert paused_intervals(conn, T0 - 100, T0 + 100, events=[]) == [(T0, T0 + 60)]
    conn.close()


def test_timed_pause_ends_by_itself_and_pausing_again_resets_the_end():
    conn = connect()
    pause(conn, for_secs=300, now=T0)
    assert is_paused(conn, T0 + 299) and not is_paused(conn, T0 + 301)
    assert not resume(conn, now=T0 + 400)  # already over
    pause(conn, for_secs=60, now=T0 + 1000)
    state = pause(conn, now=T0 + 1030)  # again, now open-ended: same pause, no end
    assert state.since == T0 + 1000 and state.until is None
    assert conn.execute("SELECT count(*) FROM pauses").fetchone()[0] == 2
    assert paused_intervals(conn, T0, T0 + 5000, events=[]) == [(T0, T0 + 300),
                                                                 (T0 + 1000, T0 + 5000)]
    conn.close()


def test_pause_history_is_in_wal_sqlite_and_seen_by_other_connections():
    conn = connect()
    pause(conn, now=T0)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    other = sqlite3.connect(paths.db_path())
    row = other.execute("SELECT started_at, ended_at, source FROM pauses").fetchone()
    assert row == (T0, None, "cli")
    other.close()
    conn.close()


def test_intervals_from_events():
    ev = [_pe(T0 + 10, "paused"), _pe(T0 + 20, "paused"), _pe(T0 + 30, "resumed"),
          Event(T0 + 35, "/cue/input", {"keys": 1, "clicks": 0}),
          _pe(T0 + 50, "resumed"), _pe(T0 + 80, "paused")]
    assert intervals_from_events(ev, T0, T0 + 100) == [(T0 + 10, T0 + 30), (T0 + 80, T0 + 100)]
    # A resume with no pause before it in what we read: paused since before we can see.
    assert intervals_from_events([_pe(T0 + 30, "resumed")], T0, T0 + 100) == [(T0, T0 + 30)]
    assert intervals_from_events([], T0, T0 + 100) == []


def test_merge_clips_and_joins():
    assert merge([(5, 10), (0, 3), (8, 20), (30, math.inf), (-9, -5)], 0, 40) == [
        (0, 3), (5, 20), (30, 40)]


def test_both_sources_are_merged(tmp_path):
    edir = tmp_path / "events"
    with EventWriter(edir / "a.mcap") as log:
        log.pause("paused", ts=T0 + 100)
        log.pause("resumed", ts=T0 + 200)
        log.pause("paused", ts=T0 - 3600)  # out of order, and ended by b.mcap's resume
    with EventWriter(edir / "b.mcap") as log:
        log.pause("resumed", ts=T0 - 1800)
    conn = connect()
    pause(conn, now=T0 + 150)
    resume(conn, now=T0 + 260)
    assert paused_intervals(conn, T0, T0 + 1000, events_dir=edir) == [(T0 + 100, T0 + 260)]
    assert paused_intervals(conn, T0 - 4000, T0, events_dir=edir) == [(T0 - 3600, T0 - 1800)]
    assert is_paused(conn, T0 + 120, events_dir=edir)
    assert not is_paused(conn, T0 + 300, events_dir=edir)
    conn.close()


def test_a_pause_begun_hours_before_the_window_still_counts(tmp_path):
    edir = tmp_path / "events"
    with EventWriter(edir / "a.mcap") as log:
        log.pause("paused", ts=T0 - 5 * 3600)
    conn = connect()
    assert paused_intervals(conn, T0, T0 + 900, events_dir=edir) == [(T0, T0 + 900)]
    conn.close()


def test_cli_pause_status_resume():
    r = runner.invoke(app, ["pause", "--for", "30m", "--reason", "call"])
    assert r.exit_code == 0, r.output
    assert r.stdout.startswith("Paused until ")
    r = runner.invoke(app, ["status", "--format", "json"])
    info = json.loads(r.stdout)
    assert info["paused"] is True and info["reason"] == "call"
    assert info["until"] - info["since"] == pytest.approx(1800, abs=1)
    assert info["keyframes"]["exists"] is False
    r = runner.invoke(app, ["status"])
    assert "Paused since" in r.stdout and "(call)" in r.stdout
    r = runner.invoke(app, ["resume"])
    assert r.stdout == "Resumed.\n"
    r = runner.invoke(app, ["resume", "--format", "json"])
    assert json.loads(r.stdout) == {"paused": False, "since": None, "until": None,
                                    "reason": None, "resumed": False}
    r = runner.invoke(app, ["status"])
    assert r.stdout.startswith("Not paused.")


def test_cli_pause_without_for_is_open_ended():
    r = runner.invoke(app, ["pause", "--format", "json"])
    state = json.loads(r.stdout)
    assert state["paused"] and state["until"] is None
    assert time.time() - state["since"] < 60
    assert runner.invoke(app, ["pause"]).stdout == "Paused until you run `cue resume`.\n"


def test_cli_bad_duration_is_one_error_line(cue_bin):
    r = subprocess.run([cue_bin, "pause", "--for", "soon"], capture_output=True, text=True, check=False)
    assert r.returncode == 1
    assert r.stdout == ""
    assert r.stderr == "Error: cannot read duration 'soon'; use something like 15m, 90s or 1h30m\n"
    conn = connect()
    assert not pause_state(conn).paused  # nothing was written
    conn.close()


def test_status_counts_recent_keyframes_and_events(tmp_path):
    from PIL import Image

    kdir = paths.keyframes_dir()
    kdir.mkdir(parents=True)
    now = time.time()
    for i in range(3):
        Image.new("RGB", (8, 8)).save(kdir / f"{int((now - 60 * i) * 1000)}.jpg")
    with EventWriter(paths.events_dir() / "now.mcap") as log:
        log.window("Code", "x", ts=now - 30)
    info = json.loads(runner.invoke(app, ["status", "-f", "json"]).stdout)
    assert info["keyframes"]["last_15m"] == 3
    assert info["events"]["last_15m"] == 1
    assert info["paused"] is False and info["paused_by_event_log"] is False
