"""Runs one llama-cpp-python chat completion in this process, for cue.llm.local.

Started by LocalVisionBackend as `python local_worker.py` so that a model which hangs can
be killed without taking cue down with it. Reads one JSON request on stdin and writes one
JSON answer on the ORIGINAL stdout; everything the native libraries print goes to stderr
(which the parent keeps only as a short tail for privacy.log). Imports only the stdlib
and llama_cpp.
"""
from __future__ import annotations

import json
import os
import sys
import time


def main() -> int:
    # The answer channel is a private copy of stdout; fd 1 then points at stderr so a
    # native library printing to stdout cannot corrupt the JSON answer.
    answer = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
    exit_with_parent()
    try:
        request = json.loads(sys.stdin.buffer.read().decode("utf-8"))
        result = run(request)
    except Exception as exc:  # noqa: BLE001 — reported to the parent, which logs it
        result = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
    answer.write(json.dumps(result))
    answer.flush()
    return 0 if result.get("ok") else 1


def exit_with_parent() -> None:
    """If cue itself is killed (a cron timeout, kill -9), don't leave a model running."""
    import threading

    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(1.0)
            if os.getppid() != parent:
                os._exit(3)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def run(request: dict) -> dict:
    t0 = time.perf_counter()
    import llama_cpp
    from llama_cpp import Llama

    silence_native_logs(llama_cpp)
    images = any(
        isinstance(part, dict) and part.get("type") == "image_url"
        for message in request["messages"] if isinstance(message.get("content"), list)
        for part in message["content"]
    )
    handler = None
    if images:
        from llama_cpp import llama_chat_format as chat_format

        # Gemma4ChatHandler is the MTMD handler (mmproj + chat template from the GGUF);
        # it handles gemma3 projectors too.
        cls = getattr(chat_format, "Gemma4ChatHandler", None) or chat_format.MTMDChatHandler
        handler = cls(clip_model_path=request["mmproj"], verbose=False,
                      use_gpu=request["gpu_layers"] != 0)
    llm = Llama(
        model_path=request["model"],
        chat_handler=handler,
        n_ctx=request["n_ctx"],
        n_threads=request["n_threads"],
        n_threads_batch=request["n_threads_batch"],
        n_gpu_layers=request["gpu_layers"],
        verbose=False,
    )
    try:
        t1 = time.perf_counter()
        out = llm.create_chat_completion(
            messages=request["messages"],
            max_tokens=request["max_tokens"],
            temperature=request.get("temperature", 0.2),
            seed=request.get("seed", 0),
        )
        t2 = time.perf_counter()
        perf = decode_timings(llama_cpp, llm)
    finally:
        llm.close()
    usage = out.get("usage") or {}
    return {**perf,
        "ok": True,
        "text": out["choices"][0]["message"].get("content") or "",
        "prompt_tokens": usage.get("prompt_tokens"),
        "completion_tokens": usage.get("completion_tokens"),
        "load_ms": (t1 - t0) * 1000,
        "gen_ms": (t2 - t1) * 1000,
    }


def decode_timings(llama_cpp, llm) -> dict:
    """llama.cpp's own split of the call: prompt+image evaluation vs token generation."""
    try:
        data = llama_cpp.llama_perf_context(llm._ctx.ctx)
        return {"decode_ms": data.t_eval_ms, "decode_tokens": data.n_eval,
                "prompt_eval_ms": data.t_p_eval_ms}
    except Exception:  # noqa: BLE001 — a private attribute; timings are optional
        return {}


_KEEP = []  # ctypes callbacks must outlive the native code that calls them


def silence_native_logs(llama_cpp) -> None:
    """llama.cpp, ggml and mtmd log image/prompt details to stderr unless told not to."""
    callback = llama_cpp.llama_log_callback(lambda level, text, user_data: None)
    _KEEP.append(callback)
    llama_cpp.llama_log_set(callback, None)
    try:
        from llama_cpp import mtmd_cpp

        mtmd_cpp.mtmd_log_set(callback, None)
        mtmd_cpp.mtmd_helper_log_set(callback, None)
    except (ImportError, AttributeError):
        pass


if __name__ == "__main__":
    sys.exit(main())
