"""ctx doctor (issue 23): findings from the text, --fix as supersede/tier changes, --undo;
the write-time duplicate check (ctx add, ctx import, CTX_DEDUPE); the dev set's floors."""
from __future__ import annotations

import json
import os
import sqlite3

import pytest
from ctx_runner import ctx, ok

from ctx.core import db, dedupe, fingerprint
from ctx.core.store import Store
from ctx.doctor.findings import Options, diagnose


@pytest.fixture
def store():
    conn = db.connect()
    yield Store(conn)
    conn.close()


def _findings(*args) -> list[dict]:
    r = ctx("doctor", "--no-vectors", "-f", "json", *args)
    assert r.exit_code in (0, 1), r.stderr
    return json.loads(r.stdout) if r.stdout.strip() else []


# ------------------------------------------------------------------------------ the dev set

def test_dev_set_precision_and_recall_per_kind(store):
    from bench.doctor_devset import NOW, build, evaluate

    gold = build(store)
    store.conn.commit()
    assert gold.nodes >= 300
    scores = evaluate(diagnose(store, Options(now=NOW, vectors=False)), gold)
    for s in scores.values():
        assert s.precision >= 0.90 and s.recall >= 0.80, s.line()


# ------------------------------------------------------------------------------ findings

def test_a_changed_port_is_a_contradiction_the_newest_wins(store):
    old = store.add("The staging DB listens on port 5432", created_at="2026-10-01T00:00:00.000Z")
    new = store.add("The staging DB listens on port 6543", created_at="2026-11-01T00:00:00.000Z")
    store.conn.commit()
    (f,) = _findings("--kind", "contradiction")
    assert f["kind"] == "contradiction" and set(f["ids"]) == {old.id, new.id}
    assert f["keep"] == new.id and "5432 vs 6543" in f["evidence"] and f["action"].startswith("supersede")
    assert set(f) >= {"kind", "ids", "keep", "evidence", "action"}


def test_hard_negatives_stay_alone(store):
    store.add("The staging DB listens on port 5432")
    store.add("The production DB listens on port 5432")
    store.add("The auth service listens on port 8080")
    store.add("The billing service listens on port 8080")
    store.add("The web team uses Redis for caching")
    store.add("The web team uses Redis for queues")
    store.conn.commit()
    assert _findings() == []
    assert ctx("doctor", "--no-vectors").exit_code == 0


def test_duplicates_keep_the_higher_tier_and_fix_then_undo_puts_everything_back(store):
    a = store.add("Deploys need a green CI run first")
    b = store.add("deploys need a green CI run first!", tags=["tier:reference"])
    w = store.add("Investigating a flaky login test", tags=["tier:working"],
                  created_at="2026-01-01T00:00:00.000Z", updated_at="2026-01-01T00:00:00.000Z")
    store.conn.commit()
    found = _findings()
    dup = next(f for f in found if f["kind"] == "duplicate")
    assert set(dup["ids"]) == {a.id, b.id} and dup["keep"] == b.id and "tier:reference" in dup["evidence"]
    stale = next(f for f in found if f["kind"] == "stale")
    assert stale["ids"] == [w.id] and "off-context" in stale["action"]
    r = ctx("doctor", "--no-vectors", "--fix")
    assert r.exit_code == 0 and "superseded by" in r.stderr and "--undo" in r.stderr
    assert store.count() == 3  # nothing deleted
    assert store.get(a.id).superseded_by == b.id and store.get(w.id).tier == "off-context"
    assert _findings() == []
    r = ctx("doctor", "--undo")
    assert r.exit_code == 0 and "undid 2 change(s)" in r.stderr
    assert store.get(a.id).superseded_by is None and store.get(w.id).tier == "working"
    assert not store.edges([a.id], ["SUPERSEDES"])
    assert ctx("doctor", "--undo").exit_code == 3  # nothing left to undo


def test_a_task_a_later_note_marks_done_and_a_node_replaced_in_words(store):
    task = store.add("Migrate CI to GitHub Actions", type="task", tags=["tier:working"])
    done = store.add("Done: migrated CI to GitHub Actions", type="observation")
    old = store.add("Deploys of the api go through Jenkins")
    new = store.add("Deploys of the api now go through Argo instead of Jenkins")
    store.conn.commit()
    found = {f["subkind"]: f for f in _findings("--kind", "stale")}
    assert found["task-done"]["ids"] == [task.id, done.id]
    assert found["content-superseded"]["ids"] == [old.id, new.id]
    assert found["content-superseded"]["keep"] == new.id


def test_orphans_edges_to_forgotten_nodes(store):
    a = store.add("kept node")
    store.conn.execute("PRAGMA foreign_keys = OFF")
    store.conn.execute("INSERT INTO edges VALUES (?, '01GONE0000000000000000000X', 'RELATES_TO', 'x')",
                       (a.id,))
    store.conn.commit()
    store.conn.execute("PRAGMA foreign_keys = ON")
    (f,) = _findings("--kind", "orphan")
    assert f["ids"] == [a.id, "01GONE0000000000000000000X"]
    assert ctx("doctor", "--kind", "orphan", "--fix").exit_code == 0
    assert store.dangling_edges() == [] and store.count() == 1


def test_bad_kind_is_a_usage_error():
    r = ctx("doctor", "--kind", "typo")
    assert r.exit_code == 2 and "duplicate" in r.stderr


def test_doctor_on_a_table_terminal_shows_short_ids(store):
    from cuectx.output import Environment, use_environment

    store.add("The api listens on port 1")
    store.add("The api listens on port 2")
    store.conn.commit()
    with use_environment(Environment(stdout_isatty=True, width=200)):
        r = ctx("doctor", "--no-vectors")
    assert r.exit_code == 1 and "contradiction" in r.stdout and "port" in r.stdout


# ------------------------------------------------------------------------------ at write time

def test_add_does_not_store_an_exact_or_near_duplicate_and_prints_its_id():
    first = ok("add", "--global", "The staging DB listens on port 6543").strip()
    r = ctx("add", "--global", "the staging database listens on port 6543.")
    assert r.exit_code == 0 and r.stdout.strip() == first and "already remembered" in r.stderr
    assert ok("list", "-f", "ids").split() == [first]


def test_a_likely_duplicate_follows_ctx_dedupe(monkeypatch):
    first = ok("add", "--global", "The auth service listens on port 8080").strip()
    restated = "The auth service runs on port 8080"
    r = ctx("add", "--global", restated)  # ask, nobody to ask: not stored, told how
    assert r.stdout.strip() == first and "--dedupe keep" in r.stderr
    monkeypatch.setenv("CTX_DEDUPE", "skip")
    assert ctx("add", "--global", restated).stdout.strip() == first
    monkeypatch.setenv("CTX_DEDUPE", "keep")
    kept = ctx("add", "--global", restated)
    assert kept.stdout.strip() != first and "likely a duplicate" in kept.stderr
    assert len(ok("list", "-f", "ids").split()) == 2


def test_a_duplicate_in_another_project_is_not_a_duplicate(monkeypatch):
    monkeypatch.setenv("CTX_PROJECT", "api")
    first = ok("add", "The cache is Redis").strip()
    assert ok("add", "The cache is Redis").strip() == first
    monkeypatch.setenv("CTX_PROJECT", "web")
    assert ok("add", "The cache is Redis").strip() != first
    assert len(ok("--all-projects", "list", "-f", "ids").split()) == 2


def test_import_skips_duplicates_and_moves_their_edges(tmp_path, monkeypatch):
    a = ok("add", "--global", "Use uv for Python dependencies").strip()
    b = ok("add", "--global", "Lockfiles are committed").strip()
    ok("link", b, a, "--type", "DEPENDS_ON")
    backup = tmp_path / "b.jsonl"
    backup.write_text(ok("export"))
    monkeypatch.setenv("CTX_DB", str(tmp_path / "other.db"))
    same = ok("add", "--global", "use uv for python dependencies.").strip()
    r = ctx("import", str(backup))
    assert r.exit_code == 0 and "1 duplicates" in r.stderr
    ids = ok("list", "-f", "ids").split()
    assert len(ids) == 2 and a not in ids and same in ids
    edges = json.loads(ok("show", b, "-f", "json"))["edges"]
    assert [(e["from"], e["to"]) for e in edges] == [(b, same)]


def test_the_check_finds_candidates_with_one_band_lookup(store):
    target = store.add("The billing API timeout is 30 seconds")
    for i in range(200):
        store.add(f"Unrelated fact number {i} about subsystem {i}")
    hit = dedupe.check(store, "the billing api timeout is 30 seconds!!", None)
    assert hit is not None and hit.node_id == target.id and hit.blocks
    assert dedupe.check(store, "The billing API timeout is 60 seconds", None) is None


def test_migration_8_fingerprints_nodes_that_already_exist(tmp_path):
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path, isolation_level=None)
    from ctx.core.migrations import migrate

    migrate(conn, target=3)
    conn.execute("INSERT INTO nodes (id, type, content, token_estimate, created_at, updated_at) "
                 "VALUES ('01JD0000000000000000000001', 'fact', 'Old fact, stored before', 5, 'x', 'x')")
    conn.close()
    conn = db.connect(str(path))
    try:
        assert dedupe.check(Store(conn), "old fact stored before", None).node_id == \
            "01JD0000000000000000000001"
    finally:
        conn.close()


def test_fingerprint_rules_on_their_own():
    a = fingerprint.analyse
    assert fingerprint.relation(a("We use pytest for tests"), a("We use unittest for tests")).subkind == "tool"
    assert fingerprint.relation(a("Frontend uses React"), a("Backend uses React")) is None
    assert fingerprint.relation(a("We decided to use Kafka"), a("We decided not to use Kafka")).subkind \
        == "reversal"
    assert fingerprint.relation(a("캐시는 Redis를 사용한다"), a("캐시는 Memcached를 사용한다")).kind \
        == "contradiction"
    assert fingerprint.normal_hash("Port: 6543!") == fingerprint.normal_hash("port 6543")


def test_relation_settles_early_only_what_the_long_way_also_calls_unrelated():
    """`relation` rejects most pairs from Text.hard before building its sets; a Text made
    without `hard` goes the long way. Both must agree on every pair — here texts drawn from
    soft words, values, negations, antonyms, qualifiers and plain words, so every branch is
    reached, and the early exit is taken for some of them (else the check proves nothing)."""
    import random

    rng = random.Random(28)
    words = ["we", "use", "run", "listen", "port", "5432", "6543", "v3.12", "8080", "not",
             "never", "enable", "disable", "staging", "prod", "billing", "auth", "service",
             "cache", "redis", "kafka", "switch", "to", "db", "the", "api", "config", "deploy",
             "done", "instead", "of", "retry", "queue", "token", "ledger", "always", "usually",
             "team", "via", "fast", "set", "keep", "default", "work", "note", "project"]
    early, related = 0, 0
    for _ in range(20_000):
        one = rng.choices(words, k=rng.randint(2, 14))
        other = list(one) if rng.random() < 0.7 else rng.choices(words, k=rng.randint(2, 14))
        for _ in range(rng.randint(0, 6)):  # a few words changed, added or dropped
            i = rng.randrange(len(other) + 1)
            other[i:i + rng.randint(0, 1)] = rng.choices(words, k=rng.randint(0, 2))
        x, y = fingerprint.analyse(" ".join(one)), fingerprint.analyse(" ".join(other))
        fast = fingerprint.relation(x, y)
        related += fast is not None
        slow = fingerprint.relation(x.replace(hard=frozenset()), y.replace(hard=frozenset()))
        assert fast == slow, (x.sequence, y.sequence)
        early += fast is None and len(x.hard - y.tokens) > 2 and len(y.hard - x.tokens) > 2
    assert early > 1000 and related > 1000
    # the two ways past the early exit for long texts: a tool named amid other wording on
    # both sides, and a long statement negated with a few other words on each side
    a = fingerprint.analyse
    assert fingerprint.relation(
        a("the payment service cache: we always use redis, usually fast, team default"),
        a("the payment service cache: we now use memcached, note simple, project setup"),
    ).subkind == "tool"
    common = ("billing ledger service retry queue worker payment invoice export nightly batch "
              "report archive audit rollup quota shard lease canary backfill")
    assert fingerprint.relation(a(common + " alpha beta gamma should be enabled"),
                                a(common + " delta epsilon zeta should not be enabled")
                                ).evidence == "nearly the same statement, one negated"


def test_the_keys_in_front_of_relation_never_drop_a_pair_that_relates():
    """candidate_pairs drops a pair when neither node's keys (a few of its rarest tokens) are
    among the other's tokens. Over generated texts — near variants and unrelated ones, from
    one vocabulary, so tokens repeat across texts as in a real store — no pair that relation()
    relates, or where one covers the other as a done task, is dropped; and most unrelated
    ones are (else the keys filter nothing)."""
    import random

    from ctx.doctor import findings

    rng = random.Random(7)
    words = [f"w{i}" for i in range(60)] + ["use", "redis", "kafka", "port", "5432", "6543",
                                           "not", "enable", "disable", "via", "team", "done",
                                           "fast", "default", "staging", "prod"]
    texts = []
    for _ in range(300):
        one = rng.choices(words, weights=[1 / (i + 1) for i in range(len(words))],
                          k=rng.randint(3, 25))
        one.append(f"{rng.randrange(10**6)}")  # a value of its own: its rarest token
        other = list(one)
        for _ in range(rng.randint(0, 5)):
            i = rng.randrange(len(other) + 1)
            other[i:i + rng.randint(0, 1)] = rng.choices(words, k=rng.randint(0, 2))
        if rng.random() < 0.5:  # the same fact with another value: rarest tokens differ
            other = [f"{rng.randrange(10**6)}" if w.isdigit() else w for w in other]
        texts += [" ".join(one), " ".join(other)]
    nodes = {f"n{i:04d}": findings._Node(f"n{i:04d}", "task" if i % 7 == 0 else "fact", t,
                                         "", "", None, (), fingerprint.analyse(t))
             for i, t in enumerate(texts)}
    keys = findings._keys(nodes)
    ids = sorted(nodes)
    related = dropped = 0
    for i, a in enumerate(ids):
        for b in ids[i + 1:]:
            x, y = nodes[a].text, nodes[b].text
            kept = (keys[a] is None or keys[b] is None or not keys[a].isdisjoint(y.tokens)
                    or not keys[b].isdisjoint(x.tokens))
            matters = (fingerprint.relation(x, y) is not None or fingerprint.relation(y, x)
                       is not None or fingerprint.covers_task(x, y)
                       or fingerprint.covers_task(y, x))
            assert kept or not matters, (x.sequence, y.sequence)
            related += matters
            dropped += not kept
    assert related > 100 and dropped > len(ids) ** 2 / 4


def test_a_memo_gives_what_a_fresh_diagnosis_gives_and_reworks_only_changed_texts(
        store, monkeypatch):
    """The Health page keeps a Memo between diagnoses: after changes (a new duplicate, an
    edited memory, a secret stored as given) its findings are a fresh diagnosis's, and
    only the changed texts are analysed again."""
    from bench.doctor_devset import NOW, build
    from ctx.doctor import findings

    build(store)
    store.conn.commit()
    options = Options(now=NOW, vectors=False)
    memo = findings.Memo()
    findings.diagnose(store, options, memo=memo)
    assert memo.texts and memo.node_secrets

    monkeypatch.setenv("CTX_SECRETS", "allow")
    store.add("The billing service listens on port 7007")
    secret = "deploy key: ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    store.add(secret)
    some = store.select("1", ids_only=True, limit=1)[0]
    edited = "The ledger job retries three times, then pages on-call"
    store.update(some, content=edited)
    store.conn.commit()

    analysed = []
    real = findings.analyse
    monkeypatch.setattr(findings, "analyse", lambda text: analysed.append(text) or real(text))
    kept = [f.to_dict() for f in findings.diagnose(store, options, memo=memo)]
    assert sorted(analysed) == sorted([secret, edited])  # the duplicate's words are known
    fresh = [f.to_dict() for f in findings.diagnose(store, options)]
    assert kept == fresh
    assert any(f["kind"] == "secret" for f in fresh)


def test_stale_days_option(store):
    store.add("Old working note", tags=["tier:working"], created_at="2026-11-01T00:00:00.000Z",
              updated_at="2026-11-01T00:00:00.000Z")
    store.conn.commit()
    os.environ.pop("CTX_DOCTOR_STALE_DAYS", None)
    assert _findings("--kind", "stale", "--stale-days", "100000") == []
    assert len(_findings("--kind", "stale", "--stale-days", "1")) == 1


@pytest.mark.slow
def test_dev_set_with_the_embedding_index(store):
    """Vectors add close pairs — the Korean/English restatements among them (counted here) —
    and the words still veto two facts that only look alike."""
    from bench.doctor_devset import NOW, build, evaluate
    from ctx.semantic import index
    from ctx.semantic.embed import get_embedder

    gold = build(store)
    store.conn.commit()
    index.update(store.conn, get_embedder(bulk=True))
    scores = evaluate(diagnose(store, Options(now=NOW, vectors=True)), gold, with_crosslingual=True)
    for s in scores.values():
        assert s.precision >= 0.90 and s.recall >= 0.80, s.line()


# ------------------------------------------------------------------------------ issue 36

def test_texts_without_word_characters_are_not_duplicates_of_each_other():
    ids = [ok("add", "--global", t).strip() for t in ("🚀🚀", ":)", "∑∫√")]
    assert len(set(ids)) == 3, ids
    assert ok("add", "--global", "🚀🚀").strip() == ids[0]  # the very same characters still are
    assert len(ok("list", "-f", "ids").split()) == 3
    assert not [f for f in _findings() if f["kind"] == "duplicate"]


def _fixed_store(store):
    old = "2026-02-01T09:00:00.000Z"
    a = store.add("Deploys need a green CI run first", created_at=old, updated_at=old)
    b = store.add("deploys need a green CI run first!", tags=["tier:reference"],
                  created_at=old, updated_at="2026-02-02T09:00:00.000Z")
    w = store.add("Investigating a flaky login test", tags=["tier:working"],
                  created_at=old, updated_at=old)
    store.conn.commit()
    assert ctx("doctor", "--no-vectors", "--fix").exit_code == 0
    return a, b, w


def test_undo_puts_back_each_nodes_updated_at_and_takes_a_whole_run_id(store):
    a, b, w = _fixed_store(store)
    assert store.get(a.id).updated_at != a.updated_at  # --fix touched them
    run = json.loads(ok("doctor", "--history", "-f", "json"))[0]["run"]
    assert ctx("doctor", "--undo", "--run", "0").exit_code == 3       # not a prefix of every run
    assert ctx("doctor", "--undo", "--run", run[:8]).exit_code == 3   # nor of this one
    assert store.get(a.id).superseded_by == b.id
    assert ctx("doctor", "--undo", "--run", run).exit_code == 0
    for n in (a, b, w):
        now = store.get(n.id)
        assert (now.updated_at, now.tier, now.superseded_by) == (n.updated_at, n.tier, None)


def test_undo_goes_on_past_a_node_removed_since_the_fix(store):
    a, _b, w = _fixed_store(store)
    store.delete(w.id)
    store.conn.commit()
    r = ctx("doctor", "--undo")
    assert r.exit_code == 0 and "removed since" in r.stderr
    assert store.get(a.id).superseded_by is None and store.get(a.id).updated_at == a.updated_at


def test_fix_does_not_supersede_a_node_edited_after_the_check(store):
    from ctx.doctor import fixes

    a = store.add("Deploys need a green CI run first")
    b = store.add("deploys need a green CI run first!")
    store.conn.commit()
    found = diagnose(store, Options(vectors=False))
    assert [f.kind for f in found] == ["duplicate"]
    store.update(a.id, content="Deploys need a green CI run and a second reviewer")
    store.update(b.id, content="deploys need a green CI run first, and a changelog line")
    report = fixes.apply(store, found)
    assert report.changes == 0 and "edited after the check" in report.skipped[0]
    assert store.get(a.id).superseded_by is None and store.get(b.id).superseded_by is None


_NOTES = ["Storybook for clinic-web runs on port 6006 (`pnpm storybook`)",
          "The billing worker retries failed charges three times, an hour apart",
          "Release notes are drafted in the #releases channel every Thursday",
          "Use ruff for linting; the config lives in pyproject.toml",
          "Nightly exports land in the analytics bucket as parquet files",
          "On-call hands over on Mondays at 10:00 in #oncall"]


def test_doctor_embeds_what_the_index_lacks_and_finds_a_restatement_in_korean(store):
    from ctx.semantic.index import indexed_model

    ids = [store.add(t).id for t in _NOTES]
    ko = store.add("clinic-web 스토리북은 `pnpm storybook` 으로 띄우면 6006 포트에서 뜸").id
    store.conn.commit()
    assert indexed_model(store.conn) is None  # as after `ctx import`: no index
    assert not [f for f in _findings() if f["kind"] == "duplicate"]  # --no-vectors: words only
    r = ctx("doctor", "-f", "json")
    found = json.loads(r.stdout)
    assert indexed_model(store.conn) is not None  # embedded first
    dup = [f for f in found if f["kind"] == "duplicate"]
    assert [set(f["ids"]) for f in dup] == [{ids[0], ko}], found
    assert "one Korean, one not" in dup[0]["evidence"]


def test_the_write_time_check_catches_a_paraphrase_the_index_has(store):
    from functools import partial

    from ctx.doctor.paraphrase import paraphrase_of
    from ctx.semantic import index
    from ctx.semantic.embed import get_embedder

    ids = [store.add(t).id for t in _NOTES]
    store.conn.commit()
    index.update(store.conn, get_embedder(bulk=True))
    meaning = partial(paraphrase_of, load=True)
    dup = dedupe.check(store, "`pnpm storybook` starts Storybook for clinic-web on :6006", None,
                       meaning=meaning)
    assert dup is not None and dup.node_id == ids[0] and dup.level == dedupe.LIKELY
    assert "by meaning" in dup.evidence
    # near-misses stay apart: another port; and words alone never load a model
    assert dedupe.check(store, "Storybook for clinic-web runs on port 6007 (`pnpm storybook`)",
                        None, meaning=meaning) is None
    assert dedupe.check(store, "A brand new fact about the ledger", None, meaning=meaning) is None


def test_the_write_time_check_sees_the_index_change_and_its_vector_is_reused(store):
    """The check keeps the index's centred rows between writes (the hook server): a node
    indexed since is found; and the new text's vector is the one the index then stores."""
    from functools import partial

    from ctx.doctor.paraphrase import paraphrase_of
    from ctx.semantic import index
    from ctx.semantic.embed import get_embedder

    store.add(_NOTES[1])
    store.conn.commit()
    embedder = get_embedder()
    index.update(store.conn, embedder)
    meaning = partial(paraphrase_of, load=True)
    restated = "`pnpm storybook` starts Storybook for clinic-web on :6006"
    assert dedupe.check(store, restated, None, meaning=meaning) is None  # not stored yet
    first = store.add(_NOTES[0]).id
    store.conn.commit()
    index.update(store.conn, embedder)
    dup = dedupe.check(store, restated, None, meaning=meaning)
    assert dup is not None and dup.node_id == first

    calls = []
    run = embedder._run
    embedder._run = lambda batch: calls.append(len(batch)) or run(batch)
    try:
        new = store.add(restated).id
        store.conn.commit()
        index.update(store.conn, embedder)
    finally:
        del embedder._run
    assert calls == []  # the check embedded it a moment ago
    assert store.conn.execute("SELECT 1 FROM embedded_nodes WHERE node_id = ?", (new,)).fetchone()


def test_a_qualifier_is_a_word_as_written_not_its_stem():
    """"staged" stems to "stag" like "staging": a past-tense verb read as an environment kept
    a restatement apart and set a production value against a "staging" one."""
    from ctx.doctor.findings import _other_environment, _qualified_apart

    staged = fingerprint.analyse("Only staged files are linted by the pre-commit hook")
    staging = fingerprint.analyse("Staging deploys run from the release branch")
    prod = fingerprint.analyse("Production deploys run from the release branch")
    assert staged.qualifiers == frozenset()
    assert ("environment", "staging") in staging.qualifiers
    assert not _other_environment(staged, fingerprint.analyse("Only files are linted by the hook"))
    assert _other_environment(staging, fingerprint.analyse("Deploys run from the release branch"))
    assert _qualified_apart(staging, prod)
    # Korean with its particle, the English word it translates: the same thing, not two
    assert not _qualified_apart(fingerprint.analyse("개발 서버에서 3100 포트"),
                                fingerprint.analyse("the dev server is on port 3100"))


def test_qualifiers_veto_only_within_one_kind_and_when_exclusive():
    """Two qualifiers keep two texts apart only when they are of one kind and exclude each
    other (staging vs prod, iOS vs Android, primary vs replica); one of another kind ("web"
    beside "server"), one only one side names, or a compatible pair (iOS is mobile) is wording."""
    from ctx.doctor.findings import _qualified_apart

    def apart(x: str, y: str) -> bool:
        return _qualified_apart(fingerprint.analyse(x), fingerprint.analyse(y))

    assert apart("iOS builds are signed by fastlane", "Android builds are signed by fastlane")
    assert apart("the primary database has 64 GB", "the replica database has 64 GB")
    assert apart("read the users table", "write the users table")
    assert not apart("the web app dev server runs on 5173", "the dev server listens on 5173")
    assert not apart("the API server reads the user token", "the server reads the token")
    assert not apart("the iOS app ships weekly", "the mobile app ships weekly")
    assert not apart("staging and production share the queue", "production shares the queue")
