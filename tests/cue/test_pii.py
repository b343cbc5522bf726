"""cue.pii: what each recognizer catches, what it leaves alone, and the scrub contract."""
from __future__ import annotations

import itertools
import json
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cue.pii import SCRUB_VERSION, TOKENS, Entity, analyze, scrub, scrub_report


@pytest.mark.parametrize(("text", "expected"), [
    ("mail jane.doe@example.com now", "mail [EMAIL] now"),
    ("call (415) 555-2671 today", "call [PHONE] today"),
    ("김 과장 번호는 010-1234-5678 입니다.", "김 과장 번호는 [PHONE] 입니다."),
    ("+82 10-2345-6789 로", "[PHONE] 로"),
    ("card 4111 1111 1111 1111.", "card [CREDIT_CARD]."),
    ("IBAN GB82WEST12345698765432 ok", "IBAN [IBAN] ok"),
    ("from 203.0.113.45 at noon", "from [IP] at noon"),
    ("v6 2001:db8:85a3::8a2e:370:7334 up", "v6 [IP] up"),
    ("SSN 536-22-8741 on file", "SSN [SSN] on file"),
    ("주민등록번호 900101-1234568 입력", "주민등록번호 [KR_RRN] 입력"),
    ("key AKIAIOSFODNN7EXAMPLE set", "key [API_KEY] set"),
    ("DB_PASSWORD=hunter22 here", "DB_PASSWORD=[SECRET] here"),
    ("postgres://admin:s3cr3t@db.internal:5432/app.", "[DB_URL]."),
    ("git clone https://bob:hunter22@github.com/org/repo.git",
     "git clone https://[SECRET]@github.com/org/repo.git"),
    ("see http://x.com/?u=jane@example.com&x=1", "see http://x.com/?u=[EMAIL]&x=1"),
    ("open /Users/alice/src/x.py", "open /Users/[USER]/src/x.py"),
    (r"C:\Users\Bob\Desktop", r"C:\Users\[USER]\Desktop"),
    ("join https://zoom.us/j/9876543210 now", "join [MEETING_URL] now"),
    ("meet.google.com/abc-defg-hij.", "[MEETING_URL]."),
    ("김민수님이 승인했다", "[PERSON]님이 승인했다"),
    ("박지영 씨는 늦었다", "[PERSON] 씨는 늦었다"),
    ("Dr. Jane Smith agreed", "Dr. [PERSON] agreed"),
])
def test_scrub_replaces_only_the_entity(text, expected):
    assert scrub(text) == expected


@pytest.mark.parametrize("text", [
    "Upgraded to v1.2.3, then version 2.10.0.4 (build 1.2.3.4, 버전 3.1.0.2)",
    "commit 3f9a2b7c1d4e5f60718293a4b5c6d7e8f9012345 and a1b2c3d",
    "id 123e4567-e89b-12d3-a456-426614174000",
    "2024-03-15 10:30:45, 2024.12.31 23:59, 15/03/2024 14:00, epoch 1700000000",
    "localhost:8080, 127.0.0.1:5432, 0.0.0.0:8000, ::1, port 3000",
    "$1,299.00, €49.99, 15,000원",
    "Order #A-10234, INV-2024-00123, 주문번호 20240315-0042",
    "error E1234, 0x80070005, HTTP 404, exit code 137",
    "고객님이 선생님께, 사장님은 이사님과, 이번 주 팀장님 회의",
    "https://docs.python.org/3/library/re.html and postgresql://localhost/mydb",
    "max_tokens=4096 token_count: 1500 password: ${DB_PASSWORD}",
    "/usr/local/bin, /Users/Shared/x, https://example.com/home/about",
])
def test_decoys_come_out_unchanged(text):
    assert scrub(text) == text


def test_every_token_is_invisible_to_the_recognizers():
    text = " ".join(TOKENS.values()) + " password=[SECRET] /Users/[USER]/x [PERSON]님이"
    assert analyze(text) == []
    assert scrub(text) == text


def test_analyze_returns_sorted_non_overlapping_entities():
    text = "a jane@example.com b postgres://bob:pw@db.example.com/app c 10.0.0.12"
    ents = analyze(text)
    assert [e.type for e in ents] == ["EMAIL_ADDRESS", "DB_URL", "IP_ADDRESS"]
    assert all(a.end <= b.start for a, b in itertools.pairwise(ents))
    assert text[ents[1].start:ents[1].end] == "postgres://bob:pw@db.example.com/app"
    assert all(isinstance(e, Entity) and 0 < e.score <= 1 for e in ents)


def test_scrub_report_offsets_point_into_the_input():
    text = "Call 010-1234-5678 or mail kim@example.com"
    out, ents = scrub_report(text)
    assert out == "Call [PHONE] or mail [EMAIL]"
    assert [text[e.start:e.end] for e in ents] == ["010-1234-5678", "kim@example.com"]


def test_empty_and_plain_text():
    assert scrub("") == ""
    assert analyze("") == []
    assert scrub("nothing to see here\n") == "nothing to see here\n"
    assert isinstance(SCRUB_VERSION, int) and SCRUB_VERSION >= 1


def test_private_key_block_is_removed_whole():
    text = "pem:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----\nend"
    assert scrub(text) == "pem:\n[PRIVATE_KEY]\nend"


# --- idempotence: scrub(scrub(x)) == scrub(x) -------------------------------------------

ENTITY_SAMPLES = {
    "EMAIL_ADDRESS": ["jane.doe@example.com", "minsu.kim@naver.com"],
    "PHONE_NUMBER": ["(415) 555-2671", "010-1234-5678", "+44 20 7946 0958", "02-312-3456"],
    "CREDIT_CARD": ["4111 1111 1111 1111", "378282246310005"],
    "IBAN_CODE": ["DE89 3704 0044 0532 0130 00", "GB82WEST12345698765432"],
    "IP_ADDRESS": ["10.0.3.17", "2001:db8:85a3::8a2e:370:7334"],
    "US_SSN": ["536-22-8741"],
    "KR_RRN": ["900101-1234568"],
    "API_KEY": ["AKIAIOSFODNN7EXAMPLE", "ghp_1a2B3c4D5e6F7g8H9i0JkLmNoPqRsTuVwXyZ12",
                "sk-ant-api03-Xy9_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789-AbCdEf",
                "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
                "sk_live_51HqLyjWDarjtT1zdp7dcXYZabc123", "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"],
    "SECRET": ["password=hunter22", "api_key: 'Q3JlYXRpdmVLZXlGb3JUZXN0czEyMw'"],
    "PRIVATE_KEY": ["-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----"],
    "DB_URL": ["postgres://admin:s3cr3t@db.internal:5432/app", "mongodb+srv://u:p@c0.mongodb.net/x"],
    "USER_PATH": ["/Users/alice/src/x.py", "/home/bob/.ssh", r"C:\Users\Carol\Desktop"],
    "MEETING_URL": ["https://us02web.zoom.us/j/85512345678?pwd=abc", "meet.google.com/abc-defg-hij",
                    "https://acme.webex.com/meet/jdoe", "https://teams.live.com/meet/938475610"],
    "PERSON": ["김민수님이", "박지영 씨는", "Dr. Jane Smith", "담당자: 이서연"],
    "ADDRESS": ["서울특별시 강남구 테헤란로 152", "강남구 역삼동 737-1", "테헤란로 152번길 7"],
    "CAPABILITY_URL": ["https://app.example.com/reset-password/aB3dE5fG7hJ9kL1mN3pQ",
                       "https://docs.google.com/document/d/1aBcD3fGhIjKlMnOpQrStUvWxYz012345/edit"],
    "MEETING_CODE": ["Meeting ID: 812 3456 7890", "Passcode: 4f9Kx2"],
    "PASSPORT": ["Passport: M12345678", "여권번호 M123A4567", "passport number is 123456789"],
    "CARD_CVV": ["CVV 123", "CVC2: 0456", "보안코드 789"],
    "DATE_OF_BIRTH": ["DOB 1985-07-14", "생년월일: 1990.01.01", "Date of birth: 07/14/1985"],
}
assert set(ENTITY_SAMPLES) == set(TOKENS)

filler = st.text(alphabet=st.sampled_from(list("abcXYZ 019:-./@_=\n'\"[]가나님씨이")), max_size=12)
generated = st.one_of(
    st.emails(), st.ip_addresses().map(str),
    st.from_regex(r"01[016789]-[0-9]{4}-[0-9]{4}", fullmatch=True),
    st.from_regex(r"(?:AKIA[0-9A-Z]{16}|ghp_[A-Za-z0-9]{36}|sk-ant-api03-[A-Za-z0-9_\-]{24})",
                  fullmatch=True),
    st.from_regex(r"/(?:Users|home)/[a-z][a-z0-9._\-]{1,12}/[a-z]{1,8}", fullmatch=True),
)
# Fragments that only become entities next to each other (issue 17: a role word and a
# name, a label and a meeting ID, a key split by a newline, "at"/"dot" words).
context_fragments = st.sampled_from([
    "서울특별시 강남구 테헤란로 152", "역삼동 737-1", "담당자: ", "참석: ", ", ", "김민수", "이서연",
    "Meeting ID: ", "812 3456 7890", "Passcode: ", "4f9Kx2", " at ", " dot ", "com", "[at]", "SSN ",
    "123456789", "\n", "4111 1111", "1111 1111", "https://x.com/invite/", "aB3dE5fG7hJ9kL1mN3pQ",
    "%40", "amFuZUBleGFtcGxlLmNvbQ==", "에서", "오후 3:12", "[", "]", "ghp_1a2B3c4D5e6F7g8H9i0J",
    "kLmNoPqRsTuVwXyZ12"])
pieces = st.one_of(filler, generated,
                   st.sampled_from([s for v in ENTITY_SAMPLES.values() for s in v]),
                   st.sampled_from(list(TOKENS.values())), context_fragments)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(pieces, min_size=1, max_size=8))
def test_scrub_is_idempotent(parts):
    text = "".join(parts)
    once = scrub(text)
    assert scrub(once) == once


@pytest.mark.parametrize("kind", sorted(ENTITY_SAMPLES))
def test_every_entity_type_is_scrubbed_and_stays_scrubbed(kind):
    for sample in ENTITY_SAMPLES[kind]:
        text = f"before {sample} after"
        once = scrub(text)
        assert TOKENS[kind] in once, (kind, sample, once)
        assert once.startswith("before ") and once.endswith(" after")
        assert scrub(once) == once


# --- offline and lazy -------------------------------------------------------------------

NO_NETWORK = r"""
import json, socket, sys
attempts = []
def refuse(*args, **kwargs):
    attempts.append(repr(args)[:200])
    raise OSError("network disabled by the test")
socket.socket.connect = refuse
socket.socket.connect_ex = refuse
socket.create_connection = refuse
socket.getaddrinfo = refuse
exec(sys.argv[1])
print(json.dumps({"out": out, "attempts": attempts}))
"""
SCRUB = 'from cue.pii import scrub; out = scrub("mail jane@example.co.uk, call 010-1234-5678, /Users/alice/x")'


def _run_offline(tmp_path, code):
    env = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "CUE_HOME": str(tmp_path / "cue"),
           "XDG_CACHE_HOME": str(tmp_path / "cache")}
    proc = subprocess.run([sys.executable, "-c", NO_NETWORK, code], capture_output=True,
                          text=True, env=env, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])


def test_no_network_access_is_attempted(tmp_path):
    result = _run_offline(tmp_path, SCRUB)
    assert result == {"out": "mail [EMAIL], call [PHONE], /Users/[USER]/x", "attempts": []}
    # tldextract ran from its bundled snapshot: no suffix-list cache was written anywhere.
    assert not any(p.name == "python-tldextract" for p in tmp_path.rglob("*"))


def test_the_network_guard_sees_an_attempt(tmp_path):
    # The guard above is not vacuous: tldextract's *default* extractor tries to fetch the
    # public suffix list, and the guard records it.
    result = _run_offline(tmp_path, 'import tldextract; out = tldextract.extract("a.example.co.uk").fqdn')
    assert result["out"] == "a.example.co.uk"
    assert result["attempts"] != []


def test_importing_cue_pii_does_not_import_presidio():
    code = ("import sys, cue.pii, cue.pii.privacy_log, cue.digest.backfill; "
            "print(sorted(m for m in ('presidio_analyzer', 'spacy', 'phonenumbers') if m in sys.modules))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_long_text_is_chunked_without_losing_or_moving_entities():
    from cue.pii import engine

    key = "-----BEGIN RSA PRIVATE KEY-----\n" + "QUJD\n" * 40 + "-----END RSA PRIVATE KEY-----"
    lines = [f"line {i}: mail user{i}@example.com, path /home/u{i}/x" for i in range(400)]
    lines.insert(180, key)  # straddles a chunk boundary
    text = "\n".join(lines)
    assert len(engine.chunks(text)) > 1
    whole = engine.engine().analyze(text=text, language="en",
                                    score_threshold=engine.SCORE_THRESHOLD)
    expected = sorted((r.entity_type, r.start, r.end) for r in whole)
    assert sorted((e.type, e.start, e.end) for e in engine.find(text)) == expected
    out = scrub(text)
    assert out.count("[EMAIL]") == 400 and out.count("[PRIVATE_KEY]") == 1
    assert "QUJD" not in out


def test_the_cli_and_the_log_helper_load_presidio_only_when_scrubbing():
    code = ("import sys, cue.cli.app; from cue.pii.privacy_log import privacy_log; "
            "print('presidio_analyzer' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "False"


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=80))
def test_scrub_is_idempotent_on_arbitrary_text(text):
    once = scrub(text)
    assert scrub(once) == once


def test_threads_share_one_engine():
    from concurrent.futures import ThreadPoolExecutor

    from cue.pii import engine

    with ThreadPoolExecutor(4) as pool:
        engines = list(pool.map(lambda _: engine.engine(), range(8)))
        outs = list(pool.map(scrub, ["call 010-1234-5678"] * 8))
    assert len({id(e) for e in engines}) == 1
    assert outs == ["call [PHONE]"] * 8


def test_a_private_key_cut_off_before_its_end_line_is_still_removed():
    text = "pasted:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7bq2\nabcDEF123==\n\nnext paragraph"
    assert scrub(text) == "pasted:\n[PRIVATE_KEY]\n\nnext paragraph"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.from_regex(r"AKIA[0-9A-Z]{16}|ghp_[A-Za-z0-9]{36}|sk-ant-api03-[A-Za-z0-9_\-]{24}"
                     r"|01[016789]-[0-9]{4}-[0-9]{4}|xoxb-[0-9]{10}-[A-Za-z0-9]{16}",
                     fullmatch=True),
       st.sampled_from(["key {} set", "토큰 {}을 확인", "({})", "'{}',", "{}"]))
def test_generated_keys_and_mobiles_never_survive(secret, template):
    out = scrub(template.format(secret))
    assert secret not in out
    assert out == template.format("[PHONE]" if secret.startswith("01") else "[API_KEY]")
