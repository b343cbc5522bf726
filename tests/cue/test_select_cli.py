"""`cue select` from the command line: windows, formats, pipes, errors."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from bench.sessions import make_activity
from cue.cli.app import app

START = 1_763_766_000.0
runner = CliRunner()


@pytest.fixture(scope="module")
def act(tmp_path_factory):
    return make_activity(tmp_path_factory.mktemp("cli"), START)


def _args(act, *extra):
    return ["select", "--keyframes", str(act.keyframes_dir), "--events", str(act.events_dir),
            *extra]


def test_json_document(act):
    r = runner.invoke(app, _args(act, "--since", "15m", "--end", str(act.end)))
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)  # not a TTY: JSON by default
    assert doc["start"] == act.start and doc["end"] == act.end
    assert doc["start_iso"] == "2025-11-21T23:00:00.000Z"
    assert doc["considered"] == 180 and doc["paused_frames"] == 16
    assert doc["paused"] == [[START + 520, START + 600]]
    assert len(doc["frames"]) == 10
    f = doc["frames"][1]
    assert set(f) == {"index", "path", "ts", "time", "offset_secs", "anchor", "reason",
                      "scores", "app", "title"}
    assert [x["index"] for x in doc["frames"]] == list(range(10))
    assert all(x["path"].startswith(str(act.keyframes_dir)) for x in doc["frames"])


def test_start_end_iso_equals_since(act):
    a = json.loads(runner.invoke(app, _args(act, "--since", "900s", "--end",
                                            "2025-11-21T23:15:00Z")).stdout)
    b = json.loads(runner.invoke(app, _args(act, "--start", "2025-11-21T23:00:00Z", "--end",
                                            "2025-11-22T08:15:00+09:00")).stdout)
    assert a["frames"] == b["frames"] and a["start"] == b["start"] == START


def test_max_frames_and_table(act):
    r = runner.invoke(app, _args(act, "--start", str(START), "--end", str(act.end),
                                 "--max-frames", "4", "--format", "table"))
    assert r.exit_code == 0, r.output
    assert "4 of 180 keyframes" in r.stdout and "16 paused" in r.stdout
    text = " ".join(r.stdout.split())  # the reason column wraps at 80 columns
    assert "anchor: first" in text and "app switch" in text
    assert max(len(line.rstrip()) for line in r.stdout.splitlines()) <= 80  # fits


@pytest.mark.parametrize("extra,message", [
    (["--since", "15m", "--start", "0"], "either --since or --start"),
    (["--start", "2000", "--end", "1000"], "--start must be before --end"),
    (["--since", "fortnight"], "cannot read duration"),
    (["--end", "yesterday"], "cannot read time"),
])
def test_bad_windows(act, extra, message):
    r = runner.invoke(app, _args(act, *extra))
    assert r.exit_code == 1  # the app's error edge: one `Error:` line (cuectx.cli)
    assert r.stderr.startswith("Error: ") and message in r.stderr
    assert r.stdout == ""


def test_zero_max_frames_is_a_usage_error(act):
    r = runner.invoke(app, _args(act, "--max-frames", "0"))
    assert r.exit_code == 2


def test_real_pipe_and_error_line(act, cue_bin, tmp_path):
    sel = subprocess.run(
        [cue_bin, *_args(act, "--since", "15m", "--end", str(act.end), "-n", "5")],
        capture_output=True, check=True)
    consumer = subprocess.run(
        [sys.executable, "-c",
         "import json,sys; d=json.load(sys.stdin); print(len(d['frames']), d['frames'][0]['anchor'])"],
        input=sel.stdout, capture_output=True, check=True)
    assert consumer.stdout == b"5 True\n"

    r = subprocess.run([cue_bin, "select", "--keyframes", str(tmp_path / "nope")],
                       capture_output=True, text=True, check=False)
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr.startswith("Error: keyframe folder ") and r.stderr.count("\n") == 1


def test_cron_without_any_capture_yet_is_quiet_success(cue_bin):
    r = subprocess.run([cue_bin, "select", "--since", "15m"], capture_output=True, text=True, check=False)
    assert r.returncode == 0
    assert json.loads(r.stdout)["frames"] == []
    assert "no keyframe folder" in r.stderr


def test_notes_go_to_stderr(tmp_path, cue_bin):
    crashed = make_activity(tmp_path, START, crashed_log=True, interval=30.0)
    r = subprocess.run([cue_bin, "select", "--keyframes", str(crashed.keyframes_dir),
                        "--events", str(crashed.events_dir), "--end", str(crashed.end)],
                       capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
    assert "not closed cleanly" in r.stderr
    assert json.loads(r.stdout)["notes"]
