#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The program's own cost as CPUs are added: BPF_PROG_TEST_RUN of the agent's
# live program from N CPUs at once, N = 1, 2, 4, ... up to every CPU but the
# agent's, and at least 2 (on a 2-CPU host the second thread shares the
# agent's CPU; every host has 2 CPUs to compare), for each design
# (curve.bash) with the agent attached to the test network's veth, pinned to
# the last CPU and draining, and for a bare XDP_PASS program beside them. The
# cost tool's concurrent runner runs it (`cost_run cpus -k`: one thread
# pinned to each of CPUs 0 to N-1, released together on each of the
# classifier's frame shapes in turn, REPEAT runs a call), on the program the
# agent's start line names (ARM=id:PROG_ID), so this measures whatever agent
# AGENT (FBF_AGENT) is. Per arm, N and round, rows
# "curve/test_run/ARM/N-cpu<TAB>measure<TAB>value": latency (the kernel's ns
# per run, the mean over the threads and shapes), throughput (runs/s of all
# threads together), overlap-percent (how much of the span the threads'
# timed loops shared), and for the designs delivered-per-s, lost-per-s and
# lost-percent from the agent's summary over the runner's wall time: once
# the queue or ring is full a send fails cheaply, so the ns per run alone
# can flatter a design that loses most of its events. The arms take turns in
# an order that rotates each round.
#
#   curve_test_run.sh [ROUNDS [REPEAT]]
set -euo pipefail

. "$(dirname "$0")/../../testing/netns.bash"
. "$(dirname "$0")/flood.bash"
. "$(dirname "$0")/curve.bash"

rounds=${1:-3}
rounds_list=$(curve_rounds curve_test_run "$rounds")
repeat=${2:-100000}
arms=(xdp_pass "${curve_designs[@]}")
runner=$FBF_BUILD/bench/cost_run
max=$curve_agent_cpu
[ "$max" -ge 2 ] || max=2

[ -x "$runner" ] || { echo "curve_test_run: $runner is missing: run make bench-build" >&2; exit 1; }
counts=$(curve_counts "$max")
curve_lab_up curve_test_run 1

# run ARM N: the arm's program from N CPUs at once; prints its rows.
run()
{
	local arm=$1 n=$2 name=curve/test_run/$1/$2-cpu prog=$FBF_BUILD/xdp_pass.bpf.o t0 t1

	if [ "$arm" != xdp_pass ]; then
		curve_agent_start "$arm"
		prog=id:$(fbf_agent_prog_id "$work/agent.err")
	fi
	t0=$(date +%s%N)
	"$runner" cpus -k -r 1 -n "$repeat" -c "$n" "$arm=$prog" >"$work/run.out"
	t1=$(date +%s%N)
	# Its rows "ARM<TAB>cost/cpus/N<TAB>MEASURE<TAB>VALUE", renamed; not its static figures.
	awk -v n="$name" -v b="cost/cpus/$n" -F '\t' '$2 == b { printf "%s\t%s\t%s\n", n, $3, $4 }' \
		"$work/run.out"
	[ "$arm" = xdp_pass ] ||
		curve_agent_stop "$name" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print (b - a) / 1e9 }')"
}

for round in $rounds_list; do
	for n in $counts; do
		for ((i = 0; i < ${#arms[@]}; i++)); do
			run "${arms[(i + round) % ${#arms[@]}]}" "$n"
		done
	done
done
