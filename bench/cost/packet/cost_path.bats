#!/usr/bin/env bats
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The cost tool's path (TC=, bench/cost/packet/cost_path.bash): an XDP program and a TC
# program after it on the veth's ingress, flooded together by the live part; from one
# object (testing/cost_path_probe.bpf.c, whose XDP program drops the flood's odd sources,
# half of it) and from two; and each way to ask for a path wrongly, in one line and its
# status (bench/cost/cost_exits.h). Short rounds: counts and shares are checked, never how
# fast anything ran.

load ../../../testing/netns
load ../../bmf

setup()
{
	fbf_bench_setup
	[ "$(id -u)" -eq 0 ] || skip "needs root: the tool loads BPF programs and makes veth pairs"
	export FBF_COST_OUT=$RESULTS FBF_COST_ROUNDS=2 FBF_COST_REPEAT=1000
	export FBF_COST_LIVE_ROUNDS=1 FBF_COST_FLOOD_SECONDS=1
	PROBE=$FBF_BUILD/testing/cost_path_probe.bpf.o
}

cost() { run bench/cost/cost.sh "$@"; echo "$output"; }

# bmf BENCH MEASURE: the value in the run's BMF file.
bmf() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]][sys.argv[3]]["value"])' \
	"$RESULTS/cost.bmf.json" "$1" "$2"; }

# between LOW X HIGH: LOW <= X <= HIGH, as numbers.
between() { awk -v lo="$1" -v x="$2" -v hi="$3" 'BEGIN { exit !(lo <= x && x <= hi) }'; }

# path_checks MODE XDP TC LOW HIGH: the path's rows in MODE: both programs ran, TC on LOW to
# HIGH of XDP's frames, their shares in the table and the BMF file adding to 100.
path_checks()
{
	local mode=$1 xdp=cost/path/$1/xdp/$2 tc=cost/path/$1/tc/$3 x t shares

	check_bmf "$RESULTS/cost.bmf.json" "$xdp" "$tc" "cost/path/$mode/total"
	check_bmf_measures "$RESULTS/cost.bmf.json" "$xdp:latency" "$tc:latency" \
		"cost/path/$mode/total:latency" "cost/path/$mode/total:throughput"
	x=$(bmf "$xdp" runs) t=$(bmf "$tc" runs)
	between 1 "$x" inf
	between 1 "$t" "$x"
	between "$4" "$(awk -v t="$t" -v x="$x" 'BEGIN { print t / x }')" "$5"
	between 99.99 "$(awk -v a="$(bmf "$xdp" share-percent)" -v b="$(bmf "$tc" share-percent)" \
		'BEGIN { print a + b }')" 100.01
	# The table's shares, rounded to a tenth each.
	shares=$(awk -v m="path $mode" '$1 " " $2 == m && ($3 ~ /^xdp\// || $3 ~ /^tc\//) {
		sub("%", "", $6); s += $6 } END { print s }' <<<"$output")
	between 99.85 "$shares" 100.15
	grep -Eq "^path $mode +total +[0-9.]+ +100% +100% +[0-9.,]+ " <<<"$output"
}

@test "one object's XDP and TC programs on one path: TC runs on the half XDP passes" {
	FBF_COST_TC=cost_path_tc cost measure "$PROBE" cost_path_xdp
	[ "$status" -eq 0 ]
	for mode in native skb; do
		path_checks "$mode" cost_path_xdp cost_path_tc 0.45 0.55
		between 49 "$(bmf "cost/path/$mode/total" tc-unseen-percent)" 51
		[[ "$output" == *"path $mode: TC never saw 50% of the frames XDP ran on"* ]]
	done
}

@test "two objects on one path: TC runs on every frame XDP passes" {
	FBF_COST_TC=$PROBE:cost_path_tc cost measure "$FBF_BUILD/testing/cost_probe.bpf.o"
	[ "$status" -eq 0 ]
	for mode in native skb; do
		path_checks "$mode" xdp_cost_probe cost_path_tc 0.95 1
		[[ "$output" != *"path $mode: TC never saw"* ]]
	done
}

# bad STATUS TEXT: the run ended with STATUS and the one line TEXT is part of.
bad()
{
	[ "$status" -eq "$1" ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "${lines[0]}" == "cost: "*"$2"* ]]
}

@test "a path asked for wrongly: one line and the path's status each, before anything runs" {
	FBF_COST_TC=cost_path_none cost measure "$PROBE" cost_path_xdp
	bad 56 "has no program cost_path_none"
	FBF_COST_TC=$FBF_BUILD/xdp_pass.bpf.o:tc_ok cost measure "$PROBE" cost_path_xdp
	bad 56 "has no program tc_ok"
	FBF_COST_TC=cost_path_xdp cost measure "$PROBE" cost_path_xdp
	bad 57 "cost_path_xdp is XDP, not a TC program"
	FBF_COST_TC=$FBF_BUILD/testing/cost_tc_probe_egress.bpf.o:tc_cost_probe \
		cost measure "$PROBE" cost_path_xdp
	bad 57 "attaches on TC egress"
	FBF_COST_TC=$PROBE:cost_path_tc cost measure "$FBF_BUILD/testing/cost_tc_probe.bpf.o"
	bad 58 "is a TC program: name the XDP program"
	FBF_COST_TC=cost_path_tc FBF_COST_LIVE_ROUNDS=0 cost measure "$PROBE" cost_path_xdp
	bad 59 "FBF_COST_LIVE_ROUNDS=0 leaves"
	FBF_COST_TC=cost_path_tc cost compare "$PROBE" "$PROBE" cost_path_xdp
	bad 59 "which a compare has none of"
}
