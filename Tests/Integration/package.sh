#!/usr/bin/env bash
# The Debian package as a guardian installs it: lintian finds no error in dist/screentime_VERSION_ARCH.deb (built by
# scripts/build-deb.sh unless SCREENTIME_DEB names one), and `apt-get install` of it in a booted systemd with a real
# logind (logind-sandbox.sh) gives the binaries of its version, the man pages, the units, a system unit whose
# `systemd-analyze security` exposure is at most 3.0, a guardian daemon that stays down without a policy and is
# ready once /etc/screentime/default.toml exists, its name on the system bus, a refused policy explained by the
# journal's catalog, and a removal that stops it; and guardian shields a limited user cannot undo or sidestep.
# Needs root (the container, apt inside it).
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$HERE/lib.sh"
[ "$(id -u)" = 0 ] || { echo "package: needs root (apt in a logind container)"; exit 1; }
DEB=${SCREENTIME_DEB:-}
if [ -z "$DEB" ]; then
    "$ROOT/scripts/build-deb.sh" >&2 || { echo "package: building the .deb failed"; exit 1; }
    version=$(dpkg-parsechangelog -l "$ROOT/packaging/debian/changelog" -S Version)
    DEB=$ROOT/dist/screentime_${version}_$(dpkg-architecture -qDEB_HOST_ARCH).deb
fi
DEB=$(realpath "$DEB")
VERSION=$(dpkg-deb -f "$DEB" Version)
check "lintian reports no error" lintian --fail-on error "$DEB"
echo "package: $(basename "$DEB"), $(du -k "$DEB" | cut -f1) KiB"

start_sandbox stpkg 2
# The host's policy-rc.d (which forbids maintainer scripts to start services on it) reaches the container through its
# overlay; the container is a booted system where the package's scripts must act as on a guardian's machine.
inside rm -f /usr/sbin/policy-rc.d
inside env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$DEB" > "$WORK/apt.log" 2>&1
check "apt-get installs the package" test "$(inside dpkg-query -W -f='${Status}' screentime)" = "install ok installed"
check "screentime --version is the package's version" test "$(inside screentime --version)" = "$VERSION"
check "screentimed --version is the package's version" test "$(inside screentimed --version)" = "$VERSION"
for page in screentime.1 screentimed.8 screentime-policy.5; do
    check "man -w finds $page" inside man -w "${page##*.}" "${page%.*}"
    check "$page renders without warnings" test -z "$(inside sh -c "man --warnings ${page##*.} ${page%.*} 2>&1 >/dev/null")"
done
check "the system unit is installed" inside test -f /usr/lib/systemd/system/screentimed.service
check "the user unit starts /usr/bin/screentimed" \
    inside grep -qx 'ExecStart=/usr/bin/screentimed' /usr/lib/systemd/user/screentimed.service
check "the D-Bus system policy is installed" inside test -f /usr/share/dbus-1/system.d/org.screentime.ScreenTime1.conf
check "bash and zsh completions are installed" inside test -s /usr/share/bash-completion/completions/screentime \
    -a -s /usr/share/zsh/vendor-completions/_screentime
check "the example policy is valid" inside screentime policy check --file /usr/share/doc/screentime/examples/policy.toml
check "the path unit is enabled" inside systemctl -q is-enabled screentimed.path
check "the agent is enabled for every user's session" inside systemctl --global -q is-enabled screentime-agent.service
exposure=$(inside systemd-analyze security --no-pager screentimed.service | awk '/Overall exposure level/ {print $(NF - 2)}')
echo "systemd-analyze security screentimed.service: $exposure"
check "the system unit's exposure is at most 3.0" awk -v e="$exposure" 'BEGIN { exit !(e != "" && e <= 3.0) }'

# Without a policy nothing runs; with one, the path unit starts the daemon, which is ready (Type=notify) at once.
sleep 1
check "without a policy the guardian daemon is not running" test "$(inside systemctl is-active screentimed.service)" = inactive
# A policy of limits only: the example's bedtime downtime would shield everything the child runs in the evening.
LIMITS='always_allowed = ["org.gnome.Calculator"]\n[[limit]]\nname = "games"\napps = ["supertuxkart"]\ndaily = "1h"\n'
inside sh -c "printf '$LIMITS' > /etc/screentime/default.toml"
check "with /etc/screentime/default.toml it starts and is ready" wait_for 15 inside systemctl -q is-active screentimed.service
check "it runs in guardian mode as root" \
    inside sh -c 'journalctl -q -o cat -u screentimed.service | grep -q "ready .* ms after exec"'
check "it owns org.screentime.ScreenTime1 on the system bus" wait_for 5 inside busctl --system status org.screentime.ScreenTime1

# The guardian's view: root asks for one user's status (sbuser1 logged in, in a graphical session whose focus the
# daemon can't read, so every app of the session counts); that user may not ask for another's.
"$SANDBOX" session "$NAME" --user sbuser1 --x11 --display :75 -- sleep infinity >/dev/null
check "root's status --user names the user's limits" \
    wait_for 5 inside sh -c 'screentime status --user sbuser1 | grep -q "sbuser1: limit "'
check "a user asking for another user's status is refused (exit 4)" \
    sh -c "$SANDBOX run $NAME -- runuser -u sbuser1 -- screentime status --user root >/dev/null 2>&1; [ \$? = 4 ]"
# Apple's .child authorization: an app of the child (Examples' Homework, built by `make test`), with no daemon of the
# child's own running, reaches the guardian's and is approved; root is nobody's child.
HOMEWORK=$ROOT/Examples/.build/debug/Homework
check "a child's app is approved as .child by the guardian daemon" sh -c \
    "timeout 60 $SANDBOX run $NAME -- runuser -u sbuser1 -- env XDG_RUNTIME_DIR=/run/user/2001 \
    DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/2001/bus $HOMEWORK authorize --child 2>&1 | grep -q 'authorized: approved'"
check "root's .child authorization is refused" sh -c "! timeout 60 $SANDBOX run $NAME -- $HOMEWORK authorize --child >/dev/null 2>&1"
check "a limited user's screentime extra is refused by the guardian daemon, with the reason" \
    sh -c "$SANDBOX run $NAME -- runuser -u sbuser1 -- screentime extra --minutes 5 2>&1 | grep -q 'ask them for more time'"

# Shields the child cannot undo: a 5 s freeze limit on the game, started by the child's desktop in an app scope of
# their own user manager. The guardian daemon moves it into a scope of the system manager in user-UID.slice and
# freezes that: the child can neither write its cgroup.freeze nor move the game out, and SIGCONT buys nothing.
# The child's own policy, /etc/screentime/users/sbuser1.toml (root's), with a monitor extension that records whom it
# runs as; the default policy exempts sbuser2.
cat > "$WORK/st-extension" <<'EXT'
#!/bin/sh
echo "$(id -u) $*" >> /tmp/st-extension.log
EXT
inside install -m 755 "$WORK/st-extension" /usr/local/bin/st-extension
inside sh -c 'printf "always_allowed = [\"org.gnome.Calculator\"]\n[[limit]]\nname = \"games\"\napps = [\"supertuxkart\"]\ndaily = \"20s\"\nshield = \"freeze\"\nextension = \"/usr/local/bin/st-extension\"\n" \
    > /etc/screentime/users/sbuser1.toml'
inside sh -c 'printf "exempt = [\"sbuser2\"]\n[[limit]]\nname = \"everything\"\ndaily = \"1h\"\n" > /etc/screentime/default.toml'
check "policy check --system names whom each file covers" inside sh -c \
    'out=$(screentime policy check --system) && echo "$out" | grep -q "users/sbuser1.toml: covers sbuser1$" && echo "$out" | grep -q "except sbuser2: " && ! echo "$out" | grep -q "except sbuser2: .*sbuser"'
as_child() {
    inside runuser -u sbuser1 -- env XDG_RUNTIME_DIR=/run/user/2001 DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/2001/bus "$@"
}
as_child env GAME_MODE=busy systemd-run --user --scope --quiet --unit=app-gnome-supertuxkart-4242.scope \
    "$WORK/supertuxkart" >/dev/null 2>&1 &
GAME=""
wait_for 10 sh -c "[ -n \"\$($SANDBOX run $NAME -- pgrep -u sbuser1 -x supertuxkart)\" ]" || true
GAME=$(inside pgrep -u sbuser1 -x supertuxkart | head -1)
check "the child's game runs in their user manager's app scope" \
    inside grep -q 'user@2001.service/app.slice/app-gnome-supertuxkart-4242.scope' "/proc/${GAME:-0}/cgroup"
game_cgroup() { inside sh -c "sed -n 's/^0:://p' /proc/${GAME:-0}/cgroup"; }
guarded() { game_cgroup | grep -q '^/user.slice/user-2001.slice/app-screentime-supertuxkart-.*\.scope$'; }
# The agent in the child's session, with a notification server that presses the shield's secondary button ("Ask for
# more time") as the child would: the agent files a request. Stopped once the shield is on, it takes nothing away.
gcc -O1 -o "$WORK/notification-server" "$HERE/fixtures/notification-server.c" $(pkg-config --cflags --libs libsystemd)
as_child systemd-run --user --quiet --unit=notification-server \
    /bin/sh -c "exec $WORK/notification-server 'Time limit reached' extra-time > /home/sbuser1/shown.log"
as_child sh -c 'exec screentime agent > /home/sbuser1/agent.log 2>&1' &
# Listeners on the system bus: another user (sbuser2, no administrator) and root, a guardian. The daemon's signals
# go only to the connections of whom they concern: sbuser2 hears neither the child's shield nor their request.
inside sh -c 'runuser -u sbuser2 -- timeout 300 dbus-monitor --system "type=signal,sender=org.screentime.ScreenTime1" > /tmp/sibling.log 2>&1 &'
inside sh -c 'timeout 300 gdbus monitor --system --dest org.screentime.ScreenTime1 > /tmp/guardian.log 2>&1 &'
check "the child's agent runs" wait_for 5 sh -c "[ -n \"\$($SANDBOX run $NAME -- pgrep -u sbuser1 -f 'screentime agent')\" ]"
check "at the limit the game is moved into a root-owned scope of user-2001.slice" wait_for 40 guarded
SCOPE=/sys/fs/cgroup$(game_cgroup)
check "that scope is frozen" wait_for 3 inside grep -qx 'frozen 1' "$SCOPE/cgroup.events"
check "the scope belongs to root" test "$(inside stat -c %U "$SCOPE/cgroup.freeze")" = root
check "the child cannot thaw it (cgroup.freeze)" sh -c "! $SANDBOX run $NAME -- runuser -u sbuser1 -- sh -c 'echo 0 > $SCOPE/cgroup.freeze' 2>/dev/null"
check "the child cannot move the game out of it" sh -c \
    "! $SANDBOX run $NAME -- runuser -u sbuser1 -- sh -c 'echo $GAME > /sys/fs/cgroup/user.slice/user-2001.slice/user@2001.service/app.slice/cgroup.procs' 2>/dev/null"
ticks() { inside awk '{print $14 + $15}' "/proc/${GAME:-0}/stat"; }
BEFORE=$(ticks)
as_child sh -c 'end=$(($(date +%s) + 3)); while [ $(date +%s) -lt $end ]; do kill -CONT '"${GAME:-0}"'; sleep 0.01; done' || true
AFTER=$(ticks)
echo "game under a 3 s SIGCONT loop: $((AFTER - BEFORE)) ticks"
check "a 3 s SIGCONT loop gets the game no CPU (<= 5 ticks)" test $((AFTER - BEFORE)) -le 5
check "status --user shows the child's limit shielded" inside sh -c 'screentime status --user sbuser1 | grep -q "sbuser1: limit games: .*SHIELDED"'
AGENT=$(inside pgrep -u sbuser1 -f 'screentime agent' | head -1)
inside kill "${AGENT:-0}"
sleep 1
check "stopping the child's agent leaves the game frozen" inside grep -qx 'frozen 1' "$SCOPE/cgroup.events"
check "the agent showed the shield in the child's session" inside grep -q 'Time limit reached: games' /home/sbuser1/shown.log
check "its Ask for more time button filed a request" \
    inside sh -c 'screentime requests | grep -q "sbuser1  15 min  waiting  \"asked from the shield of games\""'
check "the policy's extension ran as the child, never as root" inside sh -c \
    'grep -q "^2001 --callback eventDidReachThreshold --activity limit.games" /tmp/st-extension.log && ! grep -q "^0 " /tmp/st-extension.log'
inside systemctl restart screentimed.service
sleep 2
check "the game stays frozen over a restart of the guardian daemon" inside grep -qx 'frozen 1' "$SCOPE/cgroup.events"
# A policy the child owns is refused: the last good one stays in force.
inside chown sbuser1 /etc/screentime/users/sbuser1.toml
inside touch /etc/screentime/users/sbuser1.toml
check "a child-owned policy is refused, and status says why" \
    wait_for 10 inside sh -c 'screentime status --system | grep -q "sbuser1.toml.*belongs to uid 2001, not root"'
sleep 1
check "the game stays frozen under the refused policy" inside grep -qx 'frozen 1' "$SCOPE/cgroup.events"
inside chown root /etc/screentime/users/sbuser1.toml
# An editor that saves by moving the file aside and writing it anew: its limits hold through the gap (without the
# grace the default policy, whose limit is far off, would cover the child for that second and thaw the game).
sleep 1
BEFORE=$(ticks)
inside sh -c 'cd /etc/screentime/users && mv sbuser1.toml .sbuser1.toml.swp && sleep 1 && cp -p .sbuser1.toml.swp sbuser1.toml && rm .sbuser1.toml.swp'
sleep 1
AFTER=$(ticks)
echo "game while its policy file was missing for 1 s: $((AFTER - BEFORE)) ticks in 2 s"
check "a policy file missing for 1 s while an editor writes it keeps the game frozen (<= 2 ticks)" test $((AFTER - BEFORE)) -le 2
check "the journal says the missing file's limits stay for now" \
    inside journalctl -q -u screentimed.service --grep 'a policy file is missing: its limits stay in force'
# The game's identity rests on what it runs, not on names the child gives: started in a scope named after the
# always-allowed calculator, through the dynamic loader, as a copy under another name (also through the loader: the
# guardian reads the program it maps), in a sandbox that names the calculator, or with its main thread exited while
# another plays on (its own exe and command line read as nothing), it is the game, and frozen within a second or so.
LOADER=$(inside sh -c 'ls /lib64/ld-linux-*.so.* /lib/ld-linux-*.so.* 2>/dev/null | head -1')
as_child env GAME_MODE=busy systemd-run --user --scope --quiet --unit=app-gnome-org.gnome.Calculator-77.scope \
    "$WORK/supertuxkart" >/dev/null 2>&1 &
as_child env GAME_MODE=busy "$LOADER" "$WORK/supertuxkart" >/dev/null 2>&1 &
inside install -m 755 "$WORK/supertuxkart" /usr/local/bin/notes
as_child env GAME_MODE=busy /usr/local/bin/notes >/dev/null 2>&1 &
as_child env GAME_MODE=busy "$LOADER" /usr/local/bin/notes >/dev/null 2>&1 &
as_child env GAME_MODE=busy GAME_LEADERLESS=1 "$WORK/supertuxkart" >/dev/null 2>&1 &
# A sandbox of the child's own, made as flatpak makes one, whose /.flatpak-info names the always-allowed calculator.
printf '[Application]\nname=org.gnome.Calculator\n\n[Instance]\napp-path=/var/lib/flatpak/app/org.gnome.Calculator/x86_64/stable/0/files\n' \
    > "$WORK/flatpak-info"
inside install -d -o sbuser1 /home/sbuser1/sandboxed
inside install -m 755 -o sbuser1 "$WORK/supertuxkart" /home/sbuser1/sandboxed/calculator
as_child env GAME_MODE=busy bwrap --ro-bind /usr /usr --symlink usr/lib /lib --symlink usr/lib64 /lib64 \
    --symlink usr/bin /bin --proc /proc --dev /dev --ro-bind /home/sbuser1/sandboxed /app \
    --ro-bind "$WORK/flatpak-info" /.flatpak-info /app/calculator >/dev/null 2>&1 &
newer_games() {
    inside pgrep -u sbuser1 -x supertuxkart | grep -vx "$GAME"; inside pgrep -u sbuser1 -f "^$LOADER"
    inside pgrep -u sbuser1 -x notes; inside pgrep -u sbuser1 -x calculator
}
started_as() {
    local line; line=$(inside cat "/proc/$1/cmdline" | tr '\0' ' ')
    echo "${line:-supertuxkart with its main thread exited}" | cut -c1-60
}
# Frozen within a tick of their start: from 1.5 s on they get no CPU.
sleep 1.5
for pid in $(newer_games | sort -u); do
    cgroup=$(inside sh -c "sed -n 's/^0:://p' /proc/$pid/task/*/cgroup" | sort -u | tr '\n' ' ')
    before=$(inside awk '{print $14 + $15}' "/proc/$pid/stat"); sleep 1; after=$(inside awk '{print $14 + $15}' "/proc/$pid/stat")
    echo "new game $pid ($(started_as "$pid")): $((after - before)) ticks in 1 s, in $cgroup"
    check "a game started as $(started_as "$pid") is frozen" test $((after - before)) -le 1
done
check "all six new games were seen" test "$(newer_games | sort -u | wc -l)" -ge 6
# The one whose main thread exited: moved (its running thread; the exited one stays where it was) and frozen there.
LEADERLESS=$(for pid in $(newer_games | sort -u); do inside awk '$3 == "Z" {print $1}' "/proc/$pid/stat"; done | head -1)
THREAD_CGROUP=$(inside sh -c "for t in /proc/${LEADERLESS:-0}/task/*; do [ \$(basename \$t) = ${LEADERLESS:-0} ] || sed -n 's/^0:://p' \$t/cgroup; done" | head -1)
echo "the game whose main thread exited ($LEADERLESS) plays on in $THREAD_CGROUP"
check "the game whose main thread exited was moved into a shield scope, which is frozen" inside sh -c \
    "echo '$THREAD_CGROUP' | grep -q '/app-screentime-supertuxkart-${LEADERLESS:-0}.scope\$' && grep -qx 'frozen 1' '/sys/fs/cgroup$THREAD_CGROUP/cgroup.events'"
inside rm -f /usr/local/bin/notes
# A game started by a launcher of the system's (a desktop entry's script) is that launcher's app, and held as it. The
# child kills the launcher; the game, known by its own program as nothing the policy names, stays frozen over a
# restart of the daemon: its root-owned shield scope says which app it was held as.
inside sh -c 'printf "[Desktop Entry]\nType=Application\nName=Kart Launcher\nExec=/usr/local/bin/kart-launcher\n" \
    > /usr/share/applications/org.example.KartLauncher.desktop'
# Its own program (not a copy of supertuxkart, which the guardian knows by content).
gcc -O2 -o "$WORK/kart-game" "$HERE/fixtures/game.c"
inside install -m 755 "$WORK/kart-game" /usr/local/lib/kart-game
inside sh -c 'printf "#!/bin/sh\nGAME_MODE=busy /usr/local/lib/kart-game &\nsleep 600\n" > /usr/local/bin/kart-launcher && chmod 755 /usr/local/bin/kart-launcher'
inside sed -i 's/^apps = \["supertuxkart"\]$/apps = ["supertuxkart", "org.example.KartLauncher"]/' /etc/screentime/users/sbuser1.toml
sleep 1.5
as_child systemd-run --user --scope --quiet --unit=app-gnome-org.example.KartLauncher-99.scope \
    /usr/local/bin/kart-launcher >/dev/null 2>&1 &
wait_for 5 sh -c "[ -n \"\$($SANDBOX run $NAME -- pgrep -u sbuser1 -x kart-game)\" ]" || true
KART=$(inside pgrep -u sbuser1 -x kart-game | head -1)
kart_ticks() { inside awk '{print $14 + $15}' "/proc/${KART:-0}/stat"; }
kart_scope() { inside sh -c "sed -n 's/^0:://p' /proc/${KART:-0}/cgroup"; }
kart_guarded() { kart_scope | grep -q '^/user.slice/user-2001.slice/app-screentime-org.example.KartLauncher-.*\.scope$'; }
check "a game started by a launcher is moved into a shield scope of the launcher's app" wait_for 5 kart_guarded
LAUNCHER=$(inside pgrep -u sbuser1 -f '^/bin/sh /usr/local/bin/kart-launcher' | head -1)
LAUNCHER_SLEEP=$(inside pgrep -P "${LAUNCHER:-0}" -x sleep | head -1)
as_child kill -9 "${LAUNCHER:-0}" || true
inside systemctl restart screentimed.service
sleep 3
BEFORE=$(kart_ticks); sleep 2; AFTER=$(kart_ticks)
echo "launched game, its launcher killed, 3 s after a restart: $((AFTER - BEFORE)) ticks in 2 s, in $(kart_scope)"
check "its launcher killed, it gets <= 1 tick in 2 s at 3 s after a restart" test $((AFTER - BEFORE)) -le 1
check "its scope is still frozen" inside grep -qx 'frozen 1' "/sys/fs/cgroup$(kart_scope)/cgroup.events"
inside kill -9 "${KART:-0}" "${LAUNCHER_SLEEP:-0}" 2>/dev/null || true
# A genuine flatpak of the system's installation (/var/lib/flatpak, root's) on a system runtime, in a sandbox made as
# flatpak makes it: its /.flatpak-info names the app, and the guardian daemon (under its unit's seccomp filter) holds
# it as that app.
FLAT_APP=/var/lib/flatpak/app/org.example.FlatKart/x86_64/stable/0123abcd/files
FLAT_RUNTIME=/var/lib/flatpak/runtime/org.example.Platform/x86_64/1/4567ef01/files
gcc -static -O1 -o "$WORK/flatkart" "$HERE/fixtures/game.c"
inside install -D -m 755 "$WORK/flatkart" "$FLAT_APP/bin/flatkart"
inside install -d "$FLAT_RUNTIME/bin"
printf '[Application]\nname=org.example.FlatKart\nruntime=runtime/org.example.Platform/x86_64/1\n\n[Instance]\napp-path=%s\nruntime-path=%s\n' \
    "$FLAT_APP" "$FLAT_RUNTIME" > "$WORK/flatkart-info"
inside sed -i 's/^apps = \["supertuxkart", "org.example.KartLauncher"\]$/apps = ["supertuxkart", "org.example.KartLauncher", "org.example.FlatKart"]/' \
    /etc/screentime/users/sbuser1.toml
sleep 1.5
as_child env GAME_MODE=busy bwrap --ro-bind "$FLAT_APP" /app --ro-bind "$FLAT_RUNTIME" /usr --proc /proc --dev /dev \
    --ro-bind "$WORK/flatkart-info" /.flatpak-info /app/bin/flatkart >/dev/null 2>&1 &
wait_for 5 sh -c "[ -n \"\$($SANDBOX run $NAME -- pgrep -u sbuser1 -x flatkart)\" ]" || true
FLATKART=$(inside pgrep -u sbuser1 -x flatkart | head -1)
# guarded_as PID APP: whether the process is in a root-owned shield scope of APP in the child's slice.
guarded_as() {
    inside sh -c "sed -n 's/^0:://p' /proc/${1:-0}/cgroup" |
        grep -q "^/user.slice/user-2001.slice/app-screentime-$2-.*\.scope$"
}
# scope_frozen PID: whether the process's cgroup is frozen (the move into a shield scope comes before its freeze).
scope_frozen() { inside grep -qx 'frozen 1' "/sys/fs/cgroup$(inside sh -c "sed -n 's/^0:://p' /proc/${1:-0}/cgroup")/cgroup.events"; }
# ticks_in_1s PID: clock ticks (1/100 s) of CPU the process gets in 1 s.
ticks_in_1s() {
    local before; before=$(inside awk '{print $14 + $15}' "/proc/${1:-0}/stat"); sleep 1
    echo $(($(inside awk '{print $14 + $15}' "/proc/${1:-0}/stat") - before))
}
check "a genuine system flatpak named in the limit is held as its app" \
    wait_for 5 guarded_as "${FLATKART:-0}" org.example.FlatKart
check "its scope is frozen" wait_for 3 scope_frozen "${FLATKART:-0}"
N=$(ticks_in_1s "${FLATKART:-0}"); echo "system flatpak, held: $N ticks in 1 s"
check "and gets <= 1 tick in 1 s" test "$N" -le 1
FLAT_BWRAP=$(inside ps -o ppid= -p "${FLATKART:-0}" | tr -d ' ')
inside kill -9 "${FLATKART:-0}" "${FLAT_BWRAP:-0}" 2>/dev/null || true
# A game the child runs in a rootless container of theirs (a user namespace made with their subordinate ids, as
# podman makes one), under a uid of no account: still the child's, moved into a shield scope of their slice.
inside usermod --add-subuids 400000-465535 --add-subgids 400000-465535 sbuser1
as_child env GAME_MODE=busy unshare --map-auto --setuid 0 --setgid 0 "$WORK/supertuxkart" >/dev/null 2>&1 &
contained() { inside sh -c 'for p in $(pgrep -x supertuxkart); do [ "$(stat -c %u /proc/$p)" -ge 100000 ] && echo $p; done; true' | head -1; }
wait_for 5 sh -c "[ -n \"\$($(declare -f inside contained); SANDBOX=$SANDBOX NAME=$NAME; contained)\" ]" || true
CONTAINED=$(contained)
check "a game runs in the child's rootless container ($CONTAINED)" test -n "$CONTAINED"
check "a game in the child's rootless container is moved into a shield scope of their slice" \
    wait_for 5 guarded_as "${CONTAINED:-0}" supertuxkart
check "its scope is frozen" wait_for 3 scope_frozen "${CONTAINED:-0}"
N=$(ticks_in_1s "${CONTAINED:-0}"); echo "game in a rootless container, held: $N ticks in 1 s"
check "and gets <= 1 tick in 1 s" test "$N" -le 1
[ -z "$CONTAINED" ] || inside kill -9 "$CONTAINED" 2>/dev/null || true

# Asking for more time: the child asks, cannot answer their own request (polkit wants an administrator), nor lift the
# limit with extra; root sees the request and approves it, and the game runs again.
check "the child asks for more time" sh -c "$SANDBOX run $NAME -- runuser -u sbuser1 -- screentime ask --minutes 2 homework | grep -q '^request 2:'"
check "root's screentime requests lists it" inside sh -c 'screentime requests | grep -q "sbuser1  2 min  waiting  \"homework\""'
check "the request is in the journal with its MESSAGE_ID" \
    wait_for 5 inside journalctl -q -u screentimed.service MESSAGE_ID=d97d22e9d30f46c282cf15e11f909bb4 --grep 'more time asked for'
check "a guardian's connection hears the request filed" \
    wait_for 5 inside sh -c 'grep RequestFiled /tmp/guardian.log | grep -q homework'
check "another user's connection hears what is for everyone (PropertiesChanged)" \
    inside grep -q PropertiesChanged /tmp/sibling.log
check "another user's connection hears neither the child's shield nor their request" \
    inside sh -c '! grep -E "RequestFiled|Notification|homework|Time limit" /tmp/sibling.log'
check "a user who is no guardian lists only their own requests" \
    sh -c "[ \"\$($SANDBOX run $NAME -- runuser -u sbuser2 -- screentime requests --json | jq length)\" = 0 ]"
check "the child's own approve --all is refused" sh -c "! $SANDBOX run $NAME -- runuser -u sbuser1 -- screentime approve --all 2>/dev/null"
check "the child's extra is refused" sh -c "! $SANDBOX run $NAME -- runuser -u sbuser1 -- screentime extra --minutes 5 2>/dev/null"
sleep 1
check "the game is still frozen" inside grep -qx 'frozen 1' "$SCOPE/cgroup.events"
check "root approves every waiting request" inside sh -c 'screentime approve --all | grep -q "request 1 of sbuser1: approved, 15 more minutes"'
BEFORE=$(ticks); sleep 2; AFTER=$(ticks)
echo "game after the approval: $((AFTER - BEFORE)) ticks in 2 s"
check "the approved request lets the game run" test $((AFTER - BEFORE)) -ge 50
check "the request shows approved" inside sh -c 'screentime requests | grep -q "approved, 15 min"'

# A refused policy: its journal entry carries a MESSAGE_ID that the catalog explains.
inside sh -c 'printf "[[limit]]\nname = \"games\"\ndaily = \"0s\"\n" > /etc/screentime/default.toml'
refused=f4789abd80854b44863ad88db589d382
check "a refused policy is logged with its MESSAGE_ID" \
    wait_for 10 inside journalctl -q -u screentimed.service "MESSAGE_ID=$refused" --grep refused
check "journalctl --catalog explains it" \
    inside sh -c "journalctl -q --catalog -u screentimed.service MESSAGE_ID=$refused | grep -q 'The previous policy stays in'"

# A policy another user could write is refused, however valid, and policy check --system says why.
inside sh -c "printf '$LIMITS' > /etc/screentime/default.toml && chmod 666 /etc/screentime/default.toml"
check "a policy others can write is refused by the guardian daemon, which says why in status" \
    wait_for 10 inside sh -c 'screentime status --system | grep -q "writable by its group or by everyone"'
check "policy check --system refuses it with the fix" \
    inside sh -c 'screentime policy check --system 2>&1 | grep -q "chmod 644 /etc/screentime/default.toml"'
inside chmod 644 /etc/screentime/default.toml
check "policy check --system names the users the default policy covers" \
    inside sh -c 'screentime policy check --system | grep -q "covers every regular user"'
inside rm -f /etc/screentime/users/sbuser1.toml
check "without the child's own policy the default covers them" \
    inside sh -c 'screentime policy check --system | grep -Eq "default.toml: covers every regular user .*: (.*, )?sbuser1(,|$)"'

# A user's own daemon holds apps too (its state file lists a process of theirs it stopped): removing the package
# releases them.
inside systemd-run --quiet --uid=sbuser1 --unit=own-game /bin/sleep 1000
OWN=$(inside systemctl show -p MainPID --value own-game.service)
inside kill -STOP "$OWN"
OWN_START=$(inside awk '{print $22}' "/proc/$OWN/stat")
inside runuser -u sbuser1 -- sh -c "mkdir -p /home/sbuser1/.local/state/screentime && printf '%s' \
    '{\"version\":1,\"apps\":[{\"app\":\"own-game\",\"frozen\":[],\"stopped\":[{\"pid\":$OWN,\"startTime\":$OWN_START}]}]}' \
    > /home/sbuser1/.local/state/screentime/enforcement.json"
check "the user's own shielded process is stopped before the removal" \
    test "$(inside awk '{print $3}' "/proc/$OWN/stat")" = T

inside env DEBIAN_FRONTEND=noninteractive apt-get remove -y -q screentime >> "$WORK/apt.log" 2>&1
check "removing the package stops the daemon" test "$(inside systemctl is-active screentimed.service)" != active
check "removing the package releases what a user's own daemon held" \
    wait_for 3 sh -c "[ \"\$($SANDBOX run $NAME -- awk '{print \$3}' /proc/$OWN/stat)\" != T ]"
# Installed again over the configuration the removal kept: the agent runs in sessions again.
inside env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$DEB" >> "$WORK/apt.log" 2>&1
check "installed again after a removal, the agent is enabled again" \
    inside systemctl --global -q is-enabled screentime-agent.service
inside env DEBIAN_FRONTEND=noninteractive apt-get purge -y -q screentime >> "$WORK/apt.log" 2>&1
check "purging the package disables the agent" \
    sh -c "! $SANDBOX run $NAME -- systemctl --global -q is-enabled screentime-agent.service"
summary
