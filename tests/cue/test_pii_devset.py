"""The scrub development set (tests/cue/data/pii_dev.jsonl, issue 17): recall targets per
type and overall, the decoy false-positive ceiling, and what must survive scrubbing.

The set comes from tests/cue/data/make_pii_dev.py (Faker ko_KR/en_US with fixed seeds plus
templates, digest and window-title shapes); it is committed so Faker updates don't move it.
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from bench.pii_eval import evaluate, load
from cue.pii import TOKENS

DATA = Path(__file__).parent / "data" / "pii_dev.jsonl"
ISSUE_17_CASES = {"kr_address", "kr_name_role", "kr_name_list", "kr_name_chat", "kr_name_sentence",
                  "capability_url",
                  "meeting_code", "base64", "percent", "line_broken", "obfuscated_email",
                  "aws_secret", "ssn_bare", "private_key_cut"}
# Forms real screens show (issue 25): a key body on its BEGIN line, passwords on command lines,
# Korean names before an honorific or opening a sentence with a particle, RRNs without the
# hyphen after their label, Meet codes in titles, "client secret (…)", a bare SSN after "SSN".
ISSUE_25_CASES = {"private_key_inline", "cli_password", "kr_name_honorific", "kr_name_particle",
                  "kr_rrn_bare", "meet_code_title", "client_secret_paren", "ssn_after_label",
                  # travel bookings and checkout forms: a passport number, a card's security
                  # code, a date of birth
                  "passport_label", "card_code_label", "birth_date_label"}
DECOY_KINDS = {"version", "hash", "order", "port", "public_url", "common_words"}


@pytest.fixture(scope="module")
def records():
    return load(DATA)


@pytest.fixture(scope="module")
def evaluation(records):
    return evaluate(records)


def test_command_line_passwords(records):
    """`mysql -pS3cret`, `PGPASSWORD=… psql`, `sshpass -p`, `--password=…`, `curl -u user:pw`,
    `redis-cli -a`, `docker login -p`: the value is found, and the rest of the command and
    the sentence around it survive (the `keep` parts)."""
    cli = evaluate([r for r in records if r["case"] == "cli_password"])
    assert cli.positives >= 40 and cli.overall_recall == 1.0, cli.misses
    assert cli.overreach == []


def test_command_line_decoys_stay(records):
    """Ports (`ssh -p 22`, `docker run -p 8080:80`), a `-p` that prompts, password files,
    references (`$PGPASS`), stdin: nothing changes."""
    from cue.pii import scrub

    decoys = [r["text"] for r in records if r["case"] == "decoy_issue25" and r["decoy"] == "port"]
    decoys += [r["text"] for r in records if r["case"] == "decoy_issue25"
               and any(w in r["text"] for w in ("-p", "--password", "sshpass", "PGPASSWORD",
                                                "MYSQL_PWD", "curl -u", "redis-cli", "docker login"))]
    assert len(decoys) >= 25
    assert [(t, scrub(t)) for t in decoys if scrub(t) != t] == []


def test_the_set_is_big_and_varied(records):
    assert len(records) >= 400
    positives = [r for r in records if r["kind"] == "positive"]
    decoys = [r for r in records if r["kind"] == "decoy"]
    assert ISSUE_17_CASES | ISSUE_25_CASES <= {r["case"] for r in positives}
    assert DECOY_KINDS == {r["decoy"] for r in decoys}
    types = Counter(e["type"] for r in positives for e in r["entities"])
    assert {"ADDRESS", "CAPABILITY_URL", "MEETING_CODE", "PERSON"} <= set(types) <= set(TOKENS)
    for group in (positives, decoys):
        assert {r["lang"] for r in group} == {"en", "ko"}
        assert {r["shape"] for r in group} == {"digest", "title"}
    assert len(decoys) >= 100


def test_overall_recall_is_at_least_097(evaluation):
    assert evaluation.overall_recall >= 0.97, evaluation.misses


def test_recall_per_type_is_at_least_09(evaluation):
    low = {t: round(evaluation.recall(t), 3) for t in evaluation.total if evaluation.recall(t) < 0.9}
    assert not low, f"recall below 0.9: {low}; misses: {evaluation.misses}"


def test_recall_per_issue_17_case_is_at_least_09(evaluation):
    low = {c: round(evaluation.case_recall(c), 3) for c in ISSUE_17_CASES
           if evaluation.case_recall(c) < 0.9}
    assert not low, f"recall below 0.9: {low}"


def test_every_issue_25_case_is_found(evaluation):
    low = {c: f"{evaluation.case_found[c]}/{evaluation.case_total[c]}"
           for c in ISSUE_25_CASES if evaluation.case_recall(c) < 1.0}
    assert not low, [m for m in evaluation.misses if m[0] != "ADDRESS"]


def test_issue_25_decoys_stay(records):
    from cue.pii import scrub

    changed = [(r["text"], scrub(r["text"])) for r in records if r["case"] == "decoy_issue25"
               and scrub(r["text"]) != r["text"]]
    assert len([r for r in records if r["case"] == "decoy_issue25"]) >= 25
    assert changed == []


def test_decoy_false_positives_at_most_2_percent(evaluation):
    assert evaluation.decoy_fp_rate <= 0.02, evaluation.false_positives


def test_text_after_a_cut_off_key_survives(evaluation):
    assert evaluation.overreach == []
