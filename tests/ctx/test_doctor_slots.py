"""What a memory sets (ctx/doctor/slots.py): typed values in English and Korean, and the
names a newer note says are gone — the evidence `ctx doctor` names for an update."""
from ctx.doctor.slots import read, show_value, values_apart


def test_units_are_applied_across_languages():
    a, b = read("Access tokens expire after 15 minutes."), read("access token 만료 60분으로 늘림")
    assert ("duration", 900.0) in a.values and ("duration", 3600.0) in b.values
    assert values_apart(a, b) == [("duration", [900.0], [3600.0])]
    same = read("토큰은 15분 뒤 만료")
    assert values_apart(a, same) == []


def test_sizes_rates_versions_ports_and_keys():
    s = read("Max upload 2 GB, `pool_size=10`, limit 60 req/min, Python 3.12, port 8040")
    kinds = dict(s.values)
    assert kinds["size"] == 2 * (1 << 30)
    assert kinds["=pool_size"] == 10
    assert kinds["number/min"] == 60
    assert kinds["version"] == 3_012_000
    assert kinds["port"] == 8040
    assert show_value("version")(3_012_000) == "3.12"


def test_times_weekdays_and_cron():
    en, ko = read("Backup runs at 02:00 UTC every Tuesday"), read("백업은 매주 목요일 새벽 3시 반")
    assert ("clock", 120) in en.values and ("clock", 210) in ko.values
    assert en.weekdays == {1} and ko.weekdays == {3}
    apart = {k: (va, vb) for k, va, vb in values_apart(en, ko)}
    assert apart["weekday"] == ([1], [3]) and apart["clock"] == ([120], [210])
    assert ("clock", 18 * 60 + 30) in read("schedule is `30 18 * * *` (UTC)").values


def test_names_said_gone_in_both_languages():
    assert "redux" in read("App state is Zustand stores; there is no Redux in the app.").gone
    assert "circleci" in read("We build on GitHub Actions; we have no CircleCI account.").gone
    assert "pagerduty" in read("Paging runs through Opsgenie; the PagerDuty account was closed.").gone
    ko = read("앱 E2E는 Maestro로 옮김. Detox 설정은 삭제함")
    assert "detox" in ko.gone and "maestro" not in ko.gone  # moved *to* Maestro
    assert read("Tests use Detox.").gone == frozenset()


def test_a_newer_note_that_drops_the_older_name_is_an_update_with_its_evidence():
    from ctx.core.fingerprint import analyse
    from ctx.doctor.findings import _Node, _Rarity, by_meaning

    def node(i, text, when):
        return _Node(i, "fact", text, when, when, None, (), analyse(text))

    nodes = {n.id: n for n in (
        node("A", "Global state lives in Redux Toolkit; new slices go in src/store/slices.", "2026-01-01"),
        node("B", "App global state is Zustand stores under src/stores — there is no Redux in the app.",
             "2026-06-01"),
        node("C", "Booking IDs are ULIDs.", "2026-01-01"))}
    rel = by_meaning(nodes["A"], nodes["B"], 0.5, _Rarity(nodes), undecided=False)
    assert rel is not None and rel.kind == "contradiction" and rel.subkind == "replaced"
    assert "redux → " in rel.evidence and "zustand" in rel.evidence
    # far apart by meaning: nothing, whatever the names say
    assert by_meaning(nodes["C"], nodes["B"], 0.05, _Rarity(nodes), undecided=False) is None


def test_a_pair_written_as_one_name_counts_part_by_part():
    old = read("List endpoints use offset pagination (`?page=&per_page=`).")
    new = read("All list endpoints are cursor-paginated; page/per_page params are ignored.")
    assert {"page", "per_page"} <= new.gone and "cursor-paginated" in new.names - new.gone
    assert {"page", "per_page"} <= old.names - old.gone


def test_a_korean_port_is_read_with_its_word_after_the_number():
    # "3100 포트" is how Korean writes "port 3100": the same slot, not a bare number
    ko, en = read("웹 개발 서버는 `pnpm dev`로 띄우고 3100 포트에서 뜸."), read("dev server listens on 3100, not 3000")
    assert ("port", 3100.0) in ko.values and ("port", 3100.0) in en.values
    assert values_apart(ko, en) == []
    assert values_apart(ko, read("웹 개발 서버는 3000번 포트")) == [("port", [3100.0], [3000.0])]


def test_a_korean_qualifier_is_the_english_one_it_translates():
    from ctx.core.fingerprint import analyse
    from ctx.doctor.findings import _qualified_apart

    assert not _qualified_apart(analyse("loom-web dev server listens on 3100"),
                                analyse("웹 개발 서버는 3100 포트에서 뜸"))
    assert _qualified_apart(analyse("staging server listens on 3100"), analyse("운영 서버는 3100 포트"))


def test_a_value_of_another_environment_is_not_an_update_of_production():
    from ctx.core.fingerprint import analyse
    from ctx.doctor.findings import _Node, _Rarity, by_meaning

    def node(i, text, when):
        return _Node(i, "fact", text, when, when, None, (), analyse(text))

    nodes = {n.id: n for n in (
        node("P", "RDS snapshots are kept for 7 days.", "2026-02-01"),
        node("S", "Staging RDS snapshots are kept for 1 day only.", "2026-04-01"),
        node("N", "RDS snapshots are now kept for 35 days.", "2026-09-01"))}
    weigh = _Rarity(nodes)
    # no environment named = production: a staging value set apart is two facts, which only
    # a reader can settle (--review asks), not the newer one winning
    rel = by_meaning(nodes["P"], nodes["S"], 0.6, weigh, undecided=True)
    assert rel is not None and rel.kind == "undecided"
    rel = by_meaning(nodes["P"], nodes["N"], 0.6, weigh, undecided=True)
    assert rel is not None and rel.kind == "contradiction" and "7 d → 35 d" in rel.evidence


def test_a_cancelled_service_is_said_gone_in_korean():
    ko = read("강의 썸네일 이미지는 CloudFront + S3에서 서빙함 (Cloudinary 해지).")
    assert "cloudinary" in ko.gone and "cloudfront" not in ko.gone


def test_instead_is_a_choice_not_a_change_unless_it_names_what_is_gone():
    from ctx.core.fingerprint import analyse
    from ctx.doctor.findings import _Node, _Rarity, by_meaning

    def node(i, text, when):
        return _Node(i, "fact", text, when, when, None, (), analyse(text))

    nodes = {n.id: n for n in (
        node("A", "On-device Storybook: set `EXPO_PUBLIC_STORYBOOK=1` and restart the bundler.", "2026-04-02"),
        node("B", "Setting EXPO_PUBLIC_STORYBOOK=1 boots the app into on-device Storybook instead of "
                  "the normal root layout.", "2026-04-16"),
        node("C", "End-to-end tests use Cypress.", "2026-02-01"),
        node("D", "End-to-end tests run on Playwright instead of Cypress.", "2026-09-01"))}
    weigh = _Rarity(nodes)
    rel = by_meaning(nodes["A"], nodes["B"], 0.61, weigh, undecided=False)
    assert rel is None or rel.kind != "contradiction"
    rel = by_meaning(nodes["C"], nodes["D"], 0.5, weigh, undecided=False)
    assert rel is not None and rel.kind == "contradiction" and rel.subkind == "replaced"
    assert "cypress → playwright" in rel.evidence


def test_a_restatement_across_languages_is_called_from_a_lower_closeness():
    # across Korean/English only names, commands and values count as shared words, so the
    # same fact scores lower than a restatement in one language
    from ctx.core.fingerprint import analyse
    from ctx.doctor.findings import DUPLICATE, DUPLICATE_CROSS, _Even, _Node, by_meaning

    def node(text, when):
        return _Node(when, "fact", text, when, when, None, (), analyse(text))

    en = node("Every PR needs one approving review from a code owner before merge (CODEOWNERS).", "2026-01-01")
    ko = node("머지 전에 CODEOWNERS 중 한 명의 PR 리뷰 승인 필수", "2026-03-01")
    en2 = node("Before merge every PR needs a code owner's approving review (CODEOWNERS).", "2026-03-01")
    assert DUPLICATE_CROSS < DUPLICATE
    between = (DUPLICATE_CROSS + DUPLICATE) / 2 - 0.5  # every rarer word shared: closeness = cos + 0.5
    rel = by_meaning(en, ko, between, _Even())
    assert rel is not None and rel.kind == "duplicate" and "one Korean" in rel.evidence
    rel = by_meaning(en, en2, between, _Even())
    assert rel is None or rel.kind != "duplicate"
