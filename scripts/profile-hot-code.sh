#!/usr/bin/env bash
# Regenerates scripts/hot-code.order, the functions the daemon's loop runs, which release builds place together at
# the start of the code (lld --symbol-ordering-file): a tick then touches a few dozen pages of code instead of pages
# scattered over 20 MB, which keeps the daemon's resident memory and its cache and TLB misses down. Run it (as root,
# with perf) after changes to the loop's code; a stale list costs memory, never correctness.
#
# It runs the daemon benchmark with a tick every millisecond (the loop's work a thousand times a second, a game
# counted then shielded) under `perf record`, while short-lived processes start and exit as on a desktop (so that
# reading and resolving new processes is placed with the rest), and lists every function of the binary seen on a
# sampled stack, most often seen first.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v perf >/dev/null || { echo "profile-hot-code: needs perf (apt-get install linux-perf)" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "profile-hot-code: needs root (the daemon benchmark signals another user's game)" >&2; exit 1; }
scripts/build-release.sh --scratch-path .build-release --product DaemonBenchmark >&2
binary=$(readlink -f .build-release/release/DaemonBenchmark)
work=$(mktemp -d)
churn=
trap 'if [ -n "$churn" ]; then kill "$churn" 2>/dev/null; wait "$churn" 2>/dev/null; fi; rm -rf "$work"' EXIT
(while :; do /bin/true; sleep 0.02; done) &
churn=$!
BENCH_TICK_MS=1 perf record -q -F 5000 -g -o "$work/perf.data" -- "$binary" 20 >&2
perf script -i "$work/perf.data" --no-demangle -F ip,sym,dso 2>/dev/null |
    awk -v binary="$binary" 'index($0, binary) && $2 != "[unknown]" { print $2 }' |
    sed 's/+0x[0-9a-f]*$//' | sort | uniq -c | sort -rn | awk '{ print $2 }' > scripts/hot-code.order
echo "profile-hot-code: $(wc -l < scripts/hot-code.order) functions in scripts/hot-code.order" >&2
