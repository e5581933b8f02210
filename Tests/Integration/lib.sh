# Shared helpers for the integration scripts: counting checks, waiting, a summary line, the logind sandbox.
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

# start_sandbox PREFIX USERS: boots a logind sandbox ($NAME, PREFIX and this shell's pid) with USERS users and the
# repository bound in, with a scratch folder $WORK inside the repository holding the test game ($WORK/supertuxkart);
# both are removed when the script exits. Needs HERE and ROOT.
start_sandbox() {
    SANDBOX="$HERE/logind-sandbox.sh"
    NAME=$1$$
    WORK=$ROOT/.build/integration-$NAME
    mkdir -p "$WORK"
    trap '"$SANDBOX" down "$NAME" >/dev/null 2>&1 || true; rm -rf "$WORK"' EXIT
    trap 'exit 130' INT TERM
    gcc -O1 -o "$WORK/supertuxkart" "$HERE/fixtures/game.c"
    chmod 755 "$WORK" "$WORK/supertuxkart"
    "$SANDBOX" up "$NAME" --users "$2" --bind "$ROOT" >/dev/null
}
inside() { "$SANDBOX" run "$NAME" -- "$@"; }  # inside COMMAND...: runs COMMAND in the sandbox
