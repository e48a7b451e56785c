#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Install the Debian 12 packages this project builds, tests and benchmarks
# with, and mount bpffs. Installs only what is missing, so it is quick to run
# again. Run as root. With --check it installs nothing: it names what is
# missing and exits 1 (make test and the other targets run it so).
set -euo pipefail

check_only=
[ "${1:-}" = --check ] && check_only=1

packages=(
	make gcc pkg-config perl python3 iproute2 util-linux
	clang llvm bpftool xdp-tools
	libbpf-dev libxdp-dev libelf-dev zlib1g-dev libcurl4-openssl-dev
	libcmocka-dev bats g++ libbenchmark-dev valgrind gnuplot-nox linux-perf
	libcap2-bin libclang-rt-14-dev systemd libsystemd-dev systemd-container man-db mandoc libmicrohttpd-dev prometheus
	libnats-dev nats-server logrotate libfixbuf-dev nfdump softflowd pmacct debhelper lintian
	qemu-system-x86 busybox-static cpio kmod xz-utils ethtool
)

# make profile-cpu fetches its flame graph template with npm; any npm will do.
command -v npm >/dev/null || packages+=(npm)

missing=()
for pkg in "${packages[@]}"; do
	status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
	[ "$status" = installed ] || missing+=("$pkg")
done

if [ ${#missing[@]} -gt 0 ] && [ -n "$check_only" ]; then
	echo "missing Debian packages: ${missing[*]}; install them with 'make deps' as root" >&2
	exit 1
fi
if [ -n "$check_only" ]; then
	exit 0
fi

if [ ${#missing[@]} -gt 0 ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "install-deps: missing packages: ${missing[*]}; run as root to install them" >&2
		exit 1
	fi
	echo "install-deps: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	# The servers and meters the tests run (NATS, nfcapd, softflowd, pmacctd)
	# ship units that would start at install and at every boot: on this host
	# they run only when a test starts them. policy-rc.d keeps the install
	# from starting any daemon; the units the install enabled are disabled.
	policy=
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		policy=/usr/sbin/policy-rc.d
		printf '#!/bin/sh\nexit 101\n' >"$policy"
		chmod 755 "$policy"
		trap 'rm -f "$policy"' EXIT
	fi
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
	[ -z "$policy" ] || { rm -f "$policy"; trap - EXIT; }
	for unit in nats-server.service nfdump.service softflowd.service pmacctd.service; do
		pkg=$(dpkg-query -S "/lib/systemd/system/$unit" 2>/dev/null | cut -d: -f1) || continue
		[[ " ${missing[*]} " == *" $pkg "* ]] || continue
		systemctl disable "$unit" >/dev/null 2>&1 || true
	done
fi

# libxdp keeps its multi-program dispatcher state in bpffs.
if [ "$(id -u)" -eq 0 ] && ! mountpoint -q /sys/fs/bpf; then
	echo "install-deps: mounting bpffs at /sys/fs/bpf"
	mount -t bpf bpf /sys/fs/bpf
fi
[ ${#missing[@]} -gt 0 ] || echo "install-deps: all ${#packages[@]} Debian packages are installed"
