#!/usr/bin/env bash
# The daemon as users run it: the release build behind the shipped user unit (systemd/screentimed.service) in a real
# logind session (Tests/Integration/logind-sandbox.sh), with a notification server on the user's bus, 1,000 live
# processes of which 50 exit and are replaced each second, a game used in front under a 10 h limit and a second game
# frozen at a 5 s limit. Prints:
#   daemon.deployed_rss_mib       VmRSS after the CPU window
#   daemon.deployed_pss_mib       Pss from smaps_rollup, same moment
#   daemon.deployed_cpu_percent   of one core, utime+stime over BENCH_SECONDS (default 60)
#   daemon.kill9_lost_seconds     (wall-clock run - use counted by `status --json`) / kills, over BENCH_KILLS kill -9
#   daemon.ready_ms               median of "ready N ms after exec" over the restarts of the soak
# Needs root and a release build in .build-release (scripts/run-benchmarks.sh builds it).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
HERE=$ROOT/Tests/Integration
. "$HERE/lib.sh"
BIN=${SCREENTIME_BIN_DIR:-$ROOT/.build-release/release}
SECONDS_WINDOW=${BENCH_SECONDS:-60}
KILLS=${BENCH_KILLS:-20}
[ "$(id -u)" = 0 ] || { echo "bench-deployed: needs root (logind in a container)" >&2; exit 2; }
[ -x "$BIN/screentimed" ] || { echo "bench-deployed: missing $BIN/screentimed" >&2; exit 2; }
start_sandbox stbench 1 >&2
gcc -O1 -o "$WORK/notification-server" "$HERE/fixtures/notification-server.c" $(pkg-config --cflags --libs libsystemd)
cp "$WORK/supertuxkart" "$WORK/blocked-game"
as_user() {
    inside runuser -u sbuser1 -- env XDG_RUNTIME_DIR=/run/user/2001 \
        DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/2001/bus HOME=/home/sbuser1 "$@"
}
as_user mkdir -p /home/sbuser1/.local/bin /home/sbuser1/.config/systemd/user /home/sbuser1/.config/screentime
as_user ln -sf "$BIN/screentimed" "$BIN/screentime" /home/sbuser1/.local/bin/
inside install -o sbuser1 -m 0644 "$ROOT/systemd/screentimed.service" /home/sbuser1/.config/systemd/user/
as_user sh -c 'cat > /home/sbuser1/.config/screentime/policy.toml' <<'POL'
[[limit]]
name = "games"
apps = ["supertuxkart"]
daily = "10h"
warning = "5m"
[[limit]]
name = "blocked"
apps = ["blocked-game"]
daily = "5s"
POL
# The session: a game in front (sleeping, so its CPU doesn't disturb the figures) and one frozen at its limit.
"$SANDBOX" session "$NAME" --user sbuser1 --x11 --display :73 -- bash -c \
    "$WORK/supertuxkart & GAME_MODE=busy $WORK/blocked-game & sleep infinity" >/dev/null
as_user systemd-run --user --quiet --unit=notification-server "$WORK/notification-server"
# 1,000 processes; each second the 50 oldest exit and 50 new ones start.
as_user systemd-run --user --quiet --unit=churn /bin/bash -c '
    pids=(); for i in $(seq 1000); do sleep 100000 & pids+=($!); done
    while :; do
        kill "${pids[@]:0:50}"; wait "${pids[@]:0:50}" 2>/dev/null; pids=("${pids[@]:50}")
        for i in $(seq 50); do sleep 100000 & pids+=($!); done
        sleep 1
    done'
as_user systemctl --user daemon-reload
as_user systemctl --user start screentimed.service
main_pid() { as_user systemctl --user show -p MainPID --value screentimed.service; }
cpu_ticks() { inside awk '{print $14 + $15}' "/proc/$1/stat"; }
used() { as_user /home/sbuser1/.local/bin/screentime status --json | jq '[.rows[] | select(.name == "games") | .usedSeconds] | max'; }
sleep 10   # the blocked game reaches its limit; start-up settles
PID=$(main_pid)
A=$(cpu_ticks "$PID"); T_A=$(date +%s.%N)
sleep "$SECONDS_WINDOW"
B=$(cpu_ticks "$PID"); T_B=$(date +%s.%N)
RSS=$(inside awk '/^VmRSS/ {print $2}' "/proc/$PID/status")
PSS=$(inside awk '/^Pss:/ {print $2}' "/proc/$PID/smaps_rollup")
awk -v a="$A" -v b="$B" -v s="$T_A" -v e="$T_B" 'BEGIN{printf "daemon.deployed_cpu_percent %.4f %%\n", (b - a) / 100 / (e - s) * 100}'
awk -v k="$RSS" 'BEGIN{printf "daemon.deployed_rss_mib %.2f MiB\n", k / 1024}'
awk -v k="$PSS" 'BEGIN{printf "daemon.deployed_pss_mib %.2f MiB\n", k / 1024}'

# kill -9 soak: Restart=always brings it back; what was counted before each kill must survive it.
U0=$(used); T0=$(date +%s.%N)
for _ in $(seq "$KILLS"); do
    inside kill -9 "$(main_pid)"
    sleep 2.5
done
sleep 1
U1=$(used); T1=$(date +%s.%N)
awk -v u0="$U0" -v u1="$U1" -v t0="$T0" -v t1="$T1" -v k="$KILLS" \
    'BEGIN{printf "daemon.kill9_lost_seconds %.3f s\n", ((t1 - t0) - (u1 - u0)) / k}'
inside journalctl -q -o cat _UID=2001 --no-pager | grep -ao 'ready [0-9]* ms after exec' | awk '{print $2}' |
    tail -n "$KILLS" | sort -n | awk '{v[NR] = $1} END {printf "daemon.ready_ms %d ms\n", v[int((NR + 1) / 2)]}'
as_user systemctl --user stop churn.service screentimed.service notification-server.service >/dev/null 2>&1 || true
