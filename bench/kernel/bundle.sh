#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# make bench-bundle: the CPU curve's programs (curve_test_run.sh,
# curve_flood.sh, trickle.sh) for a host that has no compiler and none of
# the packages, a user's 64-core server say: the build's agent, cost
# runner, rawflood, trafficgen and XDP_PASS object, ip, ss, nsenter,
# taskset and xdp-loader, every shared library they load, Debian's loader
# and libxdp's dispatcher objects, in DIR. Each program is a wrapper that runs the real one under
# the carried loader with the carried libraries, so nothing of the host's
# own libraries is used. NAME=BINARY adds another agent as DIR/NAME (an
# older build, to run beside this one with FBF_AGENT; base/agent, say: the
# scripts find the agent's lines by its name). On the host, from a copy of
# the tree, as root:
#
#   . DIR/env.bash && bench/kernel/curve_test_run.sh && bench/kernel/curve_flood.sh
#
#   bundle.sh DIR [NAME=BINARY ...]
set -euo pipefail

[ $# -ge 1 ] || { echo "usage: bundle.sh DIR [NAME=BINARY ...]" >&2; exit 2; }
dir=$1
shift
build=${FBF_BUILD:-$(cd "$(dirname "$0")/../.." && pwd)/build}
[ -x "$build/agent" ] || { echo "bundle: $build/agent is missing: run make bench-bundle" >&2; exit 1; }
# The loader, and libxdp's dispatcher objects beside its library's multiarch directory,
# as this host's build uses them.
loader=$(ldd "$build/agent" | awk '$1 ~ /^\// { print $1; exit }')
libxdp_objs=/usr/lib/$(basename "$(dirname "$(ldd "$build/agent" | awk '$1 == "libxdp.so.1" { print $3 }')")")/bpf
# DIR is emptied first: never a directory that is not a bundle already.
if [ -e "$dir" ] && [ ! -e "$dir/env.bash" ] && [ -n "$(ls -A "$dir" 2>/dev/null)" ]; then
	echo "bundle: $dir is not empty and not a bundle; name a new directory" >&2
	exit 2
fi

# Every file is made here: the tools must come from the host's packages.
declare -A programs=(
	[agent]=$build/agent
	[bench/cost_run]=$build/bench/cost_run
	[rawflood]=$build/rawflood
	[trafficgen]=$build/trafficgen
)
for tool in ip ss nsenter taskset xdp-loader; do
	programs[bin/$tool]=$(command -v "$tool") ||
		{ echo "bundle: $tool is not installed; install the deps with 'make deps'" >&2; exit 1; }
done
for extra in "$@"; do
	[[ $extra == ?*=?* ]] || { echo "bundle: '$extra' is not NAME=BINARY" >&2; exit 2; }
	programs[${extra%%=*}]=${extra#*=}
done

rm -rf "$dir"
mkdir -p "$dir/lib" "$dir/exe" "$dir/bin" "$dir/bench" "$dir/libxdp"
dir=$(cd "$dir" && pwd)
cp "$loader" "$dir/lib/"
cp "$build/xdp_pass.bpf.o" "$dir/"
cp "$libxdp_objs"/*.o "$dir/libxdp/"

for name in "${!programs[@]}"; do
	exe=${programs[$name]}
	[ -x "$exe" ] || { echo "bundle: $exe is missing: run make bench-build" >&2; exit 1; }
	real=$dir/exe/${name//\//-}
	cp "$exe" "$real"
	mkdir -p "$(dirname "$dir/$name")"
	# ldd: every library the program loads, its dependencies' too.
	ldd "$exe" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | xargs -r cp -L -t "$dir/lib"
	# The loader runs the program under its own name (--argv0), so its
	# messages and what looks for its name read as they do at home.
	up=${name//[^\/]/}
	up=${up//\//../}
	printf '#!/bin/sh\nroot=$(dirname "$0")/%s.\n' "$up" >"$dir/$name"
	printf 'exec "$root/lib/%s" --library-path "$root/lib" --argv0 "$0" "$root/exe/%s" "$@"\n' \
		"${loader##*/}" "${real##*/}" >>"$dir/$name"
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
