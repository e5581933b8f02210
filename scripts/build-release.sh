#!/usr/bin/env bash
# The release build, as installed and benchmarked: the Swift runtime linked in statically, unused sections dropped,
# lld's packed relative relocations (DT_RELR) instead of 90,000 RELA entries the loader would read at each start, and
# the functions the daemon's loop runs placed together (scripts/hot-code.order, made by scripts/profile-hot-code.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=$PATH:/opt/swift/usr/bin
# SwiftPM does not know the order file as an input of the link: executables linked before its last change are removed,
# so that they are linked again with it.
scratch=.build
for ((i = 1; i < $#; i++)); do
    if [ "${!i}" = --scratch-path ]; then next=$((i + 1)); scratch=${!next}; fi
done
products="$scratch/$(uname -m)-unknown-linux-gnu/release"
if [ -d "$products" ]; then
    find "$products" -maxdepth 1 -type f -perm -u+x ! -newer scripts/hot-code.order -delete
fi
exec swift build -c release --static-swift-stdlib -Xswiftc -use-ld=lld \
    -Xlinker --gc-sections -Xlinker -z -Xlinker pack-relative-relocs \
    -Xlinker --symbol-ordering-file="$PWD/scripts/hot-code.order" -Xlinker --no-warn-symbol-ordering "$@"
