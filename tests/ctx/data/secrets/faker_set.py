"""A second check, shaped differently from secrets_set.jsonl: Faker's everyday values (hashes,
UUIDs, URLs with queries, file paths, user agents, IBANs, MACs, base64 of prose, random
strings, code that names a password) as decoys, and Faker's random passwords behind
`password`/`client_secret` labels as secrets. Seeded, built in memory (no data file):
tests/cuectx/test_secrets.py and bench/bench_ctx_secrets.py call `items()`.
"""
from __future__ import annotations

import base64


def items(n_decoys: int = 2000, n_passwords: int = 300, seed: int = 18) -> list[dict]:
    from faker import Faker

    f = Faker()
    Faker.seed(seed)
    decoys = [
        lambda: f.sentence(), lambda: f"commit {f.sha1()}", lambda: f"hash {f.sha256()}",
        lambda: f"md5 {f.md5()}", lambda: f"id {f.uuid4()}",
        lambda: f"see {f.url()}{f.uri_path()}?{f.word()}={f.word()}",
        lambda: f"file {f.file_path(depth=4)}", lambda: f"UA {f.user_agent()}",
        lambda: f"mail {f.email()} from {f.ipv4()}:{f.port_number()}", lambda: f"iban {f.iban()}",
        lambda: f"{f.word()}_{f.word()}: {f.pyint()}", lambda: f"{f.word().upper()}_TOKEN is set in CI",
        lambda: f"image {f.image_url()}", lambda: f"color {f.hex_color()} ({f.color_name()})",
        lambda: f"{f.catch_phrase()} — {f.bs()}", lambda: f"ean {f.ean13()} isbn {f.isbn13()}",
        lambda: f"mac {f.mac_address()} ipv6 {f.ipv6()}",
        lambda: f"version {f.numerify('#.##.###')} build {f.bothify('??-####-??')}",
        lambda: f"key: {f.word()}-{f.word()}", lambda: f"token: {f.word()}",
        lambda: f.pystr(min_chars=20, max_chars=40),
        lambda: f"b64 {base64.b64encode(f.text(60).encode()).decode()}",
        lambda: f"password: get_password() from {f.word()}",
        lambda: f"the password field is {f.word()}", lambda: "password=os.environ['DB_PASSWORD']",
        lambda: f"{f.name()} moved the {f.word()} meeting to {f.time()} in {f.city()}",
    ]
    out = [{"text": decoys[i % len(decoys)](), "secret": False, "value": None} for i in range(n_decoys)]
    for i in range(n_passwords):
        pw = f.password(length=f.random_int(12, 24))
        template = ("DB_PASSWORD={}", "password: {}", '"client_secret": "{}"')[i % 3]
        out.append({"text": template.format(pw), "secret": True, "value": pw})
    return out
