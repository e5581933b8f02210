#!/usr/bin/env bash
# The release build, as installed and benchmarked: the Swift runtime linked in statically (one file to install, no
# toolchain needed at run time), unused sections dropped, lld's packed relative relocations (DT_RELR) instead of
# 90,000 RELA entries the loader would read at each start, and the functions the daemon runs as deployed placed
# together (scripts/hot-code.order, made by scripts/profile-hot-code.sh). The linker moves sections, not functions:
# without -function-sections the compiler leaves the functions it derives (specializations, coroutine parts, merged
# bodies) in one `.text` per file, which the order can only move whole. Read-only data goes into a read-only segment
# (scripts/read-only-data.ld), where the daemon's memory release can drop what start-up read.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=$PATH:/opt/swift/usr/bin
# SwiftPM does not know the order file and the linker script as inputs of the link: executables linked before their
# last change are removed, so that they are linked again with them. Nor does it plan the build again when only flags
# change (it keeps the build manifest of the last run), and it keeps objects compiled with other flags: when the
# linker's flags differ from the last build's, the manifest and the executables are removed; when the compiler's do,
# everything built.
scratch=.build
for ((i = 1; i < $#; i++)); do
    if [ "${!i}" = --scratch-path ]; then next=$((i + 1)); scratch=${!next}; fi
done
# The package version comes from the newest entry of the Debian changelog: `screentime --version` is the package's.
version=$(sed -n '1s/^[^ ]* (\([^)]*\)).*/\1/p' packaging/debian/changelog)
[ -n "$version" ] || { echo "build-release: no version in packaging/debian/changelog" >&2; exit 1; }
arguments=(-c release --static-swift-stdlib -Xswiftc -use-ld=lld -Xswiftc -Xfrontend -Xswiftc -function-sections
    -Xlinker --gc-sections -Xlinker -z -Xlinker pack-relative-relocs
    -Xlinker --symbol-ordering-file="$PWD/scripts/hot-code.order" -Xlinker --no-warn-symbol-ordering
    -Xcc "-DSCREENTIME_VERSION=\"$version\"")
# scripts/profile-hot-code.sh links without the linker script (SCREENTIME_WRITABLE_RODATA=1): valgrind 3.19 writes into
# the signal mask libdispatch passes to sigsuspend(2), a constant the script puts in read-only memory.
[ "${SCREENTIME_WRITABLE_RODATA:-}" = 1 ] || arguments+=(-Xlinker --script="$PWD/scripts/read-only-data.ld")
arguments+=("$@")
# The product built is not part of the plan; the compiler's part of it leaves out the linker's flags.
plan=$(printf '%s\n' "${arguments[@]}" | sed '/^--product$/{N;d}')
compiling=$(sed '/^-Xlinker$/{N;d}' <<<"$plan")
products="$scratch/$(uname -m)-unknown-linux-gnu/release"
if [ -d "$products" ] && [ "$(cat "$products/.compile-plan" 2>/dev/null)" != "$compiling" ]; then
    rm -rf "$products" "$scratch/release.yaml"
fi
if [ -d "$products" ]; then
    find "$products" -maxdepth 1 -type f -perm -u+x \( ! -newer scripts/hot-code.order -o ! -newer scripts/read-only-data.ld \) \
        -delete
    if [ "$(cat "$products/.plan" 2>/dev/null)" != "$plan" ]; then
        find "$products" -maxdepth 1 -type f -perm -u+x -delete
        rm -f "$scratch/release.yaml"
    fi
fi
swift build "${arguments[@]}"
echo "$plan" > "$products/.plan"
echo "$compiling" > "$products/.compile-plan"
