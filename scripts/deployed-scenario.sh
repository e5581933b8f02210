# Sourced by scripts/bench-deployed.sh and scripts/profile-hot-code.sh: the daemon as users run it, the release build
# behind the shipped user unit (systemd/screentimed.service) in a real logind session
# (Tests/Integration/logind-sandbox.sh), with a notification server on the user's bus, 1,000 live processes of which
# 50 exit and are replaced each second, a game used in front under a 10 h limit and a second game frozen at a 5 s
# limit.
#
# deployed_scenario_up PREFIX: boots the sandbox and sets everything up but the daemon; the caller may add a drop-in
# to /home/sbuser1/.config/systemd/user/screentimed.service.d/, then runs `as_user systemctl --user daemon-reload`
# and starts screentimed.service. Needs root, BIN (the folder of screentimed and screentime) and ROOT; sets HERE,
# WORK, NAME, SANDBOX (Tests/Integration/lib.sh), and defines as_user and main_pid.
deployed_scenario_up() {
    HERE=$ROOT/Tests/Integration
    . "$HERE/lib.sh"
    [ "$(id -u)" = 0 ] || { echo "$0: needs root (logind in a container)" >&2; exit 2; }
    [ -x "$BIN/screentimed" ] || { echo "$0: missing $BIN/screentimed" >&2; exit 2; }
    start_sandbox "$1" 1 >&2
    gcc -O1 -o "$WORK/notification-server" "$HERE/fixtures/notification-server.c" $(pkg-config --cflags --libs libsystemd)
    cp "$WORK/supertuxkart" "$WORK/blocked-game"
    as_user mkdir -p /home/sbuser1/.local/bin /home/sbuser1/.config/systemd/user /home/sbuser1/.config/screentime
    as_user ln -sf "$BIN/screentimed" "$BIN/screentime" /home/sbuser1/.local/bin/
    inside install -o sbuser1 -m 0644 "$ROOT/systemd/screentimed.service" /home/sbuser1/.config/systemd/user/
    as_user sh -c 'cat > /home/sbuser1/.config/screentime/policy.toml' <<'POL'
[[limit]]
name = "games"
apps = ["supertuxkart"]
daily = "10h"
warning = "5m"
[[limit]]
name = "blocked"
apps = ["blocked-game"]
daily = "5s"
POL
    # The session: a game in front (sleeping, so its CPU doesn't disturb the figures) and one frozen at its limit.
    "$SANDBOX" session "$NAME" --user sbuser1 --x11 --display :73 -- bash -c \
        "$WORK/supertuxkart & GAME_MODE=busy $WORK/blocked-game & sleep infinity" >/dev/null
    as_user systemd-run --user --quiet --unit=notification-server "$WORK/notification-server"
    # 1,000 processes; each second the 50 oldest exit and 50 new ones start.
    as_user systemd-run --user --quiet --unit=churn /bin/bash -c '
        pids=(); for i in $(seq 1000); do sleep 100000 & pids+=($!); done
        while :; do
            kill "${pids[@]:0:50}"; wait "${pids[@]:0:50}" 2>/dev/null; pids=("${pids[@]:50}")
            for i in $(seq 50); do sleep 100000 & pids+=($!); done
            sleep 1
        done'
}

as_user() {
    inside runuser -u sbuser1 -- env XDG_RUNTIME_DIR=/run/user/2001 \
        DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/2001/bus HOME=/home/sbuser1 "$@"
}

main_pid() { as_user systemctl --user show -p MainPID --value screentimed.service; }

# Stops what deployed_scenario_up started in the user's manager (the sandbox goes when the script exits).
deployed_scenario_stop() {
    as_user systemctl --user stop churn.service screentimed.service notification-server.service >/dev/null 2>&1 || true
}
