"""X11 text properties decoded by type. The COMPOUND_TEXT bytes here are what libX11 wrote
(`xprop -f WM_NAME 8t -set WM_NAME …` under LANG=C.UTF-8 on Xvfb, read back with `8x`);
test_record_x11.py sets the same titles on a real server and reads them through cue."""
from __future__ import annotations

import pytest

from cue.record.x11_text import Decoded, decode_bytes, decode_compound_text, decode_list

KOREAN = "비밀번호 변경 — 은행"
LIBX11 = {
    KOREAN: bytes([
        0x1b, 0x24, 0x28, 0x43, 0x3a, 0x71, 0x39, 0x50, 0x39, 0x78, 0x48, 0x23, 0x1b, 0x28, 0x42,
        0x20, 0x1b, 0x24, 0x28, 0x43, 0x3a, 0x2f, 0x30, 0x66, 0x1b, 0x28, 0x42, 0x20, 0x1b, 0x25,
        0x47, 0xe2, 0x80, 0x94, 0x1b, 0x25, 0x40, 0x20, 0x1b, 0x24, 0x28, 0x43, 0x40, 0x3a, 0x47,
        0x60]),
    "パスワード 設定": bytes([
        0x1b, 0x24, 0x28, 0x42, 0x25, 0x51, 0x25, 0x39, 0x25, 0x6f, 0x21, 0x3c, 0x25, 0x49, 0x1b,
        0x28, 0x42, 0x20, 0x1b, 0x24, 0x28, 0x42, 0x40, 0x5f, 0x44, 0x6a]),
    "café 🔑 — x": bytes([
        0x63, 0x61, 0x66, 0xe9, 0x20, 0x1b, 0x25, 0x47, 0xf0, 0x9f, 0x94, 0x91, 0x1b, 0x25, 0x40,
        0x20, 0x1b, 0x25, 0x47, 0xe2, 0x80, 0x94, 0x1b, 0x25, 0x40, 0x20, 0x78]),
    "billing-api — vim": b"billing-api \x1b%G\xe2\x80\x94\x1b%@ vim",  # xterm -T, issue 25
    "Ελληνικά и русский": bytes([
        0x1b, 0x2d, 0x46, 0xc5, 0xeb, 0xeb, 0xe7, 0xed, 0xe9, 0xea, 0xdc, 0x20, 0x1b, 0x2d, 0x4c,
        0xd8, 0x20, 0xe0, 0xe3, 0xe1, 0xe1, 0xda, 0xd8, 0xd9]),
}


@pytest.mark.parametrize("text", list(LIBX11))
def test_compound_text_written_by_libx11(text):
    assert decode_bytes(LIBX11[text], "COMPOUND_TEXT") == Decoded(text, True)


@pytest.mark.parametrize("data,text", [
    (b"\x1b$)C\xba\xf1\xb9\xd0", "비밀"),                        # KS C 5601 in GR
    (b"\x1b$)A\xc3\xdc\xc2\xeb", "密码"),                        # GB 2312 in GR
    (b"\x1b$)B\xa5\xd1\xa5\xb9", "パス"),                        # JIS X 0208 in GR
    (b"\x1b(I\x31\x32", "ｱｲ"),                                   # JIS X 0201 katakana in GL
    (b"\x1b%/1\x80\x8bbig5-0\x02\xb1K\xbdX", "密碼"),             # an extended segment
    (b"a\x9b1]b\x9b]c", "abc"),                                   # direction controls
    (b"caf\xe9", "café"),                                         # initial GR: Latin-1
])
def test_compound_text_designations(data, text):
    assert decode_compound_text(data) == Decoded(text, True)


@pytest.mark.parametrize("data", [
    b"ab\x1b$(Zxx",                 # a 94x94 set X does not define
    b"ab\x1b%/1\x80\x89koi7-x\x02zz",  # an extended segment in an unknown encoding
    b"ab\x1bQcd",                   # an escape sequence ISO 2022 does not have
    b"ab\x1b%G\xff\xfe\x1b%@",      # broken UTF-8 inside a UTF-8 segment
    b"ab\x1b$(C\x3a",               # half a two-byte character
])
def test_undecodable_compound_text_is_flagged_and_keeps_the_legible_part(data):
    result = decode_compound_text(data)
    assert not result.exact and result.text.startswith("ab")


def test_string_holding_utf8_or_latin1():
    assert decode_bytes(KOREAN.encode(), "STRING") == Decoded(KOREAN, True)      # xdotool set_window
    assert decode_bytes("Grüße".encode("latin-1"), "STRING") == Decoded("Grüße", True)
    assert decode_bytes(b"a\x85b", "STRING").exact is False              # C1: not Latin-1 text


def test_utf8_string_nfc_and_controls():
    nfd = "\u1107\u1175\u1106\u1175\u11af\u1107\u1165\u11ab\u1112\u1169"  # 비밀번호, decomposed
    assert decode_bytes(nfd.encode(), "UTF8_STRING") == Decoded("비밀번호", True)
    assert decode_bytes(b"a\x1b[31mb\x00", "UTF8_STRING") == Decoded("a [31mb", True)
    assert decode_bytes(b"ab\xff", "UTF8_STRING").exact is False


def test_unknown_property_type_is_not_exact():
    assert decode_bytes(KOREAN.encode(), "TEXT") == Decoded(KOREAN, False)
    assert decode_bytes(b"abc", None) == Decoded("abc", False)


def test_wm_class_is_a_list():
    assert decode_list(b"xterm\x00T\xc3\xabrm\x00", "STRING") == [Decoded("xterm", True), Decoded("Tërm", True)]
