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
# The package version comes from the newest entry of the Debian changelog: `screentime --version` is the package's.
version=$(sed -n '1s/^[^ ]* (\([^)]*\)).*/\1/p' packaging/debian/changelog)
[ -n "$version" ] || { echo "build-release: no version in packaging/debian/changelog" >&2; exit 1; }
arguments=(-c release --static-swift-stdlib -Xswiftc -use-ld=lld
    -Xlinker --gc-sections -Xlinker -z -Xlinker pack-relative-relocs -Xcc "-DSCREENTIME_VERSION=\"$version\"" "$@")
# The product built is not part of the plan.
plan=$(printf '%s\n' "${arguments[@]}" | sed '/^--product$/{N;d}')
products="$scratch/$(uname -m)-unknown-linux-gnu/release"
[ "$(cat "$products/.plan" 2>/dev/null)" = "$plan" ] || rm -f "$scratch/release.yaml"
swift build "${arguments[@]}"
echo "$plan" > "$products/.plan"
