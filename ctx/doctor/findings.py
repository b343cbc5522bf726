"""`ctx doctor`: what is wrong with the memory as stored — found from the text (and the
embedding index when it has vectors), with no model call and no network (SPEC §2.10).

Kinds of finding:
- `duplicate` — a group of live nodes saying the same thing; which one to keep and why.
- `contradiction` — the same subject with another value (a port, a version, a tool, a
  reversed decision); the newest wins, with both texts as evidence.
- `stale` — working-tier nodes nobody touched for a while; tasks a later node says are done;
  nodes a later one replaces in its words ("… instead of …", "supersedes 01JD…") without a
  supersede link.
- `orphan` — edges or supersede links to nodes that are gone, index vectors of deleted nodes.
- `secret` — credentials stored before the guard (ctx/doctor/secrets.py).

Each finding says what fixing it would do (`action`) and carries the steps (`steps`);
ctx/doctor/fixes.py applies them — supersede links and tier changes only, logged so that
`ctx doctor --undo` puts them back. Candidate pairs come from the LSH bands the store keeps
per node (ctx.core.fingerprint), so a 10k-node store is compared in well under its 5 s.
"""
from __future__ import annotations

import bisect
import math
import re
import sqlite3
from datetime import UTC, datetime, timedelta

from ctx.core.fingerprint import (
    Text,
    analyse,
    covers_task,
    exclusive_qualifiers,
    relation,
)
from ctx.core.model import TIER_PRIORITY
from ctx.core.store import Store
from ctx.doctor.slots import Slots, may_say_gone, show_value, values_apart
from ctx.doctor.slots import read as read_slots
from cuectx.value import Value

KINDS = ("duplicate", "contradiction", "stale", "orphan", "secret")
BUCKET_MAX = 64                    # a band shared by more nodes: compared by shape only
_ID_MENTION = re.compile(r"\b[0-9A-HJKMNP-TV-Z]{8,26}\b")


class Finding(Value):
    __slots__ = ("action", "evidence", "extra", "ids", "keep", "kind", "seen", "steps", "subkind")

    def __init__(self, kind: str, ids: tuple[str, ...], keep: str | None, evidence: str,
                 action: str, subkind: str = "", steps: tuple = (), extra: dict | None = None,
                 seen: dict | None = None) -> None:
        self.kind = kind  # one of KINDS
        self.ids = ids
        self.keep = keep  # the node that stays live (None: no node is kept over another)
        self.evidence = evidence
        self.action = action  # what --fix does, in words
        self.subkind = subkind  # port, version, tool, reversal, working, task-done, …
        self.steps = steps  # what --fix does: ("supersede", old, new), ("tier", id, tier), …
        self.extra = {} if extra is None else extra
        # id → (updated_at, content) as the check saw them: --fix skips a node changed since
        self.seen = {} if seen is None else seen

    def _key(self) -> tuple:  # `seen` is the check's bookkeeping: not compared, not shown
        return self._values()[:-1]

    def __repr__(self) -> str:
        shown = (f"{n}={getattr(self, n)!r}" for n in self._fields if n != "seen")
        return f"Finding({', '.join(shown)})"

    def to_dict(self) -> dict:
        out = {"kind": self.kind, "ids": list(self.ids), "keep": self.keep,
               "evidence": self.evidence, "action": self.action, "subkind": self.subkind}
        out.update(self.extra)
        return out


class Options(Value):
    __slots__ = ("kinds", "now", "stale_days", "undecided", "vectors")

    def __init__(self, kinds: tuple[str, ...] = KINDS, stale_days: int = 14,
                 now: datetime | None = None, vectors: bool = True,
                 undecided: bool = False) -> None:
        self.kinds = kinds
        self.stale_days = stale_days
        self.now = now
        self.vectors = vectors  # use the embedding index when it has vectors
        self.undecided = undecided  # also pairs alike by meaning the words cannot settle (--review)


class _Node(Value):
    __slots__ = ("content", "created_at", "id", "project_id", "tags", "text", "type", "updated_at")

    def __init__(self, id: str, type: str, content: str, created_at: str, updated_at: str,
                 project_id: int | None, tags: tuple[str, ...], text: Text) -> None:
        self.id = id
        self.type = type
        self.content = content
        self.created_at = created_at
        self.updated_at = updated_at
        self.project_id = project_id
        self.tags = tags
        self.text = text

    @property
    def tier(self) -> str | None:
        return next((t[5:] for t in self.tags if t.startswith("tier:")), None)


class Memo:
    """What one diagnosis worked out text by text — each memory analysed, each text scanned
    for secrets — for the next diagnosis in the same process: the viewer's Health page makes
    a new one after every change, and most texts have not changed. Keyed by the text itself,
    so a changed memory is worked out again; holds only the texts the last diagnosis saw."""

    def __init__(self) -> None:
        self.texts: dict[str, Text] = {}
        self.node_secrets: dict[str, tuple] = {}    # contents, metadata, tags
        self.prompt_secrets: dict[str, tuple] = {}  # request prompts up to Finder.LONG


def diagnose(store: Store, options: Options | None = None, *,
             memo: Memo | None = None) -> list[Finding]:
    """Every finding of the selected kinds, in a stable order (kind, then first id)."""
    options = options or Options()
    kinds = set(options.kinds)
    out: list[Finding] = []
    if kinds & {"duplicate", "contradiction", "stale"}:
        known = memo.texts if memo is not None else {}
        texts: dict[str, Text] = {}
        nodes = {}
        for r in store.live_rows():
            text = texts.get(r[2]) or known.get(r[2])
            if text is None:
                text = analyse(r[2])
            texts[r[2]] = text
            nodes[r[0]] = _Node(r[0], r[1], r[2], r[3], r[4], r[5],
                                tuple(r[6].split("\x1f")) if r[6] else (), text)
        if memo is not None:
            memo.texts = texts
        found = _pairs(store, nodes, kinds, options)
        if "stale" in kinds:
            found += _stale_working(nodes, options)
        for f in found:
            f.seen.update((i, (nodes[i].updated_at, nodes[i].content)) for i in f.ids if i in nodes)
        out += found
    if "orphan" in kinds:
        out += orphans(store)
    if "secret" in kinds:
        out += secret_findings(store, memo)
    order = {k: i for i, k in enumerate((*KINDS, "undecided"))}
    out.sort(key=lambda f: (order[f.kind], f.ids))
    return out


# ---------------------------------------------------------------------------- pairs

def _same_scope(a: _Node, b: _Node) -> bool:
    return a.project_id is None or b.project_id is None or a.project_id == b.project_id


def _keys(nodes: dict[str, _Node]) -> dict[str, frozenset | None]:
    """Per node, a few of its rarest tokens such that any pair `_pairs` can make something
    of has one node's keys among the other's tokens (None: keep all its pairs — it says it
    replaces another, and those are compared by share of words). relation() needs Jaccard
    >= 0.75 (then the other text holds one of any n - ceil(0.75 n) + 1 of this one's n
    tokens), or at most two differing tokens on one side (then it holds one of any three of
    that side's tokens), or at most two of one side's `hard` tokens missing from the other
    (one of any three of them; with two or fewer, any shared token may do); a task a later
    note says is done has none of its hard tokens missing. Rarest first, so that texts built
    from the same common words — which share LSH bands by the hundred thousand — seldom
    pass: the keys are a filter in front of relation(), never a reason to report a pair."""
    often: dict[str, int] = {}  # token → how many nodes hold it
    for n in nodes.values():
        for t in n.text.tokens:
            often[t] = often.get(t, 0) + 1
    keys: dict[str, frozenset | None] = {}
    for node_id, n in nodes.items():
        text = n.text
        if text.replaces:
            keys[node_id] = None
            continue
        count = len(text.tokens)
        if count <= 3 or len(text.hard) <= 2:
            keys[node_id] = text.tokens
            continue
        rare = sorted(text.tokens, key=lambda t: (often[t], t))
        hard = sorted(text.hard, key=lambda t: (often[t], t))
        keys[node_id] = frozenset(rare[:max(3, count - math.ceil(0.75 * count) + 1)] + hard[:3])
    return keys


def candidate_pairs(store: Store, nodes: dict[str, _Node], options: Options) -> dict:
    """(older id, newer id) → cosine or None, for pairs sharing an LSH band whose keys
    (`_keys`) allow something to come of them (+ close vectors)."""
    pairs: dict[tuple[str, str], float | None] = {}
    dropped: set[tuple[str, str]] = set()
    keys = _keys(nodes)
    shapes: dict[str, frozenset] = {}  # a node sits in up to 8 crowded bands: its shape once
    for bucket in store.live_band_buckets():
        ids = sorted(i for i in bucket if i in nodes)
        if len(ids) > BUCKET_MAX:
            # Templated memories (digests, generated notes) share bands by the thousand:
            # there only texts of the very same shape are compared (a changed value, a
            # restatement word for word), not every pair of the family.
            by_shape: dict[frozenset, list[str]] = {}
            for i in ids:
                shape = shapes.get(i)
                if shape is None:
                    shape = shapes[i] = nodes[i].text.shape
                by_shape.setdefault(shape, []).append(i)
            groups = [g for g in by_shape.values() if 1 < len(g) <= BUCKET_MAX]
        else:
            groups = [ids]
        for group in groups:
            for i, a in enumerate(group):
                key_a, tokens_a = keys[a], nodes[a].text.tokens
                for b in group[i + 1:]:
                    if (a, b) in pairs or (a, b) in dropped:
                        continue
                    key_b = keys[b]
                    if (key_a is None or key_b is None or not key_a.isdisjoint(nodes[b].text.tokens)
                            or not key_b.isdisjoint(tokens_a)):
                        pairs[(a, b)] = None
                    else:
                        dropped.add((a, b))
    if options.vectors:
        from ctx.doctor.vectors import FLOOR, REVIEW_FLOOR, close_pairs

        # --review looks a little further down: a model can settle what the words cannot,
        # and updates written in other words (an owner, a region, a format) sit just below
        # the floor (4 of the second tune half's 15 updates are at 0.20–0.25 alike)
        floor = REVIEW_FLOOR if options.undecided else FLOOR
        for (a, b), cos in close_pairs(store.conn, {i: n.content for i, n in nodes.items()},
                                       floor=floor).items():
            pairs[(a, b)] = cos
    return pairs


def _pairs(store: Store, nodes: dict[str, _Node], kinds: set[str], options: Options) -> list[Finding]:
    linked = store.edge_pairs()
    weigh = _Rarity(nodes)
    alike: dict[frozenset, float] = {}  # duplicate pairs → how alike
    dup_evidence: dict[frozenset, str] = {}
    contradictions: list[Finding] = []
    undecided: list[Finding] = []
    stale: list[Finding] = []
    settled: set[str] = set()  # nodes a stale finding already retires

    mentions = _mentions(nodes)
    for old_id, new_id in mentions:
        a, b = nodes[old_id], nodes[new_id]
        if "stale" in kinds and _same_scope(a, b) and b.text.replaces:
            stale.append(Finding(
                "stale", (a.id, b.id), b.id,
                f"{b.id} (newer) names {a.id} and says it replaces it: \"{_clip(b.content)}\"",
                f"supersede {a.id} by {b.id}", "content-superseded",
                (("supersede", a.id, b.id),)))
            settled.add(a.id)

    # linked as sorted tuples: no frozenset built per candidate pair (there can be 200k)
    linked_pairs = {(p, q) if p < q else (q, p) for p, q in (tuple(e) for e in linked if len(e) == 2)}
    for (x, y), cos in sorted(candidate_pairs(store, nodes, options).items()):
        if x in settled or y in settled or ((x, y) if x < y else (y, x)) in linked_pairs:
            continue
        a, b = nodes[x], nodes[y]
        if a.created_at > b.created_at:
            a, b = b, a
        if not _same_scope(a, b):
            continue
        if (a.type == "task") != (b.type == "task"):
            task, other = (a, b) if a.type == "task" else (b, a)
            if ("stale" in kinds and other.text.done and not task.text.done
                    and other.created_at >= task.created_at and covers_task(other.text, task.text)):
                stale.append(Finding(
                    "stale", (task.id, other.id), other.id,
                    f"task \"{_clip(task.content)}\" — a later {other.type} says it is done: "
                    f"\"{_clip(other.content)}\"",
                    f"supersede task {task.id} by {other.id}", "task-done",
                    (("supersede", task.id, other.id),)))
                settled.add(task.id)
            continue
        if ("stale" in kinds and b.text.replaces and not a.text.replaces
                and _covers(b.text, a.text, 0.6) and a.text.values <= b.text.values | a.text.values):
            stale.append(Finding(
                "stale", (a.id, b.id), b.id,
                f"{b.id} ({b.created_at[:10]}) restates {a.id} ({a.created_at[:10]}) and says it "
                f"replaces it: \"{_clip(b.content)}\" — \"{_clip(a.content)}\" is still live",
                f"supersede {a.id} by {b.id}", "content-superseded", (("supersede", a.id, b.id),)))
            settled.add(a.id)
            continue
        rel = relation(a.text, b.text)
        if rel is None and cos is not None:
            rel = by_meaning(a, b, cos, weigh, undecided=options.undecided)
        if rel is not None and rel.kind == "undecided":
            if options.undecided:
                undecided.append(Finding(
                    "undecided", (a.id, b.id), b.id,
                    f"{rel.evidence}. {a.created_at[:10]} {a.id}: \"{_clip(a.content)}\" — "
                    f"{b.created_at[:10]} {b.id}: \"{_clip(b.content)}\"",
                    "none (ask --review)", "", (), {"score": round(rel.score, 3)}))
            continue
        if rel is None:
            continue
        if rel.kind == "contradiction" and "contradiction" in kinds:
            contradictions.append(Finding(
                "contradiction", (a.id, b.id), b.id,
                f"{rel.subkind}: {rel.evidence}. {a.created_at[:10]} {a.id}: \"{_clip(a.content)}\" — "
                f"{b.created_at[:10]} {b.id}: \"{_clip(b.content)}\"; the newer one wins",
                f"supersede {a.id} by {b.id}", rel.subkind, (("supersede", a.id, b.id),),
                {"score": round(rel.score, 3)}))
        elif rel.kind == "duplicate":
            dup_evidence[frozenset((a.id, b.id))] = f"{a.id} ≈ {b.id}: {rel.evidence}"
            alike[frozenset((a.id, b.id))] = rel.score

    out = list(stale) if "stale" in kinds else []
    out += [f for f in undecided if not (set(f.ids) & settled)]
    contradicted = {i for f in contradictions for i in f.ids}
    out += [f for f in contradictions if not (set(f.ids) & settled)]
    if "duplicate" in kinds:
        for members in _groups(alike):
            ids = sorted(members - settled)
            if len(ids) < 2:
                continue
            out.append(_duplicate_group([nodes[i] for i in ids], dup_evidence, store, contradicted))
    return out


def _groups(alike: dict[frozenset, float]) -> list[frozenset]:
    """Duplicate pairs joined into groups, closest pairs first, two groups only when at least
    half the pairs across them are duplicates (average linkage): one loose pair does not
    chain two restatement groups — or a run of look-alikes — into one."""
    group: dict[str, frozenset] = {}
    for pair in sorted(alike, key=lambda p: (-alike[p], sorted(p))):
        a, b = sorted(pair)
        ga, gb = group.get(a, frozenset((a,))), group.get(b, frozenset((b,)))
        if ga is gb or a in gb:
            continue
        if 2 * sum(frozenset((x, y)) in alike for x in ga for y in gb) >= len(ga) * len(gb):
            merged = ga | gb
            for i in merged:
                group[i] = merged
    return sorted({g for g in group.values()}, key=sorted)


def _duplicate_group(group: list[_Node], evidence: dict, store: Store, contradicted: set) -> Finding:
    edges = {n.id: 0 for n in group}
    for e in store.edges([n.id for n in group]):
        for end in (e.from_id, e.to_id):
            if end in edges:
                edges[end] += 1

    def rank(n: _Node):
        return (TIER_PRIORITY.get(f"tier:{n.tier}", 3 if n.tier else 4), -edges[n.id],
                -len(n.content), n.id)

    keep = min(group, key=rank)
    why = []
    if keep.tier:
        why.append(f"tier:{keep.tier}")
    if edges[keep.id]:
        why.append(f"{edges[keep.id]} link(s)")
    why.append("the fullest text" if len(group) > 1 and all(len(keep.content) >= len(n.content)
                                                          for n in group) else "the oldest")
    others = [n for n in group if n.id != keep.id]
    lines = [v for k, v in evidence.items() if k <= {n.id for n in group}]
    steps: list[tuple] = [("supersede", n.id, keep.id) for n in others]
    best = min((n for n in group if n.tier), key=rank, default=None)
    action = f"supersede {', '.join(n.id for n in others)} by {keep.id}"
    if best is not None and best.tier != keep.tier:
        steps.append(("tier", keep.id, best.tier))
        action += f"; give {keep.id} tier:{best.tier}"
    return Finding("duplicate", tuple(n.id for n in group), keep.id,
                   f"keep {keep.id} ({', '.join(why)}). " + "; ".join(sorted(lines)),
                   action, "restatement" if any("embeddings" in x or "%" in x for x in lines)
                   else "near", tuple(steps))


# ---------------------------------------------------------------------------- by meaning
# A pair the language-centred vectors call close (ctx/doctor/vectors.py) is weighed by
# `closeness` = centred cosine + WORDS × the share of the rarer text's rare words (weighted by
# how rare they are in this store; Latin-script words only when one text is Korean) that the
# other text holds too. Calibrated on the tune half of the curation set.
WORDS = 0.5
SWAPPED = 2             # at most this many words swapped on each side: one sentence, two subjects
NAMES_KEPT = 0.5        # across languages: share of the rarer side's Latin-script words kept
DUPLICATE = 0.75        # closeness of a restatement
DUPLICATE_CROSS = 0.70  # …across Korean/English, where only Latin-script words count as shared
CONTRADICTION = 0.65    # closeness of an update, with a sign of change (below)
TWO_SIGNS = 0.10        # …less by this when it has both: a value set apart and an update word
REPLACED = 0.45         # closeness of an update whose newer text says the older's name is gone
REVIEW = 0.35           # closeness from which --review asks about a pair the words cannot settle
_UPDATE = (r"\b(?:now|moved|switched|no longer|replaced|upgraded|downgraded|raised|lowered|"
           r"increased|decreased|reduced|resized|changed|bumped|migrated|reverted|anymore|"
           r"from now on)\b"
           r"|바꿈|바꿨|바뀜|바뀌었|옮김|옮겼|변경|늘림|늘렸|줄임|줄였|이제|업그레이드|"
           r"전환|더 이상|폐기")


class _Rarity:
    """How rare each content token is among the live nodes (inverse document frequency)."""

    def __init__(self, nodes: dict[str, _Node]):
        often: dict[str, int] = {}
        for n in nodes.values():
            for t in n.text.tokens:
                often[t] = often.get(t, 0) + 1
        total = len(nodes)
        self.idf = {t: math.log((total + 1) / (k + 0.5)) for t, k in often.items()}
        self.unseen = math.log((total + 1) / 0.5)
        self._words: dict[tuple[int, bool], tuple] = {}

    def __call__(self, token: str) -> float:
        return self.idf.get(token, self.unseen)

    def update_word(self, node: _Node) -> str | None:
        """The word by which the node's text says something changed ("now", "moved to",
        "바꿈"), or None (once per text: a templated node is in dozens of close pairs)."""
        memo = self.__dict__.setdefault("_update", {})
        if node.content not in memo:
            found = re.search(_UPDATE, node.content.casefold())
            memo[node.content] = found.group(0) if found else None
        return memo[node.content]

    def may_say_gone(self, node: _Node) -> bool:
        """Whether the node's text has a word that can say a name is gone (once per text)."""
        memo = self.__dict__.setdefault("_gone", {})
        got = memo.get(node.content)
        if got is None:
            got = memo[node.content] = may_say_gone(node.content)
        return got

    def slots(self, node: _Node) -> Slots:
        """What the node's text sets (ctx/doctor/slots.py), once per text."""
        memo = self.__dict__.setdefault("_slots", {})
        got = memo.get(node.content)
        if got is None:
            got = memo[node.content] = read_slots(node.content)
        return got

    def mass(self, tokens) -> float:
        idf, unseen = self.idf, self.unseen
        return sum(idf.get(t, unseen) for t in tokens)

    def words(self, text: Text, latin: bool) -> tuple[frozenset, float]:
        """The words of `text` a pair can share, and their mass, once per text (a node of a
        templated family is in dozens of close pairs): its Latin-script ones (names,
        commands, values) when one text of the pair is Korean and the other not (`latin`),
        else every content word; wording (SOFT) left out."""
        key = (id(text), latin)
        got = self._words.get(key)
        if got is None:
            from ctx.core.fingerprint import SOFT

            words = (text.latin if latin else text.tokens) - SOFT
            got = self._words[key] = (words, self.mass(words), text)  # text: keeps id() valid
        return got[0], got[1]


_ENV = "environment"
_OTHER_ENV = frozenset({"staging", "dev", "qa", "uat", "local", "preview", "sandbox"})


def _qualified_apart(a: Text, b: Text) -> bool:
    """Each names a qualifier that excludes one of the other's: staging vs production, iOS vs
    Android, primary vs replica (a Korean qualifier counts as the English word it translates;
    "web" beside "server", or a qualifier one side lacks, is wording)."""
    return bool(exclusive_qualifiers(a.qualifiers, b.qualifiers))


def _other_environment(a: Text, b: Text) -> bool:
    """One names a non-production environment (staging, dev, local…) and the other none: a
    statement that names no environment is about production, so a value set apart is two
    environments' values, not an update ("RDS snapshots are kept 7 days" / "Staging RDS
    snapshots are kept 1 day")."""
    ea = {w for k, w in a.qualifiers if k == _ENV}
    eb = {w for k, w in b.qualifiers if k == _ENV}
    return bool(ea & _OTHER_ENV) != bool(eb & _OTHER_ENV) and "prod" not in ea | eb


def _values_apart(a: Text, b: Text) -> bool:
    """Both name values and neither's are among the other's: 10 vs 25, 3.11 vs 3.12."""
    return bool(a.values and b.values and not (a.values <= b.values or b.values <= a.values))


def by_meaning(a: _Node, b: _Node, cos: float, weigh: _Rarity, *, undecided: bool = True):
    """What the close pair (a older, b newer) is: a restatement, an update (b wins), or None.
    `undecided`: also say which pairs only `--review` could settle (else those are None,
    and a pair that cannot reach an update's closeness is not looked at further)."""
    from ctx.core.fingerprint import Relation

    least = REVIEW if undecided else CONTRADICTION - TWO_SIGNS
    if cos + WORDS < least:
        return None  # not close enough even if every word were shared
    if not a.text.tokens or not b.text.tokens:
        return None
    latin = a.text.hangul != b.text.hangul
    wa, mass_a = weigh.words(a.text, latin)
    wb, mass_b = weigh.words(b.text, latin)
    shared = wa & wb
    share = weigh.mass(shared) / min(mass_a, mass_b) if mass_a and mass_b else 0.0
    closeness = cos + WORDS * share
    if closeness < min(least, REPLACED):
        return None
    cross = " (one Korean, one not)" if a.text.hangul != b.text.hangul else ""
    # A name of the older one the newer says is gone ("there is no Redux", "Detox 설정은
    # 삭제함", "the PagerDuty account was closed") while it names another: one put in place
    # of the other, whatever else the words say. (Only a text with a word that can say so
    # is read for it: reading every text's slots was a second of `ctx doctor` at 10k.)
    if closeness >= REPLACED and weigh.may_say_gone(b):
        sa, sb = weigh.slots(a), weigh.slots(b)
        gone = sorted((sa.names - sa.gone) & sb.gone)
        added = sorted(sb.names - sa.names - sb.gone)
        if gone and added:
            return Relation("contradiction", closeness, "replaced",
                            f"{', '.join(gone)} → {', '.join(added[:3])}: the newer says "
                            f"{', '.join(gone)} is gone (the same subject by meaning, {closeness:.2f}{cross})")
    if closeness < least:
        return None
    undecided = Relation("undecided", closeness, "", f"about the same subject by meaning "
                         f"({closeness:.2f}{cross}); the words do not say whether it changed")
    if _qualified_apart(a.text, b.text):
        # staging vs production, iOS vs Android: two facts by the words — unless one
        # replaced the other, which only a reader can tell (--review asks)
        return undecided
    if cross and share < NAMES_KEPT:
        return undecided  # names and commands are not translated: most must be in both
    if _subjects_apart(a.text, b.text, wa, wb, shared, weigh):
        return undecided
    values = _values_apart(a.text, b.text)
    update = weigh.update_word(b)
    if update and weigh.update_word(a):
        update = None  # both say "now …": two statements of one form, not one replacing the other
    slots_apart = values_apart(weigh.slots(a), weigh.slots(b)) if (
        closeness >= CONTRADICTION - TWO_SIGNS) else []
    signs = bool(slots_apart) + bool(update)
    if signs and _other_environment(a.text, b.text):
        return undecided
    if signs and closeness >= CONTRADICTION - TWO_SIGNS * (signs - 1):
        said = f"; the newer says \"{update}\"" if update else ""
        if slots_apart:
            what = {"number": "value", "clock": "time"}.get(slots_apart[0][0].split("/")[0], "value"
                                                           if slots_apart[0][0][0] == "=" else
                                                           slots_apart[0][0].split("/")[0])
            def label(kind: str) -> str:  # a key names its slot; a kind only among several
                return (f"{kind[1:]}: " if kind[0] == "=" else
                        f"{kind.split('/')[0]}: " if len(slots_apart) > 1 and kind != "number" else "")

            def unit(kind: str) -> str:
                return f"/{kind.split('/')[1]}" if "/" in kind else ""

            differs = "; ".join(f"{label(kind)}{', '.join(show_value(kind)(v) + unit(kind) for v in va)} → "
                                f"{', '.join(show_value(kind)(v) + unit(kind) for v in vb)}"
                                for kind, va, vb in slots_apart)
        else:
            what = "update"
            differs = f"{', '.join(_rarest(wa - wb, weigh)) or '…'} → {', '.join(_rarest(wb - wa, weigh)) or '…'}"
        return Relation("contradiction", closeness, what,
                        f"{differs} (the same subject by meaning, {closeness:.2f}{cross}){said}")
    # across languages only the names, commands and values count as shared words, so a
    # restatement is less alike by construction (tune halves: the cross-language ones sit at
    # 0.70–0.75, and no cross-language look-alike between 0.65 and 0.75)
    restated = DUPLICATE_CROSS if cross else DUPLICATE
    if closeness >= restated and not values:
        return Relation("duplicate", closeness, "restatement",
                        f"the same by meaning ({cos:.2f} alike after language centring, "
                        f"{share:.0%} of the rarer words shared{cross})")
    # About the same thing, and the words cannot tell whether one replaced the other (a
    # tool or a rule changed in other words): what `--review` asks a model about.
    return None if closeness >= restated and values else undecided


def _subjects_apart(a: Text, b: Text, wa: frozenset, wb: frozenset, shared: frozenset,
                    weigh: _Rarity) -> bool:
    """The same sentence about two things: a word or two swapped on each side, and on each
    side a swapped word rarer in the store than any word they share, or the rest in the
    same order ("the payments team uses pytest" / "the search team uses pytest").
    Restatements reword and reorder more than that."""
    from ctx.core.fingerprint import is_value

    only_a = [t for t in wa - shared if not is_value(t)]
    only_b = [t for t in wb - shared if not is_value(t)]
    if not only_a or not only_b or len(only_a) > SWAPPED or len(only_b) > SWAPPED:
        return False
    common = max(map(weigh, shared), default=0.0)
    if max(map(weigh, only_a)) > common and max(map(weigh, only_b)) > common:
        return True
    return _frame(a, only_a) == _frame(b, only_b)  # one sentence frame, a slot filled apart


def _frame(text: Text, swapped) -> tuple:
    from ctx.core.fingerprint import is_value, value_key

    gone = set(swapped)
    return tuple(t for t in text.sequence if t not in gone and not is_value(value_key(t)))


class _Even(_Rarity):
    """Every word weighs the same (the write-time check has no store-wide counts)."""

    def __init__(self) -> None:
        self._words = {}

    def __call__(self, token: str) -> float:
        return 1.0

    def mass(self, tokens) -> float:
        return float(len(tokens))


def restates(old: Text, new: Text, cos: float) -> tuple[float, str] | None:
    """The write-time check by meaning (ctx/doctor/paraphrase.py): (closeness,
    evidence) when `new` restates `old` as `ctx doctor` would call it, else None."""
    a = _Node("", "fact", "", "", "", None, (), old)
    b = _Node("", "fact", "", "", "", None, (), new)
    rel = by_meaning(a, b, cos, _Even())
    return (rel.score, rel.evidence) if rel is not None and rel.kind == "duplicate" else None


def _rarest(tokens, weigh: _Rarity, n: int = 2) -> list[str]:
    from ctx.core.fingerprint import is_value

    return sorted((t for t in tokens if not is_value(t)), key=lambda t: (-weigh(t), t))[:n]


def _covers(big: Text, small: Text, share: float = 0.6) -> bool:
    """`big` repeats at least `share` of `small`'s content words."""
    if not small.tokens:
        return False
    return len(big.tokens & small.tokens) / len(small.tokens) >= share


def _mentions(nodes: dict[str, _Node]) -> list[tuple[str, str]]:
    """(older, newer) where the newer node's text names the older one's id (≥ 8 characters)."""
    ids = sorted(nodes)
    out = []
    for n in nodes.values():
        for m in _ID_MENTION.findall(n.content):
            i = bisect.bisect_left(ids, m)
            if i < len(ids) and ids[i].startswith(m) and ids[i] != n.id and (
                    i + 1 >= len(ids) or not ids[i + 1].startswith(m)):
                other = nodes[ids[i]]
                if other.created_at <= n.created_at:
                    out.append((other.id, n.id))
    return out


def _clip(text: str, n: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


# ---------------------------------------------------------------------------- stale

def _stale_working(nodes: dict[str, _Node], options: Options) -> list[Finding]:
    now = options.now or datetime.now(UTC)
    limit = (now - timedelta(days=options.stale_days)).strftime("%Y-%m-%dT%H:%M:%S")
    out = []
    for n in nodes.values():
        if n.tier == "working" and n.updated_at[:19] < limit:
            days = (now - _parse(n.updated_at)).days
            out.append(Finding(
                "stale", (n.id,), None,
                f"tier:working, last touched {n.updated_at[:10]} ({days} days ago; the limit is "
                f"{options.stale_days}, --stale-days or CTX_DOCTOR_STALE_DAYS): \"{_clip(n.content)}\"",
                f"move {n.id} to tier:off-context", "working", (("tier", n.id, "off-context"),)))
    return out


def _parse(stamp: str) -> datetime:
    try:
        return datetime.strptime(stamp[:19], "%Y-%m-%dT%H:%M:%S").replace(tzinfo=UTC)
    except ValueError:
        return datetime.now(UTC)


# ---------------------------------------------------------------------------- orphans

def orphans(store: Store) -> list[Finding]:
    out = []
    for e in store.dangling_edges():
        out.append(Finding(
            "orphan", (e.from_id, e.to_id), None,
            f"edge {e.from_id} {e.type} {e.to_id} points at a node that is gone",
            "remove the edge", "edge", (("drop-edge", e.from_id, e.to_id, e.type, e.created_at),)))
    for node_id, missing in store.dangling_supersedes():
        out.append(Finding(
            "orphan", (node_id,), None, f"{node_id} is superseded by {missing}, which is gone",
            f"make {node_id} live again", "superseded-by-gone",
            (("clear-superseded-by", node_id, missing),)))
    from ctx.semantic.index import orphan_vectors

    dead, chunks = orphan_vectors(store.conn)
    if dead or chunks:
        out.append(Finding(
            "orphan", (), None,
            f"the embedding index holds {dead} vector(s) of deleted or changed nodes"
            + (f" and {chunks} chunk(s) of nodes that are gone" if chunks else ""),
            "compact the index (drops only those vectors)", "index", (("compact",),)))
    return out


# ---------------------------------------------------------------------------- secrets

def secret_findings(store: Store, memo: Memo | None = None) -> list[Finding]:
    from ctx.doctor import secrets

    in_nodes = secrets.Finder(memo.node_secrets, keep_long=True) if memo is not None else None
    in_prompts = secrets.Finder(memo.prompt_secrets) if memo is not None else None
    try:
        hits = (secrets.scan_store(store, finder=in_nodes)
                + secrets.scan_requests(store, finder=in_prompts) + secrets.scan_projects(store))
    except sqlite3.OperationalError:
        return []
    if memo is not None:
        memo.node_secrets, memo.prompt_secrets = in_nodes.seen, in_prompts.seen
    return [Finding("secret", (h.node_id,), None,
                    f"{h.kind} in the {h.field} (characters {h.start}–{h.end})",
                    "redact it in place", h.kind, (("redact",),),
                    {"field": h.field, "secret": h.kind, "start": h.start, "end": h.end})
            for h in hits]
