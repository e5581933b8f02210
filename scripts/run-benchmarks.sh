#!/usr/bin/env bash
# Builds the benchmarks in release mode (as installed, see build-release.sh) and runs them; each prints
# `<metric> <value> <unit>` lines. Exits non-zero when a benchmark fails or prints no figure. As root it also measures
# the daemon as deployed (scripts/bench-deployed.sh: the shipped unit in a real logind session).
set -euo pipefail
cd "$(dirname "$0")/.."
for product in CollectorBenchmark EngineBenchmark DaemonBenchmark ReportBenchmark screentimed screentime; do
    scripts/build-release.sh --scratch-path .build-release --product "$product" >&2
done
failed=()
run() {  # run NAME COMMAND...: runs a benchmark, passes its figures on, and notes a failure or an empty output
    local name=$1; shift
    local output
    if ! output=$("$@"); then failed+=("$name (exit status)"); fi
    printf '%s\n' "$output"
    grep -qE '^[a-z_]+\.[a-z0-9_]+ -?[0-9.]+ ' <<<"$output" || failed+=("$name (no figure)")
    if grep -qE '^[a-z_]+\.[a-z0-9_]+ nan ' <<<"$output"; then failed+=("$name (a figure not measured)"); fi
}
run collector .build-release/release/CollectorBenchmark 1000 10
run engine .build-release/release/EngineBenchmark
if [ "$(id -u)" = 0 ]; then
    # The daemon benchmark's game runs as a regular account: a guardian's default policy covers no system account.
    # Made for the run and removed on exit, also when its creation fails halfway.
    trap 'PATH=$PATH:/usr/sbin:/sbin userdel --remove stbenchgame 2>/dev/null || true' EXIT
    account=$(sh Tests/Integration/desktop/test-user.sh stbenchgame)
    run daemon env BENCH_GAME_USER="${account%%:*}" .build-release/release/DaemonBenchmark
else
    failed+=("daemon (needs root: a game run as another user)")
fi
# A year of synthetic use in a ledger file; `screentime report` as installed, started anew for each run.
run report .build-release/release/ReportBenchmark .build-release/release/screentime
if [ "$(id -u)" = 0 ]; then
    run deployed scripts/bench-deployed.sh
else
    failed+=("deployed (needs root: logind in a container)")
fi
if [ ${#failed[@]} -gt 0 ]; then
    echo "benchmarks failed: ${failed[*]}" >&2
    exit 1
fi
