"""X11 text properties (window titles, WM_CLASS) decoded by their property type.

An X property carries its encoding as its type atom, and window titles come in four:
- `UTF8_STRING` (freedesktop `_NET_WM_NAME`): UTF-8.
- `STRING` (ICCCM): Latin-1 — but `xdotool set_window --name` and `xprop -f … 8s` store raw
  UTF-8 bytes under this type, so bytes that are valid UTF-8 and not plain ASCII are read as
  UTF-8 (Latin-1 prose that happens to be valid UTF-8 — "Ã©" pairs — does not occur in titles).
- `COMPOUND_TEXT` (ICCCM; what xterm and every Xlib client using `XmbTextListToTextProperty`
  set): ISO 2022 with the charset designations X uses — handled by `decode_compound_text`.
- anything else (a locale encoding atom, a 16/32-bit property): not decodable.

A title that cannot be decoded exactly still yields *best-effort* text (so an exclusion
pattern can match what is legible) and the `exact=False` flag (so `record.exclude_undecodable`
can exclude the window: a title cue cannot read may be the one it must not record).
Text is returned NFC-normalized (a title in decomposed Hangul would otherwise slip past a
precomposed exclusion pattern), with control characters turned into spaces.
"""
from __future__ import annotations

import codecs
import unicodedata

from cuectx.value import Value

ESC = 0x1B
CSI = 0x9B
REPLACEMENT = "\ufffd"

# ESC - F: 96-character sets into GR (ISO 8859 right halves, as Xlib designates them).
_96_SETS = {
    ord("A"): "iso8859-1", ord("B"): "iso8859-2", ord("C"): "iso8859-3", ord("D"): "iso8859-4",
    ord("F"): "iso8859-7", ord("G"): "iso8859-6", ord("H"): "iso8859-8", ord("L"): "iso8859-5",
    ord("M"): "iso8859-9", ord("V"): "iso8859-10", ord("T"): "tis-620", ord("Y"): "iso8859-13",
    ord("_"): "iso8859-14", ord("b"): "iso8859-15", ord("f"): "iso8859-16",
}
# ESC ( F / ESC ) F: 94-character sets. Decoded byte by byte as `codec(prefix + byte|0x80)`.
_94_SETS = {
    ord("B"): ("ascii", b""),          # ASCII
    ord("J"): ("shift_jis", b""),      # JIS X 0201 Roman (ASCII with ¥ and ‾)
    ord("I"): ("euc_jp", b"\x8e"),     # JIS X 0201 Katakana
}
# ESC $ ( F / ESC $ ) F: 94×94 sets, decoded as the matching EUC byte pair.
_94x94_SETS = {
    ord("A"): ("gb2312", b""),         # GB 2312
    ord("B"): ("euc_jp", b""),         # JIS X 0208
    ord("@"): ("euc_jp", b""),         # JIS C 6226-1978 (treated as X 0208)
    ord("C"): ("euc_kr", b""),         # KS C 5601
    ord("D"): ("euc_jp", b"\x8f"),     # JIS X 0212
}
# ESC % / 1 M L name STX …: extended segments with a named encoding (Xlib writes these).
_EXTENDED = {
    "utf-8": "utf-8", "iso10646-1": "utf-16-be", "big5-0": "big5", "gbk-0": "gbk",
    "gb18030-0": "gb18030", "koi8-r": "koi8-r", "koi8-u": "koi8-u",
    "iso8859-14": "iso8859-14", "iso8859-15": "iso8859-15", "big5hkscs-0": "big5hkscs",
}


class Decoded(Value):
    __slots__ = ("exact", "text")

    def __init__(self, text: str, exact: bool) -> None:
        self.text = text
        self.exact = exact  # False: some bytes could not be decoded; `text` is the legible rest


class _Set(Value):
    __slots__ = ("codec", "kind", "prefix")

    def __init__(self, kind: str, codec: str, prefix: bytes = b"") -> None:
        self.kind = kind  # "94", "96", "94x94", "latin1r"
        self.codec = codec
        self.prefix = prefix


_ASCII = _Set("94", "ascii")
_LATIN1_RIGHT = _Set("96", "iso8859-1")


def _decode_run(data: bytes, charset: _Set | None, high: bool) -> tuple[str, bool]:
    """Bytes of one run in GL (`high=False`) or GR under `charset`."""
    if charset is None:
        return REPLACEMENT * len(data), False
    if charset.kind == "94x94":
        out, ok = [], True
        for i in range(0, len(data) - 1, 2):
            pair = bytes(b | 0x80 for b in data[i:i + 2])
            try:
                out.append((charset.prefix + pair).decode(charset.codec))
            except UnicodeDecodeError:
                out.append(REPLACEMENT)
                ok = False
        if len(data) % 2:
            out.append(REPLACEMENT)
            ok = False
        return "".join(out), ok
    if charset.kind == "94" and charset.codec == "ascii":
        return bytes(b & 0x7F for b in data).decode("ascii"), True
    out, ok = [], True
    for b in data:
        try:
            if charset.kind == "96":
                out.append(bytes([b | 0x80]).decode(charset.codec))
            else:
                out.append((charset.prefix + bytes([b | 0x80 if charset.prefix else b & 0x7F]))
                           .decode(charset.codec))
        except UnicodeDecodeError:
            out.append(REPLACEMENT)
            ok = False
    return "".join(out), ok


def decode_compound_text(data: bytes) -> Decoded:
    """ISO 2022 as X's COMPOUND_TEXT uses it: GL starts as ASCII, GR as Latin-1's right half;
    `ESC ( F`, `ESC ) F`, `ESC - F`, `ESC $ ( F`, `ESC $ ) F` designate, `ESC % G … ESC % @` is
    UTF-8, `ESC % / 1 M L name STX` an extended segment, `CSI … ]` direction (ignored).
    Unknown sequences and charsets make the result inexact, never raise."""
    gl: _Set | None = _ASCII
    gr: _Set | None = _LATIN1_RIGHT
    out: list[str] = []
    exact = True
    i, n = 0, len(data)
    while i < n:
        b = data[i]
        if b == ESC:
            seq = data[i + 1:i + 4]
            if seq[:2] == b"%G":                                   # UTF-8 until ESC % @
                end = data.find(b"\x1b%@", i + 3)
                end = n if end < 0 else end
                chunk = data[i + 3:end].decode("utf-8", "replace")
                exact &= REPLACEMENT not in chunk
                out.append(chunk)
                i = end + 3
                continue
            if seq[:2] == b"%/" and len(seq) == 3 and i + 6 <= n:   # extended segment
                length = (data[i + 4] - 128) * 128 + (data[i + 5] - 128)
                body = data[i + 6:i + 6 + max(length, 0)]
                name, _, payload = body.partition(b"\x02")
                codec = _EXTENDED.get(name.decode("latin-1").lower())
                if codec is None or length <= 0:
                    out.append(REPLACEMENT)
                    exact = False
                else:
                    chunk = payload.decode(codec, "replace")
                    exact &= REPLACEMENT not in chunk
                    out.append(chunk)
                i += 6 + max(length, 0)
                continue
            if seq[:1] in (b"(", b")") and len(seq) >= 2:
                found = _94_SETS.get(seq[1])
                charset = _Set("94", *found) if found else None
                exact &= found is not None
                if seq[:1] == b"(":
                    gl = charset
                else:
                    gr = charset
                i += 3
                continue
            if seq[:1] == b"-" and len(seq) >= 2:
                codec96 = _96_SETS.get(seq[1])
                exact &= codec96 is not None
                gr = _Set("96", codec96) if codec96 else None
                i += 3
                continue
            if seq[:1] == b"$" and len(seq) >= 3 and seq[1:2] in (b"(", b")"):
                found = _94x94_SETS.get(seq[2])
                exact &= found is not None
                charset = _Set("94x94", *found) if found else None
                if seq[1:2] == b"(":
                    gl = charset
                else:
                    gr = charset
                i += 4
                continue
            out.append(REPLACEMENT)  # an escape sequence X does not define
            exact = False
            i += 1
            continue
        if b == CSI:  # direction: CSI 1 ] / CSI 2 ] / CSI ]
            end = data.find(b"]", i + 1)
            i = n if end < 0 else end + 1
            continue
        if b == 0x20:  # SPACE whatever GL holds
            out.append(" ")
            i += 1
            continue
        if b < 0x20 or b == 0x7F or 0x80 <= b < 0xA0:
            out.append(" " if b in (0x09, 0x0A) else REPLACEMENT)
            exact &= b in (0x09, 0x0A)
            i += 1
            continue
        high = b >= 0x80
        j = i
        while j < n and data[j] not in (ESC, CSI) and (data[j] >= 0xA0) == high \
                and (0x20 < data[j] < 0x7F or data[j] >= 0xA0):
            j += 1
        text, ok = _decode_run(data[i:j], gr if high else gl, high)
        out.append(text)
        exact &= ok
        i = j
    return Decoded("".join(out), exact)


def _looks_utf8(data: bytes) -> bool:
    if data.isascii():
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def decode_bytes(data: bytes, type_name: str | None) -> Decoded:
    """One 8-bit text property's bytes, decoded by its type's name (`None`: type unknown)."""
    data = data.rstrip(b"\x00")
    if type_name == "UTF8_STRING":
        text = data.decode("utf-8", "replace")
        result = Decoded(text, REPLACEMENT not in text)
    elif type_name == "STRING":
        if _looks_utf8(data):
            result = Decoded(data.decode("utf-8"), True)
        else:  # ICCCM Latin-1; C1 controls are not Latin-1 text
            result = Decoded(data.decode("latin-1"), not any(0x80 <= b < 0xA0 for b in data))
    elif type_name == "COMPOUND_TEXT":
        result = decode_compound_text(data)
    else:  # TEXT, C_STRING, a locale's own encoding atom…: read what we can, flag it
        text = data.decode("utf-8") if _looks_utf8(data) or data.isascii() \
            else data.decode("latin-1")
        result = Decoded(text, False)
    return Decoded(clean(result.text), result.exact)


def clean(text: str) -> str:
    """NFC, NULs (list separators) and other control characters as spaces, trimmed."""
    text = unicodedata.normalize("NFC", text)
    text = "".join(" " if unicodedata.category(c) == "Cc" else c for c in text)
    return text.strip()


def decode_list(data: bytes, type_name: str | None) -> list[Decoded]:
    """A NUL-separated text list (WM_CLASS: instance, class), each part decoded."""
    parts = data.rstrip(b"\x00").split(b"\x00")
    return [decode_bytes(p, type_name) for p in parts]


codecs.lookup("euc_kr")  # fail at import, not on the first Korean title, if a codec is missing
