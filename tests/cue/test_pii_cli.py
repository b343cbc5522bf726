"""`cue scrub [FILE|-] --format text|json`."""
from __future__ import annotations

import json
import subprocess

from typer.testing import CliRunner

from cue.cli.app import app

runner = CliRunner()


def test_scrub_stdin_text_keeps_everything_but_the_entities():
    text = "Ask 김민수님이 at 010-1234-5678.\nPath /home/alice/x\n"
    result = runner.invoke(app, ["scrub"], input=text)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "Ask [PERSON]님이 at [PHONE].\nPath /home/[USER]/x\n"


def test_scrub_file_json_lists_entities_with_offsets(tmp_path):
    text = "mail jane@example.com or AKIAIOSFODNN7EXAMPLE"
    src = tmp_path / "in.txt"
    src.write_text(text, encoding="utf-8")
    result = runner.invoke(app, ["scrub", str(src), "--format", "json"])
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["text"] == "mail [EMAIL] or [API_KEY]"
    assert [(e["type"], text[e["start"]:e["end"]]) for e in doc["entities"]] == [
        ("EMAIL_ADDRESS", "jane@example.com"), ("API_KEY", "AKIAIOSFODNN7EXAMPLE")]
    assert all(set(e) == {"type", "start", "end", "score"} for e in doc["entities"])
    assert isinstance(doc["scrub_version"], int)


def test_scrub_dash_reads_stdin_and_json_keeps_korean_readable():
    result = runner.invoke(app, ["scrub", "-", "--format", "json"], input="박지영 씨는 왔다")
    assert result.exit_code == 0
    assert '"[PERSON] 씨는 왔다"' in result.stdout  # ensure_ascii=False


def test_missing_file_is_one_error_line(tmp_path):
    result = runner.invoke(app, ["scrub", str(tmp_path / "nope.txt")])
    assert result.exit_code == 1  # the app's error edge (cuectx.cli): one `Error:` line
    assert result.stderr.startswith("Error: ") and "no such file" in result.stderr
    assert result.stdout == ""


def test_cli_errors_from_a_real_process(tmp_path, cue_bin):
    missing = subprocess.run([cue_bin, "scrub", str(tmp_path / "nope.txt")],
                             capture_output=True, text=True, timeout=60, check=False)
    assert missing.returncode == 1
    assert missing.stdout == ""
    assert missing.stderr.strip() == f"Error: no such file: {tmp_path / 'nope.txt'}."
    binary = subprocess.run([cue_bin, "scrub"], input=b"\xff\xd8\xff\xe0 jpeg",
                            capture_output=True, timeout=60, check=False)
    assert binary.returncode == 1
    assert binary.stdout == b""
    assert binary.stderr.decode().startswith("Error: stdin is not UTF-8 text")


def test_bad_format_is_a_usage_error():
    result = runner.invoke(app, ["scrub", "--format", "xml"], input="x")
    assert result.exit_code == 2


def test_backfill_command_rescrubs_stored_text():
    from cue.core import db, paths

    conn = db.connect()
    conn.execute(
        "INSERT INTO digests(created_at, window_start, window_end, status, backend, summary,"
        " frame_count, event_count) VALUES (1, 0, 1, 'ok', 'local', ?, 3, 4)",
        ("mailed jane@example.com",))
    conn.close()
    paths.memory_md().write_text("/Users/alice/notes\n", encoding="utf-8")

    first = runner.invoke(app, ["scrub", "--backfill", "--format", "json"])
    assert first.exit_code == 0, first.stderr
    doc = json.loads(first.stdout)
    assert doc["rows"] == 1 and doc["files"] == [str(paths.memory_md())]
    assert doc["previous"] == 0 and doc["scrub_version"] >= 1
    assert paths.memory_md().read_text("utf-8") == "/Users/[USER]/notes\n"

    again = runner.invoke(app, ["scrub", "--backfill"])
    assert again.exit_code == 0
    assert "nothing to do" in again.stdout
    forced = runner.invoke(app, ["scrub", "--backfill", "--force"])
    assert forced.stdout.startswith("scrub version") and "0 stored row(s)" in forced.stdout


def test_backfill_takes_no_file_and_force_needs_backfill(tmp_path):
    bad = runner.invoke(app, ["scrub", "--backfill", str(tmp_path / "x")])
    assert bad.exit_code == 1 and bad.stderr.startswith("Error: ")
    bad = runner.invoke(app, ["scrub", "--force"], input="x")
    assert bad.exit_code == 1 and bad.stderr.startswith("Error: ")


def test_a_real_process_writes_all_of_a_large_output(cue_bin):
    from cue.pii import scrub

    text = "".join(f"line {i}: mail user{i}@example.com from /Users/u{i}/src\n" for i in range(2000))
    proc = subprocess.run([cue_bin, "scrub"], input=text.encode(), capture_output=True,
                          timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert len(proc.stdout) > 65536  # more than a pipe buffer: everything was flushed
    assert proc.stdout.decode() == scrub(text)
