"""The keyframe folder contract: names → capture times, formats, folders."""
from __future__ import annotations

import os

import pytest
from PIL import Image

from cue.core.errors import CueError
from cue.inputs.keyframes import capture_time_from_name, list_keyframes

T = 1_763_733_787.25  # 2025-11-21T14:03:07.250Z


@pytest.mark.parametrize("name,expected", [
    ("1763733787250.jpg", T),
    ("display1-1763733787250.png", T),
    ("1763733787.25.webp", T),
    ("1763733787.jpg", 1_763_733_787.0),
    ("1763733787250000.jpg", T),
    ("1763733787250000000.jpeg", T),
    ("2025-11-21T14-03-07.250Z.jpg", T),
    ("2025-11-21T14:03:07.25Z.PNG", T),
    ("screen_2025-11-21T23:03:07.250+09:00.png", T),
    ("2025-11-21T09-33-07.250-04:30.jpg", T),
    ("20251121T140307.250Z.webp", T),
    ("2025-11-21_14-03-07.250.jpg", T),  # no zone: UTC by contract
])
def test_names(name, expected):
    assert capture_time_from_name(name) == pytest.approx(expected, abs=1e-6)


@pytest.mark.parametrize("name", ["Screenshot at noon.png", "frame-12.jpg", "99999.jpg",
                                  "2025-13-45T99-99-99Z.jpg", "0000000000123.jpg"])
def test_names_without_a_time(name):
    assert capture_time_from_name(name) is None


def _img(path, ts=None):
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (8, 8)).save(path)
    if ts is not None:
        os.utime(path, (ts, ts))
    return path


def test_listing_filters_sorts_and_falls_back_to_mtime(tmp_path):
    a = _img(tmp_path / "1763733787250.jpg")
    b = _img(tmp_path / "2025-11-21T14-03-09Z.png")
    c = _img(tmp_path / "screenshot.webp", ts=T + 1)  # no time in the name → mtime
    _img(tmp_path / "1763733790000.gif")  # not a keyframe format
    _img(tmp_path / ".1763733788000.jpg")  # hidden (a capture tool's temp file)
    (tmp_path / "1763733788000.jpg.tmp").write_bytes(b"partial")
    _img(tmp_path / "1763733700000.jpg")  # before the window
    d = _img(tmp_path / "1763733790000.JPEG")
    _img(tmp_path / "1763733795000.jpg")  # after the window
    got = list_keyframes(tmp_path, T - 1, T + 5)
    assert [(k.path, k.time_source) for k in got] == [(a, "name"), (c, "mtime"), (b, "name"),
                                                       (d, "name")]
    assert [k.ts for k in got] == [T, T + 1, T + 1.75, T + 2.75]
    assert list_keyframes(tmp_path, T + 100, T + 200) == []


def test_subfolders_and_day_folders(tmp_path):
    inside = _img(tmp_path / "display2" / "1763733787250.jpg")
    today = _img(tmp_path / "2025-11-21" / "1763733788000.jpg")
    # A day folder far from the window is not even listed (a wrong name inside it shows that).
    _img(tmp_path / "2025-10-01" / "1763733789000.jpg")
    got = list_keyframes(tmp_path, T - 1, T + 5)
    assert [k.path for k in got] == [inside, today]


def test_missing_or_wrong_folder(tmp_path):
    with pytest.raises(CueError, match="does not exist"):
        list_keyframes(tmp_path / "nope", 0, 1)
    f = tmp_path / "file.jpg"
    f.write_bytes(b"x")
    with pytest.raises(CueError, match="not a folder"):
        list_keyframes(f, 0, 1)


def test_relative_folder_gives_absolute_paths(tmp_path, monkeypatch):
    _img(tmp_path / "kf" / "1763733787250.jpg")
    monkeypatch.chdir(tmp_path)
    (k,) = list_keyframes("kf", T - 1, T + 1)
    assert k.path.is_absolute() and k.path == tmp_path / "kf" / "1763733787250.jpg"


def test_an_open_ended_range_lists_every_frame(tmp_path):
    import math

    from cue.inputs.keyframes import list_keyframes
    (tmp_path / "1700000000000.jpg").write_bytes(b"x")
    (tmp_path / "1700000005000.jpg").write_bytes(b"x")
    assert len(list_keyframes(tmp_path, 0, math.inf)) == 2
    assert len(list_keyframes(tmp_path, -math.inf, math.inf)) == 2
    assert len(list_keyframes(tmp_path, 1700000004.0, math.inf)) == 1
