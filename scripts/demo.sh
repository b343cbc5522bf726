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

# Semantic search: other words than the node's (MiniLM on onnxruntime + BM25, hybrid).
run ctx search "which port does the staging database use" --format table
run ctx search "why did we pick sqlite" --mode semantic --top-n 2 --format json

# What Claude Code sees: the hooks, fed the JSON it sends on stdin.
SID=demo-session
run ctx hook session-start <<<"{\"session_id\":\"$SID\",\"hook_event_name\":\"SessionStart\",\"source\":\"startup\"}"
echo
run ctx hook stop -v --response 'Done. <ctx:remember type="decision" tags="tier:reference">Deploys go out on Tuesdays only</ctx:remember> <ctx:recall query="type:decision"/>' \
  <<<"{\"session_id\":\"$SID\",\"hook_event_name\":\"Stop\"}"
echo
run ctx hook prompt-submit <<<"{\"session_id\":\"$SID\",\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":\"how should we throttle clients that hammer the API?\"}"
echo
run ctx requests show --last --format table
echo
echo "Export (first 3 lines):"
ctx export | head -3

# cue without a capture tool or a model: a scripted 15-minute session (bench/sessions.py:
# app and tab switches, a scroll with no events, typing bursts, blips, an idle stretch, a
# pause), then the frames cue would pick and everything `cue digest` would send.
export CUE_HOME="$WORK/cue"
cue() { "$BIN/cue" "$@"; }
SESSION="$WORK/session"
END=$(run "$BIN/python" -m bench.sessions "$SESSION" 7 | "$BIN/python" -c 'import json,sys; print(int(json.load(sys.stdin)["end"]))')
echo "Scripted session in $SESSION (ends at unix $END)"
run cue select --keyframes "$SESSION/keyframes" --events "$SESSION/events" --end "$END" --since 15m --format table
run cue digest --dry-run --keyframes "$SESSION/keyframes" --events "$SESSION/events" --end "$END" --since 15m
