#!/usr/bin/env bats
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The regression gate: it passes on this tree, and it fails on the planted v3
# regression and names what regressed, so it is known to be able to fail.

load netns

setup()
{
	[ "$(id -u)" -eq 0 ] || skip "needs root: the gate loads the XDP program"
	# The baseline's counts are of the optimised build, not of sanitizer code.
	! fbf_is_sanitized "$FBF_BUILD/agent" ||
		skip "the gate measures the build without sanitizers"
	cd "$FBF_ROOT"
}

@test "the regression gate passes on this tree" {
	# A history of its own: test runs must not show up in the user's trend.
	run env FBF_BUILD="$FBF_BUILD" FBF_HISTORY="$BATS_TEST_TMPDIR/history.tsv" \
		bench/gate.sh check
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"gate: PASS"* ]]
}

@test "the gate fails on the planted v3 regression and names the benchmarks that regressed" {
	# Only what the gate runs; make's rules name these targets relative to the top.
	make -s CANARY=1 build-canary/bench/micro_count build-canary/bench/kernel_test_run \
		build-canary/xdp_pass.bpf.o >/dev/null
	run env FBF_BUILD="$FBF_ROOT/build-canary" FBF_HISTORY="$BATS_TEST_TMPDIR/history.tsv" \
		bench/gate.sh check
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"REGRESSION: classifier/SourceAddr/v4 instructions"* ]]
	[[ "$output" == *"REGRESSION: kernel/xdp_fizzbuzzfib verified-instructions"* ]]
	[[ "$output" != *"gate: PASS"* ]]
}
