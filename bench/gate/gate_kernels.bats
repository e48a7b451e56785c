#!/usr/bin/env bats
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The regression gate on the kernel matrix (make test-kernels runs it, with
# FBF_GATE_KERNELS set to KERNELS): the programs' exact measures, taken in a
# guest of each kernel, do not rise on this tree against the committed base,
# and the planted v3 classifier fails on every kernel, named.

load gate_helpers

setup()
{
	gate_setup
	[ -n "${FBF_GATE_KERNELS:-}" ] ||
		skip "FBF_GATE_KERNELS names no kernel: make test-kernels sets it to KERNELS"
}

@test "on each kernel of the matrix, this tree's programs are no larger than the base's" {
	local kernel name measure

	require_root
	require_base
	gate_on "$FBF_BUILD" kernels
	[ "$status" -eq 0 ]
	[[ "$output" == *"gate: PASS"* ]]
	# Every kernel gave all six figures (a count of 0 is "not measured" and fails).
	for kernel in $FBF_GATE_KERNELS; do
		name=$(basename "$kernel")
		for measure in verified-instructions translated-instructions jited-bytes; do
			grep -Eq "^kernel/xdp_fizzbuzzfib@$name +$measure .*(unchanged|improved)$" \
				<<<"$output"
			grep -Eq "^kernel/xdp_fizzbuzzfib-ringbuf@$name +$measure .*(unchanged|improved)$" \
				<<<"$output"
		done
	done
}

@test "the planted v3 classifier fails the gate on every kernel of the matrix, named" {
	local kernel name measure

	require_root
	require_base
	build_canary 1
	gate_on "$canary" kernels
	[ "$status" -eq 1 ]
	[[ "$output" != *"gate: PASS"* ]]
	# 5.10 has no verified_insns: its count comes from the verifier's log, and grows too.
	for kernel in $FBF_GATE_KERNELS; do
		name=$(basename "$kernel")
		for measure in verified-instructions translated-instructions; do
			[[ "$output" == *"REGRESSION: kernel/xdp_fizzbuzzfib@$name $measure (kernel "* ]]
			[[ "$output" == *"REGRESSION: kernel/xdp_fizzbuzzfib-ringbuf@$name $measure (kernel "* ]]
		done
	done
}

@test "a kernel of the matrix that is not fetched is one line that says what to do" {
	run env FBF_BUILD="$FBF_BUILD" FBF_GATE_KERNELS=no-such-kernel bench/gate/gate.sh kernels
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"kernel 'no-such-kernel' is not in "*"make kernels KERNELS=no-such-kernel"* ]]
}
