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
# No bus but the one each check names: an inherited one could answer `status`.
unset DBUS_SESSION_BUS_ADDRESS SCREENTIME_BUS_ADDRESS SCREENTIME_BUS
mkdir -p "$XDG_DATA_HOME/applications" "$XDG_RUNTIME_DIR"
ESC=$(printf '\033')
# Desktop entries and a running program whose names hold escape codes, a line feed (the entry's `\n`, the file name's
# own) or a C1 control (U+009B, a terminal's one-byte CSI).
printf '[Desktop Entry]\nType=Application\nName=Evil%s[31mRed%s]0;title\a\nExec=evil\nCategories=Game;\n' "$ESC" "$ESC" \
    > "$XDG_DATA_HOME/applications/org.example.Evil.desktop"
printf '[Desktop Entry]\nType=Application\nName=Fake\\nSession 99 · root\nExec=fake\n' \
    > "$XDG_DATA_HOME/applications/org.example.Fake.desktop"
printf '[Desktop Entry]\nType=Application\nName=Csi\302\2332J\nExec=csi\n' > "$XDG_DATA_HOME/applications/org.example.Csi.desktop"
chmod 755 "$SCRATCH"
EVIL="$SCRATCH/game${ESC}[2J${ESC}[31mred
Session 99 · root"
cp /bin/sleep "$EVIL"
# On a terminal of its own, so that `now` shows it as the app in front of a session: as another user when this is root,
# whose terminals `now` leaves out without logind.
AS=()
[ "$(id -u)" = 0 ] && AS=(setpriv --reuid=65534 --regid=65534 --clear-groups)
# Twice, on two terminals: one user's app in use in two sessions at once is in use once.
for _ in 1 2; do
    EVIL_PATH=$EVIL "${AS[@]}" script -qfc 'exec "$EVIL_PATH" 60' /dev/null > /dev/null 2>&1 &
    PIDS+=($!)
done
sleep 0.5
no_escape() { ! grep -q "$ESC" "$1" && ! grep -qP '\x07|\xc2\x9b' "$1"; }
no_fake_line() { ! grep -q '^Session 99' "$1"; }
"$BIN/screentime" apps > "$SCRATCH/apps.out"
check "apps lists the entry whose name holds escape codes" grep -q 'Evil\\e\[31mRed' "$SCRATCH/apps.out"
check "apps prints no escape code" no_escape "$SCRATCH/apps.out"
check "apps prints a name's line feed as \\n, not as a line" sh -c "grep -q 'Fake\\\\nSession 99' '$SCRATCH/apps.out' && ! grep -q '^Session 99' '$SCRATCH/apps.out'"
check "apps prints a C1 control as \\u{9b}" grep -q 'Csi\\u{9b}2J' "$SCRATCH/apps.out"
"$BIN/screentime" apps --json > "$SCRATCH/apps.json"
check "apps --json writes a C1 control as \\u009b" sh -c "grep -q 'Csi\\\\u009b2J' '$SCRATCH/apps.json' && jq -e . '$SCRATCH/apps.json' >/dev/null"
check "apps --json prints no escape code" no_escape "$SCRATCH/apps.json"
# A broken categories.conf is the file's error (exit 1, not a usage error), its text shown with escapes made visible.
mkdir -p "$XDG_CONFIG_HOME/screentime"
printf 'game = bad%s[2J\n' "$ESC" > "$XDG_CONFIG_HOME/screentime/categories.conf"
"$BIN/screentime" apps > /dev/null 2> "$SCRATCH/conf.err" && CONF=0 || CONF=$?
check "a broken categories.conf ends apps with status 1 (was $CONF)" test "$CONF" = 1
check "its error names the file and shows the escape code made visible" sh -c \
    "grep -q 'categories.conf:1:.*bad\\\\e\\[2J' '$SCRATCH/conf.err' && ! grep -q '$ESC' '$SCRATCH/conf.err'"
rm "$XDG_CONFIG_HOME/screentime/categories.conf"
"$BIN/screentime" now > "$SCRATCH/now.out" 2>&1
check "now shows the program whose name holds escape codes" grep -qF 'game\e[2J\e[31mred\nSession 99' "$SCRATCH/now.out"
check "now prints no escape code" no_escape "$SCRATCH/now.out"
check "now prints a name's line feed as \\n, not as a line" no_fake_line "$SCRATCH/now.out"
"$BIN/screentime" now --watch > "$SCRATCH/watch.out" 2>&1 &
WATCH=$!
PIDS+=($WATCH)
sleep 2.5
kill "$WATCH" 2>/dev/null || true
wait "$WATCH" 2>/dev/null || true
check "now --watch into a pipe wrote something" test -s "$SCRATCH/watch.out"
check "now --watch into a pipe writes no escape code" no_escape "$SCRATCH/watch.out"
check "now --watch into a pipe shows the program, its line feed as \\n" sh -c "grep -qF 'game\\e[2J\\e[31mred\\nSession 99' '$SCRATCH/watch.out' && ! grep -q '^Session 99' '$SCRATCH/watch.out'"
"$BIN/screentime" now --watch --json > "$SCRATCH/watch.json" 2>&1 &
WATCH=$!
PIDS+=($WATCH)
sleep 6
kill "$WATCH" 2>/dev/null || true
wait "$WATCH" 2>/dev/null || true
USED=$(tail -n 1 "$SCRATCH/watch.json" | jq '[.usageSeconds[] | .[]] | max // 0')
echo "now --watch: the app in front on two terminals counted $USED s in 6 s"
check "now --watch counts an app in front in two sessions of one user once (${USED}s in 6 s)" \
    test "$USED" -ge 3 -a "$USED" -le 6
# The policy check reports every mistake, each at its place, and warns of apps nothing here is known by.
printf '[[limit]]\nname = "games"\napps = ["no-such-game"]\ndaily = "25h"\n[[limit]]\nname = "v"\ndaily = "0s"\n' \
    > "$SCRATCH/two.toml"
"$BIN/screentime" policy check --file "$SCRATCH/two.toml" 2> "$SCRATCH/two.err" && TWO=0 || TWO=$?
check "a policy with two bad limits fails the check" test "$TWO" = 1
check "both bad limits are reported with file:line:column" sh -c \
    "grep -q 'two.toml:4:9: .daily. is 25h, more than a day' '$SCRATCH/two.err' && grep -q 'two.toml:7:9: .daily. must be longer than 0' '$SCRATCH/two.err'"
printf '[[limit]]\nname = "games"\napps = ["no-such-game"]\ndaily = "1h"\n' > "$SCRATCH/unknown.toml"
check "an app known by nothing is a warning, not an error" "$BIN/screentime" policy check --file "$SCRATCH/unknown.toml"
check "the warning names the app at its place" sh -c "'$BIN/screentime' policy check --file '$SCRATCH/unknown.toml' 2>&1 | grep -q 'unknown.toml:3:9: warning: .*\"no-such-game\"'"
{ printf 'always_allowed = '; head -c 20000 /dev/zero | tr '\0' '['; echo; } > "$SCRATCH/deep.toml"
"$BIN/screentime" policy check --file "$SCRATCH/deep.toml" 2> "$SCRATCH/deep.err" && DEEP=0 || DEEP=$?
check "a policy nested 20000 deep is refused with an error, not a crash" sh -c \
    "test $DEEP = 1 && grep -q 'nested more than' '$SCRATCH/deep.err'"
set +e
"$BIN/screentime" status > "$SCRATCH/status.out" 2> "$SCRATCH/status.err"
STATUS=$?
set -e
check "status without a daemon exits 3 (was $STATUS)" test "$STATUS" = 3
check "status without a daemon says so on stderr" grep -q 'screentimed is not running' "$SCRATCH/status.err"
# An idle timeout of 0 s would make every session idle at once: refused as a usage error, by both programs.
for program in "screentime now" screentimed; do
    set +e
    $BIN/$program --idle-timeout 0 > /dev/null 2> "$SCRATCH/idle.err"
    IDLE=$?
    set -e
    check "$program --idle-timeout 0 is a usage error (was $IDLE)" \
        sh -c "test $IDLE = 64 && grep -q 'idle-timeout must be more than 0 seconds' '$SCRATCH/idle.err'"
done
summary
