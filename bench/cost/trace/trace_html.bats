#!/usr/bin/env bats
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The tracing family's HTML report (bench/cost/trace/trace_html.py), opened in headless
# Chromium: a measure of the tests' shared-counter probe and a compare of it against its
# per-CPU twin. Each page logs no console message, holds every figure its run measured
# (and one line for each it did not), and its numbers equal the BMF file's; the compare's
# page holds its verdict, named before the verdict line, which stays last. Short rounds:
# the figures are checked for being there and matching, never for how fast.

load ../../../testing/netns
load ../../bmf
load ../cost_html

setup()
{
	fbf_bench_setup
	[ "$(id -u)" -eq 0 ] || skip "needs root: the tool loads and attaches BPF programs"
	command -v chromium >/dev/null || skip "chromium is missing: make deps-test installs it"
	command -v gnuplot >/dev/null || skip "gnuplot is missing: make deps-test installs it"
	export FBF_COST_OUT=$RESULTS FBF_COST_ROUNDS=3 FBF_COST_TRACE_PHASE_MS=30
	export FBF_COST_CPU_ROUNDS=1
	SHOTS=$FBF_BUILD/results/cost-html
	mkdir -p "$SHOTS"
	PROBE=$FBF_BUILD/testing/cost_trace
}

cost() { run bench/cost/cost.sh "$@"; echo "$output"; }

@test "a tracing measure: programs, workloads round by round, the CPU curve, no events a line" {
	echo 'an earlier run' >"$RESULTS/cost.html"
	cost measure "${PROBE}_shared.bpf.o"
	[ "$status" -eq 0 ]
	[ "${lines[-1]}" = "HTML report: $RESULTS/cost.html" ]
	browse "$RESULTS/cost.html" trace
	check_page measure "$RESULTS/cost.bmf.json" fig-verifier fig-programs fig-workloads \
		fig-cpus fig-events-absent
	# Each round's value drawn: three rounds of bare, attached, attached with bpf_stats.
	grep -q "Each round's ns per workload call on CPU 0" "$DOM"
	grep -Eq '<td>cost/workload/getpid/bare</td><td>latency</td>' "$DOM"
	# The curve's counts with their threads' on-CPU share, a "%" not read as a format.
	grep -Eq '>2 \([0-9]+% on CPU\)<' "$DOM"
	grep -q '<td>FBF_COST_TRACE_PHASE_MS</td><td>30</td>' "$DOM"
}

@test "a tracing compare: both sides in each figure, each change with its interval, the verdict" {
	cost compare "${PROBE}_shared.bpf.o" "${PROBE}_percpu.bpf.o"
	[ "$status" -eq 1 ]
	[ "${lines[-2]}" = "HTML report: $RESULTS/cost.html" ]
	[[ "${lines[-1]}" == "cost-compare: REGRESSION: count_getpid verified-instructions "* ]]
	local verdict=${lines[-1]}
	browse "$RESULTS/cost.html" trace-compare
	check_page compare "$RESULTS/cost-compare.bmf.json" fig-verifier fig-changes \
		fig-verdicts fig-programs fig-workloads fig-cpus fig-events-absent
	grep -qF "<p id=\"verdict\"><b>${verdict%% ->*}" "$DOM"
	grep -q '<td>verified-instructions</td>.*<td>regressed</td>' "$DOM"
	# Each judged timing's change and interval, in the BMF file for Bencher too.
	check_bmf_measures "$RESULTS/cost-compare.bmf.json" \
		cost/prog/count_getpid:latency-change-percent \
		cost/workload/getpid:latency-change-percent
	grep -q '<td>base</td><td>.*cost_trace_shared.bpf.o</td>' "$DOM"
}
