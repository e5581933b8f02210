#!/usr/bin/env bash
# The command line as a person meets it, on the host: names holding escape codes print none, `now --watch` into a
# pipe writes plain lines, and `status` without a daemon says so and exits 3.
# Needs a debug build (`swift build`).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$HERE/lib.sh"
BIN=${SCREENTIME_BIN_DIR:-$ROOT/.build/debug}
[ -x "$BIN/screentime" ] || { echo "missing $BIN/screentime: run swift build first"; exit 2; }
SCRATCH=$(mktemp -d)
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$SCRATCH"' EXIT
export HOME=$SCRATCH XDG_DATA_HOME=$SCRATCH/data XDG_STATE_HOME=$SCRATCH/state XDG_CONFIG_HOME=$SCRATCH/config
export XDG_RUNTIME_DIR=$SCRATCH/run XDG_DATA_DIRS=$SCRATCH/none
mkdir -p "$XDG_DATA_HOME/applications" "$XDG_RUNTIME_DIR"
ESC=$(printf '\033')
# A desktop entry and a running program whose names hold escape codes.
printf '[Desktop Entry]\nType=Application\nName=Evil%s[31mRed%s]0;title\a\nExec=evil\nCategories=Game;\n' "$ESC" "$ESC" \
    > "$XDG_DATA_HOME/applications/org.example.Evil.desktop"
EVIL="$SCRATCH/game${ESC}[2J${ESC}[31mred"
cp /bin/sleep "$EVIL"
# On a terminal of its own, so that `now` shows it as the app in front of a session.
EVIL_PATH=$EVIL script -qfc 'exec "$EVIL_PATH" 60' /dev/null > /dev/null 2>&1 &
PIDS+=($!)
sleep 0.5
no_escape() { ! grep -q "$ESC" "$1" && ! grep -qP '\x07' "$1"; }
"$BIN/screentime" apps > "$SCRATCH/apps.out"
check "apps lists the entry whose name holds escape codes" grep -q 'Evil\\e\[31mRed' "$SCRATCH/apps.out"
check "apps prints no escape code" no_escape "$SCRATCH/apps.out"
"$BIN/screentime" now > "$SCRATCH/now.out" 2>&1 || true
check "now prints no escape code" no_escape "$SCRATCH/now.out"
"$BIN/screentime" now --watch > "$SCRATCH/watch.out" 2>&1 &
WATCH=$!
PIDS+=($WATCH)
sleep 2.5
kill "$WATCH" 2>/dev/null || true
wait "$WATCH" 2>/dev/null || true
check "now --watch into a pipe wrote something" test -s "$SCRATCH/watch.out"
check "now --watch into a pipe writes no escape code" no_escape "$SCRATCH/watch.out"
set +e
"$BIN/screentime" status > "$SCRATCH/status.out" 2> "$SCRATCH/status.err"
STATUS=$?
set -e
check "status without a daemon exits 3 (was $STATUS)" test "$STATUS" = 3
check "status without a daemon says so on stderr" grep -q 'screentimed is not running' "$SCRATCH/status.err"
summary
