#!/usr/bin/env bash
# The release build, as installed and benchmarked: the Swift runtime linked in statically, unused sections dropped,
# lld's packed relative relocations (DT_RELR) instead of 90,000 RELA entries the loader would read at each start, and
# the functions the daemon's loop runs placed together (scripts/hot-code.order, made by scripts/profile-hot-code.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=$PATH:/opt/swift/usr/bin
exec swift build -c release --static-swift-stdlib -Xswiftc -use-ld=lld \
    -Xlinker --gc-sections -Xlinker -z -Xlinker pack-relative-relocs \
    -Xlinker --symbol-ordering-file="$PWD/scripts/hot-code.order" -Xlinker --no-warn-symbol-ordering "$@"
