"""cuectx.secrets against the adversarial dev set of issue 26: the forms an outside red team
found the guard missing (Korean labels with particles, labels in prose, command-line
passwords, unknown provider prefixes, keys wrapped at any width, UUID-shaped keys behind a
key's name) and the decoys it flagged. A *leak* is any piece of a secret left after redaction
(6 characters of it, or a short last line of a wrapped key)."""
from __future__ import annotations

import json
import re
import runpy
from collections import defaultdict
from pathlib import Path

import pytest

from cuectx.secrets import find, redact

DATA = Path(__file__).parent / "data" / "adversarial"
ROWS = [json.loads(line) for line in (DATA / "adversarial_set.jsonl").read_text().splitlines()]
TOKEN = re.compile(r"\[SECRET(?::[\w-]+)?\]")


def leaked(row: dict, out: str) -> bool:
    out = TOKEN.sub("\0", out)
    for part in row["parts"]:
        if len(part) <= 6:
            if re.search(r"(?<![A-Za-z0-9_+/=-])" + re.escape(part) + r"(?![A-Za-z0-9_+/=-])", out):
                return True
        elif any(part[i:i + 6] in out for i in range(len(part) - 5)):
            return True
    return False


def per_form(rows):
    stats = defaultdict(lambda: {"secrets": 0, "caught": 0, "decoys": 0, "flagged": 0})
    for r in rows:
        s = stats[r["form"]]
        if r["secret"]:
            s["secrets"] += 1
            s["caught"] += not leaked(r, redact(r["text"]))
        else:
            s["decoys"] += 1
            s["flagged"] += bool(find(r["text"]))
    return stats


def test_the_set_is_big_enough_and_what_its_generator_writes():
    assert sum(r["secret"] for r in ROWS) >= 300 and sum(not r["secret"] for r in ROWS) >= 150
    assert {r["form"] for r in ROWS if r["secret"]} >= {
        "korean-label", "prose-label", "command-line", "prefix", "wrapped", "uuid-key", "classic"}
    generated = runpy.run_path(str(DATA / "make_adversarial_set.py"), run_name="check")["TEXT"]
    assert generated == (DATA / "adversarial_set.jsonl").read_text(encoding="utf-8")


def test_recall_and_false_positives_per_form():
    stats = per_form(ROWS)
    total = {k: sum(s[k] for s in stats.values()) for k in ("secrets", "caught", "decoys", "flagged")}
    assert total["caught"] / total["secrets"] >= 0.98, dict(stats)
    assert total["flagged"] / total["decoys"] <= 0.01, dict(stats)
    for form, s in stats.items():
        if s["secrets"]:
            assert s["caught"] / s["secrets"] >= 0.95, (form, s)
        if s["decoys"]:
            assert s["flagged"] / s["decoys"] <= 0.05, (form, s)


@pytest.mark.parametrize("row", [r for r in ROWS if r["secret"]][::7], ids=lambda r: r["form"])
def test_redacting_is_idempotent(row):
    once = redact(row["text"])
    assert find(once) == [] and redact(once) == once


@pytest.mark.parametrize(("text", "secret"), [
    ("토큰은 Xb81Lmq0TzQ4vW9pRk2 입니다", "Xb81Lmq0TzQ4vW9pRk2"),
    ("비번은 Kp4!xw9Lz", "Kp4!xw9Lz"),
    ("암호는 `Harbor4764!yw`", "Harbor4764!yw"),
    ("패스워드는: River3897&fz", "River3897&fz"),
    ("API 키 = jLIgZ5WyzqdStALsFLzLndCrkWOpjYjx", "jLIgZ5WyzqdStALsFLzLndCrkWOpjYjx"),
    ("login for grafana is admin / hunter2Xq!9", "hunter2Xq!9"),
    ("set the passphrase to Lantern3387*gn for now", "Lantern3387*gn"),
    ("the password was reset to iga698FQB?0qi0 this morning", "iga698FQB?0qi0"),
    ("password on the staging box: URI50N232qNf@23", "URI50N232qNf@23"),
    ("passwd `pepper.Harbor462`", "pepper.Harbor462"),
    ("vpn pass icnjQPn4MP3#59 (expires friday)", "icnjQPn4MP3#59"),
    ("unseal key is fQgV4YqkiUTFUJy2q87TruboAygEYplIUNG/eaise6ml", "fQgV4YqkiUTFUJy2q87TruboAygEYplIUNG/eaise6ml"),
    ("twilio auth token 020dee9d4932418b2542fdaa05750c56", "020dee9d4932418b2542fdaa05750c56"),
    ("mysql -u root -pT0pS3cret! -e 'show databases'", "T0pS3cret!"),
    ("sshpass -p 'falcon_Tiger973' ssh deploy@web-2", "falcon_Tiger973"),
    ("PGPASSWORD=iVxuhjoTwkfE^88 psql -h db.prod -U app app", "iVxuhjoTwkfE^88"),
    ("docker login -u ci -p IaKYEM7BUN@58 registry.corp.io", "IaKYEM7BUN@58"),
    ("dckr_pat_qLWhONjUt7UDHl9k1hoGfPObi2y", "dckr_pat_qLWhONjUt7UDHl9k1hoGfPObi2y"),
    ("Authorization: SSWS 00Lrm1P1muYJFlx84f8SlzPeuH9S8c1HnUX8kGnvan", "00Lrm1P1muYJFlx84f8SlzPeuH9S8c1HnUX8kGnvan"),
    ("HEROKU_API_KEY=fc97f669-97e5-4799-ad5e-dadec324d415", "fc97f669-97e5-4799-ad5e-dadec324d415"),
])
def test_the_red_teams_forms(text, secret):
    assert secret not in redact(text)


@pytest.mark.parametrize("width", range(12, 101, 4))
def test_a_key_wrapped_at_any_width_leaves_nothing(width):
    key = "sk-ant-api03-" + "Vc8UETrQ7GlJPgzr4LNnGjQHFoRcJxiwmEZDYfFFQf8MRT69AH00uBTgh3MIHBrx3D" + "AA"
    line = "export ANTHROPIC_API_KEY=" + key
    wrapped = "\n".join(line[i:i + width] for i in range(0, len(line), width))
    out = redact(f"pasted:\n{wrapped}\nthen restart the worker")
    assert out.endswith("\nthen restart the worker")
    pieces = [p for p in wrapped.split("\n") if p]
    assert not any(p[-6:] in out for p in pieces if len(p) >= 6 and p[-6:] not in "export ANTHROPIC_API_KEY="), out


@pytest.mark.parametrize("text", [
    ("vault_db_password: !vault |\n          $ANSIBLE_VAULT;1.1;AES256\n"
     "          62313365396662343061393464336163383764373764613633653634306231386433\n"
     "          3435313239343631303263303839363936356137363365613637363237306134"),
    'password_hash_algorithm = "argon2id"',
    "stripe.api_key = 'sk_test_4eC39HqLyjWDarjtT1zdp7dc'",
    "Stripe's docs use pk_test_TYooMQauvdEDq54NiTphI7jx",
    "docker login -u ci --password-stdin ghcr.io",
    "docker run -p 5432:5432 postgres:16",
    "mysql -u root -p shop",
    "the passphrase to the backup key is in 1Password",
    "go to Admin / Settings / Users",
    "tests pass 124/124",
    "request_id=fc97f669-97e5-4799-ad5e-dadec324d415",
    "the token id is fc97f669-97e5-4799-ad5e-dadec324d415",
    "토큰은 만료되었습니다", "암호는 AES-256으로 걸려 있습니다",
    "pass 'use_cache=True' to the constructor",
    "def __init__(self, tokens: list[Token], now: datetime):",
])
def test_decoys_stay(text):
    assert find(text) == []
