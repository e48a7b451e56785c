#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The whole path as CPUs are added: a raw flood of 60-byte frames from 4,096
# sources (flood.bash) from K CPUs at once, K = 1, 2, 4, ... up to every CPU
# but the agent's, into the test network's veth (one queue per CPU), with
# each arm in turn on its far end:
#
#   none                       nothing attached
#   xdp_pass-skb, -native      a bare XDP_PASS program (xdp-loader), each mode
#   queue ring aggregate sample64
#                              the agent of each design (curve.bash), in its
#                              default mode, pinned to the last CPU, draining
#
# On a veth the agent's default is skb mode, which runs the program on the
# CPU that sent the frame and so scales with K; native mode funnels every
# frame through the veth's NAPI receive queues, which is why the designs are
# measured in the default mode and compared with XDP_PASS in that same mode.
# Per arm, K and round, rows "curve/flood/ARM/K-cpu<TAB>measure<TAB>value":
# throughput (frames/s the flood reached: frames sent over the seconds), sent;
# for the designs of-xdp-pass-MODE-percent (the throughput as a percent of the
# same round's bare XDP_PASS in the mode the agent chose), xdp-seen-percent
# (IPv4 frames the program saw of those sent), and delivered-per-s,
# lost-per-s and lost-percent from the agent's summary (curve.bash), over the
# flood's seconds: a rate held by filling the queue or ring shows as losses.
# The arms take turns in an order that rotates each round.
#
#   curve_flood.sh [ROUNDS [FLOOD_SECONDS]]
set -euo pipefail

. "$(dirname "$0")/../../testing/netns.bash"
. "$(dirname "$0")/flood.bash"
. "$(dirname "$0")/curve.bash"

rounds=${1:-3}
rounds_list=$(curve_rounds curve_flood "$rounds")
flood_seconds=${2:-2}
arms=(none xdp_pass-skb xdp_pass-native "${curve_designs[@]}")

[ -x "$rawflood" ] || { echo "curve_flood: $rawflood is missing: run make" >&2; exit 1; }
counts=$(curve_counts "$curve_agent_cpu")
curve_lab_up curve_flood "$(nproc)"

declare -A rate mode

# run ARM K: one flood from K CPUs through ARM; prints its rows, keeps its rate.
run()
{
	local arm=$1 k=$2 name=curve/flood/$1/$2-cpu sent seen

	case $arm in
	none) ;;
	xdp_pass-*)
		fbf_in_srv xdp-loader load --mode "${arm#xdp_pass-}" "$FBF_VETH_SRV" \
			"$FBF_BUILD/xdp_pass.bpf.o" ;;
	*)
		curve_agent_start "$arm"
		mode[$arm]=$(agent_mode "$work/agent.err") ;;
	esac
	# shellcheck disable=SC2046 # one word a CPU
	sent=$(flood $(seq 0 $((k - 1))))
	rate[$arm]=$(awk -v n="$sent" -v s="$flood_seconds" 'BEGIN { printf "%.0f", n / s }')
	printf '%s\tthroughput\t%s\n%s\tsent\t%s\n' "$name" "${rate[$arm]}" "$name" "$sent"
	case $arm in
	none) ;;
	xdp_pass-*) fbf_in_srv xdp-loader unload --all "$FBF_VETH_SRV" ;;
	*)
		curve_agent_stop "$name" "$flood_seconds"
		seen=$(($(fbf_summary_value "$work/agent.err" packets) - \
			$(fbf_summary_value "$work/agent.err" non_ipv4)))
		awk -v n="$name" -v seen="$seen" -v sent="$sent" \
			'BEGIN { printf "%s\txdp-seen-percent\t%.3f\n", n, 100 * seen / sent }' ;;
	esac
}

for round in $rounds_list; do
	for k in $counts; do
		for ((i = 0; i < ${#arms[@]}; i++)); do
			run "${arms[(i + round) % ${#arms[@]}]}" "$k"
		done
		for arm in "${curve_designs[@]}"; do
			awk -v n="curve/flood/$arm/$k-cpu" -v m="${mode[$arm]}" -v a="${rate[$arm]}" \
				-v p="${rate[xdp_pass-${mode[$arm]}]}" \
				'BEGIN { printf "%s\tof-xdp-pass-%s-percent\t%.2f\n", n, m, 100 * a / p }'
		done
	done
done
