"""`ctx doctor --review`: an opt-in second opinion from a model on the pairs the text rules
flagged — never the whole store. Claude Haiku by default (Anthropic Messages API), or any
local OpenAI-compatible server (llama-server, Ollama, LM Studio).

Before anything is sent the caller is shown `plan()` — how many pairs, the estimated input
and output tokens against the cap — and must confirm. Every text is redacted with the
secret guard's detector first (ctx.core.guard), and what comes back is only a proposal per
pair (`Verdict`); nothing is changed in the store.

Plain HTTP (urllib): no SDK import for a feature most runs never use.
"""
from __future__ import annotations

import json
import os
import re
import urllib.error
import urllib.request

from ctx.core.errors import CtxError
from ctx.core.guard import REDACT, screen
from ctx.doctor.findings import Finding
from cuectx.exits import ExitCode
from cuectx.value import Value

DEFAULT_MODEL = "claude-haiku-4-5"
DEFAULT_CAP = 20_000               # tokens, input + output, for one review
OUTPUT_PER_PAIR = 40               # tokens a verdict line may use (one JSON line is ~25-30)
PAIR_CHARS = 600                   # each text is cut to this before sending
TIMEOUT = 60
REVIEWED = ("duplicate", "contradiction", "stale", "undecided")
SETTLED = ("duplicate", "contradiction", "undecided")   # what the answers can change
INSTRUCTIONS = (
    "You review pairs of notes from a developer's memory store. For each pair say whether B "
    "is a duplicate of A (same fact restated, any language), a contradiction (B updates A: "
    "the same setting, tool, owner or rule with another value, or a decision reversed — "
    "often in other words or another language), or different (two facts that both hold, "
    "e.g. about different environments, services or people, or a rule and its exception). "
    "Answer with one JSON object per line and nothing else: "
    '{"pair": N, "verdict": "duplicate"|"contradiction"|"different", "why": "<8 words"}')


class ReviewError(CtxError):
    exit_code = ExitCode.BACKEND


class Pair(Value):
    __slots__ = ("a", "a_id", "b", "b_id", "finding", "number")

    def __init__(self, number: int, finding: Finding, a: str, b: str, a_id: str, b_id: str) -> None:
        self.number = number
        self.finding = finding
        self.a = a  # the older text, redacted and cut
        self.b = b
        self.a_id = a_id
        self.b_id = b_id


class Plan(Value):
    __slots__ = ("backend", "cap", "input_tokens", "left_out", "model", "output_tokens", "pairs")

    def __init__(self, pairs: list[Pair], input_tokens: int, output_tokens: int, cap: int,
                 left_out: int, backend: str, model: str) -> None:
        self.pairs = pairs
        self.input_tokens = input_tokens
        self.output_tokens = output_tokens
        self.cap = cap
        self.left_out = left_out  # flagged pairs that did not fit under the cap
        self.backend = backend
        self.model = model

    @property
    def total(self) -> int:
        return self.input_tokens + self.output_tokens

    def describe(self) -> str:
        more = f" ({self.left_out} more left out to stay under the cap)" if self.left_out else ""
        return (f"review: {len(self.pairs)} flagged pair(s){more} to {self.backend} model "
                f"{self.model}: ~{self.input_tokens:,} input + ≤{self.output_tokens:,} output "
                f"tokens = ~{self.total:,} of the {self.cap:,}-token cap; secrets redacted")


class Verdict(Value):
    __slots__ = ("flagged", "ids", "pair", "verdict", "why")

    def __init__(self, pair: int, ids: tuple[str, str], flagged: str, verdict: str,
                 why: str) -> None:
        self.pair = pair
        self.ids = ids
        self.flagged = flagged  # what the rules said
        self.verdict = verdict  # what the model said (duplicate, contradiction, different, unclear)
        self.why = why

    @property
    def agrees(self) -> bool:
        return self.verdict == self.flagged or (self.flagged == "stale" and self.verdict != "different")

    def to_dict(self) -> dict:
        return {"pair": self.pair, "ids": list(self.ids), "flagged": self.flagged,
                "verdict": self.verdict, "agrees": self.agrees, "why": self.why}


def _tokens(text: str) -> int:
    # ~4 characters a token for English; Hangul is ~1 token a character, so count it so
    return len(text) // 4 + sum(1 for c in text if "\uac00" <= c <= "\ud7a3") * 3 // 4 + 1


def _clean(text: str) -> str:
    text = screen(" ".join(text.split()), REDACT)[0]
    return text if len(text) <= PAIR_CHARS else text[:PAIR_CHARS - 1] + "…"


def plan(findings: list[Finding], contents: dict[str, str], *, cap: int = DEFAULT_CAP,
         backend: str = "anthropic", model: str | None = None) -> Plan:
    """Which pairs fit under `cap` tokens, and what they will cost — nothing is sent."""
    pairs: list[Pair] = []
    flagged = [f for f in findings if f.kind in REVIEWED and len(f.ids) >= 2]
    # what the rules flagged first, then the undecided pairs closest first: the cap leaves
    # out the least alike
    flagged.sort(key=lambda f: (f.kind == "undecided",
                                -float(f.extra.get("score") or 0) if f.kind == "undecided" else 0.0))
    budget = _tokens(INSTRUCTIONS) + 20
    left_out = 0
    for f in flagged:
        anchor = f.keep or f.ids[-1]
        for other in (i for i in f.ids if i != anchor):
            a, b = _clean(contents.get(other, "")), _clean(contents.get(anchor, ""))
            cost = _tokens(a) + _tokens(b) + 12 + OUTPUT_PER_PAIR
            if budget + cost > cap:
                left_out += 1
                continue
            budget += cost
            pairs.append(Pair(len(pairs) + 1, f, a, b, other, anchor))
    out_tokens = OUTPUT_PER_PAIR * len(pairs)
    return Plan(pairs, budget - out_tokens, out_tokens, cap, left_out, backend,
                model or default_model(backend))


def default_model(backend: str) -> str:
    from ctx.core.settings import review_model

    return review_model() or (DEFAULT_MODEL if backend == "anthropic" else "local")


def prompt(p: Plan) -> str:
    lines = [INSTRUCTIONS, ""]
    for pair in p.pairs:
        lines += [f"Pair {pair.number}:", f"A: {pair.a}", f"B: {pair.b}", ""]
    return "\n".join(lines)


def send(p: Plan, *, url: str | None = None) -> tuple[list[Verdict], dict]:
    """Send the planned pairs; (verdicts, usage as the server reported it)."""
    if not p.pairs:
        return [], {}
    text = prompt(p)
    if p.backend == "anthropic":
        key = os.environ.get("ANTHROPIC_API_KEY")
        if not key:
            raise ReviewError("ANTHROPIC_API_KEY is not set; set it, or review with a local "
                              "server: --review-backend openai --review-url http://127.0.0.1:8080/v1")
        base = (url or os.environ.get("ANTHROPIC_BASE_URL") or "https://api.anthropic.com").rstrip("/")
        body = {"model": p.model, "max_tokens": p.output_tokens,
                "messages": [{"role": "user", "content": text}]}
        data = _post(base + "/v1/messages", body, {"x-api-key": key,
                                                   "anthropic-version": "2023-06-01"})
        answer = "".join(b.get("text", "") for b in data.get("content") or [] if isinstance(b, dict))
        usage = data.get("usage") or {}
    else:
        if not url:
            raise ReviewError("give the local server's address: --review-url http://127.0.0.1:8080/v1")
        headers = {}
        if os.environ.get("OPENAI_API_KEY"):
            headers["authorization"] = f"Bearer {os.environ['OPENAI_API_KEY']}"
        body = {"model": p.model, "max_tokens": p.output_tokens, "temperature": 0,
                "messages": [{"role": "user", "content": text}]}
        data = _post(url.rstrip("/") + "/chat/completions", body, headers)
        choices = data.get("choices") or [{}]
        answer = ((choices[0] or {}).get("message") or {}).get("content") or ""
        usage = data.get("usage") or {}
    return parse(answer, p), usage


def _post(url: str, body: dict, headers: dict) -> dict:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"content-type": "application/json", **headers})
    try:
        with urllib.request.urlopen(req, timeout=TIMEOUT) as resp:
            return json.loads(resp.read() or b"{}")
    except urllib.error.HTTPError as exc:
        raise ReviewError(f"the review model answered HTTP {exc.code}; nothing was changed") from None
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        raise ReviewError(f"cannot reach the review model at {url} ({getattr(exc, 'reason', exc)}); "
                          f"nothing was changed") from None
    except ValueError:
        raise ReviewError("the review model's answer was not JSON; nothing was changed") from None


def parse(answer: str, p: Plan) -> list[Verdict]:
    """One verdict per planned pair; a pair the model did not answer is `unclear`."""
    got: dict[int, tuple[str, str]] = {}
    for m in re.finditer(r"\{[^{}]*\}", answer or ""):
        try:
            obj = json.loads(m.group(0))
        except ValueError:
            continue
        if isinstance(obj, dict) and isinstance(obj.get("pair"), int):
            verdict = str(obj.get("verdict", "")).strip().lower()
            if verdict not in ("duplicate", "contradiction", "different"):
                verdict = "unclear"
            got[obj["pair"]] = (verdict, str(obj.get("why", ""))[:200])
    return [Verdict(pair.number, (pair.a_id, pair.b_id), pair.finding.kind,
                    *got.get(pair.number, ("unclear", "no answer for this pair")))
            for pair in p.pairs]


def settle(findings: list[Finding], verdicts: list[Verdict],
           p: Plan | None = None) -> tuple[list[Finding], list[str]]:
    """The report as the review leaves it. A duplicate or contradiction the model calls
    `different` is taken out (a duplicate group loses that member, and goes when one is
    left); a pair the words could not settle — or called the other kind — that the model
    calls a duplicate or a contradiction is added as the model's proposal, with no fix step
    (`--fix` never acts on a model's word alone; `ctx supersede OLD NEW` does it by hand).
    An `unclear` answer changes nothing; other kinds pass as they are. With the plan, each
    answer goes to the finding its pair was made from (a pair can sit in a duplicate group
    and be undecided too); without it, to the first finding holding both ids.
    (findings, what changed in words)."""
    said: dict[int, dict[str, Verdict]] = {}   # finding → the id paired with its anchor → verdict
    asked = {pair.number: pair.finding for pair in p.pairs} if p is not None else {}
    for v in verdicts:
        f = asked.get(v.pair)
        if f is not None:
            if f.kind in SETTLED:
                said.setdefault(id(f), {})[v.ids[0]] = v
            continue
        for f in findings:
            if f.kind in SETTLED and v.ids[0] in f.ids and v.ids[1] in f.ids:
                said.setdefault(id(f), {})[v.ids[0]] = v
                break
    out: list[Finding] = []
    notes: list[str] = []
    for f in findings:
        answers = said.get(id(f), {})
        if f.kind not in SETTLED or not answers:
            out.append(f)
            continue
        first = next(iter(answers.values()))
        if len(f.ids) == 2 and first.verdict in ("duplicate", "contradiction") and first.verdict != f.kind:
            older, newer = f.ids
            out.append(Finding(
                first.verdict, f.ids, newer,
                f"the review model says {first.verdict}: {first.why or 'no reason given'}. {f.evidence}",
                f"none by --fix (the model's proposal): `ctx supersede {older} {newer}` applies it",
                "review", (), {**f.extra, "review": first.verdict}))
            notes.append(f"review: {older} / {newer} is a {first.verdict}, the model says "
                         f"(its proposal: nothing is fixed by it)")
            continue
        if f.kind == "undecided":
            out.append(f)
            continue
        rejected = {i for i, v in answers.items() if v.verdict == "different"}
        if not rejected:
            agrees = all(v.verdict == f.kind for v in answers.values())
            out.append(_with(f, {"review": "agrees" if agrees else "unclear"}))
            continue
        keep = [i for i in f.ids if i not in rejected]
        notes.append(f"review: {', '.join(sorted(rejected))} taken out of the {f.kind} with "
                     f"{f.keep or f.ids[-1]} (the model says different)")
        if f.kind == "duplicate" and len(keep) >= 2:
            steps = tuple(s for s in f.steps if not (len(s) > 1 and s[1] in rejected))
            others = [i for i in keep if i != f.keep]
            action = f"supersede {', '.join(others)} by {f.keep}" + "".join(
                f"; give {s[1]} tier:{s[2]}" for s in steps if s[0] == "tier")
            out.append(Finding(f.kind, tuple(keep), f.keep, f.evidence, action, f.subkind, steps,
                               {**f.extra, "review": "agrees in part"}, f.seen))
    return out, notes


def _with(f: Finding, extra: dict) -> Finding:
    return Finding(f.kind, f.ids, f.keep, f.evidence, f.action, f.subkind, f.steps,
                   {**f.extra, **extra}, f.seen)
