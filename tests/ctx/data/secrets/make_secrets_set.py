"""Generate the labelled secrets set: memory-shaped texts with a fake but valid-shaped
credential of every kind cuectx.secrets knows (checksums correct where a kind has one), and
decoys that must be stored untouched (SHAs, UUIDs, versions, ports, localhost URLs,
placeholders, env var names, masked values…).

Deterministic (seeded): `python tests/ctx/data/secrets/make_secrets_set.py` rewrites
secrets_set.jsonl next to it byte for byte (tests/cuectx/test_secrets.py checks). Each line:
{"text", "secret": bool, "kind" (expected, or null), "value" (the secret substring, or null)}. None of these credentials
is real: they are random characters in the right shape.
"""
from __future__ import annotations

import base64
import json
import random
import string
import zlib
from pathlib import Path

OUT = Path(__file__).with_name("secrets_set.jsonl")
B62 = string.digits + string.ascii_uppercase + string.ascii_lowercase
ALNUM = string.ascii_letters + string.digits
B64 = ALNUM + "+/"
HEX = "0123456789abcdef"
rng = random.Random(18)


def rand(alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def crc_token(prefix: str) -> str:
    body = rand(ALNUM, 30)
    n, digits = zlib.crc32(body.encode()), ""
    while n:
        n, r = divmod(n, 62)
        digits = B62[r] + digits
    return prefix + body + digits.rjust(6, "0")


def b64url(obj) -> str:
    return base64.urlsafe_b64encode(json.dumps(obj, separators=(",", ":")).encode()).decode().rstrip("=")


def jwt() -> str:
    head = b64url({"alg": rng.choice(["HS256", "RS256", "ES256"]), "typ": "JWT"})
    body = b64url({"sub": rand(string.digits, 8), "iat": 1700000000 + rng.randrange(10**6),
                   "role": rng.choice(["admin", "service", "user"])})
    return f"{head}.{body}.{rand(ALNUM + '-_', 43)}"


def pem(kind: str, lines: int) -> str:
    body = "\n".join(rand(B64, 64) for _ in range(lines)) + "\n" + rand(B64, 20) + "=="
    return f"-----BEGIN {kind}PRIVATE KEY-----\n{body}\n-----END {kind}PRIVATE KEY-----"


def password() -> str:
    return rand(string.ascii_letters, 4) + rand(string.digits, 2) + rng.choice("!#%&*@^") + \
        rand(ALNUM, 6)


SECRETS = {
    "aws-access-key-id": lambda: rng.choice(["AKIA", "ASIA"]) + rand("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16),
    "aws-secret-access-key": lambda: rand(B64, 40),
    "github-token": lambda: crc_token(rng.choice(["ghp_", "gho_", "ghs_", "ghu_"])),
    "github-pat": lambda: "github_pat_" + rand(ALNUM, 22) + "_" + rand(ALNUM, 59),
    "gitlab-token": lambda: "glpat-" + rand(ALNUM + "-_", 20),
    "slack-token": lambda: rng.choice(["xoxb-", "xoxp-"]) + rand(string.digits, 12) + "-" +
    rand(string.digits, 13) + "-" + rand(ALNUM, 24),
    "slack-webhook": lambda: "https://hooks.slack.com/services/T" + rand(string.ascii_uppercase + string.digits, 8)
    + "/B" + rand(string.ascii_uppercase + string.digits, 10) + "/" + rand(ALNUM, 24),
    "stripe-key": lambda: rng.choice(["sk_live_", "rk_live_"]) + rand(ALNUM, rng.choice([24, 99])),
    "openai-key": lambda: rng.choice(["sk-proj-" + rand(ALNUM + "-_", 120),
                                      "sk-" + rand(ALNUM, 20) + "T3BlbkFJ" + rand(ALNUM, 20)]),
    "anthropic-key": lambda: "sk-ant-api03-" + rand(ALNUM + "-_", 93) + "AA",
    "google-api-key": lambda: "AIza" + rand(ALNUM + "-_", 35),
    "npm-token": lambda: crc_token("npm_"),
    "pypi-token": lambda: "pypi-AgEIcHlwaS5vcmc" + rand(ALNUM + "-_", 70),
    "twilio-api-key": lambda: "SK" + rand(HEX, 32),
    "sendgrid-key": lambda: "SG." + rand(ALNUM + "-_", 22) + "." + rand(ALNUM + "-_", 43),
    "huggingface-token": lambda: "hf_" + rand(string.ascii_letters, 34),
    "jwt": jwt,
}

TOKEN_TEMPLATES = [
    "The staging API key is {v}",
    "Deploy uses {v} (rotate it quarterly).",
    "Decision: CI authenticates with {v} via the secrets store.",
    "export TOKEN={v}",
    "Remember: `{v}` is what the integration tests read.",
    "curl -s https://api.internal.dev/v1/items -H 'X-Api-Key: {v}'",
    "In .env: SERVICE_KEY=\"{v}\"",
    "The user pasted {v} to debug the webhook; it belongs to the ops account.",
]

rows: list[dict] = []


def secret(text: str, kind: str, value: str) -> None:
    assert value in text
    rows.append({"text": text, "secret": True, "kind": kind, "value": value})


def decoy(text: str) -> None:
    rows.append({"text": text, "secret": False, "kind": None, "value": None})


for kind, make in SECRETS.items():
    for template in TOKEN_TEMPLATES:
        value = make()
        secret(template.format(v=value), kind, value)

# AWS secret keys: labelled and bare
for _ in range(6):
    value = rand(B64, 40)
    secret(f"aws_secret_access_key = {value}", "aws-secret-access-key", value)
    value2 = rand(B64, 40)
    secret(f"IAM user deployer: {SECRETS['aws-access-key-id']()} / {value2}", "aws-secret-access-key", value2)

# private keys: whole, cut off, JSON-escaped
for kind in ["RSA ", "EC ", "OPENSSH ", "", "ENCRYPTED ", "DSA "]:
    key = pem(kind, rng.randrange(3, 12))
    secret(f"The bastion key:\n{key}\nUse it only from the jump host.", "private-key", key)
    cut = "\n".join(pem(kind, 6).splitlines()[:4])
    secret(f"pasted by mistake:\n{cut}\n\nThen the session ended.", "private-key", cut)
    escaped = json.dumps(pem(kind, 4))[1:-1]
    secret(f'service account: {{"type": "service_account", "private_key": "{escaped}"}}', "private-key",
           escaped)

# passwords in URLs
for scheme, host in [("postgres", "db.staging.internal:5432/app"), ("postgresql", "10.0.4.12/orders"),
                     ("mysql", "mysql.prod.example-corp.net:3306/shop"),
                     ("mongodb+srv", "cluster0.ab12c.mongodb.net/test"), ("redis", "cache.prod.lan:6379/0"),
                     ("amqp", "rabbit.internal:5672/vhost"), ("https", "git.corp.net/org/repo.git"),
                     ("ftp", "files.partner.com/incoming")]:
    for _ in range(2):
        pw = password()
        secret(f"Connection string for the job: {scheme}://svc_user:{pw}@{host}", "url-password", pw)

# labelled assignments
for label in ["password", "DB_PASSWORD", "db_pass", "client_secret", "api_key", "secret_key",
              "auth_token", "refresh_token", "SMTP_PASSWORD", "webhook_secret", "access_token",
              "private_key_passphrase"]:
    value = rand(ALNUM, 20) if "pass" not in label.lower() else password()
    for fmt in ["{k}={v}", "{k}: {v}", '"{k}": "{v}"']:
        secret("config: " + fmt.format(k=label, v=value), "assignment", value)
for _ in range(4):
    pw = password()
    secret(f"The admin password is {pw} until Friday.", "assignment", pw)

# Authorization headers
for _ in range(6):
    cred = base64.b64encode(f"svc-{rand(string.ascii_lowercase, 5)}:{password()}".encode()).decode()
    secret(f"curl -H 'Authorization: Basic {cred}' https://api.partner.com/v2/orders", "basic-auth", cred)
    tok = rand(ALNUM + "-._~", 40)
    secret(f"Requests need the header Authorization: Bearer {tok}", "bearer-token", tok)

# command-line flags, header values without the header name, plain passwords in config
for _ in range(4):
    pw = password()
    secret(f"mysql -u root --password {pw} --host db.internal", "cli-secret", pw)
    pw = password()
    secret(f"curl -u deploy:{pw} https://ci.partner.com/api/health", "cli-secret", pw)
    tok = rand(ALNUM, 32)
    secret(f"vault login --token={tok}", "cli-secret", tok)
    cred = base64.b64encode(f"svc{rand(string.ascii_lowercase, 4)}:{password()}".encode()).decode()
    secret(f"basic auth header value {cred} shown in DevTools", "basic-auth", cred)
for word in ["hunter22", "Summer2024", "tr0ub4dor", "qwerty!23", "correct-horse-battery", "dkssud1234"]:
    secret(f"docker-compose.yml: MYSQL_ROOT_PASSWORD: {word}", "assignment", word)
    secret(f"비밀번호: {word} 입력 완료", "assignment", word)
for _ in range(3):
    pw = password()
    secret(f"Cache: redis://:{pw}@cache.prod.local:6379/0", "url-password", pw)

# pasted keys wrapped across lines; secrets inside base64 (a Kubernetes secret's data)
for kind in ["aws-access-key-id", "github-token", "gitlab-token", "anthropic-key", "npm-token", "stripe-key"]:
    value = SECRETS[kind]()
    cut = rng.randrange(6, len(value) - 4)
    secret(f"The pasted key was {value[:cut]}\n{value[cut:]} (expires soon)", "broken-line",
           value[:cut] + "\n" + value[cut:])
for _ in range(4):
    url = f"postgres://app_{rand(string.ascii_lowercase, 4)}:{password()}@db-{rng.randrange(9)}.internal:5432/app"
    enc = base64.b64encode(url.encode()).decode()
    secret(f"kubectl get secret app -o yaml\ndata:\n  DATABASE_URL: {enc}\n  replicas: Mw==", "encoded", enc)
    tok = SECRETS["github-token"]()
    enc = base64.b64encode(f"GITHUB_TOKEN={tok}".encode()).decode()
    secret(f"The CI secret blob is {enc}", "encoded", enc)

# --------------------------------------------------------------------------- decoys
for text in ["log_level: info\nreplicas: 3\nregion: eu-west-1", "Hello, world! This is the staging config.",
             "https://docs.example.com/guide?section=install#step-3"]:
    decoy(f"ConfigMap data: {base64.b64encode(text.encode()).decode()}")
decoy("We discussed the AKIA\nprefix rule for AWS keys.")
decoy("Install scikit-learn (sk-\nlearn in the old notes) for the notebook.")
decoy("ghp_ tokens start with\nghp_ and are 40 characters long.")
for d in ["password: incorrect (the login failed twice)", "Password: required for admin accounts",
          "the password was reset yesterday", "password: see the vault entry",
          "python -m pytest -x --token-budget 4000", "gh auth login --with-token < token.txt",
          "psql --password-file /run/secrets/db_password", "curl -u $USER:$PASS https://x.dev",
          "ls -la --color=auto; git log --format=%H", "Basic plan costs 10 USD per seat",
          "basic auth is off; use SSO", "비밀번호: 변경 필요", "토큰: 환경변수 GITHUB_TOKEN 참고",
          "mysql -u root -p (it prompts for the password)", "--secret-name prod-db passes the name, not the value"]:
    decoy(d)
for _ in range(12):
    decoy(f"Fixed in commit {rand(HEX, 40)} (short {rand(HEX, 7)}); see PR #{rng.randrange(100, 9999)}.")
for _ in range(8):
    u = f"{rand(HEX, 8)}-{rand(HEX, 4)}-4{rand(HEX, 3)}-a{rand(HEX, 3)}-{rand(HEX, 12)}"
    decoy(rng.choice(["Tenant id {u} owns the staging data.", "request_id: {u}", "token_id={u}"]).format(u=u))
for _ in range(8):
    decoy(f"Upgraded pydantic to v{rng.randrange(1, 3)}.{rng.randrange(0, 12)}.{rng.randrange(0, 30)}; "
          f"node 20.11.1, build 1.2.3.4")
decoys = [
    "The API listens on localhost:8080 and Postgres on 127.0.0.1:5432 (port 3000 for the UI).",
    "Local dev DB: postgresql://postgres:postgres@localhost:5432/dev",
    "docker compose uses redis://default:devpass123@localhost:6379/0",
    "Set OPENAI_API_KEY=sk-... in your shell (never commit it).",
    "api_key: your-key-here",
    "token: <token>",
    "password: ${DB_PASSWORD}",
    "secret: $CLIENT_SECRET",
    "Use `Authorization: Bearer <token>` for every call.",
    "Authorization: Bearer $API_TOKEN",
    "The GitHub token lives in GITHUB_TOKEN; CI reads it from the org secrets.",
    "Keys are masked in logs as sk-…a1b2 and ghp_****WXYZ.",
    "The old key (sk-proj-...9fQz) was revoked on Monday.",
    "AWS example from the docs: AKIAIOSFODNN7EXAMPLE / wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "password=xxxxxxxx in the sample config is a placeholder.",
    "STRIPE_SECRET_KEY=sk_live_xxxxxxxxxxxxxxxxxxxxxxxx",
    "max_tokens=4096 and token_count: 1500 in the request",
    "Password policy: at least 12 characters, rotated every 90 days.",
    "The token budget for compose is 4000 tokens; the default view has tier:reference.",
    "Rotate the API key every 90 days; the rotation job is in ops/rotate.py.",
    "password_min_length = 14",
    "token_ttl: 3600",
    "secret_name: prod/db/credentials",
    "The secret is stored in Vault at secret/data/api/stripe.",
    "auth: required",
    "JWT tokens are verified with RS256; the header starts with eyJhbGciOi.",
    ("The integrity hash is sha512-3Kx8n2Pq0Yv5Zl6mQ8rT1sU4wV7xY0zA2bC5dE8fG1hJ4kL7mN0pQ3sT6vW9yZ2bE5hK8n"
     "Q1tW4zC7fI0lO3rU6xA9d=="),
    "Image digest sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "ULID 01JD3K8W9Q2R5T7V0X3Z6B9D2F is the decision node.",
    "Colors: #1a2b3c, #ffcc00; font-size 14px.",
    "The file is at src/components/AuthProvider/useSessionToken.test.tsx",
    "Class AbstractSingletonProxyFactoryBean2Tests is flaky.",
    "SGVsbG8gd29ybGQ= is 'Hello world' in base64.",
    "git clone https://github.com/org/repo.git and git@github.com:org/repo.git both work.",
    "ssh://git@gitlab.com/group/project.git is the mirror.",
    "Run pip install --index-url https://pypi.org/simple requests==2.31.0",
    "The endpoint https://api.example.com/v1/users?page=2&limit=50 paginates.",
    "Docs: https://docs.python.org/3/library/secrets.html#secrets.token_urlsafe",
    "Env vars: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, ANTHROPIC_API_KEY, HF_TOKEN.",
    "The Slack channel is #deploys; the webhook URL is in SLACK_WEBHOOK_URL.",
    "npm token goes in ~/.npmrc as //registry.npmjs.org/:_authToken=${NPM_TOKEN}",
    "PyPI upload uses __token__ as the user name and the token from the keychain.",
    "Bearer tokens expire after 15 minutes; refresh with the refresh endpoint.",
    "Basic auth is disabled in production.",
    "The private key is in ~/.ssh/id_ed25519 (passphrase in 1Password).",
    "-----BEGIN PUBLIC KEY----- blocks are fine to share.",
    "Our JWT secret must be 32+ bytes; generate it with openssl rand -hex 32.",
    "mongodb+srv://<user>:<password>@cluster0.mongodb.net/test is the template.",
    "postgres://user:password@host:5432/db is the format DATABASE_URL expects.",
    "Redis URL redis://:${REDIS_PASSWORD}@cache:6379/0 comes from the chart.",
    "Tokenizer: tokenizer.json from the MiniLM build, vocab 30522.",
    "The secret sauce is caching the embeddings per chunk.",
    "keyboard shortcut ctrl+k opens the palette",
    "Error E1234 at 0x80070005, HTTP 404, exit code 137.",
    "Benchmarks: 42.7 ms p50, 88.1 ms p99 over 10k nodes.",
    "Order #A-10234, invoice INV-2024-00123.",
    "The Twilio account SID starts with AC; the auth token is in TWILIO_AUTH_TOKEN.",
    "Stripe publishable key pk_live_51HqLyj is public by design.",
    "hash: $2b$12$KIXQJ0Z1Ryq3bq7.Xq6cOeU6KxH2.ZpQqk3yF1qUe7Xq6cOeU6Kx",
    "cache key = user:1234:profile",
    "The meeting token field is called meetingToken in the API.",
    "apiKey: process.env.API_KEY",
    "password: os.environ['DB_PASSWORD']",
    "client_secret: {{ .Values.oauth.clientSecret }}",
    "Set token to the value from `gh auth token`.",
    "`ctx add` reads - for stdin; tokens are estimated at 4 chars each.",
]
for d in decoys:
    decoy(d)
# generated look-alikes: hashes, digests, identifiers, encoded non-secrets
for _ in range(6):
    decoy(f"git lfs oid sha256:{rand(HEX, 64)} size {rng.randrange(10**3, 10**7)}")
    decoy(f"integrity sha1-{base64.b64encode(rng.randbytes(20)).decode()} for left-pad")
    name = "".join(rng.choice(["Abstract", "Proxy", "Factory", "Bean", "Session", "Token", "Manager",
                               "Handler", "Resolver", "Cache", "Http", "Auth", "V2", "Impl", "Test"])
                   for _ in range(5))
    decoy(f"Renamed {name} to {name}Base in {rng.choice(['core', 'api', 'web'])}/{name.lower()}.py")
    decoy(f"Cache path ~/.cache/ctx/{rand(HEX, 2)}/{rand(HEX, 38)}.npy holds the vectors.")
    decoy(f"Callback URL https://app.internal.dev/oauth/callback?state=<state>&code=<code> "
          f"(port {rng.randrange(1024, 65535)})")
    decoy(f"Screenshot {rand(HEX, 16)}.png, frame {rng.randrange(1, 9999)}, phash {rand(HEX, 16)}")
    decoy(f"The node id {rand('0123456789ABCDEFGHJKMNPQRSTVWXYZ', 26)} supersedes "
          f"{rand('0123456789ABCDEFGHJKMNPQRSTVWXYZ', 26)}.")

# long prose memories with numbers and identifiers
for _ in range(20):
    words = rng.sample(["migration", "index", "hook", "session", "budget", "project", "worktree",
                        "scope", "recall", "summary", "tier", "reference", "pinned", "query",
                        "compose", "chunk", "vector", "segment", "cursor", "pending"], 8)
    decoy(f"Decision {rng.randrange(1, 99)}: {' '.join(words)} — measured {rng.randrange(10, 999)} ms "
          f"on {rng.randrange(1, 100)}k nodes (v{rng.randrange(1, 5)}.{rng.randrange(0, 20)}).")

TEXT = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)

if __name__ == "__main__":
    OUT.write_text(TEXT, encoding="utf-8")
    n_secret = sum(r["secret"] for r in rows)
    print(f"wrote {len(rows)} items ({n_secret} secrets, {len(rows) - n_secret} decoys) to {OUT}")
