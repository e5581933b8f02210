#!/usr/bin/env bash
# Installs the Debian packages the project needs, only when some are missing.
#   install-deps.sh build   what building needs (C libraries' -dev packages)
#   install-deps.sh deb     that, plus what building and checking the Debian package needs
#   install-deps.sh test    all of that, plus what the tests run against (logind in a container, X11, sway, D-Bus,
#                           Chromium drawing the report page)
set -euo pipefail
BUILD=(pkg-config gcc libc6-dev libsystemd-dev libgcrypt20-dev libsqlite3-dev
       libxcb1-dev libxcb-res0-dev libxcb-screensaver0-dev libxcb-ewmh-dev libxcb-sync-dev
       libwayland-dev)
TEST=(jq python3 systemd systemd-container dbus dbus-bin libglib2.0-bin bubblewrap libpam-systemd libpam0g-dev polkitd vim procps util-linux bsdutils uidmap
      xvfb xserver-xephyr openbox xdotool xterm x11-apps x11-utils xauth sway foot wev gnome-shell kwin-wayland chromium
      imagemagick)
DEB=(dpkg-dev debhelper lintian python3 man-db)
want=("${BUILD[@]}")
case ${1:-build} in
    deb) want+=("${DEB[@]}") ;;
    test) want+=("${DEB[@]}" "${TEST[@]}") ;;
esac
missing=()
for package in "${want[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
    echo "missing Debian packages: ${missing[*]}" >&2
    echo "install them with: sudo apt-get install ${missing[*]}" >&2
    exit 1
fi
echo "installing: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
command -v swift >/dev/null || { echo "swift is not on PATH (expected Swift 6.1 or newer, e.g. /opt/swift/usr/bin)" >&2; exit 1; }
