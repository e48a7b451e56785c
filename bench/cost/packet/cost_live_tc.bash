# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The live part's TC side (bench/cost/packet/cost_live.sh): one mode, the hook the
# program's section names. Ingress: on the server veth, which the flood
# arrives on. Egress: on the client veth, which the flood leaves through, the
# flood going through the stack's egress path (FBF_RAWFLOOD_EGRESS) for TC to
# see it. cost_run attaches through tcx where the kernel has it (6.6) and a
# clsact qdisc where not. What became of every frame sent, each counted once,
# rows passed-percent (went on: out of the veth on egress, into the stack on
# ingress), stopped-percent (dropped, stolen or redirected: TC has no counter
# that tells these apart) and veth-dropped-percent (dropped by the veth when
# its peer's backlog was full: on egress after the program passed it, on
# ingress before the program saw it), from the client veth's sent and dropped
# frames and, on ingress, the server veth's received frames against those
# the stack dropped after TC as addressed to another host (the flood's MAC is
# nobody's; the otherhost counter, 5.19+).

# shellcheck disable=SC2034 # read by cost_live.sh
live_counted="the frames sent: on egress, those the client veth sent and dropped, the rest \
stopped by the program; on ingress, those the client veth dropped, and of the rest, the \
server veth's otherhost drops as passed"

# live_setup: what the counters' absence means here: iproute2 leaves out an otherhost
# count of 0, which a kernel before 5.19 never has.
live_setup()
{
	local major minor

	IFS=. read -r major minor _ <<<"$(uname -r)"
	otherhost_absent=0
	[ $((major * 1000 + minor)) -ge 5019 ] || otherhost_absent=-
}

live_where()
{
	if [ "$1" = egress ]; then
		echo "$FBF_NS_CLI $FBF_VETH_CLI"
	else
		echo "$FBF_NS_SRV $FBF_VETH_SRV"
	fi
}

live_flood_egress() { [ "$1" = egress ] && echo 1 || echo 0; }

# live_counters MODE: "SRV_RX OTHERHOST CLI_TX CLI_TX_DROPPED": the frames the server veth
# received, of them those the stack dropped as addressed to another host ("-" where the
# kernel lacks the counter), the frames the client veth sent, and those it dropped (its
# peer's backlog full: the veth's own drop, whatever TC said).
live_counters()
{
	local srv cli

	srv=$(ip -n "$FBF_NS_SRV" -s -s -j link show dev "$FBF_VETH_SRV")
	cli=$(ip -n "$FBF_NS_CLI" -s -s -j link show dev "$FBF_VETH_CLI")
	echo "$(stat64 "$srv" rx packets 0) $(stat64 "$srv" rx otherhost "$otherhost_absent")" \
	     "$(stat64 "$cli" tx packets 0) $(stat64 "$cli" tx dropped 0)"
}

# stat64 JSON DIRECTION NAME ABSENT: a counter of ip -j -s -s link's stats64 (whose
# DIRECTION objects hold numbers alone), or ABSENT where ip leaves it out.
stat64()
{
	local v

	v=$(grep -o "\"$2\":{[^}]*}" <<<"$1" | grep -o "\"$3\":[0-9]*" | cut -d: -f2 || true)
	echo "${v:-$4}"
}

# live_did NAME MODE BEFORE AFTER SENT: what became of every frame sent, each counted once.
# Egress: the program passed a frame the client veth sent or dropped, and stopped the rest
# (TC_ACT_SHOT, STOLEN, REDIRECT: TC counts none of them apart). Ingress: a frame the veth
# dropped never reached the program; of those that did, it passed the ones the stack then
# dropped as addressed to another host.
live_did()
{
	awk -v n="$1" -v mode="$2" -v before="$3" -v after="$4" -v sent="$5" 'BEGIN {
		split(before, b, " ")
		split(after, a, " ")
		veth = a[4] - b[4]
		if (mode == "egress") {
			went = a[3] - b[3]
			stopped = sent - went - veth
		} else {
			if (a[2] == "-") {
				printf "#uncounted\t%s\tthis kernel counts no otherhost drops " \
					"(5.19+): passed and stopped not told apart\n", n
				exit
			}
			seen = a[1] - b[1]; went = a[2] - b[2]
			# A few frames of the stack itself (neighbour discovery): never past all.
			if (went > seen)
				went = seen
			stopped = seen - went
		}
		if (sent <= 0)
			exit
		if (stopped < 0)
			stopped = 0
		printf "%s\tpassed-percent\t%.3f\n", n, 100 * went / sent
		printf "%s\tstopped-percent\t%.3f\n", n, 100 * stopped / sent
		printf "%s\tveth-dropped-percent\t%.3f\n", n, 100 * veth / sent
	}'
}
