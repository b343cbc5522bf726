#!/usr/bin/env bash
# A ctx walkthrough on a throwaway database (`make demo`). Nothing outside a temp dir is touched.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN="$PWD/.venv/bin"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
export CTX_DB="$WORK/store.db"
export HOME="$WORK/home"; mkdir -p "$HOME"

run() { printf '\n\033[1m$ %s\033[0m\n' "$*" >&2; "$@"; }
ctx() { "$BIN/ctx" "$@"; }

echo "Throwaway database: $CTX_DB"
PORT=$(run ctx add --type fact --tag tier:reference --tag project:api "Staging Postgres listens on port 6543")
echo "$PORT"
DEC=$(run ctx add --type decision --tag tier:reference --meta rationale="one file, no server, WAL is enough for hooks" \
  "Store memory in SQLite, one database per user")
echo "$DEC"
run ctx add --type pattern --tag tier:pinned "Run every schema migration inside one transaction with its version record"
run ctx add --type task --tag tier:working --tag task:auth "Refactoring the auth middleware to use PKCE"
run ctx add --type open-question --tag project:api "Should rate limits be per token or per user?"
HYP=$(run ctx add --type hypothesis --tag tier:working "The flaky test is a race on the WAL checkpoint")
echo "$HYP"

run ctx link "$DEC" "$PORT" --type DEPENDS_ON
NEW=$(run ctx add --type fact --tag tier:reference --tag project:api "Staging Postgres moved to port 6544 (ticket OPS-412)")
echo "$NEW"
run ctx supersede "$PORT" "$NEW"

run ctx list --format table
run ctx query 'type:fact AND tag:project:api'
run ctx query 'port' --include-superseded --format ids
run ctx query '(type:decision OR type:pattern) AND NOT tag:tier:working' --format table
run ctx show "${DEC:0:10}" --format json
run ctx view create api --query 'tag:project:api' --budget 2000
run ctx view list --format table
run ctx compose
run ctx compose --view api --format json
run ctx status
echo
echo "Export (first 3 lines):"
ctx export | head -3
