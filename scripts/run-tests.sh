#!/usr/bin/env bash
# Runs all tests of a built tree (`swift build --build-tests` first, and `swift build` in Examples for
# Tests/Integration/examples.sh): the Swift test suites, then each
# integration script under Tests/Integration (root only: they boot logind in a container, start X servers,
# compositors and cgroups). Prints one closing line: "N passed, M failed".
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH=$PATH:/opt/swift/usr/bin
failed_suites=()
# The suites that start X servers and compositors run on their own, after the rest, one test at a time: on two
# cores, sharing them with busy-loop and property tests, or with each other, made window managers miss their
# start-up timeouts.
swift test --skip-build --skip 'Focus' 2>&1 | tee .build/unit-tests.log
[ "${PIPESTATUS[0]}" -eq 0 ] || failed_suites+=("swift test")
swift test --skip-build --no-parallel --filter 'Focus' 2>&1 | tee .build/focus-tests.log
[ "${PIPESTATUS[0]}" -eq 0 ] || failed_suites+=("swift test (focus sources)")
passed=0; failed=0
if [ "$(id -u)" = 0 ]; then
    for script in Tests/Integration/*.sh; do
        case $(basename "$script") in lib.sh|logind-sandbox.sh) continue ;; esac
        echo "== $script"
        log=.build/$(basename "$script" .sh).log
        # A check that hangs fails its script after 20 minutes (SIGTERM: the script's traps still clean up) instead
        # of holding CI until its own time limit.
        timeout --kill-after=60s 20m bash "$script" 2>&1 | tee "$log"
        status=${PIPESTATUS[0]}
        [ "$status" -ne 124 ] || echo "$script: still running after 20 minutes, stopped"
        [ "$status" -eq 0 ] || failed_suites+=("$script")
        line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
        if [ -n "$line" ]; then
            passed=$((passed + ${line%% passed*}))
            rest=${line#*, }; failed=$((failed + ${rest%% failed*}))
        else
            failed=$((failed + 1))   # the script stopped before its summary
        fi
    done
elif [ "${CI:-}" = true ]; then
    echo "integration tests cannot run: they need root (logind container, X servers, cgroups)"
    failed_suites+=("integration (not root)")
else
    echo "integration tests not run: they need root (logind container, X servers, cgroups)"
fi
echo "integration: $passed passed, $failed failed"
if [ ${#failed_suites[@]} -gt 0 ]; then
    echo "FAILED: ${failed_suites[*]}"
    exit 1
fi
