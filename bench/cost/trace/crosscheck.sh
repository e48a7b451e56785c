#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The cost tool's "added ns per call" for a tracing object beside an independent loader's
# (bench/cost/trace/crosscheck/crosscheck.c, plain libbpf, none of the tool's code), in
# turns within one run, as root:
#
#   crosscheck.sh [RUNS]
#       RUNS (5) turns, the order of the two swapped each turn, of two pairs:
#       bcc's opensnoop (build/testing/trace/opensnoop.bpf.o, targ_uid=0xffffffff) on
#       openat(2)+close(2), and testing/cost_trace_probe.bpf.c's shared counter
#       (build/testing/cost_trace_shared.bpf.o) on getpid(2); each turn's figures, then
#       each pair's medians and the ratios (the loader's / the tool's)
#
# The tool runs as `FBF_COST_CPU_ROUNDS=0 bench/cost/cost.sh measure OBJECT` (its default
# rounds and phases) and its figure is cost.bmf.json's cost/workload/TRIGGER/added. The
# loader runs twice: in short blocks (opensnoop 250 calls, 60 blocks of each kind; getpid
# 5000 calls, 40 blocks: a few milliseconds each, so that the median leaves out a block
# in which the thread lost the CPU) and in blocks as long as the tool's phases (100 ms,
# 10 of each kind); each gives its wall-clock figure and, for the short blocks, the
# thread's own CPU time too. Needs make all test-build bench-build; builds the loader
# itself into build/bench/crosscheck with $CC (cc) and pkg-config's libbpf.
set -euo pipefail

here=$(dirname "$0")
root=$(realpath "$here/../../..")
build=${FBF_BUILD:-$root/build}
runs=${1:-5}
loader=$build/bench/crosscheck

[ "$(id -u)" -eq 0 ] || { echo "crosscheck: run it as root (bpf, bpf_stats)" >&2; exit 2; }
for f in "$build/bench/cost_trace" "$build/testing/trace/opensnoop.bpf.o" \
	 "$build/testing/cost_trace_shared.bpf.o"; do
	[ -e "$f" ] || { echo "crosscheck: $f is missing: make all test-build bench-build" >&2
			 exit 2; }
done
mkdir -p "$build/bench"
# shellcheck disable=SC2046 # pkg-config's flags are words
"${CC:-cc}" -O2 -g -Wall -Wextra -Werror -std=gnu11 "$here/crosscheck/crosscheck.c" \
	$(pkg-config --cflags --libs libbpf) -lpthread -o "$loader"

work=$(mktemp -d /tmp/crosscheck.XXXXXX)
trap 'rm -rf "$work"' EXIT

# The pairs: name, object, trigger, globals, short blocks' calls and count.
pairs=("opensnoop $build/testing/trace/opensnoop.bpf.o openat targ_uid=0xffffffff 250 60"
       "shared $build/testing/cost_trace_shared.bpf.o getpid - 5000 40")

# tool OBJECT TRIGGER GLOBALS: the cost tool's added ns per call.
tool()
{
	local set=$3

	[ "$set" != - ] || set=
	FBF_COST_CPU_ROUNDS=0 FBF_COST_OUT="$work/out" FBF_COST_SET="$set" \
		"$root/bench/cost/cost.sh" measure "$1" >"$work/tool.out" 2>&1 ||
		{ cat "$work/tool.out" >&2; exit 1; }
	python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))[f"cost/workload/{sys.argv[2]}/added"]["latency"]["value"])' \
		"$work/out/cost.bmf.json" "$2"
}

# loader OBJECT TRIGGER GLOBALS CALLS BLOCKS: the independent loader's added ns per call in
# short blocks, wall clock and CPU time, then in blocks of 100 ms, wall clock.
loader()
{
	local set=()

	[ "$3" = - ] || set=(-s "$3")
	"$loader" "${set[@]}" -n "$4" -b "$5" "$2" "$1" >"$work/short.out"
	"$loader" "${set[@]}" -t 100 -b 10 "$2" "$1" >"$work/long.out"
	cat "$work/short.out" "$work/long.out" >&2
	echo "$(field added "$work/short.out") $(field cpu_added "$work/short.out")" \
	     "$(field added "$work/long.out")"
}

# field NAME FILE: NAME=VALUE's value in the loader's line.
field()
{
	tr ' ' '\n' <"$2" | sed -n "s/^$1=//p"
}

echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')," \
     "$(grep -c ^processor /proc/cpuinfo) CPUs, kernel $(uname -r), $(date -u +%F)"
printf '%-10s %4s %10s %12s %6s %12s %12s %6s\n' pair turn "tool added" "short, wall" ratio \
	"short, CPU" "100 ms, wall" ratio
for ((turn = 1; turn <= runs; turn++)); do
	for pair in "${pairs[@]}"; do
		read -r name obj trigger globals calls blocks <<<"$pair"
		if ((turn % 2)); then
			t=$(tool "$obj" "$trigger" "$globals")
			l=$(loader "$obj" "$trigger" "$globals" "$calls" "$blocks")
		else
			l=$(loader "$obj" "$trigger" "$globals" "$calls" "$blocks")
			t=$(tool "$obj" "$trigger" "$globals")
		fi
		echo "$name $t $l" >>"$work/figures"
		echo "$name $turn $t $l" | awk '{ printf "%-10s %4d %10.1f %12.1f %6.2f %12.1f " \
			"%12.1f %6.2f\n", $1, $2, $3, $4, $4 / $3, $5, $6, $6 / $3 }'
	done
done
# Each pair's medians over the turns, and the loader's against the tool's.
python3 - "$work/figures" <<'EOF2'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    name, *values = line.split()
    rows.setdefault(name, []).append([float(v) for v in values])
for name, turns in rows.items():
    tool, short, cpu, long = (statistics.median(col) for col in zip(*turns))
    print(f"{name:<10} {'med':>4} {tool:10.1f} {short:12.1f} {short / tool:6.2f} "
          f"{cpu:12.1f} {long:12.1f} {long / tool:6.2f}")
    for what, value in (("short blocks", short), ("100 ms blocks", long)):
        verdict = "within 20%" if abs(value / tool - 1) <= 0.2 else "more than 20% apart"
        print(f"  {name}: the loader in {what} and the tool: {verdict}")
EOF2
