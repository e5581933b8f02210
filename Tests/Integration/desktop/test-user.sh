#!/bin/sh
# Creates (if missing) an unprivileged regular account and prints NAME:UID:GID:HOME: the focus tests run compositors
# as one (sway refuses to run as root), the daemon benchmark its game. Needs root; prints nothing and fails otherwise.
set -eu
# useradd lives in /usr/sbin, which a test runner's PATH may lack.
PATH=$PATH:/usr/sbin:/sbin
name=${1:-stfocus}
if ! id -u "$name" >/dev/null 2>&1; then
    useradd --create-home --shell /usr/sbin/nologin --comment "Screen Time tests" "$name" >/dev/null
fi
uid=$(id -u "$name")
gid=$(id -g "$name")
home=$(getent passwd "$name" | cut -d: -f6)
echo "$name:$uid:$gid:$home"
