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
