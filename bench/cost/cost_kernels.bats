#!/usr/bin/env bats
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The cost tool on the kernel matrix (make test-kernels runs it, with
# FBF_COST_KERNELS set to KERNELS): the verifier's figures of an XDP object and
# of a TC one, taken in a guest of each kernel, and a compare that names each
# kernel where one planted instruction grew the program. The host's timing is
# cut short: only the kernels' figures are looked at.

load ../../testing/netns
load ../bmf

setup()
{
	fbf_bench_setup
	[ "$(id -u)" -eq 0 ] || skip "needs root: the tool loads XDP programs"
	[ -n "${FBF_COST_KERNELS:-}" ] ||
		skip "FBF_COST_KERNELS names no kernel: make test-kernels sets it to KERNELS"
	export FBF_COST_OUT=$RESULTS FBF_COST_ROUNDS=3 FBF_COST_REPEAT=1000 FBF_COST_LIVE_ROUNDS=0
	PROBE=$FBF_BUILD/testing/cost_probe
}

cost() { run bench/cost/cost.sh "$@"; echo "$output"; }

# measured_on_each OBJECT: make cost's verifier figures of OBJECT, taken in a guest of
# each kernel, none of them 0 (a kernel that measured nothing; 5.10 lacks verified_insns).
measured_on_each()
{
	local kernel name measure

	# Under /tmp, which a guest does not share: the tool copies it where the guest sees it.
	cp "$1" "$BATS_TEST_TMPDIR/object.bpf.o"
	cost measure "$BATS_TEST_TMPDIR/object.bpf.o"
	[ "$status" -eq 0 ]
	for kernel in $FBF_COST_KERNELS; do
		name=$(basename "$kernel")
		[[ "$output" == *"cost: $name booted and measured in "* ]]
		for measure in verified-instructions translated-instructions jited-bytes; do
			grep -Eq "^verifier@$name +$measure +[1-9][0-9]* +[1-9][0-9]* " <<<"$output"
		done
		check_bmf "$RESULTS/cost.bmf.json" "cost/prog@$name"
	done
}

@test "the verifier's figures of an object on each kernel, 5.10's verified count from its log" {
	measured_on_each "$PROBE.bpf.o"
}

@test "a TC program's verifier figures on each kernel" {
	measured_on_each "$FBF_BUILD/testing/cost_tc_probe.bpf.o"
}

@test "one planted instruction fails the compare on every kernel, named" {
	local kernel name measure

	cost compare "$PROBE.bpf.o" "$PROBE"_planted.bpf.o
	[ "$status" -eq 1 ]
	for kernel in $FBF_COST_KERNELS; do
		name=$(basename "$kernel")
		for measure in verified-instructions translated-instructions; do
			grep -Eq "^cost/prog@$name +$measure .* regressed$" <<<"$output"
			[[ "${lines[-1]}" == *"$measure on $name ("*") "* ]]
		done
	done
}

@test "an A/A compare passes on every kernel" {
	local kernel name

	cost compare "$PROBE.bpf.o" "$PROBE.bpf.o"
	[ "$status" -eq 0 ]
	[[ "${lines[-1]}" == "cost-compare: PASS: "* ]]
	for kernel in $FBF_COST_KERNELS; do
		name=$(basename "$kernel")
		grep -Eq "^cost/prog@$name +jited-bytes +[1-9][0-9]* +[1-9][0-9]* +\+0\.00% .* unchanged$" \
			<<<"$output"
	done
}

@test "each side's own SET reaches the guests: the branch it rules out is pruned there" {
	local kernel name row

	# One object on both sides; the base's port keeps the drop branch, the candidate's
	# default of 0 lets the verifier prune it, on every kernel as on the host.
	FBF_COST_BASE_SET=cost_drop_port=80 cost compare "$FBF_BUILD/testing/cost_state.bpf.o" \
		"$FBF_BUILD/testing/cost_state.bpf.o"
	[ "$status" -eq 0 ]
	for kernel in $FBF_COST_KERNELS; do
		name=$(basename "$kernel")
		row=$(grep -E "^cost/prog@$name +verified-instructions " <<<"$output")
		echo "$row"
		awk '{ exit !($4 < $3) }' <<<"$row"
	done
}

# Issue 66: the tail call's cost on every kernel, and libxdp's dispatcher with 1 to 10
# programs on 6.1 and 6.12, each kernel booted once (bench/cost/chain/chain_kernels.sh). The rows
# are looked for, never their ns: a guest under TCG emulates its CPU.
@test "a tail call's cost on each kernel; the dispatcher with 1 to 10 programs on 6.1, 6.12" {
	local kernel name file release n kernels spec
	local filters=/usr/lib/x86_64-linux-gnu/bpf xdp_tools

	# Beside the program, two of xdp-tools' programs that Debian ships: the filter that
	# allows everything and xdpdump's, which copies nothing until told to.
	[ -f "$filters/xdpfilt_alw_all.o" ] || skip "xdp-tools' objects are missing: make deps-test"
	xdp_tools="$filters/xdpfilt_alw_all.o $filters/xdpdump_xdp.o:xdpdump"
	read -ra kernels <<<"$FBF_COST_KERNELS"
	run env SLOTS="$xdp_tools" bench/cost/chain/chain_kernels.sh "${kernels[@]}"
	echo "$output"
	[ "$status" -eq 0 ]
	for kernel in $FBF_COST_KERNELS; do
		name=$(basename "$kernel")
		[[ "$output" == *"chain_kernels: $name booted and measured in "* ]]
		file=$FBF_BUILD/results/chain-kernels/$name/figures.tsv
		release=$(awk '/^# kernel / { print $3 }' "$file")
		grep -F "| $name $release |" <<<"$output" | grep -q '^| figure |'
		grep -Eq $'^bare\t0\t[0-9.]+$' "$file"
		for n in 1 2 8 32; do
			grep -Eq $'^tail-calls\t'"$n"$'\t[0-9.]+\t-?[0-9.]+$' "$file"
		done
		case "$release" in
		6.1.* | 6.12.*) ;;
		*) continue ;;
		esac
		grep -Eq $'^alone\t0\t[0-9.]+$' "$file"
		for n in 1 2 5 10; do
			grep -Eq $'^dispatcher\t'"$n"$'\t[0-9.]+\t-?[0-9.]+$' "$file"
		done
		# The three programs in the order the dispatcher runs them, each one's share.
		[ "$(awk '$1 == "slot"' "$file" | cut -f3 | LC_ALL=C sort | paste -sd ' ')" = \
			"xdp_pass xdpdump xdpfilt_alw_all" ]
		grep -Eq $'^slots\t3\t[0-9.]+\t-?[0-9.]+$' "$file"
		for spec in "$FBF_BUILD/xdp_pass.bpf.o" $xdp_tools; do
			grep -Fq $'share\t'"$spec"$'\t' "$file"
		done
		[[ "$output" == *"| dispatcher with the programs named: the order it runs them |"* ]]
		[[ "$output" == *"| share of xdpdump_xdp.o:xdpdump: ns (of the dispatcher's) |"* ]]
	done
}
