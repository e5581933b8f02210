#!/usr/bin/env bash
# Builds the benchmarks in release mode (static Swift runtime, as installed) and runs them; each prints
# `<metric> <value> <unit>` lines.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=$PATH:/opt/swift/usr/bin
swift build -c release --static-swift-stdlib -Xlinker --gc-sections --scratch-path .build-release \
    --product CollectorBenchmark >&2
swift build -c release --static-swift-stdlib -Xlinker --gc-sections --scratch-path .build-release --product EngineBenchmark >&2
swift build -c release --static-swift-stdlib -Xlinker --gc-sections --scratch-path .build-release --product DaemonBenchmark >&2
.build-release/release/CollectorBenchmark 1000 10
.build-release/release/EngineBenchmark
.build-release/release/DaemonBenchmark
