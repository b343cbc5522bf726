#!/usr/bin/env python3
"""Generate tiny random-weight GGUF files for testing llama-cpp-python.

Outputs (in --out-dir):
  tiny-<arch>.gguf         text model (gemma3 or llama architecture), ~0.1-0.3 MB
  tiny-gemma3-mmproj.gguf  SigLIP-style vision tower + Gemma3 projector (clip arch,
                           projector_type=gemma3), only for --arch gemma3

Copied from ../shared/reference/make_tiny_gguf.py with one change: the text model has its
own random `output.weight` instead of tying it to `token_embd` (with tied weights the tiny
model only ever repeats the prompt's last token, i.e. answers "\n\n\n…", which would
look like an empty reply). `make(out_dir)` is the importable entry point for tests and
benchmarks.

Only needs `pip install gguf numpy` (gguf's GGUFWriter API). No real weights or
datasets are used: the vocabulary is hand-made (special tokens + 256 byte-fallback
tokens + printable ASCII + a few words, SentencePiece/"llama" tokenizer model) and
all tensors are seeded random numbers.

Usage:
  python make_tiny_gguf.py --out-dir models --arch gemma3
  python make_tiny_gguf.py --out-dir models --arch llama --no-mmproj
"""
from __future__ import annotations

import argparse
import os
import string

import gguf
import numpy as np
from gguf import GGUFWriter, TokenType

# --------------------------------------------------------------------------- vocab
SPECIALS = [
    ("<pad>", TokenType.CONTROL),
    ("<eos>", TokenType.CONTROL),
    ("<bos>", TokenType.CONTROL),
    ("<unk>", TokenType.UNKNOWN),
    ("<start_of_turn>", TokenType.CONTROL),
    ("<end_of_turn>", TokenType.CONTROL),
    ("<start_of_image>", TokenType.CONTROL),   # mtmd wraps gemma3 image embeddings with these
    ("<end_of_image>", TokenType.CONTROL),
    ("<image_soft_token>", TokenType.CONTROL),
]
WORDS = [
    "the", "a", "an", "is", "of", "to", "in", "on", "and", "user", "window", "screen",
    "terminal", "browser", "editor", "code", "file", "git", "commit", "test", "error",
    "build", "run", "python", "typing", "reading", "writing", "working", "app", "title",
    "meeting", "slack", "email", "document",
]

# Gemma-style chat template (simplified); MTMDChatHandler needs tokenizer.chat_template.
CHAT_TEMPLATE = (
    "{{ bos_token }}"
    "{% for message in messages %}"
    "{% set role = 'model' if message['role'] == 'assistant' else 'user' %}"
    "<start_of_turn>{{ role }}\n"
    "{% if message['content'] is string %}{{ message['content'] | trim }}"
    "{% else %}{% for item in message['content'] %}"
    "{% if item['type'] == 'text' %}{{ item['text'] | trim }}{% endif %}"
    "{% endfor %}{% endif %}"
    "<end_of_turn>\n"
    "{% endfor %}"
    "{% if add_generation_prompt %}<start_of_turn>model\n{% endif %}"
)


def build_vocab(pad_to: int = 512):
    toks, scores, types = [], [], []
    for t, ty in SPECIALS:
        toks.append(t)
        scores.append(0.0)
        types.append(ty)
    for b in range(256):                                   # byte fallback <0x00>..<0xFF>
        toks.append(f"<0x{b:02X}>")
        scores.append(0.0)
        types.append(TokenType.BYTE)
    pieces = ["\u2581"] + [c for c in string.printable if c not in " \t\n\r\x0b\x0c"]
    pieces += ["\u2581" + c for c in string.ascii_lowercase]
    pieces += ["\u2581" + w for w in WORDS]
    seen = set(toks)
    for p in pieces:
        if p in seen:
            continue
        seen.add(p)
        toks.append(p)
        scores.append(float(len(p)) - len(toks) * 1e-3)     # longer pieces merge first
        types.append(TokenType.NORMAL)
    i = 0
    while len(toks) < pad_to:                               # filler so n_vocab is round
        toks.append(f"<unused{i}>")
        scores.append(-1e4)
        types.append(TokenType.UNUSED)
        i += 1
    return toks, scores, types


def add_tokenizer(w: GGUFWriter):
    toks, scores, types = build_vocab()
    w.add_tokenizer_model("llama")                          # SentencePiece (SPM) in llama.cpp
    w.add_token_list(toks)
    w.add_token_scores(scores)
    w.add_token_types(types)
    w.add_pad_token_id(0)
    w.add_eos_token_id(1)
    w.add_bos_token_id(2)
    w.add_unk_token_id(3)
    w.add_add_bos_token(True)
    w.add_add_eos_token(False)
    w.add_add_space_prefix(False)
    w.add_chat_template(CHAT_TEMPLATE)
    return len(toks)


# --------------------------------------------------------------------------- text model
def rnd(rng, *shape, scale=0.02):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def ones(*shape):
    return np.ones(shape, dtype=np.float32)


def write_text_model(path: str, arch: str, rng, n_embd=64, n_layer=2, n_ff=128,
                     n_head=2, n_head_kv=1, head_dim=32, n_ctx=2048):
    w = GGUFWriter(path, arch)                              # writes general.architecture
    w.add_name(f"tiny-random-{arch}")
    w.add_file_type(gguf.LlamaFileType.ALL_F32)
    w.add_context_length(n_ctx)
    w.add_embedding_length(n_embd)
    w.add_block_count(n_layer)
    w.add_feed_forward_length(n_ff)
    w.add_head_count(n_head)
    w.add_head_count_kv(n_head_kv)
    w.add_key_length(head_dim)
    w.add_value_length(head_dim)
    w.add_layer_norm_rms_eps(1e-6)
    w.add_rope_freq_base(10000.0)
    if arch == "llama":
        w.add_rope_dimension_count(head_dim)
    n_vocab = add_tokenizer(w)
    w.add_vocab_size(n_vocab)

    w.add_tensor("token_embd.weight", rnd(rng, n_vocab, n_embd, scale=1.0))
    w.add_tensor("output_norm.weight", ones(n_embd))
    for i in range(n_layer):
        p = f"blk.{i}."
        w.add_tensor(p + "attn_norm.weight", ones(n_embd))
        w.add_tensor(p + "attn_q.weight", rnd(rng, n_head * head_dim, n_embd))
        w.add_tensor(p + "attn_k.weight", rnd(rng, n_head_kv * head_dim, n_embd))
        w.add_tensor(p + "attn_v.weight", rnd(rng, n_head_kv * head_dim, n_embd))
        w.add_tensor(p + "attn_output.weight", rnd(rng, n_embd, n_head * head_dim))
        w.add_tensor(p + "ffn_norm.weight", ones(n_embd))
        w.add_tensor(p + "ffn_gate.weight", rnd(rng, n_ff, n_embd))
        w.add_tensor(p + "ffn_up.weight", rnd(rng, n_ff, n_embd))
        w.add_tensor(p + "ffn_down.weight", rnd(rng, n_embd, n_ff))
        if arch == "gemma3":
            w.add_tensor(p + "attn_q_norm.weight", ones(head_dim))
            w.add_tensor(p + "attn_k_norm.weight", ones(head_dim))
            w.add_tensor(p + "post_attention_norm.weight", ones(n_embd))
            w.add_tensor(p + "post_ffw_norm.weight", ones(n_embd))
    w.add_tensor("output.weight", rnd(rng, n_vocab, n_embd, scale=1.0))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return n_embd


# --------------------------------------------------------------------------- mmproj
def write_gemma3_mmproj(path: str, rng, n_embd_text: int, image_size=32, patch_size=8,
                        n_embd=32, n_ff=64, n_layer=1, n_head=2, merge=2):
    """SigLIP ViT + Gemma3 projector (avg-pool by `merge`, RMS norm, linear).

    Tokens per image = (image_size/patch_size/merge)^2 = 4 with the defaults.
    Key names mirror llama.cpp tools/mtmd/clip-impl.h (KEY_* / TN_*).
    """
    w = GGUFWriter(path, "clip")
    w.add_name("tiny-random-gemma3-mmproj")
    w.add_file_type(gguf.LlamaFileType.ALL_F32)
    w.add_string("clip.projector_type", "gemma3")
    w.add_bool("clip.has_vision_encoder", True)
    w.add_bool("clip.use_gelu", True)
    w.add_uint32("clip.vision.projection_dim", n_embd_text)
    w.add_uint32("clip.vision.image_size", image_size)
    w.add_uint32("clip.vision.patch_size", patch_size)
    w.add_uint32("clip.vision.embedding_length", n_embd)
    w.add_uint32("clip.vision.feed_forward_length", n_ff)
    w.add_uint32("clip.vision.block_count", n_layer)
    w.add_uint32("clip.vision.attention.head_count", n_head)
    w.add_float32("clip.vision.attention.layer_norm_epsilon", 1e-6)
    w.add_array("clip.vision.image_mean", [0.5, 0.5, 0.5])
    w.add_array("clip.vision.image_std", [0.5, 0.5, 0.5])
    w.add_uint32("clip.vision.projector.scale_factor", merge)   # default 4 for real gemma3

    n_patches = (image_size // patch_size) ** 2
    w.add_tensor("v.patch_embd.weight", rnd(rng, n_embd, 3, patch_size, patch_size))  # (OC,IC,KH,KW)
    w.add_tensor("v.patch_embd.bias", rnd(rng, n_embd))
    w.add_tensor("v.position_embd.weight", rnd(rng, n_patches, n_embd))
    for i in range(n_layer):
        p = f"v.blk.{i}."
        for ln in ("ln1", "ln2"):
            w.add_tensor(p + ln + ".weight", ones(n_embd))
            w.add_tensor(p + ln + ".bias", np.zeros(n_embd, np.float32))
        for t in ("attn_q", "attn_k", "attn_v", "attn_out"):
            w.add_tensor(p + t + ".weight", rnd(rng, n_embd, n_embd))
            w.add_tensor(p + t + ".bias", np.zeros(n_embd, np.float32))
        w.add_tensor(p + "ffn_up.weight", rnd(rng, n_ff, n_embd))
        w.add_tensor(p + "ffn_up.bias", np.zeros(n_ff, np.float32))
        w.add_tensor(p + "ffn_down.weight", rnd(rng, n_embd, n_ff))
        w.add_tensor(p + "ffn_down.bias", np.zeros(n_embd, np.float32))
    w.add_tensor("v.post_ln.weight", ones(n_embd))
    w.add_tensor("v.post_ln.bias", np.zeros(n_embd, np.float32))
    w.add_tensor("mm.soft_emb_norm.weight", ones(n_embd))
    # numpy (n_embd_vision, n_embd_text) -> ggml ne=[n_embd_text, n_embd_vision]
    w.add_tensor("mm.input_projection.weight", rnd(rng, n_embd, n_embd_text))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def make(out_dir, seed: int = 0) -> tuple[str, str]:
    """Write the gemma3 text model and its projector into out_dir; return both paths."""
    os.makedirs(out_dir, exist_ok=True)
    rng = np.random.default_rng(seed)
    text_path = os.path.join(out_dir, "tiny-gemma3.gguf")
    mm_path = os.path.join(out_dir, "tiny-gemma3-mmproj.gguf")
    n_embd = write_text_model(text_path, "gemma3", rng)
    write_gemma3_mmproj(mm_path, rng, n_embd)
    return text_path, mm_path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out-dir", default="models")
    ap.add_argument("--arch", choices=["gemma3", "llama"], default="gemma3")
    ap.add_argument("--no-mmproj", action="store_true")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    os.makedirs(a.out_dir, exist_ok=True)
    rng = np.random.default_rng(a.seed)
    text_path = os.path.join(a.out_dir, f"tiny-{a.arch}.gguf")
    n_embd = write_text_model(text_path, a.arch, rng)
    print(f"wrote {text_path} ({os.path.getsize(text_path)} bytes)")
    if a.arch == "gemma3" and not a.no_mmproj:
        mm_path = os.path.join(a.out_dir, "tiny-gemma3-mmproj.gguf")
        write_gemma3_mmproj(mm_path, rng, n_embd)
        print(f"wrote {mm_path} ({os.path.getsize(mm_path)} bytes)")


if __name__ == "__main__":
    main()
