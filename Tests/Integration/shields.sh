#!/usr/bin/env bash
# Shields that hold, with the shipped user unit (systemd/screentimed.service, ExecStart=%h/.local/bin/screentimed)
# in a real logind session: three games under a 20 s limit — A in its own app scope (frozen), B in the login session's
# scope (SIGSTOP, rechecked every 100 ms), C in a plain service of the user manager (moved into a scope of its own,
# then frozen) — and D, started in the session by a launcher whose app it inherits, and which the user kills once D
# is held (with E, likewise started, under a limit far off, which it still counts toward after the restart). Asserts that the shields hold over `systemctl --user restart`, `kill -9` (Restart=always), a stop,
# a garbage database and a SIGCONT from the user; that a SIGCONT loop gets B terminated; that the unit is ready within
# 300 ms of exec; that only `screentime stop --release` thaws; and that a downtime holds launched apps only.
# Needs root, a debug build (`swift build`), gcc and jq.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$HERE/lib.sh"
BIN=${SCREENTIME_BIN_DIR:-$ROOT/.build/debug}
LIMIT=20
[ -x "$BIN/screentimed" ] || { echo "missing $BIN/screentimed: run swift build first"; exit 2; }
start_sandbox stshield 1
as_user() {
    inside runuser -u sbuser1 -- env XDG_RUNTIME_DIR=/run/user/2001 \
        DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/2001/bus HOME=/home/sbuser1 "$@"
}
# The shipped unit, as `make install-user` installs it (binaries linked rather than copied).
as_user mkdir -p /home/sbuser1/.local/bin /home/sbuser1/.config/systemd/user /home/sbuser1/.config/screentime
as_user ln -sf "$BIN/screentimed" "$BIN/screentime" /home/sbuser1/.local/bin/
inside install -o sbuser1 -m 0644 "$ROOT/systemd/screentimed.service" /home/sbuser1/.config/systemd/user/
as_user sh -c 'cat > /home/sbuser1/.config/screentime/policy.toml' <<POL
[[limit]]
name = "games"
apps = ["supertuxkart", "org.example.KartLauncher"]
daily = "${LIMIT}s"
[[limit]]
name = "launched"
apps = ["org.example.OtherLauncher"]
daily = "1h"
POL
# Game D: started in the session by a launcher of the user's (a desktop entry's script), whose app it inherits.
as_user mkdir -p /home/sbuser1/.local/share/applications
as_user sh -c 'printf "[Desktop Entry]\nType=Application\nName=Kart Launcher\nExec=/home/sbuser1/kart-launcher\n" \
    > /home/sbuser1/.local/share/applications/org.example.KartLauncher.desktop'
inside install -o sbuser1 -m 755 "$WORK/supertuxkart" /home/sbuser1/kart-game
as_user sh -c 'printf "#!/bin/sh\nGAME_MODE=busy /home/sbuser1/kart-game &\nsleep 600\n" > /home/sbuser1/kart-launcher && chmod 755 /home/sbuser1/kart-launcher'
# Game E likewise, from another launcher, under a limit far off: it counts toward it, also after a restart.
as_user sh -c 'printf "[Desktop Entry]\nType=Application\nName=Other Launcher\nExec=/home/sbuser1/other-launcher\n" \
    > /home/sbuser1/.local/share/applications/org.example.OtherLauncher.desktop'
inside install -o sbuser1 -m 755 "$WORK/supertuxkart" /home/sbuser1/other-game
as_user sh -c 'printf "#!/bin/sh\n/home/sbuser1/other-game &\nsleep 600\n" > /home/sbuser1/other-launcher && chmod 755 /home/sbuser1/other-launcher'
# Game F: run by the user in a rootless container of theirs (a user namespace made with their subordinate ids,
# /etc/subuid, as podman makes one), under a uid of no account.
inside usermod --add-subuids 400000-465535 --add-subgids 400000-465535 sbuser1
# Game G: in the session, its main thread exited while another plays on (its own exe and cmdline read as nothing).
SID=$("$SANDBOX" session "$NAME" --user sbuser1 --x11 --display :72 -- bash -c \
    "GAME_MODE=busy $WORK/supertuxkart & /home/sbuser1/kart-launcher & /home/sbuser1/other-launcher &
     GAME_MODE=busy unshare --map-auto --setuid 0 --setgid 0 $WORK/supertuxkart &
     GAME_MODE=busy GAME_LEADERLESS=1 $WORK/supertuxkart & sleep infinity")
as_user GAME_MODE=busy systemd-run --user --scope --quiet --unit=app-gnome-supertuxkart-77.scope \
    "$WORK/supertuxkart" >/dev/null 2>&1 &
as_user systemd-run --user --quiet --unit=game-service -E GAME_MODE=busy "$WORK/supertuxkart"
# The game in cgroup $1 whose main thread runs (state $2, default: any other than Z).
pid_in() { inside sh -c "for p in \$(pgrep -u sbuser1 -x supertuxkart); do grep -q '$1' /proc/\$p/task/*/cgroup && awk '{exit !(\$3 ${2:-!= \"Z\"})}' /proc/\$p/stat && echo \$p; done; true" | head -1; }
wait_for 10 sh -c "[ -n \"\$($(declare -f inside pid_in); SANDBOX=$SANDBOX NAME=$NAME; pid_in game-service)\" ]" || true
GAME_A=$(pid_in app-gnome-supertuxkart-77.scope)
GAME_B=$(pid_in "session-$SID.scope")
GAME_G=$(pid_in "session-$SID.scope" '== "Z"')
check "a game whose main thread exited runs in the session ($GAME_G)" test -n "$GAME_G"
GAME_F=$(inside sh -c 'for p in $(pgrep -x supertuxkart); do [ "$(stat -c %u /proc/$p)" -ge 100000 ] && echo $p; done; true' | head -1)
check "a game runs in the session under a subordinate id ($GAME_F)" test -n "$GAME_F"
GAME_C=$(pid_in game-service.service)
check "three games run: own scope ($GAME_A), session ($GAME_B), user service ($GAME_C)" \
    test -n "$GAME_A" -a -n "$GAME_B" -a -n "$GAME_C"
GAME_D=$(inside pgrep -u sbuser1 -x kart-game | head -1)
LAUNCHER=$(inside pgrep -u sbuser1 -f '^/bin/sh /home/sbuser1/kart-launcher' | head -1)
check "a fourth, started by a launcher, runs in the session ($GAME_D)" test -n "$GAME_D" -a -n "$LAUNCHER"
OTHER_LAUNCHER=$(inside pgrep -u sbuser1 -f '^/bin/sh /home/sbuser1/other-launcher' | head -1)
ticks() { inside awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo gone; }
# Clock ticks (1/100 s) of CPU a process gets over SECONDS.
ticks_over() { local a b; a=$(ticks "$1"); sleep "$2"; b=$(ticks "$1"); [ "$a" = gone ] || [ "$b" = gone ] && { echo gone; return; }; echo $((b - a)); }
held() { local n; n=$(ticks_over "$1" 0.5); [ "$n" != gone ] && [ "$n" -le 1 ]; }
all_held() { held "$GAME_A" && held "$GAME_B" && held "$GAME_C"; }
main_pid() { as_user systemctl --user show -p MainPID --value screentimed.service; }
journal() { inside journalctl -q -o cat _UID=2001 --no-pager 2>/dev/null | grep -a "$@"; }

T0=$(date +%s)
as_user systemctl --user daemon-reload
as_user systemctl --user start screentimed.service
check "the shipped unit starts (Type=notify)" as_user systemctl --user is-active --quiet screentimed.service
check "all three games are held at the limit" wait_for $((LIMIT + 15)) all_held
echo "held $(( $(date +%s) - T0 )) s after the start (limit $LIMIT s)"
check "game D, known by its launcher's app, is held" wait_for 3 held "${GAME_D:-0}"
check "game F, in the user's rootless container, is held" wait_for 3 held "${GAME_F:-0}"
check "game G, whose main thread exited, is held" wait_for 3 held "${GAME_G:-0}"
# The user kills the launchers: games D and E had their apps from them alone.
GAME_E=$(inside pgrep -u sbuser1 -x other-game | head -1)
LAUNCHER_SLEEPS=$(inside sh -c "pgrep -P ${LAUNCHER:-0} -x sleep; pgrep -P ${OTHER_LAUNCHER:-0} -x sleep" | tr '\n' ' ')
inside runuser -u sbuser1 -- kill -9 "${LAUNCHER:-0}" "${OTHER_LAUNCHER:-0}"
check "game C was moved into a scope of its own, which is frozen" inside sh -c \
    "grep -q 'app-screentime-supertuxkart-$GAME_C.scope' /proc/$GAME_C/cgroup && \
     grep -q 'frozen 1' /sys/fs/cgroup\$(sed -n 's/^0:://p' /proc/$GAME_C/cgroup)/cgroup.events"
# Its user moves game A out of its frozen scope into a cgroup of their own tree (theirs to rearrange).
APP_SLICE=/sys/fs/cgroup/user.slice/user-2001.slice/user@2001.service/app.slice
as_user sh -c "mkdir $APP_SLICE/escape && echo $GAME_A > $APP_SLICE/escape/cgroup.procs"
check "game A, moved by its user out of its frozen scope, is held again within 2 s" wait_for 3 held "$GAME_A"
check "game A was then moved into a scope of its own" inside grep -q "app-screentime-supertuxkart-$GAME_A.scope" \
    "/proc/$GAME_A/cgroup"
as_user systemctl --user restart screentimed.service
sleep 3
# The first start of a debug build reads its binary from disk; a restart is what a kill or a crash costs.
READY=$(journal -o 'ready [0-9]* ms after exec' | tail -1 | awk '{print $2}')
echo "ready ${READY:-?} ms after exec"
# The 300 ms target is the release build's (make bench: daemon.ready_ms); a debug build is slower.
check "a restarted (debug) daemon is ready within 1 s of exec" test "${READY:-9999}" -le 1000
N=$(ticks_over "$GAME_A" 2); echo "game A after restart: $N ticks in 2 s"
check "3 s after a restart game A gets <= 1 tick in 2 s" test "$N" != gone -a "$N" -le 1
check "3 s after a restart games B and C are held" sh -c "$(declare -f inside ticks ticks_over held); SANDBOX=$SANDBOX NAME=$NAME; held $GAME_B && held $GAME_C"
check "3 s after a restart game D, whose launcher is gone, is held" held "${GAME_D:-0}"
check "3 s after a restart game F, in the user's rootless container, is held" held "${GAME_F:-0}"
inside kill -9 "${GAME_D:-0}" 2>/dev/null || true
launched_used() { as_user /home/sbuser1/.local/bin/screentime status --json 2>/dev/null | jq '[.rows[] | select(.name == "launched") | .usedSeconds] | max // 0 | floor'; }
U0=$(launched_used); sleep 3; U1=$(launched_used)
echo "limit launched after a restart: ${U0:-?} s, 3 s later ${U1:-?} s"
check "after a restart game E, whose launcher is gone, still counts toward its limit" test "$((${U1:-0} - ${U0:-0}))" -ge 2
# Gone before the downtime below, which would hold them as launched apps.
inside kill -9 ${GAME_E:-} ${GAME_F:-} $LAUNCHER_SLEEPS 2>/dev/null || true

OLD=$(main_pid)
inside kill -9 "$OLD"
sleep 4
N=$(ticks_over "$GAME_A" 2); echo "game A after kill -9: $N ticks in 2 s"
check "the unit restarted the daemon after kill -9" test "$(main_pid)" != "$OLD" -a "$(main_pid)" != 0
check "4 s after kill -9 game A gets <= 1 tick in 2 s" test "$N" != gone -a "$N" -le 1
USED=$(as_user /home/sbuser1/.local/bin/screentime status --json 2>/dev/null | jq '[.rows[] | select(.name == "games") | .usedSeconds] | max // 0' || echo 0)
echo "status: games used $USED s"
check "status shows the use (>= $LIMIT s) after restart and kill -9" test "${USED%.*}" -ge "$LIMIT"

inside runuser -u sbuser1 -- kill -CONT "$GAME_B"
N=$(ticks_over "$GAME_B" 2); echo "game B after one SIGCONT: $N ticks in 2 s"
check "one SIGCONT gives game B <= 12 ticks" test "$N" != gone -a "$N" -le 12
inside runuser -u sbuser1 -- kill -CONT "$GAME_A"
N=$(ticks_over "$GAME_A" 2)
check "SIGCONT buys the frozen game A nothing ($N ticks)" test "$N" != gone -a "$N" -le 1
inside sh -c "for i in \$(seq 30); do kill -CONT $GAME_B 2>/dev/null || break; sleep 0.2; done" || true
check "a SIGCONT loop gets game B terminated" wait_for 5 sh -c "! $SANDBOX run $NAME -- test -e /proc/$GAME_B"
# Held by SIGSTOP, game G is watched through the thread that plays: its main thread's run time stands still.
inside runuser -u sbuser1 -- kill -CONT "${GAME_G:-0}"
N=$(ticks_over "${GAME_G:-0}" 2); echo "game G after one SIGCONT: $N ticks in 2 s"
check "one SIGCONT gives game G, whose main thread exited, <= 12 ticks" test "$N" != gone -a "$N" -le 12
inside sh -c "for i in \$(seq 30); do kill -CONT ${GAME_G:-0} 2>/dev/null || break; sleep 0.2; done" || true
check "a SIGCONT loop gets game G terminated" wait_for 5 sh -c "! $SANDBOX run $NAME -- test -e /proc/${GAME_G:-0}"
check "the escalation is logged" journal -q 'shield escalated'

as_user systemctl --user stop screentimed.service
sleep 2
check "with the service stopped game A stays frozen" held "$GAME_A"
check "with the service stopped game C stays frozen" held "$GAME_C"

# A garbage database: kept aside, and the daemon starts and enforces.
as_user sh -c 'head -c 65536 /dev/urandom > /home/sbuser1/.local/state/screentime/usage.sqlite'
as_user systemctl --user start screentimed.service
check "with a garbage database the daemon starts" as_user systemctl --user is-active --quiet screentimed.service
check "the garbage database is kept aside" inside sh -c 'ls /home/sbuser1/.local/state/screentime/usage.sqlite.broken-* >/dev/null'
check "the daemon enforces with a fresh database" held "$GAME_A"

as_user systemctl --user stop screentimed.service
check "screentime stop --release succeeds with the service already stopped" as_user /home/sbuser1/.local/bin/screentime stop --release
check "stop --release thaws game A" wait_for 3 sh -c "[ \$($(declare -f inside ticks ticks_over); SANDBOX=$SANDBOX NAME=$NAME; ticks_over $GAME_A 0.5) -gt 10 ]"
check "stop --release thaws game C" wait_for 3 sh -c "[ \$($(declare -f inside ticks ticks_over); SANDBOX=$SANDBOX NAME=$NAME; ticks_over $GAME_C 0.5) -gt 10 ]"

# A downtime in force holds the apps the person launched (the game, now with a desktop entry shown in menus), never
# the desktop's own processes or a program known only by its file name (a busy helper service), nor the daemon.
as_user mkdir -p /home/sbuser1/.local/share/applications
as_user sh -c "printf '[Desktop Entry]\nType=Application\nName=SuperTuxKart\nExec=$WORK/supertuxkart\nCategories=Game;\n' \
    > /home/sbuser1/.local/share/applications/supertuxkart.desktop"
inside cp "$WORK/supertuxkart" "$WORK/session-helper"
as_user systemd-run --user --quiet --unit=session-helper -E GAME_MODE=busy "$WORK/session-helper"
HELPER=$(inside pgrep -u sbuser1 -x session-helper | head -1)
# A game of the user's own (a copy in their home, as a download would be), started without a desktop entry.
as_user cp "$WORK/supertuxkart" /home/sbuser1/homegame
as_user systemd-run --user --quiet --unit=homegame -E GAME_MODE=busy /home/sbuser1/homegame
HOMEGAME=$(inside pgrep -u sbuser1 -x homegame | head -1)
as_user sh -c 'cat > /home/sbuser1/.config/screentime/policy.toml' <<POL
[[downtime]]
name = "now"
start = "$(inside date -d '-1 min' +%H:%M)"
end = "$(inside date -d '+30 min' +%H:%M)"
POL
# Bounded: a downtime that froze the desktop's own processes (D-Bus, the service manager) would hang the start.
check "under a downtime the service starts" as_user timeout 20 systemctl --user start screentimed.service
check "under a downtime the launched game A is held" wait_for 10 held "$GAME_A"
check "under a downtime a program of the user's own is held" wait_for 5 held "${HOMEGAME:-0}"
check "under a downtime a program known only by its file name runs on" \
    sh -c "[ \$($(declare -f inside ticks ticks_over); SANDBOX=$SANDBOX NAME=$NAME; ticks_over ${HELPER:-0} 0.5) -gt 10 ]"
check "under a downtime no process of the user is stopped (state T)" \
    sh -c "! $SANDBOX run $NAME -- ps -o stat= -u sbuser1 | grep -q '^T'"
check "under a downtime the daemon answers" as_user timeout 10 /home/sbuser1/.local/bin/screentime status
as_user /home/sbuser1/.local/bin/screentime stop --release >/dev/null 2>&1 || true
journal -E 'limit|shield|enforce|database|ready' | tail -n 15 || true
summary
