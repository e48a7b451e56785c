#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# make bench-check / make bench-baseline: run the benchmarks the regression
# gate watches (callgrind counts of the classifier, the loaded XDP program's
# static figures, in-kernel timing ratios to XDP_PASS) and compare them with
# bench/baseline.json, or rewrite it. Needs root for the in-kernel part.
#
#   gate.sh check|baseline
set -euo pipefail

build=${FBF_BUILD:?FBF_BUILD is set by make}
baseline=${FBF_BASELINE:-bench/baseline.json}
history=${FBF_HISTORY:-bench-history.tsv}
results=$build/results/gate
# The baseline's timing medians come from three times the rounds of a check.
rounds=${FBF_GATE_ROUNDS:-20}
[ "${1:-check}" = baseline ] && rounds=$((rounds * 3))
mkdir -p "$results"

# The tables of the individual benchmarks go to a log; the gate prints its own.
measure_counts()
{
	bench/callgrind.sh "$build" "$results/callgrind"
	bench/report.py callgrind "$results/callgrind" "$results/micro-count.bmf.json" \
		>"$results/micro-count.log"
}

measure_kernel()
{
	"$build/bench/kernel_test_run" "$build/xdp_pass.bpf.o" "$rounds" \
		"${FBF_GATE_REPEAT:-50000}" >"$results/kernel.tsv"
	bench/report.py samples "$results/kernel.tsv" "$results/kernel.bmf.json" \
		>"$results/kernel.log"
}

gate()
{
	bench/gate.py check "$baseline" "$results/gate.bmf.json" "$history" \
		"$results/micro-count.bmf.json" "$results/kernel.bmf.json"
}

measure_counts
measure_kernel
case "${1:-check}" in
baseline)
	exec bench/gate.py baseline "$baseline" "$results/micro-count.bmf.json" \
		"$results/kernel.bmf.json"
	;;
check)
	status=0
	gate || status=$?
	if [ "$status" -eq 3 ]; then
		# A timing regression alone may be the machine's noise: it counts only if
		# an independent second run confirms it.
		echo "gate: timing regressed; measuring again to confirm"
		measure_kernel
		status=0
		gate || status=$?
	fi
	[ "$status" -eq 0 ] || exit 1
	;;
*)
	echo "usage: gate.sh check|baseline" >&2
	exit 2
	;;
esac
