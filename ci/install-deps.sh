#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# install-deps.sh [--check] PURPOSE...: install the Debian 12 packages that
# PURPOSE needs, of those missing, and mount bpffs. Quick to run again: it
# installs only what is missing. Run as root. With --check it installs
# nothing: it names what is missing and exits 1. A purpose it does not know
# exits 2. The make targets run it:
#
#   demo      make, make demo: build the product and run it
#   bench     the benchmarks (make bench, bench-check, profile-*, cost)
#   deb       make deb
#   image     make image: the OCI image (buildah)
#   test      make test: the tests, which run the benchmarks' and make deb too
#   kernels   make test-kernels: make test's, and QEMU for the kernel matrix
#   fresh     make test-fresh: debootstrap, for a fresh Debian 12 root
#   lint      make lint: ShellCheck (and python3, with the product's list)
#   all       everything above (make deps); the default
set -euo pipefail

usage="usage: install-deps.sh [--check] [demo|bench|deb|test|kernels|fresh|lint|all]...|--purposes"
check_only=
[ "${1:-}" != --check ] || { check_only=1; shift; }
[ $# -gt 0 ] || set -- all

# One list per purpose, each package in one list: the first purpose that
# needs it (a purpose gets the lists of those it runs, below).
# The product: the compiler and the libraries the agent and the traffic
# generators link, bpftool for the skeletons; the demo's network and its
# HTTP server (iproute2, python3).
pkgs_demo=(
	make gcc libc6-dev pkg-config clang bpftool
	libbpf-dev libxdp-dev libelf-dev zlib1g-dev libcurl4-openssl-dev
	libsystemd-dev libmicrohttpd-dev libnats-dev libfixbuf-dev
	iproute2 python3
)
# The micro benchmarks (Google Benchmark, callgrind), profiles, and the
# servers and flow meters the macro benchmarks run beside the agent; curl
# and procps (pgrep, sysctl), which a minimal Debian lacks; libpcap and
# tcpreplay for the cost tool's captures (PCAP=), tcpdump to make them.
pkgs_bench=(
	g++ libbenchmark-dev valgrind gnuplot-nox linux-perf ethtool
	nats-server nfdump softflowd pmacct curl procps libpcap-dev tcpreplay tcpdump
)
# make deps-bench fetches profile-cpu's flame graph template with npm; any npm will do.
command -v npm >/dev/null || pkgs_bench+=(npm)
# dpkg-buildpackage checks for build-essential beside debian/control's Build-Depends.
pkgs_deb=(debhelper lintian build-essential)
# buildah assembles the image in a store of its own (make image).
pkgs_image=(buildah)
# The suites' own: cmocka, bats, the sanitizers' and libFuzzer's runtime,
# xdp-tools (xdp-loader, and objects for the cost tool), the servers the
# output and metrics tests talk to, systemd and its container for the units,
# the manual page's linters, capsh; podman, runc, catatonit (kube play's
# pause image) and python3-yaml for the image's tests; patch, which plants
# the regression in a copy of a third-party program (testing/third_party/tracing.mk);
# chromium, the real browser that opens the cost tool's HTML reports headless
# (bench/cost/cost_html.bats); xz-utils, which unpacks Katran's state dumps
# (testing/third_party/katran/state).
pkgs_test=(
	libcmocka-dev bats libclang-rt-14-dev xdp-tools libcap2-bin patch
	prometheus logrotate systemd systemd-container man-db mandoc
	podman runc catatonit python3-yaml chromium xz-utils
)
pkgs_kernels=(qemu-system-x86 busybox-static cpio kmod xz-utils)
pkgs_fresh=(debootstrap)
pkgs_lint=(shellcheck)

# What each purpose runs, so whose lists it installs.
declare -A runs=(
	[demo]="demo"
	[bench]="demo bench"
	[deb]="demo deb"
	[image]="demo deb image"
	[test]="demo bench deb image test lint"
	[kernels]="demo bench deb image test lint kernels"
	[fresh]="fresh"
	[lint]="demo lint"
	[all]="demo bench deb image test lint kernels fresh"
)

# For the Makefile: its deps-PURPOSE and check-deps-PURPOSE targets.
[ "$1" != --purposes ] || { echo "${!runs[@]}"; exit 0; }

packages=()
for purpose in "$@"; do
	[ -n "${runs[$purpose]:-}" ] ||
		{ echo "install-deps: unknown purpose '$purpose'; $usage" >&2; exit 2; }
	for list in ${runs[$purpose]}; do
		list="pkgs_${list}[@]"
		packages+=("${!list}")
	done
done
mapfile -t packages < <(printf '%s\n' "${packages[@]}" | sort -u)

missing=()
for pkg in "${packages[@]}"; do
	status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
	[ "$status" = installed ] || missing+=("$pkg")
done

if [ ${#missing[@]} -gt 0 ] && [ -n "$check_only" ]; then
	echo "missing Debian packages: ${missing[*]}; install them with 'make ${*/#/deps-}' as root" >&2
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
	# Two of these at once (make deps in two checkouts) take turns; apt waits
	# for anyone else's install too (unattended-upgrades on a new machine).
	exec 9>/run/fizzbuzzfib-install-deps.lock
	flock 9
	apt=(apt-get -o DPkg::Lock::Timeout=300 --no-install-recommends)
	# Of apt's lines, what it fetched: errors come on stderr.
	fetched() { sed -n "s/^Fetched \(.*\) in .*/install-deps: fetched \1 $1/p"; }
	apt-get -q update | fetched "of package lists"
	# How much, before it starts: the packages apt will fetch, and their size.
	echo "install-deps: installing ${missing[*]}"
	"${apt[@]}" -qq --print-uris install "${missing[@]}" |
		awk '{ n++; bytes += $3 }
		     END { printf "install-deps: %d packages to download, %.1f MB\n", n, bytes / 1e6 }'
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
	"${apt[@]}" -q install -y "${missing[@]}" | fetched "of packages"
	[ -z "$policy" ] || { rm -f "$policy"; trap - EXIT; }
	# podman's API socket likewise: the tests call podman, not its service.
	for unit in nats-server.service nfdump.service softflowd.service pmacctd.service \
		podman.socket; do
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
[ ${#missing[@]} -gt 0 ] ||
	echo "install-deps: all ${#packages[@]} Debian packages for $* are installed"
