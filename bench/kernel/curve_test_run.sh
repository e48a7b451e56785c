#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The program's own cost as CPUs are added: BPF_PROG_TEST_RUN of the agent's
# live program from N CPUs at once (build/bench/test_run_cpus: N threads
# pinned to CPUs 0 to N-1, the Fizz frame, an event per run, calls of REPEAT
# runs each for SECONDS), N = 1, 2, 4, ... up to every CPU but the agent's,
# and at least 2 (on a 2-CPU host the second thread shares the agent's CPU;
# every host has 2 CPUs to compare), for each design (curve.bash) with
# the agent attached to the test network's veth, pinned to the last CPU and
# draining, and for a bare XDP_PASS program beside them. The program is the
# one the agent's start line names, so this measures whatever agent AGENT
# (FBF_AGENT) is. Per arm, N and round, rows
# "curve/test_run/ARM/N-cpu<TAB>measure<TAB>value": latency (the kernel's ns
# per run, the mean over the threads), throughput (runs/s of all threads
# together), overlap-percent (how much of the span the threads' timed loops
# shared), and for the designs delivered-per-s, lost-per-s and lost-percent
# from the agent's summary over the threads' wall time: once the queue or
# ring is full a send fails cheaply, so the ns per run alone can flatter a
# design that loses most of its events. The arms take turns in an order that
# rotates each round.
#
#   curve_test_run.sh [ROUNDS [SECONDS [REPEAT]]]
set -euo pipefail

. "$(dirname "$0")/../../testing/netns.bash"
. "$(dirname "$0")/flood.bash"
. "$(dirname "$0")/curve.bash"

rounds=${1:-3}
seconds=${2:-0.2}
repeat=${3:-100000}
arms=(xdp_pass "${curve_designs[@]}")
runner=$FBF_BUILD/bench/test_run_cpus
max=$curve_agent_cpu
[ "$max" -ge 2 ] || max=2

[ -x "$runner" ] || { echo "curve_test_run: $runner is missing: run make bench-build" >&2; exit 1; }
curve_lab_up curve_test_run 1

# run ARM N: the arm's program from N CPUs at once; prints its rows.
run()
{
	local arm=$1 n=$2 name=curve/test_run/$1/$2-cpu prog=$FBF_BUILD/xdp_pass.bpf.o

	if [ "$arm" != xdp_pass ]; then
		curve_agent_start "$arm"
		prog=$(fbf_agent_prog_id "$work/agent.err")
	fi
	"$runner" "$prog" "$n" "$repeat" "$seconds" >"$work/run.out"
	awk -v n="$name" -F '\t' '
		$1 == "ns-per-run" { printf "%s\tlatency\t%s\n", n, $2 }
		$1 == "runs-per-s" { printf "%s\tthroughput\t%s\n", n, $2 }
		$1 == "overlap-percent" { printf "%s\toverlap-percent\t%s\n", n, $2 }' "$work/run.out"
	[ "$arm" = xdp_pass ] ||
		curve_agent_stop "$name" "$(awk -F '\t' '$1 == "wall-s" { print $2 }' "$work/run.out")"
}

for round in $(seq "$rounds"); do
	for n in $(curve_counts "$max"); do
		for ((i = 0; i < ${#arms[@]}; i++)); do
			run "${arms[(i + round) % ${#arms[@]}]}" "$n"
		done
	done
done
