#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# fetch-udev.sh DIR: download (not install) Debian's udev package into DIR,
# for the containers of tests/e2e/service.bats (testing/nspawn/boot.sh).
# Installed on the host, udev would start there; in the container's overlay
# it makes the device units the agent's systemd unit binds to. Kept only if
# it matches the host's systemd, whose libraries the container uses.
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: fetch-udev.sh DIR" >&2; exit 2; }
dir=$1
version=$(dpkg-query -W -f='${Version}' systemd)
deb=$dir/udev_${version//:/%3a}_$(dpkg --print-architecture).deb

[ -f "$deb" ] && exit 0
mkdir -p "$dir"
rm -f "$dir"/udev_*.deb
# apt's sandbox user cannot write to a directory of root's: download from one of its own.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 0755 "$tmp"
download() { (cd "$tmp" && apt-get download -qq "udev=$version"); }
chown _apt "$tmp" 2>/dev/null || true
# The package lists may never have been read on this machine.
download 2>/dev/null || { apt-get update -qq && download; }
mv "$tmp"/udev_*.deb "$dir/"
echo "fetch-udev: $(basename "$dir"/udev_*.deb)"
