# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The live part's TC side (bench/cost/cost_live.sh): one mode, the hook the
# program's section names. Ingress: on the server veth, which the flood
# arrives on. Egress: on the client veth, which the flood leaves through, the
# flood going through the stack's egress path (FBF_RAWFLOOD_EGRESS) for TC to
# see it. cost_run attaches through tcx where the kernel has it (6.6) and a
# clsact qdisc where not. What became of every frame, rows passed-percent
# (went on: into the stack on ingress, out of the veth on egress) and
# stopped-percent (dropped, stolen or redirected: TC has no counter that tells
# these apart) of the frames the hook saw: on ingress, the server veth's
# received frames against those the stack dropped after TC as addressed to
# another host (the flood's MAC is nobody's; the otherhost counter, 5.19+);
# on egress, the frames sent against those the server veth received.

# shellcheck disable=SC2034 # read by cost_live.sh
live_counted="the share of the frames the hook saw that went on: into the stack on ingress \
(the server veth's otherhost drops), out of the veth on egress"

live_setup() { :; }

live_where()
{
	if [ "$1" = egress ]; then
		echo "$FBF_NS_CLI $FBF_VETH_CLI"
	else
		echo "$FBF_NS_SRV $FBF_VETH_SRV"
	fi
}

live_flood_egress() { [ "$1" = egress ] && echo 1 || echo 0; }

# live_counters MODE: the server veth's "received otherhost" ("-" where the kernel lacks it).
live_counters()
{
	ip -n "$FBF_NS_SRV" -s -s -j link show dev "$FBF_VETH_SRV" | python3 -c '
import json, sys
rx = json.load(sys.stdin)[0]["stats64"]["rx"]
print(rx["packets"], rx.get("otherhost", "-"))'
}

# live_did NAME MODE BEFORE AFTER SENT: what the program did to every frame the hook saw.
live_did()
{
	awk -v n="$1" -v mode="$2" -v before="$3" -v after="$4" -v sent="$5" 'BEGIN {
		split(before, b, " ")
		split(after, a, " ")
		if (mode == "egress") {
			seen = sent; went = a[1] - b[1]
		} else {
			if (a[2] == "-")
				exit
			seen = a[1] - b[1]; went = a[2] - b[2]
		}
		if (seen <= 0)
			exit
		# A few frames of the stack itself (neighbour discovery): never past all of them.
		if (went > seen)
			went = seen
		printf "%s\tpassed-percent\t%.3f\n", n, 100 * went / seen
		printf "%s\tstopped-percent\t%.3f\n", n, 100 * (seen - went) / seen
	}'
}
