# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The live part's XDP side (bench/cost/packet/cost_live.sh): modes native and skb, on
# the server veth, which the flood arrives on. A veth counts XDP's actions in
# native mode only (ethtool -S): there, rows passed-, dropped-, redirected-,
# tx- (sent back out of the veth) and tx-failed-percent (sent back, failed,
# and dropped), each of the frames XDP saw. A veth sends an XDP_TX frame back
# only where its peer can take it (xdp-tools 421: a program or GRO on the
# peer): the client veth gets bare XDP_PASS (live_setup), so a TX program's
# frames really go back, as they would on a NIC, instead of failing.

# shellcheck disable=SC2034 # read by cost_live.sh
live_counted="the veth's XDP counters (native mode only)"

live_setup()
{
	ip -n "$FBF_NS_CLI" link set dev "$FBF_VETH_CLI" xdpdrv obj "$FBF_BUILD/xdp_pass.bpf.o" \
		sec xdp
}

live_where() { echo "$FBF_NS_SRV $FBF_VETH_SRV"; }

live_flood_egress() { echo 0; }

# live_counters MODE: the server veth's XDP counters summed over its queues, as
# "packets redirect drops tx tx_errors".
live_counters()
{
	fbf_in_srv ethtool -S "$FBF_VETH_SRV" | awk -F: '
		$1 ~ /rx_queue_[0-9]+_xdp_packets/ { p += $2 }
		$1 ~ /rx_queue_[0-9]+_xdp_redirect/ { r += $2 }
		$1 ~ /rx_queue_[0-9]+_xdp_drops/ { d += $2 }
		$1 ~ /rx_queue_[0-9]+_xdp_tx$/ { t += $2 }
		$1 ~ /rx_queue_[0-9]+_xdp_tx_errors/ { e += $2 }
		END { printf "%d %d %d %d %d\n", p, r, d, t, e }'
}

# live_did NAME MODE BEFORE AFTER SENT: what the program did to every frame, in native mode.
live_did()
{
	[ "$2" = native ] || return 0
	awk -v n="$1" -v before="$3" -v after="$4" 'BEGIN {
		split(before, b, " ")
		split(after, a, " ")
		seen = a[1] - b[1]
		if (seen <= 0)
			exit
		redirected = a[2] - b[2]; dropped = a[3] - b[3]; tx = a[4] - b[4]
		failed = a[5] - b[5]
		printf "%s\tpassed-percent\t%.3f\n", n,
			100 * (seen - redirected - dropped - tx - failed) / seen
		printf "%s\tdropped-percent\t%.3f\n", n, 100 * dropped / seen
		printf "%s\tredirected-percent\t%.3f\n", n, 100 * redirected / seen
		printf "%s\ttx-percent\t%.3f\n", n, 100 * tx / seen
		printf "%s\ttx-failed-percent\t%.3f\n", n, 100 * failed / seen
	}'
}
