"""Prompts that ask two things, built from a half's own answerable queries: does prompt-submit
inject an answer to each question? (Issue 40 item 1: `make demo`'s "which port is the staging
database on, and when do we deploy?"; neither half holds a prompt like it.)

Pairs of queries from the same project and language whose answers differ, joined as people
write them ("…, and when do we deploy?"; Korean "… 그리고 …"), each asked in a session of its
own through `build_request` (the hook's call). A fixed seed picks the pairs; nothing is tuned
on the result.

    .venv/bin/python -m bench.two_question_eval [tune|confirm] [--pairs N]
"""
from __future__ import annotations

import random
import sys
from pathlib import Path


def pairs_of(data: dict, ids: dict[str, str], n: int, seed: int = 40) -> list[tuple]:
    """(prompt, project, answers of the first question, of the second, language) × n."""
    from ctx.semantic.select import clauses

    groups: dict[tuple, list[dict]] = {}
    for q in data["queries"]:
        if q["labels"]:
            groups.setdefault((q["project"], q["lang"]), []).append(q)
    keys = sorted((k for k, v in groups.items() if len(v) >= 2), key=str)
    rng = random.Random(seed)
    out, tries = [], 0
    while len(out) < n and keys and tries < n * 50:
        tries += 1
        key = rng.choice(keys)
        a, b = rng.sample(groups[key], 2)
        first = {ids[k] for k, g in a["labels"].items() if g >= 2}
        second = {ids[k] for k, g in b["labels"].items() if g >= 2}
        if not first or not second or first & second:
            continue
        if key[1] == "ko":
            prompt = a["query"].rstrip("?？. ") + " 그리고 " + b["query"]
        else:
            prompt = a["query"].rstrip("?. ") + ", and " + b["query"][:1].lower() + b["query"][1:]
        if len(clauses(prompt)) >= 2:
            out.append((prompt, key[0], first, second, key[1]))
    return out


def score(path: Path, n: int = 150) -> dict:
    from bench.retrieval_eval import indexed_store, load_set
    from ctx.claude.requests import build_request
    from ctx.semantic.search import SearchOptions, search
    from ctx.semantic.select import SelectOptions

    data = load_set(path)
    with indexed_store(data) as (conn, db_path, ids, scope_of):
        search(conn, "index the English companion too", SearchOptions())  # as `ctx search` does
        conn.commit()
        options = SelectOptions.from_env()
        options.deadline_s = 60.0  # the semantic path itself, not a loaded machine's fallback
        both: dict[str, list[bool]] = {}
        each: list[bool] = []
        for i, (prompt, project, first, second, lang) in enumerate(pairs_of(data, ids, n)):
            built = build_request(conn, f"pairs-{i}", prompt, max_chars=10_000, options=options,
                                  db_path=db_path, scope=scope_of[project])
            injected = {it.node_id for it in built.record.items if it.injected == "now"}
            got = (bool(first & injected), bool(second & injected))
            both.setdefault(lang, []).append(all(got))
            each += got
    every = [v for vs in both.values() for v in vs]
    return {"prompts": len(every), "both": round(sum(every) / len(every), 3),
            "each": round(sum(each) / len(each), 3),
            "by_lang": {k: (len(v), round(sum(v) / len(v), 3)) for k, v in sorted(both.items())}}


def main(argv: list[str]) -> int:
    from bench.bench_ctx_retrieval import halves

    n = int(argv[argv.index("--pairs") + 1]) if "--pairs" in argv else 150
    wanted = [a for a in argv if a in ("tune", "confirm")] or ["tune", "confirm"]
    for name, path in halves():
        if name not in wanted or path is None:
            continue
        r = score(path, n)
        print(f"{name}: {r['prompts']} two-question prompts — both questions answered {r['both']:.3f}, "
              f"questions answered {r['each']:.3f}; "
              + ", ".join(f"{k} {v:.3f} ({c})" for k, (c, v) in r["by_lang"].items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
