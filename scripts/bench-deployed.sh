#!/usr/bin/env bash
# The daemon as users run it (scripts/deployed-scenario.sh: the release build behind the shipped user unit in a real
# logind session, a notification server, 1,000 live processes of which 50 are replaced each second, a game in front
# and one frozen at its limit). Prints:
#   daemon.deployed_rss_mib       VmRSS after the CPU window
#   daemon.deployed_pss_mib       Pss from smaps_rollup, same moment
#   daemon.deployed_cpu_percent   of one core, utime+stime over BENCH_SECONDS (default 60)
#   daemon.kill9_lost_seconds     (wall-clock run - use counted by `status --json`) / kills, over BENCH_KILLS kill -9
#   daemon.ready_ms               median of "ready N ms after exec" over the restarts of the soak
# Needs root and a release build in .build-release (scripts/run-benchmarks.sh builds it).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${SCREENTIME_BIN_DIR:-$ROOT/.build-release/release}
SECONDS_WINDOW=${BENCH_SECONDS:-60}
KILLS=${BENCH_KILLS:-20}
. "$ROOT/scripts/deployed-scenario.sh"
deployed_scenario_up stbench
as_user systemctl --user daemon-reload
as_user systemctl --user start screentimed.service
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
deployed_scenario_stop
