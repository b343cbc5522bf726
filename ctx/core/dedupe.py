"""The write-time duplicate check (SPEC §2.10, issue 23): is this memory already stored?

Every path that stores new memory asks `check()` first — the Stop hook's and MCP's remember
(ctx.claude.actions), `ctx add`, `ctx import` and `ctx import --claude-memory`:
- an **exact** duplicate (the same words, whatever the case, punctuation or spacing) or a
  **near-exact** one (ctx.core.fingerprint.relation: the same content words) of a live node
  the target scope sees is never stored again: the writer is told the existing id;
- a **likely** duplicate (a close restatement) is stored or not as the policy says
  (`CTX_DEDUPE=skip|keep|ask`, ctx.core.settings.dedupe_policy).

Cheap on purpose (the Stop hook's budget): one indexed hash lookup, one indexed band lookup
and a handful of candidates compared in Python — no model. Where the caller passes
`meaning` (the Stop hook's and MCP's remember, `ctx add`) and the process already holds the
embedder, a paraphrase — other words, order or language — is found by its indexed vector
too (ctx/doctor/paraphrase.py); `ctx doctor` finds the rest.
"""
from __future__ import annotations

from ctx.core.fingerprint import analyse, analyse_stored, band_hits, normal_hash, normalise, relation
from cuectx.value import Value

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing on the hook path
if TYPE_CHECKING:
    from ctx.core.store import Store

EXACT, NEAR, LIKELY = "exact", "near", "likely"


class Duplicate(Value):
    """A live node the new text duplicates: which, how closely, and why we think so."""

    __slots__ = ("evidence", "level", "node_id", "score")

    def __init__(self, node_id: str, level: str, score: float, evidence: str) -> None:
        self.node_id = node_id
        self.level = level  # exact | near | likely
        self.score = score
        self.evidence = evidence

    @property
    def blocks(self) -> bool:
        """Exact and near-exact duplicates are never stored again, whatever the policy."""
        return self.level in (EXACT, NEAR)

    def to_dict(self) -> dict:
        return {"id": self.node_id, "level": self.level, "score": round(self.score, 3),
                "evidence": self.evidence}


def check(store: Store, content: str, project_id: int | None, *,
          exclude: tuple[str, ...] = (), candidates: int = 16, meaning=None) -> Duplicate | None:
    """The live node (in `project_id` or global; global only for a global write) that
    `content` duplicates most closely, or None. At most `candidates` nodes — those sharing
    the most LSH bands — are compared word by word. `meaning` (ctx.doctor.paraphrase.
    paraphrase_of, passed by callers above this layer) is asked when the words find
    nothing: a close paraphrase by the embedding index, as a likely duplicate."""
    text = (content or "").strip()
    if not text:
        return None
    same = store.live_with_hash(normal_hash(text), project_id, exclude=exclude)
    if same and not normalise(text):
        # No word characters ("🚀🚀", ":)", "∑∫√"): every such text has the hash of the empty
        # string, so only the very same characters are the same text.
        bare = _bare(text)
        found = store.contents(same)
        same = [i for i in same if _bare(found.get(i, "")) == bare]
    if same:
        return Duplicate(same[0], EXACT, 1.0, "the same text")
    new = analyse(text)
    hits = band_hits(store.conn, new)
    for node_id in exclude:
        hits.pop(node_id, None)
    ranked = sorted(hits, key=lambda i: (-hits[i], i))[: candidates * 2]
    rows = sorted(store.live_texts(ranked, project_id), key=lambda r: (-hits[r[0]], r[0]))
    best: Duplicate | None = None
    for node_id, other, _created in rows[:candidates]:
        rel = relation(analyse_stored(other), new)
        if rel is None or rel.kind != "duplicate":
            continue
        level = NEAR if rel.subkind == "near" else LIKELY
        if best is None or (level == NEAR, rel.score) > (best.level == NEAR, best.score):
            best = Duplicate(node_id, level, rel.score, rel.evidence)
    if best is None and meaning is not None:
        best = meaning(store, text, project_id, exclude)
    return best


def _bare(text: str) -> str:
    import unicodedata

    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def should_store(dup: Duplicate | None, policy: str, *, confirm=None) -> bool:
    """Whether to store the new text after `check` found `dup`, under `policy` (skip, keep,
    ask). `confirm` (a callable returning bool) is how `ask` asks a person; without one (a
    hook, MCP, a pipe) `ask` stores nothing and the writer is told how to store it anyway."""
    if dup is None:
        return True
    if dup.blocks or policy == "skip":
        return False
    if policy == "keep":
        return True
    return bool(confirm()) if confirm is not None else False


def as_stored(content: str, secrets: str | None = None) -> str:
    """The text as the store would keep it (secrets redacted under the redact policy), so a
    memory that held a secret matches its stored, redacted copy."""
    from ctx.core import guard

    mode = guard.policy(secrets)
    return guard.screen(content, guard.REDACT)[0] if mode == guard.REDACT else content


def message(dup: Duplicate, stored: bool, short: str, *, how_to_keep: str) -> str:
    """One line for whoever wrote it: what exists, and what happened to the new text."""
    if dup.level == EXACT:
        return f"already remembered as {short} (the same text); not stored again"
    if dup.level == NEAR:
        return f"already remembered as {short} ({dup.evidence}); not stored again"
    if stored:
        return f"stored, though it is likely a duplicate of {short} ({dup.evidence})"
    return (f"not stored: likely a duplicate of {short} ({dup.evidence}); to store it anyway "
            f"{how_to_keep}, or supersede {short}")
