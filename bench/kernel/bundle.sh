#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# make bench-bundle: the CPU curve's programs (curve_test_run.sh,
# curve_flood.sh, trickle.sh) for a host that has no compiler and none of
# the packages, a user's 64-core server say: the build's agent, cost
# runners (cost_run; cost_trace, for bench/cost/trace/trace.sh), rawflood,
# trafficgen and XDP_PASS object, ip, ss, nsenter, taskset and xdp-loader,
# every shared library they load, Debian's loader and libxdp's dispatcher
# objects, in DIR. Each program is a wrapper that
# runs the real one under the carried loader with the carried libraries, so
# nothing of the host's own libraries is used. NAME=BINARY adds another
# agent as DIR/NAME (an older build, to run beside this one with FBF_AGENT;
# base/agent, say: the scripts find the agent's lines by its name). On the
# host (root, bash, coreutils, python3), from a copy of the tree:
#
#   . DIR/env.bash && bench/kernel/curve_test_run.sh && bench/kernel/curve_flood.sh
#
#   bundle.sh DIR [NAME=BINARY ...]
set -euo pipefail

usage() { echo "usage: bundle.sh DIR [NAME=BINARY ...]" >&2; exit 2; }
[ -n "${1:-}" ] || usage
dir=$1
shift
build=${FBF_BUILD:-$(cd "$(dirname "$0")/../.." && pwd)/build}
die() { echo "bundle: $*" >&2; exit 1; }
[ -x "$build/agent" ] || die "$build/agent is missing: run make bench-bundle"

# What goes in, all checked before DIR is touched. The tools come from this
# host's packages, the same that its build and tests use.
declare -A programs=(
	[agent]=$build/agent
	[bench/cost_run]=$build/bench/cost_run
	[bench/cost_trace]=$build/bench/cost_trace
	[rawflood]=$build/rawflood
	[trafficgen]=$build/trafficgen
)
for tool in ip ss nsenter taskset xdp-loader; do
	# /usr/sbin: xdp-loader and ip are there, off a user's PATH.
	programs[bin/$tool]=$(PATH=$PATH:/usr/sbin:/sbin command -v "$tool") ||
		die "$tool is not installed; install the deps with 'make deps'"
done
for extra in "$@"; do
	name=${extra%%=*}
	# A path inside DIR, clear of the bundle's own files.
	[[ $extra == ?*=?* && $name =~ ^[A-Za-z0-9_-][A-Za-z0-9_.-]*(/[A-Za-z0-9_-][A-Za-z0-9_.-]*)*$ &&
	   ! $name =~ ^(lib|exe|libxdp|env\.bash|\.fbf-bundle)(/|$) ]] ||
		{ echo "bundle: '$extra' is not NAME=BINARY, NAME a path of its own in DIR" >&2; exit 2; }
	programs[$name]=${extra#*=}
done
for name in "${!programs[@]}"; do
	exe=${programs[$name]}
	[ -x "$exe" ] || die "$exe is missing: run make bench-build"
	if ldd "$exe" | grep 'not found' >&2; then
		die "$exe needs a library this host lacks"
	fi
done
# The loader, and libxdp's dispatcher objects beside its library, as the build uses them.
loader=$(ldd "$build/agent" | awk '$1 ~ /^\// { print $1; exit }')
libxdp=$(ldd "$build/agent" | awk '$1 == "libxdp.so.1" { print $3 }')
libxdp_objs=$(dirname "$(readlink -f "$libxdp")")/bpf
compgen -G "$libxdp_objs/*.o" >/dev/null || die "no libxdp dispatcher objects in $libxdp_objs"

# DIR is emptied first: never one that holds anything but a bundle.
marker=.fbf-bundle
if [ -e "$dir" ] && [ ! -e "$dir/$marker" ] &&
   [ -n "$(find "$dir" -mindepth 1 -print -quit)" ]; then
	echo "bundle: $dir is not empty and not a bundle; name a new directory" >&2
	exit 2
fi
rm -rf "$dir"
mkdir -p "$dir/lib" "$dir/exe" "$dir/libxdp"
dir=$(cd "$dir" && pwd)
: >"$dir/$marker"
cp "$loader" "$dir/lib/"
cp "$build/xdp_pass.bpf.o" "$dir/"
cp "$libxdp_objs"/*.o "$dir/libxdp/"

for name in "${!programs[@]}"; do
	exe=${programs[$name]}
	mkdir -p "$(dirname "$dir/$name")" "$(dirname "$dir/exe/$name")"
	cp "$exe" "$dir/exe/$name"
	# ldd: every library the program loads, its dependencies' too.
	ldd "$exe" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | xargs -r cp -L -t "$dir/lib"
	# The loader runs the program under its own name (--argv0), so its
	# messages and what looks for its name read as they do at home.
	up=${name//[^\/]/}
	up=${up//\//../}
	# shellcheck disable=SC2016 # the wrapper's own variables, expanded when it runs
	printf '#!/bin/sh\nroot=$(dirname "$0")/%s.\n' "$up" >"$dir/$name"
	# shellcheck disable=SC2016 # likewise
	printf 'exec "$root/lib/%s" --library-path "$root/lib" --argv0 "$0" "$root/exe/%s" "$@"\n' \
		"${loader##*/}" "$name" >>"$dir/$name"
	chmod +x "$dir/$name"
done

cat >"$dir/env.bash" <<'EOF'
# Sourced: the bundle's programs first on PATH, and the curve's scripts pointed at it.
FBF_BUILD=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PATH=$FBF_BUILD/bin:$PATH
LIBXDP_OBJECT_PATH=$FBF_BUILD/libxdp
export FBF_BUILD PATH LIBXDP_OBJECT_PATH
EOF
echo "bundle: $dir ($(du -sh "$dir" | cut -f1)); on the host: . $dir/env.bash"
