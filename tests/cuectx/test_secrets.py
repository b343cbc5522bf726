"""cuectx.secrets: the one credential detector (ctx's write guard, cue's scrubber)."""
from __future__ import annotations

import base64
import json
import runpy
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from cuectx.secrets import Finding, find, redact

DATA = Path(__file__).parents[1] / "ctx" / "data" / "secrets"
ROWS = [json.loads(line) for line in (DATA / "secrets_set.jsonl").read_text().splitlines()]
B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def github_token(body30: str, prefix="ghp_") -> str:
    n, digits = zlib.crc32(body30.encode()), ""
    while n:
        n, r = divmod(n, 62)
        digits = B62[r] + digits
    return prefix + body30 + digits.rjust(6, "0")


def evaluate(rows):
    secrets = [r for r in rows if r["secret"]]
    decoys = [r for r in rows if not r["secret"]]
    missed = [r for r in secrets if r["value"] in redact(r["text"])]
    flagged = [r for r in decoys if find(r["text"])]
    return 1 - len(missed) / len(secrets), len(flagged) / len(decoys), missed, flagged


def test_the_labelled_set_is_big_and_covers_every_kind():
    assert len(ROWS) >= 300
    kinds = {r["kind"] for r in ROWS if r["secret"]}
    assert {"aws-access-key-id", "aws-secret-access-key", "github-token", "gitlab-token", "slack-token",
            "stripe-key", "openai-key", "anthropic-key", "google-api-key", "npm-token", "pypi-token",
            "twilio-api-key", "sendgrid-key", "huggingface-token", "jwt", "private-key", "url-password",
            "assignment", "basic-auth", "bearer-token", "cli-secret", "broken-line", "encoded"} <= kinds
    assert sum(not r["secret"] for r in ROWS) >= 100


def test_the_labelled_set_is_what_its_generator_writes():
    generated = runpy.run_path(str(DATA / "make_secrets_set.py"), run_name="check")["TEXT"]
    assert generated == (DATA / "secrets_set.jsonl").read_text(encoding="utf-8")


def test_recall_and_false_positives_meet_their_targets():
    recall, fp_rate, missed, flagged = evaluate(ROWS)
    assert recall >= 0.98, [m["text"][:80] for m in missed]
    assert fp_rate <= 0.01, [f["text"][:80] for f in flagged]


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r["kind"] or "decoy")
def test_redacted_text_has_no_findings_and_redacting_again_changes_nothing(row):
    once = redact(row["text"])
    assert find(once) == []
    assert redact(once) == once


def test_a_finding_is_kind_and_position_never_the_value():
    text = "deploy with " + github_token("R4nd0mT0k3nV4lu3Xq9Zk2Lm8Np5Wy")
    (f,) = find(text)
    assert f == Finding("github-token", 12, len(text)) and set(f.as_dict()) == {"kind", "start", "end"}
    assert redact(text) == "deploy with [SECRET:github-token]"


def test_a_valid_crc32_makes_a_github_token_whatever_it_looks_like():
    token = github_token("a" * 30)  # a placeholder by its looks, but the checksum is right
    assert [f.kind for f in find(f"t {token}")] == ["github-token"]
    bad = token[:-1] + ("A" if token[-1] != "A" else "B")
    assert find(f"t {bad}") == []  # wrong checksum and no entropy: a made-up string


@pytest.mark.parametrize("text", [
    "commit 3f9a2b7c1d4e5f60718293a4b5c6d7e8f9012345 (a1b2c3d)",
    "id 123e4567-e89b-12d3-a456-426614174000, token_id=123e4567-e89b-12d3-a456-426614174000",
    "Upgraded to v1.2.3, node 20.11.1, build 1.2.3.4",
    "localhost:8080, 127.0.0.1:5432, port 3000",
    "postgresql://postgres:postgres@localhost:5432/dev and redis://:pw123456@127.0.0.1:6379",
    "OPENAI_API_KEY=sk-... (your-key-here), token: <token>, password: ${DB_PASSWORD}, xxxx",
    "api_key: xxxxxxxxxxxxxxxxxxxx and secret: $CLIENT_SECRET",
    "Env vars: GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY, ANTHROPIC_API_KEY",
    "token: GITHUB_TOKEN",
    "masked: sk-…abcd, ghp_****WXYZ, sk-proj-...9fQz, password: ********",
    "max_tokens=4096 token_count: 1500 password_min_length = 14",
    "JWT header eyJhbGciOiJIUzI1NiJ9 alone is not a token",
    "-----BEGIN RSA PRIVATE KEY----- is the first line of a PEM file",
    "AKIAIOSFODNN7EXAMPLE (the AWS docs' example key)",
])
def test_what_a_memory_is_made_of_is_not_a_secret(text):
    assert find(text) == [], [(f.kind, text[f.start:f.end]) for f in find(text)]


def test_a_jwt_needs_a_header_that_decodes_to_json():
    head = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
    body = base64.urlsafe_b64encode(b'{"sub":"42"}').decode().rstrip("=")
    jwt = f"{head}.{body}.c2lnbmF0dXJlX2J5dGVzX2hlcmU"
    assert [f.kind for f in find(f"Bearer {jwt}")] == ["jwt"]
    fake = "eyJub3QganNvbiBhdCBhbGw.eyJzdWIiOiI0MiJ9.c2lnbmF0dXJl"
    assert all(f.kind != "jwt" for f in find(fake))


def test_a_cut_off_private_key_ends_at_its_last_line_of_key_material():
    text = ("pasted:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7bq2Xy9+abc/\nabcDEF123==\n"
            "Done, thanks\nmore text")
    (f,) = find(text)
    assert text[f.end:] == "\nDone, thanks\nmore text"
    whole = "k:\n-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBx\n-----END EC PRIVATE KEY-----\nafter"
    assert redact(whole) == "k:\n[SECRET:private-key]\nafter"
    escaped = '{"private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBg+/kq\\n-----END PRIVATE KEY-----\\n"}'
    assert redact(escaped) == '{"private_key": "[SECRET:private-key]\\n"}'


def test_urls_lose_only_the_password():
    assert redact("postgres://app:Zx9kq2LmPw@db.internal:5432/app") == \
        "postgres://app:[SECRET:database-password]@db.internal:5432/app"
    assert redact("git clone https://bob:hunter22@github.com/org/r.git") == \
        "git clone https://bob:[SECRET:url-password]@github.com/org/r.git"


def test_labelled_values_need_entropy_and_auth_headers_decode():
    assert redact("DB_PASSWORD=Tr0ub4dor&3x") == "DB_PASSWORD=[SECRET:password]"
    assert find("password=hunter") == []
    assert redact("config: client_secret=OcOe35kBF4DW9JLVk0kA") == "config: client_secret=[SECRET:secret]"
    basic = base64.b64encode(b"deploy:S3cr3t-Pa55").decode()
    assert redact(f"Authorization: Basic {basic}") == "Authorization: Basic [SECRET:basic-auth]"
    assert find("Authorization: Basic bm90LWEtcGFpcg==") == []  # "not-a-pair": no user:password


def test_strict_mode_reports_placeholder_shaped_tokens_for_a_scrubber():
    assert find("AKIAIOSFODNN7EXAMPLE") == []
    assert [f.kind for f in find("AKIAIOSFODNN7EXAMPLE", strict=True)] == ["aws-access-key-id"]


def test_importing_the_detector_is_stdlib_only_and_compiles_lazily():
    code = ("import sys, cuectx.secrets as s; "
            "print(sum(r.regex is not None for r in s._RULES)); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('ctx', 'cue', 'typer', 'rich', 'presidio_analyzer', 'numpy')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split("\n")[:2] == ["0", "[]"]


def test_a_key_wrapped_across_lines_is_found_whole_and_a_complete_one_keeps_the_next_line():
    token = github_token("Nixjq4SQjiJqzqsHcx0fl7JAJkBlUg")
    text = f"export TOKEN=\n{token[:21]}\n{token[21:]}\nnext step"
    assert redact(text) == "export TOKEN=\n[SECRET:github-token]\nnext step"
    whole = f"key sk-proj-{'aZ3x9Qw7Lm2Np8Rt5Vy1' * 2}\nthen deploy"
    assert redact(whole).endswith("[SECRET:openai-key]\nthen deploy")


def test_base64_that_decodes_to_a_credential_is_one():
    blob = base64.b64encode(b"postgres://app:Zx9kq2LmPw@db.internal:5432/app").decode()
    assert redact(f"DATABASE_URL: {blob}") == "DATABASE_URL: [SECRET:database-password]"
    harmless = base64.b64encode(b"log_level: info, replicas: 3, region: eu-west-1").decode()
    assert find(f"data: {harmless}") == []


def test_a_second_differently_shaped_set_faker_values_and_passwords():
    import importlib.util

    spec = importlib.util.spec_from_file_location("faker_set", DATA / "faker_set.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    recall, fp_rate, missed, flagged = evaluate(module.items(n_decoys=1500, n_passwords=300))
    assert recall >= 0.98, [m["text"] for m in missed][:10]
    assert fp_rate <= 0.01, [f["text"] for f in flagged][:10]


@pytest.mark.parametrize(("text", "password"), [
    # the forms cue's scrubber found and ctx's write guard missed (issue 25's dev set)
    ("Ran `sshpass -p LFHQNnXTRK8vT ssh deploy@build-01` in the terminal.", "LFHQNnXTRK8vT"),
    ("Ran `mariadb -uadmin -pW+Eo!StkU238px shop` in the terminal.", "W+Eo!StkU238px"),
    ("`mysql -uroot -p%^YPj1O0UGBs`", "%^YPj1O0UGBs"),  # a % that is no %VAR% reference
    ("curl -u admin:L@2zwc^v!d0 https://ci.internal/api/json", "L@2zwc^v!d0"),  # @ in it
])
def test_command_line_passwords_in_code_spans_and_with_odd_characters(text, password):
    assert [text[f.start:f.end] for f in find(text)] == [password]


@pytest.mark.parametrize("text", [
    "`mysql -p'%PW%' app`", "mysql -p%(pw)s", "`sshpass -p \"$PASS\" ssh nas`",
    "curl -u $USER:$TOKEN https://x.example", "docker run -u 1000:1000 img",
])
def test_command_line_references_are_not_passwords(text):
    assert find(text) == []
