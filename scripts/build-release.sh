#!/usr/bin/env bash
# The release build, as installed and benchmarked: the Swift runtime linked in statically (one file to install, no
# toolchain needed at run time), unused sections dropped, and lld's packed relative relocations (DT_RELR) instead of
# 90,000 RELA entries the loader would read at each start.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=$PATH:/opt/swift/usr/bin
# SwiftPM does not plan the build again when only flags change (it keeps the build manifest of the last run): the
# manifest is removed when they differ from the last build's.
scratch=.build
for ((i = 1; i < $#; i++)); do
    if [ "${!i}" = --scratch-path ]; then next=$((i + 1)); scratch=${!next}; fi
done
arguments=(-c release --static-swift-stdlib -Xswiftc -use-ld=lld
    -Xlinker --gc-sections -Xlinker -z -Xlinker pack-relative-relocs "$@")
# The product built is not part of the plan.
plan=$(printf '%s\n' "${arguments[@]}" | sed '/^--product$/{N;d}')
products="$scratch/$(uname -m)-unknown-linux-gnu/release"
[ "$(cat "$products/.plan" 2>/dev/null)" = "$plan" ] || rm -f "$scratch/release.yaml"
swift build "${arguments[@]}"
echo "$plan" > "$products/.plan"
