#!/usr/bin/env bats
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The cost tool on chains of programs (bench/cost/chain/cost_chain.h): a three-hop
# XDP chain and a TC one through a prog array the object fills itself
# (testing/cost_chain_probe.bpf.c), measured hop by hop; CHAIN= filling a slot
# from the same object and from another; and the chains a user gets wrong,
# each one line and its own status. Short rounds: the figures are checked for
# being there and adding up as printed, never for how fast.

load ../../../testing/netns
load ../../bmf
load cost_chain_test

setup()
{
	chain_setup
	CHAINS=$FBF_BUILD/testing
}

cost() { run bench/cost/cost.sh "$@"; echo "$output"; }

# chained KIND SHAPES: the chain's rows, check line and BMF names, KIND's actions at the
# end; SHAPES: how many run (the kernel's test run of an skb refuses the truncated one).
chained()
{
	grep -E "^hop chain_entry +ns/frame +-?[0-9.]+ +$2 of $2 " <<<"$output"
	grep -E "^hop chain_hop2 +ns/frame +-?[0-9.]+ +8 of $2 " <<<"$output"
	grep -E "^hop chain_hop3 +ns/frame +-?[0-9.]+ +7 of $2 " <<<"$output"
	grep -E '^tail call +ns +-?[0-9.]+ ' <<<"$output"
	grep -E '^chain check: the hops and their tail calls add up to [0-9,.]+ ns over the shapes, '`
		`'the whole chain [0-9,.]+ ns: [-+][0-9.]+% apart' <<<"$output"
	[ "$(hops ipv4-udp)" = "chain_entry > chain_hop2 > chain_hop3" ]
	[ "$(hops ipv4-tcp)" = "chain_entry > chain_hop2" ]
	[ "$(hops arp)" = chain_entry ]
	grep -E "^ipv4-tcp +chain_entry > chain_hop2 +$1_(DROP|ACT_SHOT)\$" <<<"$output"
	check_bmf "$RESULTS/cost.bmf.json" cost/hop/chain_entry cost/hop/chain_hop2 \
		cost/hop/chain_hop3 cost/tail-call cost/chain/hop-sum cost/all
	check_bmf_measures "$RESULTS/cost.bmf.json" cost/hop/chain_hop2:latency \
		cost/tail-call:latency
	# The hops on the CPU curve too, on one CPU and on 2 where the host has them.
	grep -q "^CPUs, hop by hop: " <<<"$output"
	check_bmf_measures "$RESULTS/cost.bmf.json" cost/cpus/1/hop/chain_entry:latency \
		cost/cpus/1/hop/chain_hop2:latency cost/cpus/1/hop/chain_hop3:latency \
		cost/cpus/1/tail-call:latency
	[ "$(nproc)" -lt 2 ] ||
		check_bmf_measures "$RESULTS/cost.bmf.json" cost/cpus/2/hop/chain_hop2:latency
}

@test "an XDP chain the object fills itself: PROG= loads it, hop by hop, through make" {
	run make -s cost OBJ="$CHAINS/cost_chain_probe.bpf.o" PROG=chain_entry
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" != *"Bad file descriptor"* ]]
	chained XDP 13
}

@test "a TC chain, hop by hop" {
	cost measure "$CHAINS/cost_chain_probe_tc.bpf.o" chain_entry
	[ "$status" -eq 0 ]
	chained TC 12
}

@test "a single program is a chain of one: no hop rows" {
	cost measure "$FBF_BUILD/testing/cost_tc_probe.bpf.o"
	[ "$status" -eq 0 ]
	[[ "$output" != *"Chain, hop by hop"* ]]
	run grep -c 'cost/hop/' "$RESULTS/cost.bmf.json"
	[ "$output" = 0 ]
}

@test "CHAIN= fills a slot from the same object, and from another" {
	run make -s cost OBJ="$CHAINS/cost_chain_probe.bpf.o" PROG=chain_entry \
		CHAIN='jmp_table[2]=chain_spare'
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(hops ipv4-udp)" = "chain_entry > chain_hop2 > chain_spare" ]
	# chain_spare drops: the frames it takes end so.
	grep -E '^ipv4-udp +chain_entry > chain_hop2 > chain_spare +XDP_DROP$' <<<"$output"
	check_bmf "$RESULTS/cost.bmf.json" cost/hop/chain_spare
	FBF_COST_CHAIN="jmp_table[2]=$FBF_BUILD/xdp_pass.bpf.o:xdp_pass" cost measure \
		"$CHAINS/cost_chain_probe.bpf.o" chain_entry
	[ "$status" -eq 0 ]
	[ "$(hops ipv4-udp)" = "chain_entry > chain_hop2 > xdp_pass" ]
	check_bmf "$RESULTS/cost.bmf.json" cost/hop/xdp_pass
}

@test "CHAIN= in the live part: the flood runs the chain the slots make" {
	export FBF_COST_ROUNDS=1 FBF_COST_LIVE_ROUNDS=1 FBF_COST_FLOOD_SECONDS=1
	# The flood's IPv4 frames, neither TCP nor refused, go through slot 2: chain_hop3 passes
	# them, chain_spare in its place drops them.
	cost measure "$CHAINS/cost_chain_probe.bpf.o" chain_entry
	[ "$status" -eq 0 ]
	grep -E '^live native +frames/s .* passed 100%$' <<<"$output"
	FBF_COST_CHAIN='jmp_table[2]=chain_spare' cost measure "$CHAINS/cost_chain_probe.bpf.o" \
		chain_entry
	[ "$status" -eq 0 ]
	grep -E '^live native +frames/s .* dropped 100%$' <<<"$output"
}

@test "CHAIN= naming what is not there, or not of the chain's type: one line, its status" {
	FBF_COST_CHAIN='jmp_table[2]=nosuch' cost measure "$CHAINS/cost_chain_probe.bpf.o" \
		chain_entry
	[ "$status" -eq 50 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"has no program nosuch; its XDP programs: "*chain_spare* ]]
	FBF_COST_CHAIN='jmp_table[2]=tc_chain_other' cost measure \
		"$CHAINS/cost_chain_probe.bpf.o" chain_entry
	[ "$status" -eq 51 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"tc_chain_other in "*" is not of the chain's type, XDP"* ]]
	FBF_COST_CHAIN="jmp_table[2]=$CHAINS/cost_chain_probe_tc.bpf.o:chain_spare" cost measure \
		"$CHAINS/cost_chain_probe.bpf.o" chain_entry
	[ "$status" -eq 51 ]
	[[ "$output" == *"is a TC program, the chain's are XDP"* ]]
	FBF_COST_CHAIN='jmp_table[4]=chain_spare' cost measure \
		"$CHAINS/cost_chain_probe.bpf.o" chain_entry
	[ "$status" -eq 52 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"jmp_table[4] is past the end of jmp_table, which holds 4 slots"* ]]
	FBF_COST_CHAIN='chain_counts[0]=chain_spare' cost measure \
		"$CHAINS/cost_chain_probe.bpf.o" chain_entry
	[ "$status" -eq 52 ]
	[[ "$output" == *"chain_counts is not a prog array in "*"; its prog arrays: jmp_table"* ]]
	FBF_COST_CHAIN='jmp_table[2]' cost measure "$CHAINS/cost_chain_probe.bpf.o" chain_entry
	[ "$status" -eq 2 ]
	[[ "$output" == *"is not MAP[INDEX]=PROG nor MAP[INDEX]=OBJECT:PROG"* ]]
}

@test "a chain that loops back on itself: the kernel's limit said, its status" {
	cost measure "$CHAINS/cost_chain_probe_loop.bpf.o" chain_entry
	[ "$status" -eq 53 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"chain_hop3 tail-calls jmp_table[1], back into chain_hop2: the kernel "`
			`"stops such a chain after 33 tail calls"* ]]
}

@test "frames that reach an empty slot: said with the shapes that fell through; all: status" {
	cost measure "$CHAINS/cost_chain_probe_empty.bpf.o" chain_entry
	[ "$status" -eq 0 ]
	grep -E '^ipv4-udp +chain_entry > chain_hop2 +XDP_PASS, fell through at empty '`
		`'jmp_table\[2\]$' <<<"$output"
	[[ "$output" == *"chain: 7 of 13 shapes reach an empty slot and fall through (jmp_table[2])"* ]]
	# Every shape: no chain runs at all.
	cost measure "$CHAINS/cost_chain_probe_none.bpf.o" chain_entry
	[ "$status" -eq 54 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"every frame shape reaches an empty slot (jmp_table[1] first)"* ]]
}

# compare BASE CANDIDATE: a compare of two chains on 5 rounds, the fewest the gate's
# statistics judge a hop on with room (bench/gate/gate.py: MIN_ROUNDS).
compare() { FBF_COST_ROUNDS=5 cost compare "$1" "$2" chain_entry; }

@test "cost-compare judges a chain hop by hop: a loop planted in hop 2 is named by its hop" {
	local largest

	compare "$CHAINS/cost_chain_probe.bpf.o" "$CHAINS/cost_chain_probe_planted.bpf.o"
	[ "$status" -eq 1 ]
	# The exact rise names the hop whatever the host's speed; the timing, some hundreds
	# of ns against a hop's few, as well.
	[[ "${lines[-1]}" == "cost-compare: REGRESSION: hop chain_hop2 verified-instructions "* ]]
	[[ "${lines[-1]}" == *"; hop chain_hop2 +"*"% ns/frame (+"*" ns) (regressed: "* ]]
	[[ "${lines[-1]}" != *"hop chain_entry"* ]]
	# Hop 3's marginal cost can rise too after hop 2's long chain of multiplies (the CPU
	# overlaps less of it: 5 to 17-30 ns in some runs), so the line may name it; the rise
	# it names first and largest, in ns, is hop 2's.
	largest=$(grep -oE 'hop chain_[a-z0-9]+ [-+][0-9.]+% ns/frame \([-+][0-9.]+ ns\)' \
		<<<"${lines[-1]}" | sed -E 's/^hop ([a-z_0-9]+) .*\(([-+][0-9.]+) ns\)$/\2 \1/' |
		sort -g -r | head -n 1)
	echo "the largest rise named: $largest"
	[[ "$largest" == *" chain_hop2" ]]
	grep -E '^cost/hop/chain_hop2 +ns/frame .* regressed$' <<<"$output"
	grep -E '^cost/hop/chain_hop3 +verified-instructions +([0-9]+) +\1 .* unchanged$' \
		<<<"$output"
	check_bmf_measures "$RESULTS/cost-compare.bmf.json" cost/hop/chain_hop2:latency \
		cost/hop/chain_hop2:verified-instructions
}

@test "cost-compare of a chain against itself passes, each hop judged; a hop of one side said" {
	compare "$CHAINS/cost_chain_probe.bpf.o" "$CHAINS/cost_chain_probe.bpf.o"
	[ "$status" -eq 0 ]
	[[ "${lines[-1]}" == "cost-compare: PASS: same static figures or fewer, "*"; hop chain_entry "`
		`*"; hop chain_hop2 "*"; hop chain_hop3 "* ]]
	[[ "$output" == *"Gated: "*", and each hop of the chain, its own ns per frame"* ]]
	# Slot 2 left empty in the candidate: its chain ends at hop 2.
	compare "$CHAINS/cost_chain_probe.bpf.o" "$CHAINS/cost_chain_probe_empty.bpf.o"
	[[ "$output" == *$'\n'"chain: hop chain_hop3 in the base's chain only: not compared"$'\n'* ]]
	[[ "${lines[-1]}" != *"hop chain_hop3"* ]]
}

# The tail call's cost per kernel (bench/cost/chain/chain_kernels.sh) on the host alone: its table
# has every tail-call row, and the dispatcher's rows say it does not load, since libxdp 1.3.1
# cannot load its dispatcher on this host's 6.18 (docs/benchmarks.md, "Measure a chain").
@test "the tail call's cost on the host: every chain length's row; the dispatcher's one line" {
	local n said

	FBF_COST_KERNELS= run bench/cost/chain/chain_kernels.sh
	echo "$output"
	[ "$status" -eq 0 ]
	grep -Eq "^\| bare XDP program, ns \| [0-9.]+ \(1\.00x\) \|$" <<<"$output"
	for n in 1 2 8 32; do
		grep -Eq "^\| tail call, chain of $n: ns a call \| -?[0-9.]+ \(-?[0-9.]+x\) \|$" \
			<<<"$output"
	done
	run "$FBF_BUILD/bench/cost_run" dispatcher -r 1 -n 10 "$FBF_BUILD/xdp_pass.bpf.o" \
		"$FBF_BUILD/xdp_pass.bpf.o"
	echo "$output"
	if [ "$status" -eq 0 ]; then
		skip "libxdp's dispatcher loads on this kernel: cost_kernels.bats measures it"
	fi
	[ "$status" -eq 55 ]
	# The program alone's row, which ran, and one line on stderr: nothing else.
	[ "${#lines[@]}" -eq 2 ]
	grep -Eq $'^alone\t0\t[0-9.]+$' <<<"$output"
	said="^cost: libxdp's dispatcher does not load on this kernel \(.+\): measure it in a guest,"
	grep -Eq "$said bench/cost/chain/chain_kernels.sh KERNELS$" <<<"$output"
}

# LINES=1 on a chain: perf's samples in every hop are the chain's, placed on each hop's own line
# table (the real chain's programs, by id). The planted loop runs in hop 2 alone, a 200-step
# multiply chain against the hops' few lines of parsing: the top line on any host.
@test "LINES=1 on a chain: the hops' lines too, the planted loop in hop 2 the hottest" {
	local top

	command -v perf >/dev/null || skip "perf is missing: install linux-perf (make deps)"
	FBF_COST_LINES=1 FBF_COST_CPU_ROUNDS=0 cost measure \
		"$CHAINS/cost_chain_probe_planted.bpf.o" chain_entry
	[ "$status" -eq 0 ]
	top=$(sed -n '/^share  line /{n;p;q}' <<<"$output")
	[[ "$top" == *"testing/cost_chain_probe.bpf.c:"*"for (int i = 0; i < PLANTED_STEPS; i++)"* ]]
	# Each hop's functions in the listing of every line, the loop's line in hop 2's.
	for hop in chain_entry chain_hop2 chain_hop3; do
		grep -q "^$hop (0x" "$RESULTS/cost-lines.txt"
	done
	awk '/^chain_hop2 \(/, /^$/' "$RESULTS/cost-lines.txt" | grep -q 'i < PLANTED_STEPS'
	run awk '/^chain_(entry|hop3) \(/, /^$/' "$RESULTS/cost-lines.txt"
	[[ "$output" != *"i < PLANTED_STEPS"* ]]
}

# The dispatcher's slots named (cost_run dispatcher OBJECT PASS_OBJECT OBJECT[:PROG]...): each one
# opened before anything is timed, so that a wrong one is one line on any kernel, this host's too.
@test "the dispatcher's named slots: a missing object, a program it lacks, too many: one line each" {
	local run=$FBF_BUILD/bench/cost_run pass=$FBF_BUILD/xdp_pass.bpf.o said
	local dump=/usr/lib/x86_64-linux-gnu/bpf/xdpdump_xdp.o

	[ -f "$dump" ] || skip "xdp-tools' objects are missing: make deps-test"
	run "$run" dispatcher -r 1 -n 10 "$pass" "$pass" "$BATS_TEST_TMPDIR/none.o"
	[ "$status" -eq 3 ]
	[ "$output" = "cost: dispatcher: opening $BATS_TEST_TMPDIR/none.o: No such file or directory" ]
	run "$run" dispatcher -r 1 -n 10 "$pass" "$pass" "$dump:nosuch"
	[ "$status" -eq 3 ]
	said="cost: dispatcher: $dump has no program nosuch: name one of its XDP programs after"
	[ "$output" = "$said the colon" ]
	# Nine beside the program fill the dispatcher; ten are one too many.
	run "$run" dispatcher -r 1 -n 10 "$pass" "$pass" "$dump" "$dump" "$dump" "$dump" "$dump" \
		"$dump" "$dump" "$dump" "$dump" "$dump"
	[ "$status" -eq 2 ]
	said="cost: dispatcher: 10 programs named beside the one measured; libxdp's dispatcher"
	[ "$output" = "$said has 10 slots" ]
}
