"""The MCAP event log: what a capture tool writes and what cue reads back by time range.

Every message is a JSON object (channel message encoding `json`, schema encoding
`jsonschema`); `log_time` is unix time in nanoseconds. Topics:

    /cue/window  {"app": str, "title": str}       foreground app / window title changed
    /cue/input   {"keys": int, "clicks": int}      counts since the previous /cue/input
    /cue/pause   {"state": "paused"|"resumed"}     capture paused / resumed

Other topics may share the file; they are read back as-is (non-JSON channels are skipped).

`EventWriter` finishes a chunk at least every `flush_secs` (and at once for /cue/pause),
so a writer that dies before `finish()` loses at most that much. `read_events` uses the
file's index when the file was finished, and otherwise reads it front to back and keeps
every complete chunk — a crashed or still-open log reads as far as it got.
"""
from __future__ import annotations

import io
import json
import math
import struct
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Self

from cue.core.errors import CueError
from cuectx.value import Value

TOPIC_WINDOW = "/cue/window"
TOPIC_INPUT = "/cue/input"
TOPIC_PAUSE = "/cue/pause"

SCHEMAS: dict[str, dict[str, Any]] = {
    TOPIC_WINDOW: {
        "title": "cue.window",
        "type": "object",
        "properties": {"app": {"type": "string"}, "title": {"type": "string"}},
        "required": ["app", "title"],
    },
    TOPIC_INPUT: {
        "title": "cue.input",
        "type": "object",
        "properties": {
            "keys": {"type": "integer", "minimum": 0},
            "clicks": {"type": "integer", "minimum": 0},
        },
        "required": ["keys", "clicks"],
    },
    TOPIC_PAUSE: {
        "title": "cue.pause",
        "type": "object",
        "properties": {"state": {"enum": ["paused", "resumed"]}},
        "required": ["state"],
    },
}
_GENERIC_SCHEMA = {"type": "object"}

MAGIC = b"\x89MCAP0\r\n"
# A file last modified this long before a window's start cannot hold events in it
# (events are logged as they happen), so a folder read does not even open it.
MTIME_SLACK_SECS = 300.0


class Event(Value):
    __slots__ = ("data", "topic", "ts")

    def __init__(self, ts: float, topic: str, data: dict) -> None:
        self.ts = ts  # unix seconds
        self.topic = topic
        self.data = data


def validate(topic: str, data: Any) -> dict:
    """Check a message for one of cue's topics; return it (a dict) or raise CueError."""
    if not isinstance(data, dict):
        raise CueError(f"a {topic} event must be a JSON object, not {type(data).__name__}")
    if topic == TOPIC_WINDOW:
        for key in ("app", "title"):
            if not isinstance(data.get(key), str):
                raise CueError(f"a {topic} event needs a string {key!r}")
    elif topic == TOPIC_INPUT:
        for key in ("keys", "clicks"):
            value = data.get(key)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise CueError(f"a {topic} event needs a whole number {key!r} ≥ 0")
    elif topic == TOPIC_PAUSE and data.get("state") not in ("paused", "resumed"):
        raise CueError(f"a {topic} event needs state 'paused' or 'resumed'")
    return data


class EventWriter:
    """Write cue events to a new MCAP file, the way a capture tool would.

        with EventWriter(path) as log:
            log.window("Code", "main.py — cue")
            log.input(keys=12, clicks=1)

    The file must not exist yet (a log is never overwritten). Chunks are small and are
    finished every `flush_secs`, so a crash loses at most that much.
    """

    def __init__(self, path: Path | str, *, flush_secs: float = 1.0,
                 chunk_size: int = 16 * 1024, compression: str = "zstd"):
        from mcap.writer import CompressionType, Writer

        self.path = Path(path).expanduser()
        self.flush_secs = flush_secs
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = open(self.path, "xb")  # noqa: SIM115 - held until close()
        except FileExistsError:
            raise CueError(f"event log {self.path} already exists; write a new file") from None
        except OSError as exc:
            raise CueError(f"cannot create event log {self.path}: {exc.strerror}") from None
        kinds = {"zstd": CompressionType.ZSTD, "lz4": CompressionType.LZ4,
                 "none": CompressionType.NONE}
        self._writer = Writer(self._file, chunk_size=chunk_size, compression=kinds[compression])
        self._writer.start(profile="", library="cue-ctx")
        self._channels: dict[str, int] = {}
        self._last_flush = time.monotonic()
        self._closed = False

    def _channel(self, topic: str) -> int:
        if topic not in self._channels:
            schema = SCHEMAS.get(topic, _GENERIC_SCHEMA)
            schema_id = self._writer.register_schema(
                name=schema.get("title", topic), encoding="jsonschema",
                data=json.dumps(schema).encode())
            self._channels[topic] = self._writer.register_channel(
                topic=topic, message_encoding="json", schema_id=schema_id)
        return self._channels[topic]

    def write(self, topic: str, data: dict, ts: float | None = None) -> None:
        """Log one event (`ts` in unix seconds, default now)."""
        if self._closed:
            raise CueError(f"event log {self.path} is already closed")
        validate(topic, data)
        when = time.time() if ts is None else ts
        ns = round(when * 1e9)
        payload = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()
        self._writer.add_message(self._channel(topic), log_time=ns, data=payload,
                                 publish_time=ns)
        if topic == TOPIC_PAUSE or time.monotonic() - self._last_flush >= self.flush_secs:
            self.flush()

    def window(self, app: str, title: str, ts: float | None = None) -> None:
        self.write(TOPIC_WINDOW, {"app": app, "title": title}, ts)

    def input(self, keys: int = 0, clicks: int = 0, ts: float | None = None) -> None:
        self.write(TOPIC_INPUT, {"keys": keys, "clicks": clicks}, ts)

    def pause(self, state: str, ts: float | None = None) -> None:
        self.write(TOPIC_PAUSE, {"state": state}, ts)

    def flush(self) -> None:
        """Finish the chunk in progress and push it to the file."""
        self._writer.flush()
        self._last_flush = time.monotonic()

    def close(self) -> None:
        """Write the index and summary (MCAP `finish()`) and close the file."""
        if self._closed:
            return
        self._closed = True
        try:
            self._writer.finish()
        finally:
            self._file.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def event_files(source: Path) -> list[Path]:
    """The MCAP files under `source` (a file, or a folder searched recursively), sorted."""
    if source.is_file():
        return [source]
    if not source.is_dir():
        raise CueError(f"event log {source} does not exist")
    return sorted(p for p in source.rglob("*.mcap")
                  if p.is_file() and not p.name.startswith("."))


def read_events(source: Path | str, start: float, end: float, *,
                topics: Iterable[str] | None = None,
                notes: list[str] | None = None) -> list[Event]:
    """Events with start ≤ ts ≤ end from an MCAP file or a folder of them, sorted by ts.

    A log that was not finished (crashed or still being written) is read up to its last
    complete chunk; a sentence about it is appended to `notes` if given. A file that is
    not MCAP, or holds a JSON message that does not parse, raises CueError — when it was
    named; in a folder it is skipped with a note, so one bad file cannot stop every cron run.
    """
    source = Path(source).expanduser()
    wanted = set(topics) if topics is not None else None
    out: list[Event] = []
    folder = source.is_dir()
    for path in event_files(source):
        if folder:
            try:
                if path.stat().st_mtime < start - MTIME_SLACK_SECS:
                    continue
            except OSError:
                continue
            try:
                out.extend(_read_file(path, start, end, wanted, notes))
            except CueError as exc:
                if notes is not None:
                    notes.append(f"skipped an unreadable event log: {exc}")
            continue
        out.extend(_read_file(path, start, end, wanted, notes))
    out.sort(key=lambda e: e.ts)
    return out


def _read_file(path: Path, start: float, end: float, topics: set[str] | None,
               notes: list[str] | None) -> list[Event]:
    from mcap.exceptions import McapError

    start_ns = _to_ns(start, math.floor)
    end_ns = _to_ns(end, math.ceil)
    try:
        f = open(path, "rb")  # noqa: SIM115 - closed by the with below
    except OSError as exc:
        raise CueError(f"cannot read event log {path}: {exc.strerror}") from None
    with f:
        head = f.read(len(MAGIC))
        if not MAGIC.startswith(head):
            raise CueError(f"{path} is not an MCAP event log (it does not start with MCAP magic)")
        if len(head) < len(MAGIC):
            return []  # the writer died before writing anything
        summary = None
        try:
            f.seek(-len(MAGIC), io.SEEK_END)
            if f.read() == MAGIC:
                from mcap.reader import SeekingReader

                f.seek(0)
                reader = SeekingReader(f)
                summary = reader.get_summary()
        except (McapError, struct.error, ValueError, OSError, UnicodeDecodeError):
            summary = None
        if summary is not None and summary.chunk_indexes:
            stats = summary.statistics
            if stats is not None and stats.message_count and (
                    stats.message_end_time < start_ns or stats.message_start_time > end_ns):
                return []
            try:
                messages = list(reader.iter_messages(topics=list(topics) if topics else None,
                                                     starting_at=start_ns, ending_at=end_ns))
            except Exception:  # noqa: BLE001 - a damaged chunk: read what is readable instead
                if notes is not None:
                    notes.append(f"event log {path.name} is damaged; read what is readable")
                return _recover(path, f, start_ns, end_ns, topics, None)
            return [ev for ev in (_event(path, schema, ch, msg) for schema, ch, msg in messages)
                    if ev is not None]
        return _recover(path, f, start_ns, end_ns, topics, notes)


def _recover(path: Path, f, start_ns: int, end_ns: int, topics: set[str] | None,
             notes: list[str] | None) -> list[Event]:
    """Read an unfinished log front to back, keeping every complete record."""
    from mcap.records import Channel, Message
    from mcap.stream_reader import StreamReader

    f.seek(len(MAGIC))
    channels: dict[int, Channel] = {}
    out: list[Event] = []
    last_ns = None
    reader = StreamReader(f, skip_magic=True, record_size_limit=256 * 2**20)
    records = reader.records
    complete = False
    while True:
        try:
            record = next(records)
        except StopIteration:
            complete = True
            break
        except Exception:  # noqa: BLE001 - truncation or damage (zstd errors share no base)
            break
        if isinstance(record, Channel):
            channels[record.id] = record
        elif isinstance(record, Message):
            channel = channels.get(record.channel_id)
            if channel is None:
                continue
            last_ns = record.log_time if last_ns is None else max(last_ns, record.log_time)
            if not (start_ns <= record.log_time <= end_ns):
                continue
            if topics is not None and channel.topic not in topics:
                continue
            ev = _event(path, None, channel, record)
            if ev is not None:
                out.append(ev)
    if not complete and notes is not None:
        upto = f", up to {_fmt(last_ns / 1e9)}" if last_ns is not None else ""
        notes.append(f"event log {path.name} was not closed cleanly; read what it holds{upto}")
    return out


def _event(path: Path, schema, channel, message) -> Event | None:
    if channel.message_encoding != "json":
        return None
    try:
        data = json.loads(message.data)
    except (ValueError, UnicodeDecodeError):
        raise CueError(
            f"event log {path} has a {channel.topic} message that is not valid JSON "
            f"(at {_fmt(message.log_time / 1e9)})") from None
    if not isinstance(data, dict):
        raise CueError(f"event log {path} has a {channel.topic} message that is not a JSON object")
    return Event(ts=message.log_time / 1e9, topic=channel.topic, data=data)


def _to_ns(ts: float, rnd) -> int:
    if ts == math.inf:
        return 2**63 - 1
    if ts == -math.inf:
        return 0
    return max(0, int(rnd(ts * 1e9)))


def _fmt(ts: float) -> str:
    from cue.core.timespec import iso_utc

    return iso_utc(ts)
