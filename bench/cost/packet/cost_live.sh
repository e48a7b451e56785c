#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Any XDP or TC object on a veth, under a raw flood of 60-byte IPv4 frames
# from one CPU (bench/kernel/flood.bash), beside nothing attached and the bare
# program of its type, in each MODE its type attaches in:
#
#   none  BARE-MODE...  prog-MODE...       (XDP: xdp_pass-native, prog-skb, ...)
#
# The program is loaded and attached by cost_run (its globals set from
# FBF_COST_SET, its maps filled from MAPS and its prog arrays' slots from
# FBF_COST_CHAIN first, as `make cost` tests them); the arms take turns in an order that
# rotates each round. What differs by type is in cost_live_TYPE.bash, beside
# this file: where a mode attaches, and what the veth and the stack count of
# what the program did to the frames (live_counted says it, on a first line
# "#counted<TAB>TEXT"). Per arm and round, rows
# "cost/live/ARM<TAB>measure<TAB>value": throughput (frames/s the flood
# reached: frames sent over its seconds), sent, latency (ns per packet from
# BPF run-time statistics, which add about 20 ns a run of their own), the
# type's counts of what became of the frames (live_did), and for a program
# with event maps, which cost_run empties while it runs, the events read
# (events-read) and that per run (events-per-run).
#
# With FBF_COST_PATH_TC ("OBJECT:PROG", cost.sh's from TC=), an XDP program's arms
# path-MODE too: it and that TC program attached together, and each one's share of the
# path (cost_path.bash, its rows).
#
# With CAPTURE (a pcap file of Ethernet frames, cost_run capture's; "" for
# none), the flood is the capture's frames in order, looping, sent by
# cost_run flood as fast as one CPU sends them on the client's veth, through
# its qdisc and TC egress (bench/cost/packet/cost_flood.h), in place of the 60-byte
# frame; frames longer than the veth's 1500-byte MTU are not in it (they run
# in test_run alone: cost_run capture counts them).
#
#   cost_live.sh TYPE BARE OBJECT PROG MAPS ROUNDS FLOOD_SECONDS CAPTURE MODE...
#   (PROG, MAPS, CAPTURE: "" for none)
set -euo pipefail

here=$(dirname "$0")
. "$here/../../../testing/netns.bash"
. "$here/../../kernel/flood.bash"

type=$1 bare=$2 obj=$3 prog=$4 maps=$5 rounds=$6 flood_seconds=$7 capture=$8
shift 8
modes=("$@")
# shellcheck source=bench/cost/packet/cost_live_xdp.bash
. "$here/cost_live_$type.bash"
# shellcheck source=bench/cost/packet/cost_path.bash
. "$here/cost_path.bash"
arms=(none)
for mode in "${modes[@]}"; do arms+=("$bare-$mode"); done
for mode in "${modes[@]}"; do arms+=("prog-$mode"); done
if [ -n "${FBF_COST_PATH_TC:-}" ]; then
	for mode in "${modes[@]}"; do arms+=("path-$mode"); done
fi
load_args=()
[ -z "$prog" ] || load_args+=(-p "$prog")
[ -z "$maps" ] || load_args+=(-m "$maps")
[ -z "${FBF_COST_SET:-}" ] || load_args+=(-s "$FBF_COST_SET")
# CHAIN='s slots too: the flood runs the chain the test runs timed.
[ -z "${FBF_COST_CHAIN:-}" ] || load_args+=(-C "$FBF_COST_CHAIN")
# shellcheck disable=SC2086 # one OBJECT=MAPS a word: the state of CHAIN's other objects
for word in ${FBF_COST_CHAIN_MAPS:-}; do load_args+=(-O "$word"); done

work=$(mktemp -d /tmp/fbf-cost.XXXXXX)
attached_pid=
fbf_lab_up attached_pid
# The path's TC cost_run too, however the run ends, before the lab goes.
fbf_cleanup_on_exit 'path_down; fbf_lab_down'
live_setup
# capture_flood CPU: the capture's frames, looping, from CPU for flood_seconds; prints the
# frames it sent (its loop ends on its first batch past flood_seconds: microseconds).
capture_flood()
{
	taskset -c "$1" nsenter --net="/run/netns/$FBF_NS_CLI" "$FBF_BUILD/bench/cost_run" flood \
		"$FBF_VETH_CLI" "$flood_seconds" "$capture" >"$work/flood.out" 2>&1 ||
		{ cat "$work/flood.out" >&2; return 1; }
	cut -f1 "$work/flood.out"
}

flooder=flood
[ -z "$capture" ] || flooder=capture_flood
export -f flood capture_flood
export rawflood flood_seconds flood_first flood_count work FBF_SERVER capture

# attach ARM: the arm's program where its mode says (live_where: the server's
# or the client's namespace), through cost_run, which detaches it when it ends.
attach()
{
	local arm=$1 object=$obj args=("${load_args[@]}") mode=${1##*-} ns iface

	[ "$arm" = none ] && return
	[[ "$arm" != "$bare"-* ]] || { object=$FBF_BUILD/$bare.bpf.o; args=(); }
	read -r ns iface <<<"$(live_where "$mode")"
	# fbf_srv_start runs its command in FBF_NS_SRV: here, the namespace the mode names.
	FBF_NS_SRV=$ns fbf_srv_start "$work/attach.out" "$work/attach.err" \
		"$FBF_BUILD/bench/cost_run" attach "${args[@]}" "$iface" "$mode" "$object" ||
		{ echo "cost: $arm: $(grep '^cost:' "$work/attach.err" | tail -n 1)" >&2; exit 10; }
	attached_pid=$FBF_AGENT_PID
	[[ "$arm" != path-* ]] || path_attach "$arm"
	# "cost: attached NAME (prog id N) to IFACE HOW": how, for the table's note.
	printf '#attached\t%s\t%s\n' "$arm" "$(sed -n 's/^cost: attached .* to [^ ]* //p' \
		"$work/attach.err")"
}

detach()
{
	path_detach
	[ -n "$attached_pid" ] || return 0
	kill -INT "$attached_pid"
	wait "$attached_pid"
	attached_pid=
}

# run ARM: one flood through ARM; prints its rows.
run()
{
	local arm=$1 name=cost/live/$1 mode=${1##*-} sent cnt=0 ns=0 before after events=

	# Nothing attached: the frames take the first mode's path all the same.
	[ "$arm" != none ] || mode=${modes[0]}
	attach "$arm"
	before=$(live_counters "$mode")
	export FBF_RAWFLOOD_EGRESS
	FBF_RAWFLOOD_EGRESS=$(live_flood_egress "$mode")
	if [ "$arm" = none ]; then
		sent=$($flooder 0)
	elif [[ "$arm" == path-* ]]; then
		path_flood "$flooder" "$work/run.out"
		detach
		path_rows "$mode" "$(grep -E '^[0-9]+$' "$work/run.out" | tail -n 1)" "$work/run.out"
		return
	else
		"$FBF_BUILD/bench/bpf_run_stats" "$(fbf_agent_prog_id "$work/attach.err")" -- \
			bash -c "$flooder 0" >"$work/run.out"
		sent=$(grep -E '^[0-9]+$' "$work/run.out" | tail -n 1)
		cnt=$(grep -o 'run_cnt=[0-9]*' "$work/run.out" | cut -d= -f2)
		ns=$(grep -o 'run_time_ns=[0-9]*' "$work/run.out" | cut -d= -f2)
	fi
	after=$(live_counters "$mode")
	detach
	[ "$arm" = none ] || events=$(awk -F'\t' '$1 == "#live" { print $2 }' "$work/attach.out")
	awk -v n="$name" -v sent="$sent" -v s="$flood_seconds" -v cnt="$cnt" -v ns="$ns" \
		-v events="$events" 'BEGIN {
		printf "%s\tthroughput\t%.0f\n", n, sent / s
		printf "%s\tsent\t%d\n", n, sent
		if (cnt > 0)
			printf "%s\tlatency\t%.2f\n", n, ns / cnt
		if (cnt > 0 && events != "") {
			printf "%s\tevents-read\t%d\n", n, events
			printf "%s\tevents-per-run\t%.3f\n", n, events / cnt
		}
	}'
	[ "$arm" = none ] || live_did "$name" "$mode" "$before" "$after" "$sent"
}

printf '#counted\t%s\n' "$live_counted"
for round in $(seq "$rounds"); do
	for ((k = 0; k < ${#arms[@]}; k++)); do
		run "${arms[(k + round) % ${#arms[@]}]}"
	done
done
