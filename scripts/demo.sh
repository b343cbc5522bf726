#!/usr/bin/env bash
# `make demo`: ctx, then cue, on throw-away data. Two real (empty) git repositories stand in
# for your projects, so memory lands in projects the way it does in your own checkouts.
# Nothing outside a temp dir is touched.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
BIN="$ROOT/.venv/bin"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
export CTX_DB="$WORK/store.db"
export HOME="$WORK/home"; mkdir -p "$HOME"
export GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=demo GIT_AUTHOR_EMAIL=demo@example.invalid
unset CTX_PROJECT CTX_SESSION

bold=$'\033[1m' under=$'\033[1;4m' dim=$'\033[2m' off=$'\033[0m'
if [ ! -t 2 ]; then bold='' under='' dim='' off=''; fi
heading() { printf '\n\n%s%s%s\n' "$under" "$*" "$off" >&2; }
note() { printf '%s# %s%s\n' "$dim" "$*" "$off" >&2; }
run() { printf '\n%s$ %s%s\n' "$bold" "$*" "$off" >&2; "$@"; }
goto() { printf '\n%s$ cd %s%s\n' "$bold" "${1#"$WORK"/}" "$off" >&2; cd "$1"; }
ctx() { "$BIN/ctx" "$@"; }
cue() { "$BIN/cue" "$@"; }

heading "ctx — memory for Claude Code"
note "Throw-away database $CTX_DB; two throw-away repositories: api and web."
for repo in api web; do mkdir -p "$WORK/$repo" && git -C "$WORK/$repo" init -q; done

goto "$WORK/api"
note "Memory is stored in the repository you are in (the project 'api')."
PORT=$(run ctx add --type fact --tag tier:reference "Staging Postgres listens on port 6543")
echo "$PORT"
DEC=$(run ctx add --type decision --tag tier:reference --meta rationale="one file, no server, WAL is enough for hooks" \
  "Store memory in SQLite, one database per user")
echo "$DEC"
run ctx add --type open-question --tag tier:working "Should rate limits be per token or per user?"
run ctx add --type hypothesis --tag tier:working "The flaky test is a race on the WAL checkpoint"
run ctx link "$DEC" "$PORT" --type DEPENDS_ON
NEW=$(run ctx add --type fact --tag tier:reference "Staging Postgres moved to port 6544 (ticket OPS-412)")
echo "$NEW"
run ctx supersede "$PORT" "$NEW"
note "Untiered memory is not in every session's context: each prompt gets what it is about."
run ctx add --type observation "The nightly backup of the staging database runs at 02:00 UTC"
run ctx add --type fact "Deploys need a green CI run on main and a second reviewer"
run ctx add --type observation "The billing service times out when the invoice list has more than 500 rows"
run ctx add --type fact "Feature flags live in config/flags.yaml and are read at start-up"

goto "$WORK/web"
run ctx add --type task --tag tier:working "Refactoring the login page to use PKCE"
note "Global memory: every project sees it."
run ctx add --global --type pattern --tag tier:pinned \
  "Run every schema migration inside one transaction with its version record"
run ctx project list --format table
run ctx list --format table
note "From web, api's memory is out of sight unless asked for:"
run ctx --project api query 'type:fact' --format table

goto "$WORK/api"
run ctx query '(type:decision OR type:fact) AND NOT tag:tier:working' --format table
run ctx status
run ctx compose

note "Search by meaning: other words than the node's (local MiniLM + BM25, hybrid)."
run ctx search "which port does the staging database use" --format table

note "What Claude Code sees: the hooks, fed the JSON it sends them on stdin."
SID=demo-session
CWD=$(printf '%s' "$WORK/api" | "$BIN/python" -c 'import json,sys; print(json.dumps(sys.stdin.read()))')
run ctx hook session-start <<<"{\"session_id\":\"$SID\",\"hook_event_name\":\"SessionStart\",\"source\":\"startup\",\"cwd\":$CWD}"
echo
run ctx hook stop -v --response 'Done. <ctx:remember type="decision">Deploys go out on Tuesdays only</ctx:remember>' \
  <<<"{\"session_id\":\"$SID\",\"hook_event_name\":\"Stop\",\"cwd\":$CWD}"
echo
run ctx hook prompt-submit <<<"{\"session_id\":\"$SID\",\"hook_event_name\":\"UserPromptSubmit\",\"cwd\":$CWD,\"prompt\":\"which port is the staging database on, and when do we deploy?\"}"
echo
note "Per-request record: what that prompt was given, and why the rest was left out."
run ctx requests show --last --format table

heading "cue — screen activity into a short digest"
# Without a capture tool or a model: a scripted 15-minute session (bench/sessions.py: app
# and tab switches, a scroll with no events, typing bursts, blips, an idle stretch, a pause).
export CUE_HOME="$WORK/cue"
SESSION="$WORK/session"
cd "$ROOT"
note "A scripted 15-minute session stands in for \`cue record\`."
END=$("$BIN/python" -m bench.sessions "$SESSION" 7 | "$BIN/python" -c 'import json,sys; print(int(json.load(sys.stdin)["end"]))')
run cue select --keyframes "$SESSION/keyframes" --events "$SESSION/events" --end "$END" --since 15m --format table
note "What \`cue digest\` would send a model (the frames above go with it as JPEGs); nothing is called."
run cue digest --dry-run --keyframes "$SESSION/keyframes" --events "$SESSION/events" --end "$END" --since 15m \
  | sed -e '/^Frame [0-9]* (+[0-9]*s):$/d' -e '/^\[image [0-9]* bytes\]$/d'

heading "What next"
cat >&2 <<'EOF'
ctx, with Claude Code:
  ctx install --plugin        the plugin: hooks, skill, MCP server (restart Claude Code)
  cd ~/code/your-repo && claude
  ctx ui                      the memory, the graph, what each prompt was given

cue, on your desktop (Linux X11):
  cue record                  capture keyframes and window activity
  cue doctor                  which model backend will run, and whether it can
  cue digest --backend local  the last 15 minutes, from a local vision model

README.md, "The first ten minutes", says more.
EOF
