#!/usr/bin/env bash
# Builds the benchmarks in release mode (as installed, see build-release.sh) and runs them; each prints
# `<metric> <value> <unit>` lines.
set -euo pipefail
cd "$(dirname "$0")/.."
for product in CollectorBenchmark EngineBenchmark DaemonBenchmark; do
    scripts/build-release.sh --scratch-path .build-release --product "$product" >&2
done
.build-release/release/CollectorBenchmark 1000 10
.build-release/release/EngineBenchmark
.build-release/release/DaemonBenchmark
