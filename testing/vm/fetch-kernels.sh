#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# fetch-kernels.sh DIR NAME...: download Debian's kernel packages for the
# kernel matrix (make test-kernels) and unpack each into DIR/NAME, with its
# modules indexed (depmod). Nothing is installed: the host's boot kernel and
# its apt sources stay as they are. NAME is one of
#
#   debian11        Debian 11's kernel (linux-image-amd64 of bullseye, 5.10)
#   debian12        Debian 12's stock kernel (linux-image-amd64, 6.1)
#   debian12-6.12   Debian 12's newer kernel (linux-image-6.12-amd64)
#
# Each names a meta package, so the newest kernel of that line is taken; a
# NAME already unpacked from the same package is left as it is. Debian 11 is
# reached through an apt configuration of its own under DIR/apt-bullseye.
# A NAME with a slash is a directory of the caller's, left alone.
# The generic flavour, not -cloud-amd64: the cloud kernels lack 9p.
set -euo pipefail

[ $# -ge 2 ] || { echo "usage: fetch-kernels.sh DIR NAME..." >&2; exit 2; }
dir=$1
shift
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

. "$(dirname "$0")/../host_archive.bash"

# Options that point apt at Debian 11 without touching the host's own lists,
# through the mirror the host's sources name for Debian 12.
bullseye_apt()
{
	local root=$dir/apt-bullseye main security

	if [ ! -f "$root/sources.list" ]; then
		main=$(host_archive 'bookworm|bullseye|trixie|stable')
		security=$(host_archive 'bookworm-security|bullseye-security|trixie-security')
		if [ -z "$main" ]; then
			echo "fetch-kernels: no Debian archive in this host's apt sources" \
				"(apt-get indextargets); add one to fetch Debian 11's kernel" >&2
			return 1
		fi
		mkdir -p "$root/lists/partial" "$root/cache/archives/partial"
		{
			echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]" \
				"$main bullseye main"
			[ -z "$security" ] ||
				echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]" \
					"$security bullseye-security main"
		} >"$root/sources.list"
	fi
	apt_opts+=(-o "Dir::Etc::sourcelist=$root/sources.list" -o Dir::Etc::sourceparts=-
		   -o "Dir::State::Lists=$root/lists" -o "Dir::Cache=$root/cache")
	apt-get -qq "${apt_opts[@]}" update
}

# The kernel package that meta package $1 depends on.
kernel_package()
{
	apt-cache "${apt_opts[@]}" depends "$1" 2>/dev/null |
		awk '$1 == "Depends:" && $2 ~ /^linux-image-/ { print $2; exit }'
}

# fetch NAME META: unpack the kernel package META depends on into $dir/NAME.
fetch()
{
	local name=$1 meta=$2 pkg deb release tmp

	pkg=$(kernel_package "$meta")
	if [ -z "$pkg" ]; then
		# The package lists may never have been read on this machine.
		apt-get -qq "${apt_opts[@]}" update
		pkg=$(kernel_package "$meta")
	fi
	if [ -z "$pkg" ]; then
		echo "fetch-kernels: $meta names no kernel package; is 'apt-get update' done?" >&2
		return 1
	fi
	if [ "$(cat "$dir/$name/package" 2>/dev/null)" = "$pkg" ]; then
		return 0
	fi
	echo "fetch-kernels: $name: $pkg"
	tmp=$(mktemp -d "$dir/.fetch.XXXXXX")
	(cd "$tmp" && apt-get -qq "${apt_opts[@]}" download "$pkg")
	deb=$(echo "$tmp"/*.deb)
	[ -f "$deb" ] || { echo "fetch-kernels: downloading $pkg failed" >&2; return 1; }
	dpkg-deb -x "$deb" "$tmp/root"
	release=$(ls "$tmp/root/lib/modules")
	depmod -b "$tmp/root" "$release"
	rm -rf "${dir:?}/$name"
	mkdir -p "$dir/$name"
	mv "$tmp/root/boot" "$tmp/root/lib" "$dir/$name/"
	echo "$pkg" >"$dir/$name/package"
	rm -rf "$tmp"
}

for name in "$@"; do
	# As root into directories of root's: apt's _apt user could not write there.
	apt_opts=(-o APT::Sandbox::User=root)
	case "$name" in
	*/*)
		;;	# a kernel of the caller's own: nothing to fetch
	debian11)
		bullseye_apt
		fetch "$name" linux-image-amd64
		;;
	debian12)
		fetch "$name" linux-image-amd64
		;;
	debian12-6.12)
		fetch "$name" linux-image-6.12-amd64
		;;
	*)
		echo "fetch-kernels: unknown kernel '$name'; known: debian11 debian12 debian12-6.12" >&2
		exit 2
		;;
	esac
done
