#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Any XDP object on the receiving end of a veth, under a raw flood of 60-byte
# IPv4 frames from one CPU (bench/kernel/flood.bash), beside nothing attached
# and a bare XDP_PASS program, each in native and skb mode:
#
#   none  xdp_pass-native  xdp_pass-skb  prog-native  prog-skb
#
# The program is loaded and attached by cost_run (its maps filled from MAPS
# first, as `make cost` tests them); the arms take turns in an order that
# rotates each round. Per arm and round, rows "cost/live/ARM<TAB>measure<TAB>value":
# throughput (frames/s the flood reached: frames sent over its seconds),
# latency (ns per packet from BPF run-time statistics, which add about 20 ns
# a run of their own), and in native mode what the program did to the frames,
# from the veth's own XDP counters (ethtool -S): passed, dropped,
# redirected and tx, each in percent of the frames XDP saw, and for a program
# with event maps, which cost_run empties while it runs, the events read
# (events-read) and that per run (events-per-run). A veth counts XDP actions in native mode only.
#
# With CAPTURE (a pcap file of Ethernet frames, cost_run capture's), the flood
# is the capture's frames in order, looping, sent by tcpreplay at its top
# speed from one CPU, in place of the 60-byte frame; frames longer than the
# veth's 1500-byte MTU are not in it (they run in test_run alone).
#
#   cost_live.sh OBJECT PROG MAPS ROUNDS FLOOD_SECONDS [CAPTURE]   (PROG, MAPS: "" for none)
set -euo pipefail

. "$(dirname "$0")/../../testing/netns.bash"
. "$(dirname "$0")/../kernel/flood.bash"

obj=$1 prog=$2 maps=$3 rounds=$4 flood_seconds=$5 capture=${6:-}
arms=(none xdp_pass-native xdp_pass-skb prog-native prog-skb)
load_args=()
[ -z "$prog" ] || load_args+=(-p "$prog")
[ -z "$maps" ] || load_args+=(-m "$maps")

work=$(mktemp -d /tmp/fbf-cost.XXXXXX)
attached_pid=
fbf_lab_up attached_pid
# capture_flood CPU: the capture's frames, looping, from CPU for flood_seconds; prints the
# frames it sent in flood_seconds at the rate it sent them, which is what the rows are read
# as: tcpreplay ends the loop of the capture it is in before it stops, later than asked.
capture_flood()
{
	taskset -c "$1" nsenter --net="/run/netns/$FBF_NS_CLI" tcpreplay -i "$FBF_VETH_CLI" \
		--topspeed --preload-pcap --loop=0 --duration="$flood_seconds" "$capture" \
		>"$work/flood.out" 2>&1 || { cat "$work/flood.out" >&2; return 1; }
	awk -v s="$flood_seconds" '$1 == "Actual:" { printf "%.0f\n", $2 * s / $(NF - 1) }' \
		"$work/flood.out"
}

flooder=flood
[ -z "$capture" ] || flooder=capture_flood
export -f flood capture_flood
export rawflood flood_seconds flood_first flood_count work FBF_SERVER capture

# attach ARM: the arm's program on the server veth, through cost_run, which
# the kernel detaches from when it ends.
attach()
{
	local arm=$1 object=$obj args=("${load_args[@]}")

	[ "$arm" = none ] && return
	[[ "$arm" != xdp_pass-* ]] || { object=$FBF_BUILD/xdp_pass.bpf.o; args=(); }
	fbf_srv_start "$work/attach.out" "$work/attach.err" "$FBF_BUILD/bench/cost_run" \
		attach "${args[@]}" "$FBF_VETH_SRV" "${arm##*-}" "$object" ||
		{ echo "cost: $arm: $(grep '^cost:' "$work/attach.err" | tail -n 1)" >&2; exit 10; }
	attached_pid=$FBF_AGENT_PID
}

detach()
{
	[ -n "$attached_pid" ] || return 0
	kill -INT "$attached_pid"
	wait "$attached_pid"
	attached_pid=
}

# xdp_counters: the server veth's XDP counters summed over its queues, as
# "packets redirect drops tx".
xdp_counters()
{
	fbf_in_srv ethtool -S "$FBF_VETH_SRV" | awk -F: '
		$1 ~ /rx_queue_[0-9]+_xdp_packets/ { p += $2 }
		$1 ~ /rx_queue_[0-9]+_xdp_redirect/ { r += $2 }
		$1 ~ /rx_queue_[0-9]+_xdp_drops/ { d += $2 }
		$1 ~ /rx_queue_[0-9]+_xdp_tx$/ { t += $2 }
		END { printf "%d %d %d %d\n", p, r, d, t }'
}

# run ARM: one flood through ARM; prints its rows.
run()
{
	local arm=$1 name=cost/live/$1 sent cnt=0 ns=0 before after native=0 events=

	attach "$arm"
	before=$(xdp_counters)
	if [ "$arm" = none ]; then
		sent=$($flooder 0)
	else
		"$FBF_BUILD/bench/bpf_run_stats" "$(fbf_attached_prog_id)" -- bash -c "$flooder 0" \
			>"$work/run.out"
		sent=$(grep -E '^[0-9]+$' "$work/run.out" | tail -n 1)
		cnt=$(grep -o 'run_cnt=[0-9]*' "$work/run.out" | cut -d= -f2)
		ns=$(grep -o 'run_time_ns=[0-9]*' "$work/run.out" | cut -d= -f2)
	fi
	after=$(xdp_counters)
	detach
	[ "$arm" = none ] || events=$(awk -F'\t' '$1 == "#live" { print $2 }' "$work/attach.out")
	[[ "$arm" != *-native ]] || native=1
	awk -v n="$name" -v sent="$sent" -v s="$flood_seconds" -v cnt="$cnt" -v ns="$ns" \
		-v before="$before" -v after="$after" -v native="$native" -v events="$events" 'BEGIN {
		printf "%s\tthroughput\t%.0f\n", n, sent / s
		printf "%s\tsent\t%d\n", n, sent
		if (cnt > 0)
			printf "%s\tlatency\t%.2f\n", n, ns / cnt
		if (cnt > 0 && events != "") {
			printf "%s\tevents-read\t%d\n", n, events
			printf "%s\tevents-per-run\t%.3f\n", n, events / cnt
		}
		split(before, b, " ")
		split(after, a, " ")
		seen = a[1] - b[1]
		if (!native || seen <= 0)
			exit
		redirected = a[2] - b[2]; dropped = a[3] - b[3]; tx = a[4] - b[4]
		printf "%s\tpassed-percent\t%.3f\n", n, 100 * (seen - redirected - dropped - tx) / seen
		printf "%s\tdropped-percent\t%.3f\n", n, 100 * dropped / seen
		printf "%s\tredirected-percent\t%.3f\n", n, 100 * redirected / seen
		printf "%s\ttx-percent\t%.3f\n", n, 100 * tx / seen
	}'
}

for round in $(seq "$rounds"); do
	for ((k = 0; k < ${#arms[@]}; k++)); do
		run "${arms[(k + round) % ${#arms[@]}]}"
	done
done
