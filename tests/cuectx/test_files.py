"""cuectx.files.replace_file: the one way ctx and cue replace a file (keyframes, digests,
memory.md, cue's config, exports, caches, Claude Code's settings)."""
from __future__ import annotations

import os

import pytest

from cuectx.files import replace_file


def _names(folder):
    return sorted(p.name for p in folder.iterdir())


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "f").mkdir()  # (tmp_path itself holds the suite's throw-away homes)
    return tmp_path / "f"


def test_writes_owner_only_from_the_first_byte_and_leaves_no_temp(folder):
    target = folder / "1763766000000.jpg"
    replace_file(target, [b"on", b"e"], sync=False)
    assert target.read_bytes() == b"one" and os.stat(target).st_mode & 0o777 == 0o600
    replace_file(str(target), iter([b"two"]))  # a str path and a generator (an export streams)
    assert target.read_bytes() == b"two" and _names(folder) == [target.name]


def test_mode_is_less_the_umask(folder):
    old = os.umask(0o022)
    try:
        replace_file(folder / "settings.json", [b"{}"], mode=0o666)
    finally:
        os.umask(old)
    assert os.stat(folder / "settings.json").st_mode & 0o777 == 0o644


def test_a_failure_keeps_the_old_file_whole_and_removes_the_temp(folder, monkeypatch):
    target = folder / "memory.md"
    replace_file(target, [b"old"])

    def boom(*_):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        replace_file(target, [b"new"])
    assert target.read_bytes() == b"old" and _names(folder) == ["memory.md"]

    def chunks():  # the data itself fails half-way (an export whose query breaks)
        yield b"half"
        raise RuntimeError("the store went away")

    monkeypatch.undo()
    with pytest.raises(RuntimeError):
        replace_file(target, chunks())
    assert target.read_bytes() == b"old" and _names(folder) == ["memory.md"]


def test_a_temp_left_by_a_crashed_writer_with_our_pid_does_not_block_writes(folder):
    target = folder / "config.toml"
    stale = folder / f".config.toml.{os.getpid()}.tmp"
    stale.write_bytes(b"half a file from a crash")
    replace_file(target, [b"x = 1\n"])
    assert target.read_bytes() == b"x = 1\n" and _names(folder) == ["config.toml"]


def test_never_writes_through_a_symlink_at_the_temp_path(tmp_path):
    outside = tmp_path / "outside"
    outside.write_bytes(b"precious")
    folder = tmp_path / "cache"
    folder.mkdir()
    os.symlink(outside, folder / f".names.json.{os.getpid()}.tmp")
    replace_file(folder / "names.json", [b"[]"])
    assert outside.read_bytes() == b"precious"
    assert (folder / "names.json").read_bytes() == b"[]" and not (folder / "names.json").is_symlink()


def test_errors_name_the_file_asked_for(tmp_path):
    with pytest.raises(FileNotFoundError) as err:
        replace_file(tmp_path / "no-such-folder" / "digest.md", [b"x"])
    assert err.value.filename == str(tmp_path / "no-such-folder" / "digest.md")
