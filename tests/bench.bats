#!/usr/bin/env bats
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The benchmarks themselves, briefly: instruction counts repeat exactly, and
# every benchmark writes a Bencher Metric Format file that bencher can read.

load netns

setup()
{
	cd "$FBF_ROOT"
	! fbf_is_sanitized "$FBF_BUILD/agent" ||
		skip "benchmarks measure the build without sanitizers"
	RESULTS=$BATS_TEST_TMPDIR/results
	mkdir -p "$RESULTS"
}

# check_bmf FILE BENCH...: FILE is {"BENCH": {"MEASURE": {"value": V, ...}}}
# with a number in every value and bound, and holds each BENCH named.
check_bmf()
{
	python3 - "$@" <<-'EOF'
	import json, numbers, sys
	bmf = json.load(open(sys.argv[1]))
	assert isinstance(bmf, dict) and bmf, "empty"
	for bench, measures in bmf.items():
	    assert isinstance(measures, dict) and measures, bench
	    for measure, entry in measures.items():
	        assert isinstance(entry["value"], numbers.Number), (bench, measure)
	        assert set(entry) <= {"value", "lower_value", "upper_value"}, (bench, measure)
	        lo = entry.get("lower_value", entry["value"])
	        hi = entry.get("upper_value", entry["value"])
	        assert lo <= entry["value"] <= hi, (bench, measure, entry)
	for bench in sys.argv[2:]:
	    assert bench in bmf, f"{bench} missing"
	EOF
}

@test "callgrind instruction counts are identical across two runs" {
	bench/callgrind.sh "$FBF_BUILD" "$RESULTS/first"
	bench/callgrind.sh "$FBF_BUILD" "$RESULTS/second"
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
	FBF_MICRO_REPS=2 FBF_RESULTS=$RESULTS run bench/micro.sh
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"v3 / v4"* ]]
	check_bmf "$RESULTS/micro-timing.bmf.json" classifier/SourceAddr/v4 \
		classifier/SourceAddr/v3 classifier/RandomBatch/v4 classifier/RandomBatch/v3
}

@test "the in-kernel benchmark writes BMF for every frame shape and the static figures" {
	[ "$(id -u)" -eq 0 ] || skip "needs root: loads the XDP program"
	"$FBF_BUILD/bench/kernel_test_run" "$FBF_BUILD/xdp_pass.bpf.o" 2 10000 >"$RESULTS/k.tsv"
	bench/report.py samples "$RESULTS/k.tsv" "$RESULTS/kernel.bmf.json"
	check_bmf "$RESULTS/kernel.bmf.json" kernel/xdp_fizzbuzzfib kernel/all/overhead \
		kernel/xdp_fizzbuzzfib-ringbuf kernel/all/overhead-ringbuf \
		kernel/ipv4-none/overhead kernel/ipv4-fizz/overhead kernel/ipv4-buzz/overhead \
		kernel/ipv4-fizzbuzz/overhead kernel/ipv4-fibonacci/overhead \
		kernel/vlan-ipv4-fizz/overhead kernel/ipv6/overhead
}
