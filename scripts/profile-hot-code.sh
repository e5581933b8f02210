#!/usr/bin/env bash
# Regenerates scripts/hot-code.order, the functions the daemon's loop runs, which release builds place together at
# the start of the code (lld --symbol-ordering-file): a tick then touches a few dozen pages of code instead of pages
# scattered over 20 MB, which keeps the daemon's resident memory and its cache and TLB misses down. Run it (as root,
# with valgrind and a C compiler) after changes to the loop's code; a stale list costs memory and time, never
# correctness.
#
# It runs the daemon benchmark under callgrind, which sees every function executed (sampling misses the small ones
# run once a tick), and lists:
#   1. the functions of the steady state the benchmark measures (a game shielded among 1,000 other processes), over
#      30 ticks, most executed first;
#   2. then those run only while short-lived processes start and exit as on a desktop (reading and resolving new
#      processes), over 20 more ticks.
# Valgrind 3.19 fails the pidfd system calls; scripts/valgrind-pidfd.c stands in for them in the profiled process.
set -euo pipefail
cd "$(dirname "$0")/.."
for tool in valgrind callgrind_control cc objcopy; do
    command -v "$tool" >/dev/null || { echo "profile-hot-code: needs $tool (apt-get install valgrind gcc binutils)" >&2; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "profile-hot-code: needs root (the daemon benchmark signals another user's game)" >&2; exit 1; }
work=$(mktemp -d)
# The link map tells which input section holds each function (see the end).
scripts/build-release.sh --scratch-path .build-release --product DaemonBenchmark -Xlinker -Map="$work/link.map" >&2
bench=
churn=
cleanup() {
    if [ -n "$churn" ]; then kill "$churn" 2>/dev/null || true; wait "$churn" 2>/dev/null || true; fi
    # The benchmark ends by itself after its window and ends its own processes: waited for, never killed.
    if [ -n "$bench" ]; then wait "$bench" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
cc -shared -fPIC -O2 -o "$work/pidfd.so" scripts/valgrind-pidfd.c -ldl
# Valgrind 3.19 cannot read the DWARF 5 debug information; the symbol table is all it needs.
objcopy --strip-debug .build-release/release/DaemonBenchmark "$work/DaemonBenchmark"
LD_PRELOAD="$work/pidfd.so" valgrind -q --tool=callgrind --demangle=no --callgrind-out-file="$work/callgrind.out" \
    "$work/DaemonBenchmark" 90 >&2 &
bench=$!

# The shield is in force once the game's shell is stopped; the daemon gives back start-up memory ten ticks after start.
for _ in $(seq 300); do
    stopped=$(for pid in $(pgrep -f 'benchgame[.]sh' || true); do awk '$3 == "T" { print }' "/proc/$pid/stat" 2>/dev/null; done)
    [ -n "$stopped" ] && break
    sleep 1
done
[ -n "$stopped" ] || { echo "profile-hot-code: the benchmark's game was never shielded" >&2; exit 1; }
sleep 15
callgrind_control -z "$bench" >/dev/null
sleep 30
callgrind_control -d "$bench" >/dev/null
(while :; do /bin/true; sleep 0.02; done) &
churn=$!
callgrind_control -z "$bench" >/dev/null
sleep 20
callgrind_control -d "$bench" >/dev/null
kill "$churn"
wait "$churn" 2>/dev/null || true
churn=
wait "$bench"
bench=

# Each function's own instruction count in a dump (names are compressed: `fn=(12) name` once, then `fn=(12)`; the
# line after `calls=` is the call's inclusive cost, not the caller's own), most executed first.
functions() {
    awk '
        /^c?fn=\(/ {
            rest = $0; sub(/^c?fn=\(/, "", rest)
            id = rest; sub(/\).*/, "", id)
            name = rest; sub(/^[0-9]+\) ?/, "", name)
            if (name != "") names[id] = name
            if (substr($0, 1, 3) == "fn=") current = names[id]
            next
        }
        /^calls=/ { skip = 1; next }
        /^[0-9+*-]/ {
            if (skip) { skip = 0; next }
            if (current != "") cost[current] += $NF
        }
        END { for (name in cost) if (cost[name] > 0) print cost[name], name }
    ' "$1" | sort -k1,1nr | awk '{ print $2 }'
}
functions "$work/callgrind.out.1" > "$work/steady"
functions "$work/callgrind.out.2" | grep -vxF -f "$work/steady" > "$work/churn" || true
# The linker places whole input sections. Some archives of the toolchain keep hundreds of functions in one large
# `.text` (the standard library's is 1.6 MB): ordered where its first hot function falls, it would split the hot
# code in two. Functions in sections over 64 KiB go last, so that every other hot function lies together before them.
awk '
    function hex(text,    value, i) {
        value = 0
        for (i = 1; i <= length(text); i++) value = value * 16 + index("0123456789abcdef", substr(text, i, 1)) - 1
        return value
    }
    /:\(/ { size = hex($3); next }
    NF == 5 && size > 65536 { print $5 }
' "$work/link.map" | sort -u > "$work/large"
cat "$work/steady" "$work/churn" > "$work/all"
{ grep -vxF -f "$work/large" "$work/all" || true; grep -xF -f "$work/large" "$work/all" || true; } > scripts/hot-code.order
echo "profile-hot-code: $(wc -l < "$work/steady") steady and $(wc -l < "$work/churn") more functions in scripts/hot-code.order," \
    "$(grep -cxF -f "$work/large" scripts/hot-code.order || true) of them placed last (in large sections)" >&2
