#!/usr/bin/env bash
# The example apps of Examples/ (one package, built with `swift build` there) against the real daemon in a real
# logind session (systemd booted in a container by logind-sandbox.sh), as sbuser1 would run them: each app runs in
# its own app scope as a desktop launches it, and declares its extensions in its desktop entry. Time limits are
# scaled down through the apps' own options and the daemon's --client-minimum-interval, never another code path.
# - screentime pick: --app/--category and the interactive picker print selections the apps read back;
# - Homework: the monitor extension warns and shields the game at its threshold, within 1 s; a second process of
#   the app sees the activity and its event; the shield holds over a daemon restart and reads back from the store;
#   clearing releases; blockedApplications is counted and cleared;
# - Streaks: an "increase" task completes at its goal after its warning, a "decrease" task completes at its end;
# - Barebones: a schedule shields a picked app and category with the app's own shield text and buttons (its
#   shield-action extension answers the button a person presses on the notification server), then releases it;
# - ScreenTimeSample: DeviceActivityResults lists the game's use of the day within 3 s and the notification the
#   game sent, and the report extension renders the total and the top apps.
# Needs root, a debug build of the project and of Examples (`swift build` in both), gcc and jq.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$HERE/lib.sh"
BIN=${SCREENTIME_BIN_DIR:-$ROOT/.build/debug}
EXAMPLES=${SCREENTIME_EXAMPLES_DIR:-$ROOT/Examples/.build/debug}
for program in "$BIN/screentimed" "$BIN/screentime" "$EXAMPLES/Homework" "$EXAMPLES/Streaks" "$EXAMPLES/Barebones" \
    "$EXAMPLES/ScreenTimeSample"; do
    [ -x "$program" ] || { echo "missing $program: run swift build in the project and in Examples"; exit 2; }
done
start_sandbox stexamples 1
U=/home/sbuser1
as_user() {
    inside runuser -u sbuser1 -- env XDG_RUNTIME_DIR=/run/user/2001 \
        DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/2001/bus HOME=$U "$@"
}
N=0
as_app() {  # as_app APP-ID COMMAND...: runs COMMAND in a new app scope of APP-ID, as a desktop launches an app
    local id=$1; shift; N=$((N + 1))
    as_user systemd-run --user --scope --quiet --unit="app-gnome-$id-$$$N.scope" "$@"
}
entry() {  # entry ID NAME CATEGORIES [EXTRA LINE]: a desktop entry in sbuser1's data folder
    as_user sh -c "mkdir -p $U/.local/share/applications && printf '[Desktop Entry]\nType=Application\nName=%s\nExec=%s\nCategories=%s\n%b' \
        '$2' '$4' '$3' '${5:-}' > $U/.local/share/applications/$1.desktop"
}
entry supertuxkart "SuperTuxKart" "Game;" "$WORK/supertuxkart"
entry org.example.Chat "Chat" "Network;InstantMessaging;" "$WORK/supertuxkart"
entry org.example.Homework "Homework" "Education;" "$EXAMPLES/Homework" "X-ScreenTime-Monitor=$EXAMPLES/Homework\n"
entry org.example.Streaks "Streaks" "Utility;" "$EXAMPLES/Streaks" "X-ScreenTime-Monitor=$EXAMPLES/Streaks\n"
entry org.example.Barebones "Barebones" "Utility;" "$EXAMPLES/Barebones" \
    "X-ScreenTime-Monitor=$EXAMPLES/Barebones\nX-ScreenTime-ShieldConfiguration=$EXAMPLES/Barebones\nX-ScreenTime-ShieldAction=$EXAMPLES/Barebones\n"
entry org.example.ScreenTimeSample "Screen Time Sample" "Utility;" "$EXAMPLES/ScreenTimeSample" \
    "X-ScreenTime-Report=$EXAMPLES/ScreenTimeSample\n"

# An active graphical session; the game and the chat run in their own app scopes.
"$SANDBOX" session "$NAME" --user sbuser1 --x11 --display :73 -- sleep infinity >/dev/null
as_app supertuxkart env GAME_MODE=busy "$WORK/supertuxkart" >/dev/null 2>&1 &
as_app org.example.Chat env GAME_MODE=busy "$WORK/supertuxkart" >/dev/null 2>&1 &
pid_in() { inside sh -c "for p in \$(pgrep -u sbuser1 -x supertuxkart); do grep -q '$1' /proc/\$p/cgroup && echo \$p; done; true" | head -1; }
wait_for 10 sh -c "[ -n \"\$($(declare -f inside pid_in); SANDBOX=$SANDBOX NAME=$NAME; pid_in org.example.Chat)\" ]" || true
GAME=$(pid_in app-gnome-supertuxkart)
CHAT=$(pid_in app-gnome-org.example.Chat)
check "the game ($GAME) and the chat ($CHAT) run in their app scopes" test -n "$GAME" -a -n "$CHAT"
cpu() { inside sh -c "cut -d' ' -f1 /proc/$1/schedstat" || echo gone; }
stopped() { local a b; a=$(cpu "$1"); sleep 0.3; b=$(cpu "$1"); [ "$a" != gone ] && [ "$a" = "$b" ]; }
running() { local a b; a=$(cpu "$1"); sleep 0.3; b=$(cpu "$1"); [ "$a" != gone ] && [ "$b" != gone ] && [ "$a" != "$b" ]; }
LOG=$U/screentimed.log
EVENTS=$U/.local/state
as_user sh -c "dbus-monitor --address unix:path=/run/user/2001/bus \"interface='org.freedesktop.Notifications'\" \
    > $U/notifications.log 2>&1 & echo \$! > $U/monitor.pid"
# The desktop's notification server; a person presses the second button ("OK") of Barebones' first shield.
gcc -O1 -o "$WORK/notification-server" "$HERE/fixtures/notification-server.c" $(pkg-config --cflags --libs libsystemd)
as_user systemd-run --user --quiet --unit=notification-server \
    /bin/sh -c "exec $WORK/notification-server 'Barebones: focus time' extra-time > $U/shown.log"
start_daemon() {
    as_user systemd-run --user --quiet --unit=screentimed -p Type=notify \
        /bin/sh -c "exec $BIN/screentimed --client-minimum-interval 10 --log-level debug 2>>$LOG"
}
start_daemon
T_DAEMON=$(date +%s.%N)
check "the daemon runs" wait_for 5 as_user systemctl --user is-active --quiet screentimed

# screentime pick: non-interactive and on a terminal; the apps decode what it prints.
as_user sh -c "$BIN/screentime pick --app supertuxkart > $U/game.json"
as_user sh -c "$BIN/screentime pick --app org.example.Chat --category social > $U/chat.json"
as_user sh -c "$BIN/screentime pick --category education > $U/education.json"
check "pick --app prints one application token" jq -e '.applicationTokens | length == 1' <<<"$(inside cat $U/game.json)"
check "pick --app --category prints an app and a category" \
    jq -e '(.applicationTokens | length == 1) and (.categoryTokens | length == 1)' <<<"$(inside cat $U/chat.json)"
as_user sh -c "printf 'tux\n1\ndone\n' | script -qec '$BIN/screentime pick' /dev/null > $U/interactive.out"
GAME_TOKEN=$(inside cat $U/game.json | jq -r '.applicationTokens[0]')
check "the interactive picker chooses the searched app (the token of --app)" inside grep -q "$GAME_TOKEN" $U/interactive.out \
    || inside tail -5 $U/interactive.out
set +e; as_user "$BIN/screentime" pick --category gamez > /dev/null 2> "$WORK/pick.err"; PICK=$?; set -e
check "pick refuses an unknown category and lists the known ones (status $PICK)" sh -c \
    "[ $PICK -ne 0 ] && grep -q 'no category \"gamez\": use one of games' $WORK/pick.err"

# Start the four apps, each in its own scope, as a person would from the menu.
T_HOMEWORK=$(date +%s.%N)
as_app org.example.Homework "$EXAMPLES/Homework" start --selection $U/game.json --threshold 12 --warning 6 > "$WORK/homework.out" 2>&1
check "Homework starts monitoring (completion-handler authorization approved)" grep -q 'monitoring daily' "$WORK/homework.out"
as_app org.example.Streaks "$EXAMPLES/Streaks" start --task play --kind increase --selection $U/game.json \
    --goal 5 --interval 40 --warning 2 > "$WORK/streaks.out" 2>&1
as_app org.example.Streaks "$EXAMPLES/Streaks" start --task rest --kind decrease --selection $U/education.json \
    --goal 5 --interval 12 --warning 2 >> "$WORK/streaks.out" 2>&1
check "Streaks starts two tasks" test "$(grep -c 'started' "$WORK/streaks.out")" = 2
as_app org.example.Barebones "$EXAMPLES/Barebones" start --selection $U/chat.json --in 3 --for 12 > "$WORK/barebones.out" 2>&1
check "Barebones schedules its focus" grep -q 'focus scheduled' "$WORK/barebones.out"
set +e
as_app org.example.Streaks "$EXAMPLES/Streaks" start --task short --kind decrease --selection $U/game.json \
    --goal 5 --interval 5 > "$WORK/short.out" 2>&1
set -e
check "a schedule under the daemon's minimum interval is refused (intervalTooShort)" grep -q 'interval is 5s, shorter than the minimum of 10s' "$WORK/short.out" \
    || { cat "$WORK/short.out"; false; }
as_app org.example.Homework "$EXAMPLES/Homework" status > "$WORK/status1.out" 2>&1
check "a second process of Homework sees the activity with its event" grep -q 'activity daily: homework after 12 s' "$WORK/status1.out"
check "Streaks' activities are not Homework's" sh -c "! grep -q 'play' $WORK/status1.out"

# Barebones: the chat is shielded during the focus with the app's own text, and released after it.
check "Barebones' monitor shields the chat when the focus starts" wait_for 8 stopped "$CHAT"
check "the shield notification carries Barebones' own text" wait_for 3 inside grep -q 'Barebones: focus time' $U/notifications.log
check "Barebones' shield action extension answers the pressed button (secondary: defer)" \
    wait_for 5 inside grep -q 'shield action secondaryButtonPressed: defer' $EVENTS/barebones/events.log
check "the deferred shield is shown again" wait_for 3 inside sh -c "[ \$(grep -c 'Barebones: focus time' $U/shown.log) -ge 2 ]"
check "the chat stays shielded after the answer" stopped "$CHAT"
check "Streaks: the increase task warns before its goal" wait_for 8 inside grep -q 'play warning' $EVENTS/streaks/events.log
check "Streaks: the increase task completes at its goal" wait_for 5 inside grep -q 'play complete' $EVENTS/streaks/events.log
check "Homework's monitor extension ran for the warning" wait_for 10 inside grep -q 'warning homework' $EVENTS/homework/events.log
wait_for 15 stopped "$GAME" || true
T_SHIELD=$(date +%s.%N)
AFTER=$(awk -v a="$T_HOMEWORK" -v b="$T_SHIELD" 'BEGIN{printf "%.1f", b-a}')
echo "game shielded $AFTER s after Homework started monitoring (threshold 12 s)"
check "Homework's extension shields the game at the threshold, within 1 s (12 s <= $AFTER s <= 14.5 s)" \
    awk -v t="$AFTER" 'BEGIN{exit !(t >= 12 && t <= 14.5)}'
check "the extension's store is Homework's (threshold line)" inside grep -q 'threshold homework: shielded 1 apps' $EVENTS/homework/events.log
# ScreenTimeSample: the game's use of the day, through DeviceActivityResults, against the time it was in front:
# from the daemon's start to the shield (time in front of a shielded app is not use).
# The game sends a notification, as a GTK app does (with its desktop-entry hint): it counts for the game.
as_app supertuxkart busctl --user call -- org.freedesktop.Notifications /org/freedesktop/Notifications \
    org.freedesktop.Notifications Notify 'susssasa{sv}i' SuperTuxKart 0 '' 'Race won' 'You came first' 0 \
    1 desktop-entry s supertuxkart -1 >/dev/null
as_app org.example.ScreenTimeSample "$EXAMPLES/ScreenTimeSample" data > "$WORK/data.out" 2>&1 || true
REPORTED=$(awk '$1 == "app" && $2 == "supertuxkart" {print $3}' "$WORK/data.out" | head -1)
USED=$(awk -v a="$T_DAEMON" -v b="$T_SHIELD" 'BEGIN{printf "%.1f", b-a}')
echo "game: ${REPORTED:-no} s of use reported by DeviceActivityResults, in front $USED s until the shield"
check "DeviceActivityResults lists the game's use of the day within 3 s (${REPORTED:-none} s for $USED s)" \
    awk -v r="${REPORTED:--100}" -v s="$USED" 'BEGIN{d = r - s; exit !(d >= -3 && d <= 3)}'
check "the game's category comes with it" grep -q 'app supertuxkart .* category Games' "$WORK/data.out"
check "every app is named, also programs no desktop entry describes" sh -c "grep -q '^app ' '$WORK/data.out' && ! grep -q '^app ? \|category ?\$' '$WORK/data.out'"
game_notified() {
    as_app org.example.ScreenTimeSample "$EXAMPLES/ScreenTimeSample" data 2>&1 | tee "$WORK/notified.out" |
        grep -q 'app supertuxkart .* notifications 1 category'
}
check "the game's notification is counted for it (numberOfNotifications), the daemon's own are not" wait_for 5 game_notified
grep '^app supertuxkart' "$WORK/notified.out" || true
check "Streaks: the decrease task completes when its interval ends" wait_for 10 inside grep -q 'rest complete' $EVENTS/streaks/events.log
check "Barebones releases the chat when the focus ends" wait_for 12 running "$CHAT"

# The shield holds over a daemon restart and reads back from the store; clearing releases.
as_user systemctl --user stop screentimed
start_daemon
check "the daemon restarts" wait_for 5 as_user systemctl --user is-active --quiet screentimed
check "the game stays shielded over the restart" stopped "$GAME"
as_app org.example.Homework "$EXAMPLES/Homework" status > "$WORK/status2.out" 2>&1
check "Homework reads its shield back from its store" grep -q 'shielded 1' "$WORK/status2.out"
as_app org.example.Homework "$EXAMPLES/Homework" clear > /dev/null 2>&1
check "clearing Homework's store releases the game" wait_for 3 running "$GAME"
as_app org.example.Homework "$EXAMPLES/Homework" block > "$WORK/block.out" 2>&1
check "a blocked application is counted" grep -q 'blocked 1' "$WORK/block.out"
check "the blocked game stops running within a tick" wait_for 2 stopped "$GAME"
as_app org.example.Homework "$EXAMPLES/Homework" clear > /dev/null 2>&1
as_app org.example.Homework "$EXAMPLES/Homework" status > "$WORK/status3.out" 2>&1
check "clearing the store clears the blocked applications" grep -q 'blocked 0' "$WORK/status3.out"
check "the unblocked game runs again" wait_for 3 running "$GAME"

as_app org.example.ScreenTimeSample "$EXAMPLES/ScreenTimeSample" show > "$WORK/show.out" 2>&1 || true
check "the report extension renders the total activity" grep -Eq '^Total Activity: [0-9]+ s' "$WORK/show.out"
check "the report extension renders the top apps with the game" grep -Eq '^  SuperTuxKart: [0-9]+ s' "$WORK/show.out"

as_user systemctl --user stop screentimed || true
inside sh -c "kill \$(cat $U/monitor.pid)" || true
summary
