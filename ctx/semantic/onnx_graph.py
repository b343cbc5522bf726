"""The all-MiniLM-L6-v2 graph, written node by node with the `onnx` package.

BERT (6 layers, hidden 384, 12 heads) straight from model.safetensors -- no torch, no
transformers. Adapted from ../shared/reference/build_minilm_onnx.py, which was checked
against sentence-transformers to 2.2e-7; tests/ctx/test_semantic_embed.py checks our build
against committed sentence-transformers vectors.

Inputs:  input_ids, attention_mask, token_type_ids  (int64, [batch, seq])
Outputs: sentence_embedding [batch, 384] (mean pooling over attention_mask, then L2 norm,
         i.e. Transformer -> Pooling(mean) -> Normalize), last_hidden_state [batch, seq, 384]
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto as TP
from onnx import helper as h
from onnx import numpy_helper as nh
from safetensors.numpy import load_file


class GraphParts:
    """A graph's initializers and nodes as they are written, one call each (both model builders,
    this one and ctx/semantic/e5_graph.py, name things the same way)."""

    def __init__(self) -> None:
        self.inits: list = []
        self.nodes: list = []

    def init(self, name: str, arr) -> str:
        self.inits.append(nh.from_array(np.ascontiguousarray(arr), name))
        return name

    def const(self, name: str, value, dtype=np.float32) -> str:
        return self.init(name, np.array(value, dtype=dtype))

    def node(self, op: str, inputs: list[str], name: str, **attrs) -> str:
        self.nodes.append(h.make_node(op, inputs, [name], name=name + "_node", **attrs))
        return name


def build_graph(model_dir: Path) -> onnx.ModelProto:
    cfg = json.loads((model_dir / "config.json").read_text())
    H = cfg["hidden_size"]
    NH = cfg["num_attention_heads"]
    HD = H // NH
    L = cfg["num_hidden_layers"]
    eps = cfg["layer_norm_eps"]
    assert cfg["hidden_act"] == "gelu" and cfg["position_embedding_type"] == "absolute"

    w = load_file(str(model_dir / "model.safetensors"))
    parts = GraphParts()
    inits, nodes, init, const, node = parts.inits, parts.nodes, parts.init, parts.const, parts.node

    def linear(x, prefix, out):
        # torch Linear stores weight [out, in]; MatMul wants [in, out]
        W = init(prefix + ".weight_T", w[prefix + ".weight"].T)
        b = init(prefix + ".bias", w[prefix + ".bias"])
        return node("Add", [node("MatMul", [x, W], out + "_mm"), b], out)

    def layernorm(x, prefix, out):
        g = init(prefix + ".weight", w[prefix + ".weight"])
        b = init(prefix + ".bias", w[prefix + ".bias"])
        return node("LayerNormalization", [x, g, b], out, axis=-1, epsilon=eps)

    # constants
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

    # embeddings
    word = node("Gather", [init("word_emb", w["embeddings.word_embeddings.weight"]), "input_ids"], "word", axis=0)
    ttyp = node("Gather", [init("type_emb", w["embeddings.token_type_embeddings.weight"]),
                           "token_type_ids"], "ttyp", axis=0)
    # position ids as HF does it: position_ids[:, :seq_len]  (a Range-based variant trips a
    # bug in ORT 1.31's EmbedLayerNormFusion at ORT_ENABLE_EXTENDED and above)
    shape = node("Shape", ["input_ids"], "ids_shape")
    seqlen = node("Slice", [shape, const("c_1d_one", [1], np.int64), const("c_1d_two", [2], np.int64)], "seqlen")
    pos_ids = node("Slice", [init("position_ids", np.arange(cfg["max_position_embeddings"], dtype=np.int64)[None, :]),
                             const("c_1d_zero", [0], np.int64), seqlen, const("c_1d_axis1", [1], np.int64)], "pos_ids")
    pos = node("Gather", [init("pos_emb", w["embeddings.position_embeddings.weight"]), pos_ids], "pos", axis=0)
    emb = node("Add", [node("Add", [word, ttyp], "emb0"), pos], "emb1")
    x = layernorm(emb, "embeddings.LayerNorm", "emb_ln")

    # additive attention mask [B,1,1,S]: 0 where attended, float32 min where padded (as HF BERT)
    mask_f = node("Cast", ["attention_mask"], "mask_f", to=TP.FLOAT)
    inv = node("Sub", ["c_one_f", mask_f], "mask_inv")
    bias = node("Unsqueeze", [node("Mul", [inv, "c_neg"], "mask_bias0"), "c_axes_12"], "mask_bias")

    for i in range(L):
        p = f"encoder.layer.{i}"
        q = linear(x, f"{p}.attention.self.query", f"l{i}_q")
        k = linear(x, f"{p}.attention.self.key", f"l{i}_k")
        v = linear(x, f"{p}.attention.self.value", f"l{i}_v")
        q = node("Transpose", [node("Reshape", [q, "c_heads_shape"], f"l{i}_q4")], f"l{i}_qt", perm=[0, 2, 1, 3])
        k = node("Transpose", [node("Reshape", [k, "c_heads_shape"], f"l{i}_k4")], f"l{i}_kt", perm=[0, 2, 3, 1])
        v = node("Transpose", [node("Reshape", [v, "c_heads_shape"], f"l{i}_v4")], f"l{i}_vt", perm=[0, 2, 1, 3])
        s = node("MatMul", [q, k], f"l{i}_qk")
        s = node("Div", [s, init(f"l{i}_sqrt_hd", np.array(np.sqrt(HD), np.float32))], f"l{i}_scaled")
        s = node("Add", [s, bias], f"l{i}_masked")
        prob = node("Softmax", [s], f"l{i}_prob", axis=-1)
        ctx = node("MatMul", [prob, v], f"l{i}_ctx")
        ctx = node("Transpose", [ctx], f"l{i}_ctxt", perm=[0, 2, 1, 3])
        ctx = node("Reshape", [ctx, "c_hidden_shape"], f"l{i}_ctx3")
        ao = linear(ctx, f"{p}.attention.output.dense", f"l{i}_ao")
        x1 = layernorm(node("Add", [ao, x], f"l{i}_res1"), f"{p}.attention.output.LayerNorm", f"l{i}_ln1")
        it = linear(x1, f"{p}.intermediate.dense", f"l{i}_inter")
        # exact (erf) GELU in the pattern ORT's GeluFusion recognises
        e = node("Erf", [node("Div", [it, "c_sqrt2"], f"l{i}_gdiv")], f"l{i}_gerf")
        ga = node("Add", [e, "c_one_f"], f"l{i}_gadd")
        g = node("Mul", [node("Mul", [it, ga], f"l{i}_gmul"), "c_half"], f"l{i}_gelu")
        o = linear(g, f"{p}.output.dense", f"l{i}_out")
        x = layernorm(node("Add", [o, x1], f"l{i}_res2"), f"{p}.output.LayerNorm", f"l{i}_ln2")

    nodes.append(h.make_node("Identity", [x], ["last_hidden_state"], name="lhs_out"))

    # mean pooling over real tokens, then L2 normalisation
    m3 = node("Unsqueeze", [mask_f, "c_axes_m1"], "mask3")
    summed = node("ReduceSum", [node("Mul", [x, m3], "masked_hidden"), "c_axes_1"], "sum_hidden", keepdims=0)
    cnt = node("ReduceSum", [m3, "c_axes_1"], "tok_count", keepdims=0)
    cnt = node("Clip", [cnt, "c_tiny"], "tok_count_clip")
    mean = node("Div", [summed, cnt], "mean_pooled")
    nrm = node("ReduceL2", [mean], "l2", axes=[1], keepdims=1)
    nrm = node("Max", [nrm, "c_eps_norm"], "l2_clip")
    nodes.append(h.make_node("Div", [mean, nrm], ["sentence_embedding"], name="normalize"))

    dims = ["batch", "seq"]
    graph = h.make_graph(
        nodes, "all-MiniLM-L6-v2",
        [h.make_tensor_value_info(n, TP.INT64, dims) for n in ("input_ids", "attention_mask", "token_type_ids")],
        [h.make_tensor_value_info("sentence_embedding", TP.FLOAT, ["batch", H]),
         h.make_tensor_value_info("last_hidden_state", TP.FLOAT, ["batch", "seq", H])],
        initializer=inits,
    )
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 17)], producer_name="ctx.semantic.onnx_graph")
    model.ir_version = 8
    return model
