#!/usr/bin/env bash
# Builds the Debian package dist/screentime_VERSION_ARCH.deb with dpkg-buildpackage from packaging/debian (its
# rules build with the Swift toolchain on PATH, see packaging/debian/rules), then checks it with lintian: any error
# fails the build, warnings are printed.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=$PATH:/opt/swift/usr/bin
# dpkg-buildpackage wants debian/ at the top of the tree: a copy, so that what the build leaves there (the staged
# package, debhelper's logs) never lands in packaging/.
rm -rf debian
cp -r packaging/debian debian
trap 'rm -rf debian' EXIT
version=$(dpkg-parsechangelog -S Version)
architecture=$(dpkg-architecture -qDEB_HOST_ARCH)
mkdir -p dist
dpkg-buildpackage -b -us -uc \
    --buildinfo-file="dist/screentime_${version}_${architecture}.buildinfo" --buildinfo-option=-udist \
    --changes-file="dist/screentime_${version}_${architecture}.changes" --changes-option=-udist
lintian --fail-on error --info "dist/screentime_${version}_${architecture}.deb"
echo "dist/screentime_${version}_${architecture}.deb"
