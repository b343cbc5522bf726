"""cue.pii.privacy_log.privacy_log: scrubbed, redacted, 0600, one JSON line per call."""
from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from cue.core import paths
from cue.pii.privacy_log import privacy_log


def _lines():
    return [json.loads(line) for line in paths.privacy_log().read_text("utf-8").splitlines()]


def test_record_is_scrubbed_and_file_is_private():
    written = privacy_log("digest_skipped", reason="local backend failed for kim@example.com",
                          frames=12, backend="local", fallback=False)
    path = paths.privacy_log()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    (line,) = _lines()
    assert line == written
    assert line["event"] == "digest_skipped"
    assert line["reason"] == "local backend failed for [EMAIL]"
    assert line["frames"] == 12 and line["fallback"] is False
    assert "kim@example.com" not in path.read_text("utf-8")


def test_bytes_paths_and_inline_images_are_never_written():
    jpeg = b"\xff\xd8\xff\xe0" + b"JFIF-secret-pixels" * 10
    b64 = "QUJD" * 100
    privacy_log("prompt_sent", image=jpeg, keyframe=Path("/Users/alice/keyframes/0001.jpg"),
                prompt=f"frame 3 at +12s data:image/jpeg;base64,{b64} then",
                payload={"images": [bytearray(b"\x00\x01"), memoryview(b"abc")],
                         "note": "token=Zq8vX2mL9pR4tW7yB3nK6dF1"})
    raw = paths.privacy_log().read_bytes()
    assert b"JFIF" not in raw and b"QUJDQUJD" not in raw and b"alice" not in raw
    (line,) = _lines()
    assert line["image"] == f"[{len(jpeg)} bytes redacted]"
    assert line["keyframe"] == "[PATH]"
    assert line["prompt"] == "frame 3 at +12s [IMAGE_DATA] then"
    assert line["payload"] == {"images": ["[2 bytes redacted]", "[3 bytes redacted]"],
                               "note": "token=[SECRET]"}


def test_appends_one_line_per_call_and_tightens_loose_permissions():
    path = paths.ensure_home() / "privacy.log"
    path.write_text("")
    path.chmod(0o644)
    privacy_log("a", n=1)
    privacy_log("b", summary="박지영 씨는 02-312-3456")
    assert [r["event"] for r in _lines()] == ["a", "b"]
    assert _lines()[1]["summary"] == "[PERSON] 씨는 [PHONE]"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_log_fails_closed_when_scrubbing_breaks(monkeypatch):
    import cue.pii

    def broken(text):
        raise RuntimeError("engine unavailable")

    monkeypatch.setattr(cue.pii, "scrub", broken)
    privacy_log("digest_failed", reason="call 010-1234-5678", attempts=2)
    (line,) = _lines()
    assert line["reason"] == "[REDACTED]"
    assert line["attempts"] == 2


def test_long_fields_are_cut_after_scrubbing():
    from cue.pii.privacy_log import MAX_FIELD_CHARS

    privacy_log("summary", text="word " * 2000)
    (line,) = _lines()
    assert len(line["text"]) <= MAX_FIELD_CHARS + len("…[truncated]")
    assert line["text"].endswith("…[truncated]")


@pytest.mark.parametrize("bad", ["", "Has Space", "x" * 80])
def test_event_names_are_checked(bad):
    with pytest.raises(ValueError):
        privacy_log(bad)
    assert not paths.privacy_log().exists()


def test_reserved_field_names_are_refused():
    with pytest.raises(ValueError):
        privacy_log("ok", ts="now")


def test_concurrent_writers_never_interleave_lines():
    from concurrent.futures import ThreadPoolExecutor

    def write(i):
        privacy_log("tick", i=i, note="many words " * 300)

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(write, range(60)))
    lines = _lines()
    assert sorted(r["i"] for r in lines) == list(range(60))
    assert all(r["note"] == "many words " * 300 for r in lines)
