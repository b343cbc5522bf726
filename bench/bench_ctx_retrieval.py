"""Issue 40: retrieval on a tune half and a confirm half, through `ctx search` and the hooks.

The tune half is tests/ctx/data/devset.json (and retrieval.json, scored in bench_ctx_semantic):
ranking changes may be tuned on it. The confirm half, bench/confirm/retrieval_confirm.json
(same schema), was written by a helper who never read the ranking code, before the ranking
changed; nothing may be derived from it — this module only runs the scorer on it. Per kind:
recall@5 and MRR@10 of the answers in hybrid `ctx search` ranking (each query asked from its
project); through the hooks: answerable prompts whose answer reaches Claude (session start's
view or prompt-submit's injection) and unrelated prompts that inject nothing, per language.

    .venv/bin/python -m bench retrieval                   # both halves, with the budgets
    .venv/bin/python -m bench.bench_ctx_retrieval [--json OUT] [--no-hooks] [tune|confirm]
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from bench import ROOT, Bench

TUNE = ROOT / "tests" / "ctx" / "data" / "devset.json"
# Written in the fourth session before that session's ranking changes, over devset.json's notes:
# paraphrases sharing no word with their note, Korean questions, typos, and on-topic prompts
# no note answers. Part of the tune half, reported on its own.
TUNE_HARD = ROOT / "tests" / "ctx" / "data" / "devset_hard.json"
CONFIRM = (ROOT / "bench" / "confirm" / "retrieval_confirm.json",
           Path("/work/confirm/retrieval_confirm.json"))


def confirm_path() -> Path | None:
    return next((p for p in CONFIRM if p.exists()), None)


def halves() -> list[tuple[str, Path | None]]:
    return [("tune", TUNE), ("tune-hard", TUNE_HARD), ("confirm", confirm_path())]


def run(bench: Bench) -> None:
    from bench import retrieval_eval as ev
    from ctx.semantic.model import locate

    if locate() is None:
        print("  (skipped: the model is not built; run `make model`)")
        return
    reports = {}
    for name, path in halves():
        if path is None:
            print(f"  ({name} half skipped: none of {', '.join(map(str, CONFIRM))} exists)")
            continue
        r = reports[name] = ev.score_half(path, f"{name} half ({path.name})")
        ev.print_half(r)
        bench.report(f"{name}: hybrid recall@5", r.overall.recall_at_5, 0.85, "", "higher")
        bench.report(f"{name}: hybrid MRR@10", r.overall.mrr_at_10, 0.90, "", "higher")
        bench.report(f"{name}: worst kind recall@5", min(c.recall_at_5 for c in r.by_kind.values()),
                     0.75, "", "higher")
        for lang, v in sorted(r.reach.items()):
            bench.report(f"{name}: {lang} answers that reach Claude (hooks)", v, 0.90, "", "higher")
        for lang, v in sorted(r.clean.items()):
            bench.report(f"{name}: {lang} unrelated prompts that inject nothing", v, 0.90, "", "higher")
    if "tune" in reports and "confirm" in reports:
        t, c = reports["tune"], reports["confirm"]
        gaps = {k: t.by_kind[k].recall_at_5 - c.by_kind[k].recall_at_5
                for k in t.by_kind if k in c.by_kind}
        gaps["overall"] = t.overall.recall_at_5 - c.overall.recall_at_5
        big = {k: round(v, 3) for k, v in gaps.items() if abs(v) > 0.05}
        print("  tune − confirm recall@5 gaps over 0.05: "
              + (", ".join(f"{k} {v:+.2f}" for k, v in big.items()) or "none"))


def main(argv: list[str]) -> int:
    from bench import retrieval_eval as ev

    out = None
    if "--json" in argv:
        i = argv.index("--json")
        out = argv[i + 1]
        del argv[i:i + 2]
    hooks = "--no-hooks" not in argv
    wanted = [a for a in argv if not a.startswith("--")]
    rows = []
    for name, path in halves():
        if wanted and name not in wanted and name.split("-")[0] not in wanted:
            continue
        if path is None:
            print(f"{name} half: not found ({', '.join(map(str, CONFIRM))})")
            continue
        r = ev.score_half(path, name, hooks=hooks)
        ev.print_half(r)
        rows.append(r.row())
    if out:
        Path(out).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
