#!/usr/bin/env bats
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The micro benchmarks, briefly: instruction counts repeat exactly, and both
# write a Bencher Metric Format file that bencher can read.

load ../../testing/netns
load ../bmf

setup() { fbf_bench_setup; }

@test "callgrind instruction counts are identical across two runs" {
	bench/micro/callgrind.sh "$FBF_BUILD" "$RESULTS/first"
	bench/micro/callgrind.sh "$FBF_BUILD" "$RESULTS/second"
	for out in "$RESULTS"/first/*.out; do
		diff <(grep -E '^(events|summary):' "$out") \
			<(grep -E '^(events|summary):' "$RESULTS/second/${out##*/}")
	done
	run bench/report.py callgrind "$RESULTS/first" "$RESULTS/count.bmf.json"
	[ "$status" -eq 0 ]
	check_bmf "$RESULTS/count.bmf.json" classifier/SourceAddr/v4 classifier/SourceAddr/v3 \
		classifier/RandomBatch/v4 classifier/RandomBatch/v3
}

@test "the timing micro benchmark writes BMF for both classifiers and both batches" {
	FBF_MICRO_REPS=2 FBF_RESULTS=$RESULTS run bench/micro/micro.sh
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"v3 / v4"* ]]
	check_bmf "$RESULTS/micro-timing.bmf.json" classifier/SourceAddr/v4 \
		classifier/SourceAddr/v3 classifier/RandomBatch/v4 classifier/RandomBatch/v3
}

@test "the figures page shows each result file under the host, kernel and date it ran on" {
	# Nothing measured yet: one line that says what to run.
	run bench/report.py figures "$RESULTS" "$RESULTS/figures.md"
	[ "$status" -ne 0 ]
	[[ "$output" == "report: no benchmark results in $RESULTS: run make bench"* ]]

	FBF_MICRO_REPS=2 FBF_RESULTS=$RESULTS bench/micro/micro.sh >/dev/null
	run bench/report.py figures "$RESULTS" "$RESULTS/figures.md"
	[ "$status" -eq 0 ]
	cat "$RESULTS/figures.md"
	for f in micro-timing micro-count; do
		grep -qx "## $f" "$RESULTS/figures.md"
	done
	[ "$(grep -cE "^Measured on .+, kernel $(uname -r), [0-9]{4}-[0-9]{2}-[0-9]{2}T.*, commit \
[0-9a-f]{12}" "$RESULTS/figures.md")" -eq 2 ]
	grep -q '^| classifier/SourceAddr/v4 | latency | ' "$RESULTS/figures.md"
	grep -q '^| classifier/RandomBatch/v3 | instructions | ' "$RESULTS/figures.md"
}
