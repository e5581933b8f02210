#!/bin/sh
# Runs GNOME Shell headless (Wayland, no Xwayland) for the focus tests, as the calling (unprivileged) user.
#   gnome-shell-session.sh RUNTIME_DIR SYSTEM_DATA_DIR [USERS_EXTENSIONS_DIR]
# Starts a private stand-in system bus (gnome-shell 43 aborts without one; logind is not needed headless) and a
# private session bus, both without service activation, so that nothing outlives the test (at-spi, dconf and
# friends are not started; settings live in a keyfile). Enables the extensions in SYSTEM_DATA_DIR/gnome-shell/
# extensions (the Screen Time extension and the test helper, installed there as the system's: root's, first in
# XDG_DATA_DIRS), installs those in USERS_EXTENSIONS_DIR as the user's own without enabling them, then execs
# gnome-shell, so that the caller's pid is gnome-shell's. Writes RUNTIME_DIR/session-bus (the session bus address)
# and RUNTIME_DIR/bus-pids (the two dbus-daemon pids, to stop after gnome-shell).
set -eu
runtime=$1
system=$2
own=${3:-}
export XDG_RUNTIME_DIR="$runtime"
export XDG_CONFIG_HOME="$runtime/config"
export XDG_DATA_HOME="$runtime/data"
export XDG_CACHE_HOME="$runtime/cache"
export XDG_DATA_DIRS="$system:/usr/local/share:/usr/share"
export GSETTINGS_BACKEND=keyfile
export NO_AT_BRIDGE=1
mkdir -p "$XDG_DATA_HOME/gnome-shell/extensions" "$XDG_CONFIG_HOME" "$XDG_CACHE_HOME"
[ -z "$own" ] || cp -r "$own"/. "$XDG_DATA_HOME/gnome-shell/extensions/"
enabled=$(ls "$system/gnome-shell/extensions" | sed "s/.*/'&'/" | paste -sd, -)

for bus in system session; do
cat > "$runtime/$bus-bus.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path=$runtime/$bus-bus-socket</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
CONF
done
system=$(dbus-daemon --config-file="$runtime/system-bus.conf" --fork --print-address=1 --print-pid=1)
session=$(dbus-daemon --config-file="$runtime/session-bus.conf" --fork --print-address=1 --print-pid=1)
echo "$system" | sed -n 2p > "$runtime/bus-pids"
echo "$session" | sed -n 2p >> "$runtime/bus-pids"
export DBUS_SYSTEM_BUS_ADDRESS=$(echo "$system" | sed -n 1p)
export DBUS_SESSION_BUS_ADDRESS=$(echo "$session" | sed -n 1p)

gsettings set org.gnome.shell disable-user-extensions false
gsettings set org.gnome.shell enabled-extensions "[$enabled]"
gsettings set org.gnome.shell welcome-dialog-last-shown-version '999'
echo "$DBUS_SESSION_BUS_ADDRESS" > "$runtime/session-bus.tmp"
mv "$runtime/session-bus.tmp" "$runtime/session-bus"
exec gnome-shell --headless --wayland --no-x11 --virtual-monitor 1280x800 --wayland-display=wayland-gnome
