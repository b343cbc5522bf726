"""Generate the adversarial secrets dev set (issue 26): the forms an outside red team found
the guard missing, written from the README's promise ("every write is screened", the forms it
lists) and from how people actually paste credentials — not from the detector's patterns.
Each form has many templates and random values, so a fix must catch the *form*.

Deterministic (seeded): `python tests/cuectx/data/adversarial/make_adversarial_set.py`
rewrites adversarial_set.jsonl next to it byte for byte (tests/cuectx/test_secrets_adversarial.py
checks). Each line: {"form", "secret": bool, "text", "parts"} — `parts` are the pieces of the
secret as they appear in the text (a wrapped key has one per line); a *leak* is any piece, or
any 6 characters of one, still present after redaction. None of these credentials is real.
"""
from __future__ import annotations

import base64
import json
import random
import string
import uuid
from pathlib import Path

OUT = Path(__file__).with_name("adversarial_set.jsonl")
ALNUM = string.ascii_letters + string.digits
LOWER_DIG = string.ascii_lowercase + string.digits
UPPER_DIG = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
rng = random.Random(26)
ROWS: list[dict] = []


def rand(alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def secret(form: str, text: str, *parts: str) -> None:
    for p in parts:
        assert p in text, (form, p, text)
    ROWS.append({"form": form, "secret": True, "text": text, "parts": list(parts)})


def decoy(form: str, text: str) -> None:
    ROWS.append({"form": form, "secret": False, "text": text, "parts": []})


WORDS = ["river", "maple", "orbit", "falcon", "copper", "lantern", "violet", "harbor", "quartz",
         "meadow", "tiger", "cobalt", "pepper", "summit", "willow", "rocket", "ember", "glacier"]


def password() -> str:
    style = rng.randrange(5)
    if style == 0:  # random characters, a symbol
        return rand(ALNUM, rng.randint(9, 15)) + rng.choice("!#%&*@^$") + rand(string.digits, 2)
    if style == 1:  # word + digits + symbol
        return rng.choice(WORDS).capitalize() + rand(string.digits, 4) + rng.choice("!#%&*@") + \
            rand(string.ascii_lowercase, 2)
    if style == 2:  # two words and digits
        return rng.choice(WORDS) + rng.choice("-_.") + rng.choice(WORDS).capitalize() + rand(string.digits, 3)
    if style == 3:  # pure random alnum
        return rand(ALNUM, rng.randint(12, 20))
    return rand(string.ascii_lowercase, 3) + rand(string.digits, 3) + rand(string.ascii_uppercase, 3) \
        + rng.choice("!?#") + rand(LOWER_DIG, 4)


def b64(n: int) -> str:
    return base64.b64encode(bytes(rng.randrange(256) for _ in range(n))).decode()


def uid() -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


# ----------------------------------------------------------------------------- Korean labels
KO = [
    "스테이징 DB 토큰은 {v} 입니다", "배포용 토큰은 {v}", "토큰은 {v} 이고 내일 만료돼요",
    "관리자 비번은 {v} 이에요", "비번은 {v}", "와이파이 비번은 {v} 입니다",
    "서버 암호는 {v} 입니다", "암호는 {v}", "루트 암호는 `{v}`",
    "패스워드는 {v} 로 바꿨어요", "DB 패스워드는 {v}", "패스워드는: {v}",
    "API 키 = {v}", "API 키는 {v} 입니다", "api 키: {v}", "시크릿 키는 {v}",
    "비밀번호는 {v} 입니다", "접속 비밀번호 {v} 로 로그인", "액세스 토큰: {v}",
    "토큰 값은 {v} 이에요", "비번 {v} 로 들어가면 됩니다", "젠킨스 토큰이 {v} 예요",
    "레디스 암호가 {v} 입니다", "패스워드를 {v} 로 설정했습니다",
]
for i in range(44):
    tmpl = KO[i % len(KO)]
    v = password() if any(w in tmpl for w in ("비번", "암호", "패스워드", "비밀번호")) else \
        rng.choice([rand(ALNUM, 32), rand(HEX, 40), "tok_" + rand(ALNUM, 24)])
    secret("korean-label", tmpl.format(v=v), v)

# ----------------------------------------------------------------------------- prose labels
PROSE = [
    ("login for the grafana box is admin / {v}", "pw"),
    ("creds: deploy / {v} (rotate monthly)", "pw"),
    ("jenkins admin/{v}", "pw"),
    ("use root / {v} on the bastion", "pw"),
    ("the passphrase to the backup key is {v}", "pw"),
    ("passphrase to unlock the gpg key: {v}", "pw"),
    ("set the passphrase to {v} for now", "pw"),
    ("the password was reset to {v} this morning", "pw"),
    ("I reset the admin password to {v}", "pw"),
    ("password changed to {v} after the incident", "pw"),
    ("password on the staging box: {v}", "pw"),
    ("the password for the prod replica - {v}", "pw"),
    ("passwd `{v}`", "pw"),
    ("mysql passwd `{v}` on db-03", "pw"),
    ("wifi pass {v}", "pw"),
    ("vpn pass {v} (expires friday)", "pw"),
    ("unseal key is {v}", "b64"),
    ("vault unseal key 1: {v}", "b64"),
    ("Unseal Key 2: {v}", "b64"),
    ("twilio auth token {v}", "hex32"),
    ("Twilio: account SID AC{sid}, auth token {v}", "hex32"),
    ("the auth token {v} goes in the header", "hex32"),
    ("api key {v} for the maps account", "alnum32"),
    ("use token {v} for the runner", "alnum32"),
    ("his password is {v}", "pw"),
    ("the db password, {v}, is shared with reporting", "pw"),
    ("password for bob@corp is {v}", "pw"),
    ("secret key {v} (django prod)", "django"),
    ("new pw: {v}", "pw"),
    ("pw {v} for the shared inbox", "pw"),
    ("login with the password {v}", "pw"),
    ("enter {v} as the password", "pw"),
]
for i in range(72):
    tmpl, shape = PROSE[i % len(PROSE)]
    v = {"pw": password, "b64": lambda: b64(33), "hex32": lambda: rand(HEX, 32),
         "alnum32": lambda: rand(ALNUM, 32),
         "django": lambda: rand(string.ascii_lowercase + string.digits + "!@#$%^&*(-_=+)", 50)}[shape]()
    secret("prose-label", tmpl.format(v=v, sid=rand(HEX, 32)), v)

# ----------------------------------------------------------------------------- command lines
CLI = [
    "mysql -u root -p{v} -h db.internal shop",
    "mysql -h 10.0.3.4 -uadmin -p{v} billing < dump.sql",
    "mysqldump -u backup -p{v} --all-databases > all.sql",
    "sshpass -p '{v}' ssh deploy@web-2",
    "sshpass -p {v} scp build.tgz ops@10.1.1.9:/tmp",
    "PGPASSWORD={v} psql -h db.prod -U app app",
    "PGPASSWORD='{v}' pg_dump -h 10.2.0.5 -U report > r.sql",
    "docker login -u ci -p {v} registry.corp.io",
    "docker login --username bot -p '{v}' ghcr.io",
    "redis-cli -h cache.prod -a {v} ping",
    "mongo --host db1 -u admin -p {v} --authenticationDatabase admin",
    "htpasswd -b -c .htpasswd alice {v}",
    "MYSQL_PWD={v} mysql -u etl warehouse",
    "smbclient //fs/share -U svc%{v}",
    "rabbitmqctl add_user worker {v}",
    "echo '{v}' | sudo -S systemctl restart nginx",
    "openssl enc -aes-256-cbc -k {v} -in db.tar -out db.enc",
    "zip -P {v} export.zip report.csv",
    "ldapsearch -x -D cn=admin,dc=corp -w {v} -b dc=corp",
    "az login --service-principal -u http://ci -p {v} --tenant corp",
]
for i in range(60):
    v = password().replace("'", "")
    if "%" in CLI[i % len(CLI)] or "echo" in CLI[i % len(CLI)]:
        v = v.replace("%", "").replace("$", "")
    secret("command-line", CLI[i % len(CLI)].format(v=v), v)

# ----------------------------------------------------------------------------- prefixes
PREFIXED = [
    lambda: "dckr_pat_" + rand(ALNUM + "-_", 27),
    lambda: "dckr_oat_" + rand(ALNUM + "-_", 32),
    lambda: "AGE-SECRET-KEY-1" + rand("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L".upper(), 58),
    lambda: "SSWS " + "00" + rand(ALNUM + "_-", 40),
    lambda: "sntrys_" + rand(ALNUM, 60),
    lambda: "NRAK-" + rand(string.ascii_uppercase + string.digits, 27),
    lambda: "pscale_tkn_" + rand(ALNUM + "_", 43),
    lambda: "sbp_" + rand(HEX, 40),
    lambda: "pnu_" + rand(ALNUM, 36),
    lambda: "rubygems_" + rand(HEX, 48),
    lambda: "xkeysib-" + rand(HEX, 64) + "-" + rand(ALNUM, 16),
    lambda: "sq0atp-" + rand(ALNUM + "-_", 22),
    lambda: "figd_" + rand(ALNUM + "-_", 40),
    lambda: "r8_" + rand(ALNUM, 37),
    lambda: "gsk_" + rand(ALNUM, 52),
    lambda: "xai-" + rand(ALNUM, 80),
    lambda: "pplx-" + rand(ALNUM, 48),
    lambda: "tvly-" + rand(ALNUM, 32),
    lambda: "lsv2_pt_" + rand(HEX, 32) + "_" + rand(HEX, 10),
    lambda: "pcsk_" + rand(ALNUM, 6) + "_" + rand(ALNUM, 60),
    lambda: "sk-or-v1-" + rand(HEX, 64),
    lambda: "sk-lf-" + str(uuid.UUID(int=rng.getrandbits(128), version=4)),
    lambda: "CFPAT-" + rand(ALNUM + "-_", 43),
    lambda: "dp.st.prd." + rand(ALNUM, 40),
    lambda: "FlyV1 fm2_" + rand(ALNUM + "+/", 60),
    lambda: "napi_" + rand(LOWER_DIG, 64),
    lambda: "glc_" + rand(ALNUM, 40),
    lambda: "ATCTT3xFfGN0" + rand(ALNUM + "-_", 60),
    lambda: "shippo_live_" + rand(HEX, 40),
    lambda: "EZAK" + rand(HEX, 54),
    lambda: "CCIPAT_" + rand(ALNUM, 22) + "_" + rand(HEX, 40),
    lambda: "bkua_" + rand(HEX, 40),
    lambda: "sgp_" + rand(HEX, 40),
    lambda: "tfp_" + rand(ALNUM, 44),
    lambda: "LTAI" + rand(ALNUM, 20),
    lambda: "dt0c01." + rand(UPPER_DIG, 24) + "." + rand(UPPER_DIG, 64),
    lambda: rand(ALNUM, 14) + ".atlasv1." + rand(ALNUM, 67),
    lambda: "ATBB" + rand(ALNUM, 32),
    lambda: "HRKU-AA" + rand(ALNUM + "_-", 58),
]
CONTEXTS = ["our CI pushes with {v}", "export TOKEN={v}", "{v}", "the token: {v}",
            "Authorization: {v}", "set it in the repo settings: {v}", "curl -H 'Authorization: {v}' https://api",
            "found this in the logs -> {v} <- rotate it"]
for i in range(80):
    make = PREFIXED[i % len(PREFIXED)]
    v = make()
    ctxt = CONTEXTS[rng.randrange(len(CONTEXTS))]
    if v.startswith("SSWS "):
        text = rng.choice(["Authorization: {v}", "curl -H \"Authorization: {v}\" https://corp.okta.com/api/v1/users",
                           "okta header: Authorization: {v}"]).format(v=v)
        secret("prefix", text, v[5:])
        continue
    secret("prefix", ctxt.format(v=v), v)

# ----------------------------------------------------------------------------- wrapped keys


def wrap(text: str, width: int, indent: str = "") -> str:
    lines = [text[i:i + width] for i in range(0, len(text), width)]
    return ("\n" + indent).join(lines)


WRAPPABLE = [
    lambda: "sk-ant-api03-" + rand(ALNUM + "-_", 93) + "AA",
    lambda: "sk-proj-" + rand(ALNUM + "-_", 148),
    lambda: "github_pat_11" + rand(string.ascii_uppercase + string.digits, 20) + "_" + rand(ALNUM, 59),
    lambda: "glpat-" + rand(ALNUM + "-_", 20),
    lambda: "xoxb-" + rand(string.digits, 12) + "-" + rand(string.digits, 13) + "-" + rand(ALNUM, 24),
    lambda: "AIza" + rand(ALNUM + "-_", 35),
    lambda: "hf_" + rand(string.ascii_letters, 34),
]
for i in range(56):
    width = [20, 24, 32, 40, 48, 50, 60, 64, 72, 76, 80][i % 11]
    indent = rng.choice(["", "", "  ", "    "])
    if i % 4 == 3:  # an AWS secret key behind its label, wrapped
        v = rand(ALNUM + "/+", 40)
        line = "aws_secret_access_key = " + v
    else:
        v = WRAPPABLE[i % len(WRAPPABLE)]()
        line = rng.choice(["export ANTHROPIC_API_KEY=", "key: ", "token ", "", "- "]) + v
    if len(line) <= width:
        width = max(10, len(line) // 2)
    wrapped = wrap(line, width, indent)
    # the pieces of v as they appear, line by line
    start = line.index(v)
    pieces, pos = [], 0
    for k in range(0, len(line), width):
        seg_start, seg_end = max(k, start), min(k + width, start + len(v))
        if seg_end > seg_start:
            pieces.append(line[seg_start:seg_end])
    secret("wrapped", "pasted from the console:\n" + wrapped + "\nthen restart the worker", *pieces)

# ----------------------------------------------------------------------------- UUID-shaped keys
UUID_VARS = ["HEROKU_API_KEY={v}", "export SNYK_TOKEN={v}", "NEW_RELIC_LICENSE_KEY: {v}",
             "\"apiKey\": \"{v}\"", "api_key = \"{v}\"", "HEROKU_API_KEY: '{v}'",
             "OCTOPUS_API_TOKEN={v}", "x-api-key: {v}", "SENDBIRD_API_TOKEN={v}",
             "circleci token {v}", "CLOUDSMITH_API_KEY={v}", "BUGSNAG_AUTH_TOKEN = {v}",
             "heroku auth token: {v}", "DD_CLIENT_TOKEN={v}", "the api token is {v}"]
for i in range(36):
    v = uid()
    secret("uuid-key", UUID_VARS[i % len(UUID_VARS)].format(v=v), v)

# ----------------------------------------------------------------------------- classic forms (must not regress)
CLASSIC = [
    lambda v: f"DB_PASSWORD={v}", lambda v: f'"password": "{v}"', lambda v: f"the password is {v}",
    lambda v: f"password: {v}", lambda v: f"postgres://app:{v}@db.prod.corp:5432/app",
    lambda v: f"mysql --password {v} -u root", lambda v: f"curl -u admin:{v} https://ci.corp/api",
    lambda v: f"비밀번호: {v}",
]
for i in range(32):
    v = password()
    secret("classic", CLASSIC[i % len(CLASSIC)](v), v)

# ============================================================================= decoys
VAULT = "$ANSIBLE_VAULT;1.1;AES256\n" + "\n".join(
    "          " + rand("0123456789", 80) for _ in range(4))
for i in range(6):
    body = "\n".join("          " + rand(HEX if i % 2 else "0123456789", 80) for _ in range(rng.randint(3, 6)))
    decoy("vault", f"vault_db_password: !vault |\n          $ANSIBLE_VAULT;1.1;AES256\n{body}")
decoy("vault", 'password_hash_algorithm = "argon2id"')
decoy("vault", "PASSWORD_HASHERS = ['django.contrib.auth.hashers.Argon2PasswordHasher']")
decoy("vault", "password_min_length = 12")
decoy("vault", "password_reset_timeout = 259200")
for key in ["sk_test_4eC39HqLyjWDarjtT1zdp7dc", "pk_test_TYooMQauvdEDq54NiTphI7jx",
            "sk_test_BQokikJOvBiI2HlWgH4olfQ2", "pk_test_6pRNASCoBOKtIshFeQd4XMUh"]:
    decoy("demo-key", f"Stripe's docs use {key} in the examples")
    decoy("demo-key", f"stripe.api_key = \"{key}\"  # the public demo key from the docs")

KO_DECOYS = ["토큰은 만료되었습니다", "비번은 1Password에 있어요", "암호는 AES-256으로 걸려 있습니다",
             "패스워드는 최소 12자 이상이어야 합니다", "API 키는 vault에 저장돼 있어요",
             "토큰은 환경변수 GITHUB_TOKEN 에서 읽습니다", "비번은 팀장님께 물어보세요",
             "암호화 방식은 AES-GCM 입니다", "패스워드는 다음 주에 바꿀 예정", "API 키 = 환경 변수로 주입",
             "토큰은 하루 뒤 만료", "비밀번호는 사내 규정에 따라 90일마다 변경", "토큰 수가 4096개를 넘었어요",
             "암호는 공유하지 마세요", "API 키 발급은 콘솔에서 합니다", "비번은 바꿨고 vault/prod/db 에 있어요"]
for t in KO_DECOYS:
    decoy("korean-prose", t)

PROSE_DECOYS = [
    "go to Admin / Settings / Users and click Invite",
    "the nav is Home / Projects / Billing",
    "tests pass 124/124 on CI",
    "pass the token to the function instead of reading it globally",
    "pass show work/aws | head -1",
    "the passphrase to the backup key is in 1Password under 'backup gpg'",
    "password was reset to the default policy by IT",
    "the password on the staging box is in vault at secret/staging/db",
    "password changed to satisfy the new policy",
    "unseal key is split among five operators with shamir",
    "twilio auth token rotated yesterday, see the runbook",
    "the auth token header is X-Auth-Token",
    "use the passwd command to change it",
    "run `passwd` and pick something long",
    "set the passphrase to something memorable",
    "login as admin / use SSO",
    "read/write access for admin/editor roles",
    "I/O bound / CPU bound",
    "the api key lives in the ANTHROPIC_API_KEY env var",
    "api key rotation happens every 90 days",
    "token budget is 9500 characters",
    "use token auth instead of passwords",
    "enter the password twice to confirm",
    "his password is stored hashed with bcrypt",
    "the secret key is read from settings.SECRET_KEY",
    "password for the wifi is on the whiteboard",
    "new pw policy: 14 characters minimum",
    "pass --version prints 1.7.4",
    "the pass rate went from 92% to 97%",
    "first pass: parse; second pass: resolve names",
    "password reset link expires in 24h",
    "the token is expired, refresh it with `gh auth refresh`",
    "passphrase protected keys need ssh-agent",
    "admin / operator / viewer are the three roles",
    "we pass through requests/responses untouched",
    "auth token length is 32 hex characters",
    "the unseal key count is 5, threshold 3",
]
for t in PROSE_DECOYS:
    decoy("prose", t)

CLI_DECOYS = [
    "mysql -u root -p shop   # prompts for the password",
    "mysql -p -h db.internal",
    "docker login -u ci --password-stdin registry.corp.io < token.txt",
    "echo \"$REGISTRY_TOKEN\" | docker login -u ci --password-stdin ghcr.io",
    "PGPASSWORD=$PGPASS psql -h db -U app",
    "PGPASSWORD=\"${DB_PASSWORD}\" pg_dump app > app.sql",
    "sshpass -f ~/.ssh/pw.txt ssh deploy@web-2",
    "sshpass -e ssh deploy@web-2",
    "docker login -p $DOCKER_PASSWORD -u $DOCKER_USER",
    "ssh -p 2222 deploy@web-2",
    "scp -P 2222 file host:/tmp",
    "mkdir -p build/out/assets",
    "cp -p src/config.yaml /etc/app/",
    "python -m pytest -p no:cacheprovider -q",
    "git commit -p",
    "redis-cli -a \"$REDIS_PASSWORD\" ping",
    "kubectl port-forward -n prod svc/api 8080:80",
    "tar -czpf backup.tgz /srv/data",
    "docker run -p 5432:5432 postgres:16",
    "pip install -r requirements.txt -p",
    "gcc -O2 -pthread -pedantic main.c",
    "zip -r -P $ZIP_PASS out.zip data/",
    "mysqldump -u backup -p --all-databases > all.sql",
    "htpasswd -B .htpasswd alice",
    "perl -pi -e 's/foo/bar/' file.txt",
    "npm run build -- --prod",
    "uv run -p 3.12 pytest",
    "nc -lvp 4444",
]
for t in CLI_DECOYS:
    decoy("command-line", t)

PREFIX_DECOYS = [
    "dckr_pat_... (a placeholder in our docs)", "set DOCKER_PAT=dckr_pat_xxxxxxxxxxxxxxxx",
    "AGE-SECRET-KEY-1... goes in key.txt (never commit it)",
    "Authorization: SSWS ${OKTA_API_TOKEN}", "Authorization: SSWS <your token>",
    "age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p is the public recipient",
    "pk_live_ is a publishable key prefix", "the mapbox public token pk.eyJ1IjoiZXhhbXBsZSJ9 is fine in JS",
    "sk-ant-... goes in ANTHROPIC_API_KEY", "gsk_your_key_here", "r8_**** (masked)",
    "xoxb-not-a-real-token", "lin_api_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
]
for t in PREFIX_DECOYS:
    decoy("prefix", t)

WRAP_DECOYS = []
for i in range(16):
    width = [40, 48, 60, 64, 72, 76, 80, 100][i % 8]
    kind = i % 4
    if kind == 0:  # a sha256 list wrapped
        s = " ".join(rand(HEX, 64) for _ in range(3))
    elif kind == 1:  # base64 of an image, wrapped (data URI) - not a credential
        s = "data:image/png;base64," + base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(60)).decode()
    elif kind == 2:  # prose wrapped
        s = ("the deployment finished after the migration step and the cache warmed up; "
             "we should keep an eye on the p99 latency graph over the weekend before the release")
    else:  # a long URL without credentials, wrapped
        s = "https://github.com/corp/platform/blob/" + rand(HEX, 40) + "/services/api/handlers/users.py#L120-L180"
    WRAP_DECOYS.append(wrap(s, width))
for t in WRAP_DECOYS:
    decoy("wrapped", t)

UUID_DECOYS = ["request_id={v}", "trace_id: {v}", '"id": "{v}"', "session_id = {v}",
               "AZURE_CLIENT_ID={v}", "AZURE_TENANT_ID={v}", "api_key_id: {v}", "token_id={v}",
               "x-request-id: {v}", "correlation id {v}", "the token id is {v}",
               "SUBSCRIPTION_ID={v}", "org_id: {v}", "project key {v} in the URL",
               "key_id = \"{v}\"", "idempotency key: {v}", "AWS_ACCESS_KEY_ID_RECORD={v}",
               "run {v} failed", "volume {v} attached"]
for i in range(24):
    decoy("uuid", UUID_DECOYS[i % len(UUID_DECOYS)].format(v=uid()))

CLASSIC_DECOYS = [
    "commit 3f9a2b7c1d4e5f60718293a4b5c6d7e8f9012345", "postgres://app@localhost:5432/app",
    "OPENAI_API_KEY=sk-...", "password: ${DB_PASSWORD}", "token = os.environ['GITHUB_TOKEN']",
    "max_tokens=4096", "password_file: /run/secrets/db", "api_key: <your-api-key>",
    "AKIAIOSFODNN7EXAMPLE", "version 2.14.3-rc.1", "listen on 0.0.0.0:8443",
    "hash: $argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHQ$" + rand(B64, 43),
    "the build password field is required", "secret: see vault",
]
for t in CLASSIC_DECOYS:
    decoy("classic", t)


TEXT = "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in ROWS)
if __name__ == "__main__":
    OUT.write_text(TEXT, encoding="utf-8")
    n_sec = sum(r["secret"] for r in ROWS)
    print(f"{n_sec} secrets, {len(ROWS) - n_sec} decoys -> {OUT}")
