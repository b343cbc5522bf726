"""The MCAP event log: writer, range reader, crashed writers, bad files."""
from __future__ import annotations

import json
import time

import pytest
from mcap.reader import make_reader
from mcap.writer import Writer

from cue.core.errors import CueError
from cue.inputs.events import EventWriter, read_events

T0 = 1_763_766_000.0


def _write_minutes(path, minutes=10, **kw):
    with EventWriter(path, **kw) as log:
        for i in range(minutes * 60):
            log.input(keys=i % 7, clicks=i % 2, ts=T0 + i)
            if i % 60 == 0:
                log.window("Code", f"file{i // 60}.py", ts=T0 + i + 0.5)
    return path


def test_round_trip_is_standard_mcap_with_json_schemas(tmp_path):
    path = tmp_path / "a.mcap"
    with EventWriter(path) as log:
        log.window("Firefox", "Docs — Mozilla Firefox", ts=T0)
        log.input(keys=12, clicks=1, ts=T0 + 1)
        log.pause("paused", ts=T0 + 2)
        log.write("/other/topic", {"anything": [1, 2]}, ts=T0 + 3)
    with open(path, "rb") as f:  # any MCAP reader can read it
        msgs = list(make_reader(f).iter_messages())
    assert [(c.topic, c.message_encoding, s.encoding) for s, c, _ in msgs] == [
        ("/cue/window", "json", "jsonschema"), ("/cue/input", "json", "jsonschema"),
        ("/cue/pause", "json", "jsonschema"), ("/other/topic", "json", "jsonschema")]
    assert json.loads(msgs[0][0].data)["required"] == ["app", "title"]
    assert msgs[1][2].log_time == int((T0 + 1) * 1e9)

    events = read_events(path, T0, T0 + 10)
    assert [(e.ts, e.topic, e.data) for e in events] == [
        (T0, "/cue/window", {"app": "Firefox", "title": "Docs — Mozilla Firefox"}),
        (T0 + 1, "/cue/input", {"keys": 12, "clicks": 1}),
        (T0 + 2, "/cue/pause", {"state": "paused"}),
        (T0 + 3, "/other/topic", {"anything": [1, 2]})]


def test_range_is_inclusive_and_topics_filter(tmp_path):
    path = _write_minutes(tmp_path / "a.mcap")
    events = read_events(path, T0 + 60, T0 + 120)
    inputs = [e for e in events if e.topic == "/cue/input"]
    assert [e.ts for e in inputs] == [T0 + s for s in range(60, 121)]
    assert [e.data["title"] for e in events if e.topic == "/cue/window"] == ["file1.py"]
    only = read_events(path, T0, T0 + 600, topics=["/cue/window"])
    assert len(only) == 10 and {e.topic for e in only} == {"/cue/window"}
    assert read_events(path, T0 + 10_000, T0 + 20_000) == []


def test_folder_of_logs_is_merged_in_time_order(tmp_path):
    with EventWriter(tmp_path / "logs" / "b.mcap") as log:
        log.window("B", "b", ts=T0 + 5)
    with EventWriter(tmp_path / "logs" / "2026" / "a.mcap") as log:
        log.window("A", "a", ts=T0 + 1)
        log.window("C", "c", ts=T0 + 9)
    (tmp_path / "logs" / "notes.txt").write_text("not a log")
    events = read_events(tmp_path / "logs", T0, T0 + 10)
    assert [e.data["app"] for e in events] == ["A", "B", "C"]


def test_one_minute_range_read_is_fast(tmp_path):
    path = _write_minutes(tmp_path / "a.mcap", minutes=60)
    read_events(path, T0 + 1800, T0 + 1860)
    t = time.perf_counter()
    events = read_events(path, T0 + 1800, T0 + 1860)
    assert len(events) == 62
    assert time.perf_counter() - t < 0.25  # indexed: ~10 ms here; a full scan is ~20× more


@pytest.mark.parametrize("cut", [0, 3, 8, 30, "mid-chunk", "no-footer"])
def test_crashed_writer_is_recovered(tmp_path, cut):
    path = tmp_path / "live.mcap"
    log = EventWriter(path, flush_secs=0)  # every event lands in its own small chunk
    sizes = []
    for i in range(50):
        log.input(keys=1, clicks=0, ts=T0 + i)
        sizes.append(path.stat().st_size)
    log.close()
    data = path.read_bytes()
    if cut == "no-footer":
        keep, expect = sizes[-1], 50
    elif cut == "mid-chunk":
        keep, expect = sizes[-2] + 30, 49  # the writer died while writing the last chunk
    else:
        keep, expect = cut, 0
    path.write_bytes(data[:keep])
    notes: list[str] = []
    events = read_events(path, T0, T0 + 100, notes=notes)
    assert [e.ts for e in events] == [T0 + i for i in range(expect)]
    if keep >= 8:
        assert notes and "not closed cleanly" in notes[0]


def test_a_log_still_being_written_is_readable_while_open(tmp_path):
    path = tmp_path / "open.mcap"
    log = EventWriter(path, flush_secs=0)
    log.window("Code", "x", ts=T0)
    log.input(3, 0, ts=T0 + 1)
    assert [e.topic for e in read_events(path, T0, T0 + 5)] == ["/cue/window", "/cue/input"]
    log.close()


def test_pause_events_are_flushed_at_once(tmp_path):
    path = tmp_path / "p.mcap"
    log = EventWriter(path, flush_secs=3600)
    log.input(1, 0, ts=T0)
    assert read_events(path, T0, T0 + 5) == []  # still buffered
    log.pause("paused", ts=T0 + 1)
    assert [e.topic for e in read_events(path, T0, T0 + 5)] == ["/cue/input", "/cue/pause"]
    log.close()


def test_writer_never_overwrites_and_validates(tmp_path):
    path = tmp_path / "a.mcap"
    path.write_bytes(b"precious")
    with pytest.raises(CueError, match="already exists"):
        EventWriter(path)
    assert path.read_bytes() == b"precious"
    with EventWriter(tmp_path / "b.mcap") as log:
        with pytest.raises(CueError, match="'keys'"):
            log.input(keys=-1)
        with pytest.raises(CueError, match="'title'"):
            log.write("/cue/window", {"app": "x"})
        with pytest.raises(CueError, match="paused"):
            log.pause("sleeping")
        with pytest.raises(CueError, match="JSON object"):
            log.write("/x", [1, 2])


def test_not_an_mcap_file(tmp_path):
    bad = tmp_path / "bad.mcap"
    bad.write_text("hello, this is text")
    with pytest.raises(CueError, match="not an MCAP event log"):
        read_events(bad, T0, T0 + 1)
    with pytest.raises(CueError, match="does not exist"):
        read_events(tmp_path / "missing", T0, T0 + 1)


def test_a_bad_file_in_a_folder_is_skipped_with_a_note(tmp_path):
    """Cron reads a folder every 15 minutes: one bad file must not stop every run."""
    with EventWriter(tmp_path / "good.mcap") as log:
        log.window("Terminal", "zsh", ts=T0 + 1)
    (tmp_path / "bad.mcap").write_text("hello, this is text")
    notes: list[str] = []
    events = read_events(tmp_path, T0, T0 + 10, notes=notes)
    assert [e.data["app"] for e in events] == ["Terminal"]
    assert any("skipped an unreadable event log" in n and "bad.mcap" in n for n in notes)


def test_a_message_that_is_not_json(tmp_path):
    path = tmp_path / "x.mcap"
    with open(path, "wb") as f:
        w = Writer(f)
        w.start()
        ch = w.register_channel("/cue/window", "json", 0)
        w.add_message(ch, log_time=int(T0 * 1e9), data=b"{nope", publish_time=0)
        w.finish()
    with pytest.raises(CueError, match="not valid JSON"):
        read_events(path, T0 - 1, T0 + 1)


def test_other_encodings_are_skipped(tmp_path):
    path = tmp_path / "x.mcap"
    with open(path, "wb") as f:
        w = Writer(f)
        w.start()
        ch = w.register_channel("/camera", "protobuf", 0)
        w.add_message(ch, log_time=int(T0 * 1e9), data=b"\x08\x01", publish_time=0)
        ch2 = w.register_channel("/cue/input", "json", 0)
        w.add_message(ch2, log_time=int(T0 * 1e9), data=b'{"keys":1,"clicks":0}', publish_time=0)
        w.finish()
    assert [e.topic for e in read_events(path, T0 - 1, T0 + 1)] == ["/cue/input"]


def test_old_files_in_a_folder_are_not_opened(tmp_path):
    import os

    old = tmp_path / "old.mcap"
    old.write_text("garbage that would raise if opened")
    os.utime(old, (T0 - 86400, T0 - 86400))
    assert read_events(tmp_path, T0, T0 + 10) == []
    with pytest.raises(CueError):
        read_events(old, T0, T0 + 10)  # named directly, it is read


def test_a_damaged_chunk_in_a_finished_log_reads_around_it(tmp_path):
    path = tmp_path / "a.mcap"
    log = EventWriter(path, flush_secs=0, compression="zstd")
    sizes = []
    for i in range(20):
        log.input(keys=i, clicks=0, ts=T0 + i)
        sizes.append(path.stat().st_size)
    log.close()
    data = bytearray(path.read_bytes())
    at = sizes[9] + 60  # inside the 11th chunk's compressed bytes
    data[at:at + 8] = b"\xff" * 8
    path.write_bytes(bytes(data))
    notes: list[str] = []
    events = read_events(path, T0, T0 + 100, notes=notes)
    assert [e.data["keys"] for e in events] == list(range(10))  # everything before it
    assert notes == ["event log a.mcap is damaged; read what is readable"]


def test_finished_logs_are_read_through_their_index(tmp_path):
    # Damage early in the file is never touched by a range read of later events — which
    # only holds if the reader seeks by the index instead of scanning from the start.
    path = tmp_path / "a.mcap"
    log = EventWriter(path, flush_secs=0)
    sizes = []
    for i in range(20):
        log.input(keys=i, clicks=0, ts=T0 + i)
        sizes.append(path.stat().st_size)
    log.close()
    data = bytearray(path.read_bytes())
    data[sizes[2] + 60:sizes[2] + 68] = b"\xff" * 8
    path.write_bytes(bytes(data))
    notes: list[str] = []
    assert [e.data["keys"] for e in read_events(path, T0 + 15, T0 + 19, notes=notes)] == [
        15, 16, 17, 18, 19]
    assert notes == []
