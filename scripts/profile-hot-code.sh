#!/usr/bin/env bash
# Regenerates scripts/hot-code.order, the functions the daemon runs as deployed, which release builds place together
# (lld --symbol-ordering-file, see scripts/build-release.sh): the code a tick runs then lies on a few hundred pages
# instead of pages spread over 20 MB, each of which the kernel maps with its neighbours (fault-around, 64 KiB). Run it
# (as root, with valgrind) after changes to what a tick runs; a stale list costs memory, never correctness.
#
# It runs the deployed benchmark's scenario (scripts/deployed-scenario.sh: the shipped user unit in a logind session,
# 1,000 processes of which 50 are replaced each second, a game in front, one held at its limit) with the daemon under
# callgrind, which sees every function executed (sampling misses the small ones run once a tick), and lists those of
# PROFILE_SECONDS once start-up is over, most executed first. The default, 180 s, also catches what runs every minute
# or so: its pages stay resident too, until the loop next gives back what it doesn't use.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
for tool in valgrind callgrind_control cc objcopy; do
    command -v "$tool" >/dev/null || { echo "profile-hot-code: needs $tool (apt-get install valgrind gcc binutils)" >&2; exit 1; }
done
map=$(mktemp)
trap 'rm -f "$map"' EXIT
# The link map tells which input section holds each function (see the end).
SCREENTIME_WRITABLE_RODATA=1 scripts/build-release.sh --scratch-path .build-release --product screentimed \
    -Xlinker -Map="$map" >&2
BIN=$ROOT/.build-release/release
. scripts/deployed-scenario.sh
deployed_scenario_up stprofile
profile=$(mktemp)
trap '"$SANDBOX" down "$NAME" >/dev/null 2>&1 || true; rm -rf "$WORK" "$map" "$profile" "$profile".*' EXIT
cc -shared -fPIC -O2 -o "$WORK/pidfd.so" scripts/valgrind-pidfd.c -ldl
# Valgrind 3.19 cannot read DWARF 5 debug information; the symbol table is all it needs.
objcopy --strip-debug "$(readlink -f "$BIN/screentimed")" "$WORK/screentimed"
chmod 755 "$WORK/pidfd.so" "$WORK/screentimed"
# The shipped unit with the daemon under callgrind, instrumenting nothing until asked (start-up is not profiled);
# valgrind writes the code it translates, which MemoryDenyWriteExecute forbids.
as_user mkdir -p /home/sbuser1/.config/systemd/user/screentimed.service.d
as_user sh -c 'cat > /home/sbuser1/.config/systemd/user/screentimed.service.d/callgrind.conf' <<CONF
[Service]
ExecStart=
ExecStart=/usr/bin/valgrind -q --tool=callgrind --demangle=no --instr-atstart=no --callgrind-out-file=/home/sbuser1/callgrind.out $WORK/screentimed
Environment=LD_PRELOAD=$WORK/pidfd.so
WatchdogSec=0
TimeoutStartSec=300
MemoryMax=infinity
MemoryDenyWriteExecute=no
CONF
as_user systemctl --user daemon-reload
as_user systemctl --user start screentimed.service
# Start-up, the blocked game's limit and the memory release ten ticks in are over well within this, under valgrind.
sleep "${PROFILE_WARMUP:-40}"
as_user callgrind_control -i on >/dev/null
sleep "${PROFILE_SECONDS:-180}"
as_user callgrind_control -d >/dev/null
sleep 2
inside cat /home/sbuser1/callgrind.out.1 > "$profile"
deployed_scenario_stop

# Each function's own instruction count in the dump (names are compressed: `fn=(12) name` once, then `fn=(12)`; the
# line after `calls=` is the call's inclusive cost, not the caller's own), most executed first.
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
' "$profile" | sort -k1,1nr | awk '{ print $2 }' > "$profile.functions"
# The linker places whole input sections. Some archives of the toolchain keep hundreds of functions in one large
# `.text` (the standard library's is 1.6 MB): ordered where its first hot function falls, it would split the hot code
# in two. Functions in sections over 64 KiB go last, so that every other hot function lies together before them.
awk '
    function hex(text,    value, i) {
        value = 0
        for (i = 1; i <= length(text); i++) value = value * 16 + index("0123456789abcdef", substr(text, i, 1)) - 1
        return value
    }
    /:\(/ { size = hex($3); next }
    NF == 5 && size > 65536 { print $5 }
' "$map" | sort -u > "$profile.large"
{
    grep -vxF -f "$profile.large" "$profile.functions" || true
    grep -xF -f "$profile.large" "$profile.functions" || true
} > scripts/hot-code.order
echo "profile-hot-code: $(wc -l < scripts/hot-code.order) functions in scripts/hot-code.order," \
    "$(grep -cxF -f "$profile.large" scripts/hot-code.order || true) of them placed last (in large sections)" >&2
