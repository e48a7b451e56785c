#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# base-root.sh DIR: a minimal Debian 12 root in DIR/base, as a new user's
# host has it: debootstrap's minbase with git, make and ca-certificates (to
# clone and type make), apt reading Debian 12, its updates and its security
# archive from the mirrors this host's apt sources name. Made again when it
# is older than FBF_FRESH_BASE_DAYS (7), so that it follows the archive;
# debootstrap's packages are kept in DIR/debootstrap for the next. Prints the
# bytes it downloaded. Nothing is installed on this host.
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: base-root.sh DIR" >&2; exit 2; }
dir=$1
days=${FBF_FRESH_BASE_DAYS:-7}
. "$(dirname "$0")/../host_archive.bash"

if [ -f "$dir/base/etc/apt/sources.list" ] &&
	[ -z "$(find "$dir/base/etc/apt/sources.list" -mtime "+$days")" ]; then
	echo "base-root: $dir/base, made $(date -r "$dir/base/etc/apt/sources.list" +%F)"
	exit 0
fi

main=$(host_archive bookworm)
updates=$(host_archive bookworm-updates)
security=$(host_archive bookworm-security)
if [ -z "$main" ]; then
	echo "base-root: no Debian 12 (bookworm) archive in this host's apt sources" \
		"(apt-get indextargets); add one" >&2
	exit 1
fi

mkdir -p "$dir/debootstrap"
before=$(du -sb "$dir/debootstrap" | cut -f1)
rm -rf "$dir/base.new"
start=$SECONDS
debootstrap --variant=minbase --include=git,make,ca-certificates \
	--cache-dir="$dir/debootstrap" bookworm "$dir/base.new" "$main" >"$dir/debootstrap.log" 2>&1 ||
	{ tail -n 20 "$dir/debootstrap.log" >&2; echo "base-root: debootstrap failed" >&2; exit 1; }
{
	echo "deb $main bookworm main"
	[ -z "$updates" ] || echo "deb $updates bookworm-updates main"
	[ -z "$security" ] || echo "deb $security bookworm-security main"
} >"$dir/base.new/etc/apt/sources.list"
# Its roots are thrown away after one run: dpkg need not sync every file
# it writes to disk, which makes most of an install's time on a busy disk.
echo force-unsafe-io >"$dir/base.new/etc/dpkg/dpkg.cfg.d/fresh-root-unsafe-io"
rm -rf "$dir/base"
mv "$dir/base.new" "$dir/base"
echo "base-root: $dir/base made in $((SECONDS - start)) s," \
	"$(( ($(du -sb "$dir/debootstrap" | cut -f1) - before) / 1000000 )) MB downloaded"
