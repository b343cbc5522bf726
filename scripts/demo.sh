#!/usr/bin/env bash
# `make demo`: ctx, then cue, on throw-away data. Two real (empty) git repositories stand in
# for your projects, so memory lands in projects the way it does in your own checkouts.
# Everything is written under .demo/ in the checkout (replaced by the next run, left in place
# after this one so `ctx ui` can show it); nothing else is touched.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
BIN="$ROOT/.venv/bin"
WORK="$ROOT/.demo"
rm -rf "$WORK" && mkdir -p "$WORK"
export CTX_DB="$WORK/store.db"
export HOME="$WORK/home"; mkdir -p "$HOME"
export GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=demo GIT_AUTHOR_EMAIL=demo@example.invalid
unset CTX_PROJECT CTX_SESSION

bold=$'\033[1m' under=$'\033[1;4m' dim=$'\033[2m' off=$'\033[0m'
if [ ! -t 2 ]; then bold='' under='' dim='' off=''; fi
heading() { printf '\n\n%s%s%s\n' "$under" "$*" "$off" >&2; }
note() { printf '%s# %s%s\n' "$dim" "$*" "$off" >&2; }
# A word as it would be typed: bare when the shell leaves it alone, else in single quotes.
quote() {
  if [[ $1 =~ ^[A-Za-z0-9_./:=@%+,-]+$ ]]; then printf '%s' "$1"
  else printf "'%s'" "${1//\'/\'\\\'\'}"; fi
}
shown() { local out='' w; for w in "$@"; do out+="$(quote "$w") "; done; printf '%s' "${out% }"; }
run() { printf '\n%s$ %s%s\n' "$bold" "$(shown "$@")" "$off" >&2; "$@"; }
# run_in JSON CMD...: CMD with JSON on stdin, shown as `CMD <<< 'JSON'`.
run_in() {
  local input=$1; shift
  printf '\n%s$ %s <<< %s%s\n' "$bold" "$(shown "$@")" "$(quote "$input")" "$off" >&2
  "$@" <<<"$input"
}
goto() { printf '\n%s$ cd %s%s\n' "$bold" "$(quote "$1")" "$off" >&2; cd "$1"; }
ctx() { "$BIN/ctx" "$@"; }
cue() { "$BIN/cue" "$@"; }

heading "ctx — memory for Claude Code"
note "A demo database and two throw-away repositories, api and web, under $WORK."
note "To repeat a command below in your shell: export CTX_DB=$(quote "$CTX_DB")"
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

note "Search by meaning: other words than the node's (multilingual-e5-small on this machine, plus keywords)."
run ctx search "which port does the staging database use" --format table

note "What Claude Code sees: the hooks, fed the JSON it sends them on stdin."
SID=demo-session
CWD=$(printf '%s' "$WORK/api" | "$BIN/python" -c 'import json,sys; print(json.dumps(sys.stdin.read()))')
run_in "{\"session_id\":\"$SID\",\"hook_event_name\":\"SessionStart\",\"source\":\"startup\",\"cwd\":$CWD}" \
  ctx hook session-start
echo
run_in "{\"session_id\":\"$SID\",\"hook_event_name\":\"Stop\",\"cwd\":$CWD}" \
  ctx hook stop -v --response 'Done. <ctx:remember type="decision">Deploys go out on Tuesdays only</ctx:remember>'
echo
run_in "{\"session_id\":\"$SID\",\"hook_event_name\":\"UserPromptSubmit\",\"cwd\":$CWD,\"prompt\":\"which port is the staging database on, and when do we deploy?\"}" \
  ctx hook prompt-submit
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
printf 'The demo memory stays in %s (the next `make demo` replaces it). Browse it:\n' "$WORK" >&2
printf '  %s\n\n' "$(shown "$BIN/ctx" --db "$CTX_DB" ui)" >&2
cat >&2 <<'EOF'
ctx, with Claude Code:
  ctx install --plugin        the plugin: hooks, skill, MCP server (restart Claude Code)
  cd ~/code/your-repo && claude
  ctx ui                      the memory, the graph, what each prompt was given

cue, on your desktop (Linux X11):
  cue record                  capture keyframes and window activity
  cue doctor                  which model backend will run, and whether it can
  cue digest                  the last 15 minutes in a few sentences (README: Local models)

README.md, "The first ten minutes", says more.
EOF
