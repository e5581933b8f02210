#!/bin/sh
# Runs KWin headless (kwin_wayland --virtual) for the focus tests, as the calling (unprivileged) user.
#   kwin-session.sh RUNTIME_DIR KWIN_WAYLAND [WRAPPER]
# Like gnome-shell-session.sh: a private session bus without service activation, RUNTIME_DIR/session-bus and
# RUNTIME_DIR/bus-pids for the caller, then exec kwin_wayland so that the caller's pid is KWin's — or, with WRAPPER,
# exec kwin_wayland_wrapper, which makes the Wayland socket and starts KWIN_WAYLAND (found first in PATH) with it, as
# a Plasma session does.
set -eu
runtime=$1
program=$2
wrapper=${3:-}
export XDG_RUNTIME_DIR="$runtime"
export XDG_CONFIG_HOME="$runtime/config"
export XDG_DATA_HOME="$runtime/data"
export XDG_CACHE_HOME="$runtime/cache"
mkdir -p "$XDG_CONFIG_HOME" "$XDG_DATA_HOME" "$XDG_CACHE_HOME"
cat > "$runtime/session-bus.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path=$runtime/session-bus-socket</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
CONF
session=$(dbus-daemon --config-file="$runtime/session-bus.conf" --fork --print-address=1 --print-pid=1)
echo "$session" | sed -n 2p > "$runtime/bus-pids"
export DBUS_SESSION_BUS_ADDRESS=$(echo "$session" | sed -n 1p)
echo "$DBUS_SESSION_BUS_ADDRESS" > "$runtime/session-bus.tmp"
mv "$runtime/session-bus.tmp" "$runtime/session-bus"
export QT_QPA_PLATFORM=wayland KWIN_COMPOSE=Q
# KWIN_WAYLAND: a copy of /usr/bin/kwin_wayland without its file capabilities, which a container may not grant.
if [ -n "$wrapper" ]; then
    PATH="$(dirname "$program"):$PATH" exec "$wrapper" --virtual --no-lockscreen --no-global-shortcuts --socket wayland-kwin
fi
exec "$program" --virtual --no-lockscreen --no-global-shortcuts --socket wayland-kwin
