"""The dev set `ctx doctor` is measured on (issue 23): ≥ 300 nodes with planted duplicate
groups, contradictions, stale items and orphans, and hard negatives — similar wording,
different subjects (staging vs production, auth vs billing, caching vs queues) — some of it
in Korean, some Korean/English restatements (found only with multilingual vectors).

    gold = build(store)                       # fills an empty store, returns what is planted
    scores = evaluate(diagnose(store), gold)  # precision / recall per kind

Deterministic (no randomness): the same store every run. tests/ctx/test_doctor_devset.py
holds the floors (precision ≥ 0.90, recall ≥ 0.80 per kind); `make bench` prints the numbers.
"""
from __future__ import annotations

from datetime import UTC, datetime, timedelta
from itertools import combinations

from cuectx.value import Value

SERVICES = ["auth", "billing", "search", "metrics", "ledger", "catalog", "checkout", "analytics",
            "uploads", "thumbnail", "profile", "recommendation", "chat", "pricing", "shipping",
            "invoice", "onboarding", "support", "crm", "sso", "notification", "reporting",
            "gateway", "inventory", "payments", "webhook", "scheduler", "audit", "export",
            "translation", "geocoding", "fraud", "loyalty", "coupon", "review", "wishlist",
            "tracking", "returns", "warehouse", "forecast", "ranking", "feed", "media",
            "identity", "consent", "session", "quota", "billing-export", "ads", "survey"]
TOOLS = [("pytest", "unittest", "tests"), ("Redis", "Memcached", "caching"),
         ("Kafka", "RabbitMQ", "events"), ("Postgres", "MySQL", "storage"),
         ("Terraform", "Pulumi", "infrastructure"), ("Grafana", "Kibana", "dashboards"),
         ("Sentry", "Rollbar", "error tracking"), ("ruff", "flake8", "linting"),
         ("uv", "poetry", "dependencies"), ("GitHub Actions", "Jenkins", "CI"),
         ("Celery", "RQ", "background jobs"), ("Vite", "Webpack", "bundling")]
PURPOSES_B = {"tests": "fixtures", "caching": "queues", "events": "audit trails",
              "storage": "analytics", "infrastructure": "secrets", "dashboards": "alerts",
              "error tracking": "tracing", "linting": "formatting", "dependencies": "publishing",
              "CI": "releases", "background jobs": "cron", "bundling": "tests"}
T0 = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)
NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)


def _ts(day: float) -> str:
    return (T0 + timedelta(days=day)).strftime("%Y-%m-%dT%H:%M:%S.000Z")


class Gold(Value):
    __slots__ = ("contradictions", "crosslingual_groups", "duplicate_groups", "nodes", "orphans",
                 "stale")

    def __init__(self, duplicate_groups: list[set[str]] | None = None,
                 crosslingual_groups: list[set[str]] | None = None,
                 contradictions: set[frozenset] | None = None, stale: set[str] | None = None,
                 orphans: set[tuple] | None = None, nodes: int = 0) -> None:
        self.duplicate_groups = [] if duplicate_groups is None else duplicate_groups
        self.crosslingual_groups = [] if crosslingual_groups is None else crosslingual_groups  # vectors only
        self.contradictions = set() if contradictions is None else contradictions
        self.stale = set() if stale is None else stale
        self.orphans = set() if orphans is None else orphans
        self.nodes = nodes

    def duplicate_pairs(self, *, with_crosslingual: bool) -> set[frozenset]:
        groups = self.duplicate_groups + (self.crosslingual_groups if with_crosslingual else [])
        return {frozenset(p) for g in groups for p in combinations(sorted(g), 2)}


class _Writer:
    def __init__(self, store):
        self.store = store
        self.day = 0.0
        self.count = 0

    def add(self, content: str, *, type: str = "fact", tags=(), day: float | None = None,
            touched: float | None = None) -> str:
        self.day += 0.01
        when = _ts(self.day if day is None else day)
        node = self.store.add(content, type=type, tags=list(tags), created_at=when,
                              updated_at=_ts(touched) if touched is not None else when)
        self.count += 1
        return node.id


def build(store) -> Gold:
    """Fill an empty store with the dev set; returns what was planted."""
    w = _Writer(store)
    gold = Gold()
    svc = iter([name if not k else f"{name}-{greek}"
                for k, greek in enumerate(["", "alpha", "beta", "gamma", "delta", "omega"])
                for name in SERVICES])

    def s() -> str:
        return next(svc)

    # --- duplicate groups: the same fact restated (case, punctuation, filler, wording, detail)
    for i in range(24):
        name, port = s(), 7000 + i * 7
        base = f"The {name} service listens on port {port}"
        variants = [base,
                    [f"the {name} service listens on port {port}.",
                     f"Note: the {name} service listens on port {port}",
                     f"{name} service runs on port {port}",
                     f"The {name} service is available on port {port}",
                     f"Remember: {name.upper()} SERVICE LISTENS ON PORT {port}!",
                     f"The {name} service listens on port {port} (reachable from the VPN too)"][i % 6]]
        if i % 3 == 0:
            variants.append(f"FYI the {name} service listens on port {port}")
        gold.duplicate_groups.append({w.add(v, tags=["tier:reference"] if j == 0 else ())
                                      for j, v in enumerate(variants)})
    for i, (tool, _other, purpose) in enumerate(TOOLS[:8]):
        name = s()
        gold.duplicate_groups.append({
            w.add(f"The {name} team uses {tool} for {purpose}"),
            w.add(f"For {purpose} the {name} team uses {tool}." if i % 2 else
                  f"the {name} team uses {tool} for {purpose} — always")})
    for i in range(6):  # Korean restatements: particles and verb endings differ
        name, port = s(), 7600 + i
        gold.duplicate_groups.append({
            w.add(f"{name} 서비스는 {port} 포트를 사용한다"),
            w.add(f"{name} 서비스가 {port} 포트를 사용합니다")})
    for i in range(5):  # the same fact in Korean and in English (vectors only)
        name, port = s(), 7700 + i
        gold.crosslingual_groups.append({
            w.add(f"The {name} service listens on port {port}"),
            w.add(f"{name} 서비스는 {port}번 포트에서 요청을 받는다")})

    # --- contradictions: the same subject, another value, later
    for i in range(10):
        name = s()
        a = w.add(f"The {name} service listens on port {8000 + i}")
        b = w.add(f"The {name} service listens on port {8100 + i}" if i % 2 else
                  f"The {name} service now runs on port {8100 + i}")
        gold.contradictions.add(frozenset((a, b)))
    for i in range(8):
        name = s()
        a = w.add(f"The {name} service runs on Python 3.{10 + i % 2}")
        b = w.add(f"The {name} service runs on Python 3.{12 + i % 2}")
        gold.contradictions.add(frozenset((a, b)))
    for (tool, other, purpose) in (TOOLS):
        name = s()
        a = w.add(f"The {name} team uses {tool} for {purpose}", type="decision")
        b = w.add(f"The {name} team uses {other} for {purpose}", type="decision")
        gold.contradictions.add(frozenset((a, b)))
    for (tool, _other, purpose) in (TOOLS[:8]):
        name = s()
        a = w.add(f"We decided to use {tool} for {purpose} in the {name} service", type="decision")
        b = w.add(f"We decided not to use {tool} for {purpose} in the {name} service", type="decision")
        gold.contradictions.add(frozenset((a, b)))
    for i in range(4):
        name = s()
        a = w.add(f"The {name} API timeout is {30 + i * 10} seconds")
        b = w.add(f"The {name} API timeout is {90 + i * 10} seconds")
        gold.contradictions.add(frozenset((a, b)))
    for _ in range(4):
        name = s()
        a = w.add(f"Feature flag new-{name}-flow is enabled for all users")
        b = w.add(f"Feature flag new-{name}-flow is disabled for all users")
        gold.contradictions.add(frozenset((a, b)))
    for (tool, other, _purpose) in (TOOLS[:4]):  # Korean: tool changed
        name = s()
        a = w.add(f"{name} 서비스는 {tool}를 사용한다")
        b = w.add(f"{name} 서비스는 {other}를 사용한다")
        gold.contradictions.add(frozenset((a, b)))

    # --- hard negatives: similar wording, different subjects (nothing to find)
    for i in range(10):
        name, port = s(), 5400 + i
        w.add(f"The staging {name} DB listens on port {port}")
        w.add(f"The production {name} DB listens on port {port}")
    for i in range(10):
        a, b, port = s(), s(), 9000 + i
        w.add(f"The {a} worker listens on port {port}")
        w.add(f"The {b} worker listens on port {port}")
    for i in range(8):
        a, b = s(), s()
        w.add(f"The {a} worker listens on port {9100 + i}")
        w.add(f"The {b} worker listens on port {9200 + i}")
    for (tool, _other, purpose) in (TOOLS):
        name = s()
        w.add(f"The {name} squad uses {tool} for {purpose}")
        w.add(f"The {name} squad uses {tool} for {PURPOSES_B[purpose]}")
    for _ in range(6):
        name = s()
        w.add(f"The {name} frontend uses React 18")
        w.add(f"The {name} backend uses React 18")
    for i in range(4):
        name = s()
        w.add(f"스테이징 {name} DB는 {5500 + i} 포트를 사용한다")
        w.add(f"운영 {name} DB는 {5500 + i} 포트를 사용한다")

    # --- stale: working tier untouched for long; tasks a later node marks done; replaced in words
    for i in range(12):
        gold.stale.add(w.add(f"Investigating flaky {s()} integration test number {i}",
                             tags=["tier:working"], day=20 + i, touched=20 + i))
    for i in range(6):  # recent working memory and old reference memory are not stale
        w.add(f"Currently profiling the {s()} cold start path", tags=["tier:working"],
              day=200 + i, touched=200 + i)
        w.add(f"The {s()} runbook lives in the ops wiki", tags=["tier:reference"], day=10 + i,
              touched=10 + i)
    for i, (tool, _other, _purpose) in enumerate(TOOLS[:10]):
        name = s()
        t = w.add(f"Migrate the {name} service to {tool}", type="task", tags=["tier:working"],
                  touched=w.day + 150)
        w.add([f"Done: migrated the {name} service to {tool}",
               f"Finished migrating the {name} service to {tool} today",
               f"The {name} service migration to {tool} is complete"][i % 3], type="observation")
        gold.stale.add(t)
    for _ in range(4):  # a task that is not done, next to a done note about another service
        a, b = s(), s()
        w.add(f"Upgrade the {a} service to Node 22", type="task")
        w.add(f"Done: upgraded the {b} service to Node 22", type="observation")
    for (tool, other, _purpose) in (TOOLS[:8]):
        name = s()
        old = w.add(f"Deploys of the {name} service go through {tool}")
        w.add(f"Deploys of the {name} service now go through {other} instead of {tool}")
        gold.stale.add(old)
    for _ in range(4):  # a node that names the one it replaces
        name = s()
        old = w.add(f"The {name} on-call schedule is in PagerDuty")
        w.add(f"Supersedes {old[:16]}: the {name} on-call schedule moved to Opsgenie")
        gold.stale.add(old)

    # --- unrelated facts
    subjects = ["on-call rotation changes every Monday", "release train leaves on Thursdays",
                "design docs live in the RFC folder", "logs are kept for 30 days",
                "owners are listed in CODEOWNERS", "feature freeze starts two weeks before launch",
                "load tests run nightly against a copy of production traffic",
                "schema changes need a second reviewer"]
    for i in range(60):
        w.add(f"{SERVICES[i % len(SERVICES)].title()} note {i}: {subjects[i % len(subjects)]} "
              f"(team {i // len(subjects)})")

    # --- orphans: edges to nodes that are gone (written with foreign keys off)
    conn = store.conn
    conn.execute("PRAGMA foreign_keys = OFF")
    live = [r[0] for r in conn.execute("SELECT id FROM nodes ORDER BY id LIMIT 5")]
    for i, node_id in enumerate(live):
        gone = f"01GONE{i:020d}"[:26]
        conn.execute("INSERT INTO edges (from_id, to_id, type, created_at) VALUES (?, ?, ?, ?)",
                     (node_id, gone, "RELATES_TO", _ts(1)))
        gold.orphans.add((node_id, gone))
    conn.execute("PRAGMA foreign_keys = ON")
    gold.nodes = w.count
    return gold


class Score(Value):
    __slots__ = ("gold", "kind", "predicted", "tp")

    def __init__(self, kind: str, tp: int, predicted: int, gold: int) -> None:
        self.kind = kind
        self.tp = tp
        self.predicted = predicted
        self.gold = gold

    @property
    def precision(self) -> float:
        return self.tp / self.predicted if self.predicted else 1.0

    @property
    def recall(self) -> float:
        return self.tp / self.gold if self.gold else 1.0

    def line(self) -> str:
        return (f"{self.kind:<14} precision {self.precision:.3f} ({self.tp}/{self.predicted})  "
                f"recall {self.recall:.3f} ({self.tp}/{self.gold})")


def evaluate(findings, gold: Gold, *, with_crosslingual: bool = False) -> dict[str, Score]:
    dup_pred = {frozenset(p) for f in findings if f.kind == "duplicate"
                for p in combinations(sorted(f.ids), 2)}
    dup_gold = gold.duplicate_pairs(with_crosslingual=with_crosslingual)
    con_pred = {frozenset(f.ids) for f in findings if f.kind == "contradiction"}
    stale_pred = {f.ids[0] for f in findings if f.kind == "stale"}
    orphan_pred = {tuple(f.ids) for f in findings if f.kind == "orphan" and len(f.ids) == 2}
    return {
        "duplicate": Score("duplicate", len(dup_pred & dup_gold), len(dup_pred), len(dup_gold)),
        "contradiction": Score("contradiction", len(con_pred & gold.contradictions),
                               len(con_pred), len(gold.contradictions)),
        "stale": Score("stale", len(stale_pred & gold.stale), len(stale_pred), len(gold.stale)),
        "orphan": Score("orphan", len(orphan_pred & gold.orphans), len(orphan_pred),
                        len(gold.orphans)),
    }
