# Shared helpers for the integration scripts: counting checks, waiting, a summary line.
PASSED=0
FAILED=0
check() {  # check NAME COMMAND... : runs COMMAND, counts a pass or a failure
    local name=$1; shift
    if "$@"; then PASSED=$((PASSED + 1)); echo "ok   - $name"
    else FAILED=$((FAILED + 1)); echo "FAIL - $name"; fi
}
wait_for() {  # wait_for SECONDS COMMAND... : polls every 0.1 s
    local limit=$1; shift; local i=0
    until "$@" >/dev/null 2>&1; do
        sleep 0.1; i=$((i + 1)); [ $i -ge $((limit * 10)) ] && return 1
    done
    return 0
}
summary() {  # prints the closing line and returns non-zero when anything failed
    echo "$PASSED passed, $FAILED failed"
    [ "$FAILED" -eq 0 ]
}
