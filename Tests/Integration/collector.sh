#!/usr/bin/env bash
# Integration test of the collector against a real systemd-logind (booted in a container by logind-sandbox.sh):
# two users, a tty session and an x11-typed session, processes inside sessions and inside transient app scopes,
# a process that renames itself, a session whose own XDG_DATA_DIRS and LANG make its user's catalog; asserts what
# `screentime now --json` reports, and that a running collector picks up lock and idle changes from logind's signals.
# Needs root, a debug build (`swift build`), and the packages `logind-sandbox.sh install` adds, plus gcc and jq.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$HERE/lib.sh"
BIN=${SCREENTIME_BIN:-$ROOT/.build/debug/screentime}
[ -x "$BIN" ] || { echo "missing $BIN: run swift build first"; exit 2; }
start_sandbox stcollector 2

# sbuser1: a tty session whose terminal runs vim in the foreground (job control on, a background sleep beside it).
TTY_SID=$("$SANDBOX" session "$NAME" --user sbuser1 --tty -- \
    bash -c 'set -m; sleep 1000 & vim -n -u NONE -i NONE; wait')
# sbuser2: an x11-typed session on seat0 whose own process is a game that renamed itself ("innocent").
# A display number no X server here uses: the container shares the host's abstract X sockets.
# The session's XDG_DATA_DIRS names a folder of its own, and its LANG another language (as a desktop session sets
# them after the user's service manager started): a desktop entry there names a second program of the session.
inside cp "$WORK/supertuxkart" "$WORK/extra-game"
inside install -d -o sbuser2 /home/sbuser2/.extra-share/applications
inside sh -c "printf '[Desktop Entry]\nType=Application\nName=Extra\nName[de]=Extraspiel\nExec=$WORK/extra-game\n' \
    > /home/sbuser2/.extra-share/applications/org.example.Extra.desktop"
X11_SID=$("$SANDBOX" session "$NAME" --user sbuser2 --x11 --display :72 -- \
    env GAME_RENAME=innocent XDG_DATA_DIRS=/home/sbuser2/.extra-share:/usr/local/share:/usr/share LANG=de_DE.UTF-8 \
    bash -c "$WORK/extra-game & exec $WORK/supertuxkart")
# sbuser2's desktop starts a game in its own transient app scope, renamed too, with a forked child.
inside runuser -u sbuser2 -- env XDG_RUNTIME_DIR=/run/user/2002 \
    DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/2002/bus GAME_RENAME=innocent GAME_FORK=1 \
    systemd-run --user --scope --quiet --unit=app-gnome-org.example.Game-4242.scope "$WORK/supertuxkart" \
    >/dev/null 2>&1 &

now_json() { inside "$BIN" now --json --token-key /root/st-token.key; }
scoped_game_seen() { now_json | jq -e --arg s "$X11_SID" \
    '.sessions[] | select(.id == $s) | .runningApps[] | select(.id == "org.example.Game")'; }
wait_for 20 scoped_game_seen || true
vim_in_front() { now_json | jq -e --arg s "$TTY_SID" '.sessions[] | select(.id == $s) | .foreground.id == "vim"'; }
wait_for 10 vim_in_front || true
now_json > "$WORK/now.json"
J() { jq -e "$@" "$WORK/now.json" >/dev/null; }

check "logind is the session source" J '.logind == true'
check "two sessions reported" J '[.sessions[] | select(.userName == "sbuser1" or .userName == "sbuser2")] | length == 2'
check "tty session: user, type, tty" J --arg s "$TTY_SID" \
    '.sessions[] | select(.id == $s) | .userName == "sbuser1" and .user == 2001 and .type == "tty" and (.tty | startswith("pts/"))'
check "x11 session: user, type, seat, display" J --arg s "$X11_SID" \
    '.sessions[] | select(.id == $s) | .userName == "sbuser2" and .type == "x11" and .seat == "seat0" and .display == ":72"'
check "both sessions active, not idle, not locked" J \
    '[.sessions[] | select(.active and (.idle | not) and (.locked | not) and .presence == "active")] | length == 2'
check "tty session has its leader" J --arg s "$TTY_SID" '.sessions[] | select(.id == $s) | .leader > 1'
check "tty foreground app is vim, found through the terminal's foreground group" J --arg s "$TTY_SID" \
    '.sessions[] | select(.id == $s) | .focus == "terminal" and .foreground.id == "vim" and .foreground.name == "Vim"'
VIM_PID=$(jq -r --arg s "$TTY_SID" '.sessions[] | select(.id == $s) | .foreground.pid' "$WORK/now.json")
check "tty foreground pid is vim's process" inside sh -c "readlink /proc/$VIM_PID/exe | grep -q /vim"
check "tty session lists vim and the background sleep" J --arg s "$TTY_SID" \
    '[.sessions[] | select(.id == $s) | .runningApps[].id] | contains(["vim", "sleep"])'
check "renamed process in the session keeps its executable's app id" J --arg s "$X11_SID" \
    '.sessions[] | select(.id == $s) | .runningApps[] | select(.id == "supertuxkart" and .processCount == 1)'
check "nothing is reported under the fake name" J '[.sessions[].runningApps[].id] | index("innocent") == null'
check "a desktop entry in a folder of the session's XDG_DATA_DIRS names its program" J --arg s "$X11_SID" \
    '.sessions[] | select(.id == $s) | [.runningApps[].id] | index("org.example.Extra") != null and index("extra-game") == null'
check "the app is named in the session's language" J --arg s "$X11_SID" \
    '.sessions[] | select(.id == $s) | .runningApps[] | select(.id == "org.example.Extra") | .name == "Extraspiel"'
check "scoped, renamed game and its child are the scope's app, in the user's graphical session" J --arg s "$X11_SID" \
    '.sessions[] | select(.id == $s) | .runningApps[] | select(.id == "org.example.Game" and .processCount == 2)'
check "x11 session without a display server falls back and says so" J --arg s "$X11_SID" \
    '.sessions[] | select(.id == $s) | .focus == "fallback"'
check "tokens are 32 hex characters and differ per app" J \
    '[.sessions[].runningApps[].token] | (all(test("^[0-9a-f]{32}$"))) and (length == (unique | length))'

# Stable tokens: a second run with the same key gives the same token for the same app.
check "token stable across runs" bash -c "[ \"\$(jq -r '[.sessions[].runningApps[] | select(.id == \"vim\")][0].token' '$WORK/now.json')\" = \
    \"\$($SANDBOX run $NAME -- $BIN now --json --token-key /root/st-token.key | jq -r '[.sessions[].runningApps[] | select(.id == \"vim\")][0].token')\" ]"
check "token key file is mode 0600" bash -c "[ \"\$($SANDBOX run $NAME -- stat -c %a /root/st-token.key)\" = 600 ]"

# A running collector follows logind: lock the x11 session, then set its idle hint, then unlock.
inside "$BIN" now --json --watch --token-key /root/st-token.key > "$WORK/watch.jsonl" 2>/dev/null &
WATCH=$!
wait_for 10 test -s "$WORK/watch.jsonl"
last_has() { tail -n 1 "$WORK/watch.jsonl" | jq -e --arg s "$X11_SID" "$1" >/dev/null 2>&1; }
inside loginctl lock-session "$X11_SID"
OBJ=$(inside busctl call org.freedesktop.login1 /org/freedesktop/login1 org.freedesktop.login1.Manager GetSession s "$X11_SID" | awk '{print $2}' | tr -d '"')
inside setpriv --reuid=sbuser2 --regid=sbuser2 --init-groups busctl call org.freedesktop.login1 "$OBJ" \
    org.freedesktop.login1.Session SetLockedHint b true
check "watching collector sees the lock" wait_for 5 last_has '.sessions[] | select(.id == $s) | .locked and .presence == "locked"'
# The hint is the session's owner's to set: a guardian's daemon believes it not, also where nothing measures input.
presence() { inside "$BIN" now --json --idle-timeout 3600 --token-key /root/st-token.key "$@" | jq -e --arg s "$X11_SID" \
    '.sessions[] | select(.id == $s) | .presence' | tr -d '"'; }
check "as a guardian sees it, the session its owner says is locked is in use" test "$(presence --as-guardian)" = active
inside setpriv --reuid=sbuser2 --regid=sbuser2 --init-groups busctl call org.freedesktop.login1 "$OBJ" \
    org.freedesktop.login1.Session SetLockedHint b false
inside setpriv --reuid=sbuser2 --regid=sbuser2 --init-groups busctl call org.freedesktop.login1 "$OBJ" \
    org.freedesktop.login1.Session SetIdleHint b true
check "watching collector sees the unlock and the idle hint" wait_for 5 last_has \
    '.sessions[] | select(.id == $s) | (.locked | not) and .idle and .presence == "idle"'
inside setpriv --reuid=sbuser2 --regid=sbuser2 --init-groups busctl call org.freedesktop.login1 "$OBJ" \
    org.freedesktop.login1.Session SetIdleHint b false
check "watching collector sees activity again" wait_for 5 last_has '.sessions[] | select(.id == $s) | .presence == "active"'
# A new session appears without restarting the collector (sd_login_monitor).
NEW_SID=$("$SANDBOX" session "$NAME" --user sbuser1 --tty)
check "watching collector sees a new session" wait_for 5 bash -c \
    "tail -n 1 '$WORK/watch.jsonl' | jq -e --arg s '$NEW_SID' '.sessions[] | select(.id == \$s)' >/dev/null"
kill "$WATCH" 2>/dev/null || true
wait "$WATCH" 2>/dev/null || true

# The x11 session gets a real X server (Xvfb + openbox on its display) and a focused xterm: the collector now
# follows the focused window instead of falling back.
inside runuser -u sbuser2 -- Xvfb :72 -screen 0 1024x768x24 -nolisten tcp -ac >/dev/null 2>&1 &
check "Xvfb answers on :72 in the x11 session" wait_for 20 inside runuser -u sbuser2 -- env DISPLAY=:72 xdpyinfo
openbox_up() { inside runuser -u sbuser2 -- env DISPLAY=:72 xprop -root _NET_SUPPORTED 2>/dev/null | grep -q _NET_ACTIVE_WINDOW; }
# On a loaded machine openbox may end at once, failing to open a display that has just come up: it is started again
# then, and what it printed is shown.
for attempt in 1 2 3; do
    inside runuser -u sbuser2 -- env DISPLAY=:72 HOME=/home/sbuser2 openbox --sm-disable > "$WORK/openbox.log" 2>&1 &
    OPENBOX=$!
    for _ in $(seq 200); do openbox_up && break; kill -0 "$OPENBOX" 2>/dev/null || break; sleep 0.1; done
    openbox_up && break
    echo "openbox did not manage :72 (attempt $attempt, $(kill -0 "$OPENBOX" 2>/dev/null && echo running || echo ended)): $(tr '\n' ' ' < "$WORK/openbox.log")"
    kill -0 "$OPENBOX" 2>/dev/null && break
done
check "openbox manages :72 (_NET_ACTIVE_WINDOW)" openbox_up
inside runuser -u sbuser2 -- env DISPLAY=:72 xterm -class StCollectorTerm -e sleep 600 >/dev/null 2>&1 &
xterm_in_front() { now_json | jq -e --arg s "$X11_SID" \
    '.sessions[] | select(.id == $s) | .focus == "window" and .focusSource == "x11" and .foreground.id == "debian-xterm"'; }
check "x11 session follows the focused window: xterm in front, from x11" wait_for 20 xterm_in_front
check "x11 session's idle time comes from the X screen saver" bash -c \
    "$SANDBOX run $NAME -- $BIN now --json --token-key /root/st-token.key | jq -e --arg s '$X11_SID' '.sessions[] | select(.id == \$s) | .idleSource | contains(\"x11\")' >/dev/null"
# logind's locked and idle hints are the session's owner's to set: for a guardian's limited user they decide nothing
# where the X server measures input.
hint() { inside setpriv --reuid=sbuser2 --regid=sbuser2 --init-groups busctl call org.freedesktop.login1 "$OBJ" \
    org.freedesktop.login1.Session "$1" b "$2"; }
hint SetLockedHint true
hint SetIdleHint true
check "the owner's locked hint locks the session as they see it" test "$(presence)" = locked
check "as a guardian sees it, the session is in use" test "$(presence --as-guardian)" = active
hint SetLockedHint false
check "the owner's idle hint makes it idle as they see it" test "$(presence)" = idle
check "as a guardian sees it, still in use" test "$(presence --as-guardian)" = active
hint SetIdleHint false

# An X server of the user's in a window of the session (Xephyr): the window in front is a display server's, and what
# runs on that display is not seen. As its own user sees it, Xephyr is in front; as a guardian sees it, every app
# of the session counts. (The sandbox's end stops it.)
inside runuser -u sbuser2 -- env DISPLAY=:72 Xephyr :74 -screen 640x480 -nolisten tcp >/dev/null 2>&1 &
nested_window() { inside runuser -u sbuser2 -- env DISPLAY=:72 xdotool search --onlyvisible --class Xephyr | head -1; }
has_nested_window() { [ -n "$(nested_window)" ]; }
check "Xephyr opens a window on :72" wait_for 20 has_nested_window
inside runuser -u sbuser2 -- env DISPLAY=:72 xdotool windowactivate --sync "$(nested_window)" >/dev/null 2>&1
x11_focus_is() { inside "$BIN" now --json --token-key /root/st-token.key "${@:2}" | jq -r --arg s "$X11_SID" \
    '.sessions[] | select(.id == $s) | "\(.focus) \(.foreground.id // "-") \(.focusSource)"' | grep -q "$1"; }
check "the window in front is Xephyr's, as its own user sees it" wait_for 10 x11_focus_is '^window [Xx]ephyr '
check "as a guardian sees it, a display server is in front: every app of the session counts" \
    wait_for 10 x11_focus_is '^fallback - x11, with a display server in front' --as-guardian

# A desktop started from a console (as `startx` or `sway` typed at a login prompt): logind still calls the session a
# tty one, and a guardian's daemon sees a display server of the session's own, whatever runs on that display — also
# one no longer below the terminal's foreground (left by a subshell that ended, the shell then doing something else).
CONSOLE_SID=$("$SANDBOX" session "$NAME" --user sbuser1 --tty -- /bin/sh -c \
    '(Xvfb :73 -nolisten tcp > /dev/null 2>&1 &); exec sleep infinity')
console_focus() { inside "$BIN" now --json --token-key /root/st-token.key "$@" | jq -r --arg s "$CONSOLE_SID" \
    '.sessions[] | select(.id == $s) | .focus'; }
console_shows() { [ "$(console_focus "${@:2}")" = "$1" ]; }
check "an X server runs in the console session" wait_for 20 inside runuser -u sbuser1 -- env DISPLAY=:73 xdpyinfo
check "a console whose session runs an X server is followed by its terminal, as its own user sees it" \
    console_shows terminal
check "as a guardian sees it, the session runs a display server: every app of the session counts" \
    wait_for 15 console_shows fallback --as-guardian

summary
