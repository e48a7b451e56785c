#!/usr/bin/env bats
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The agent on the cards users run, in a guest of the kernel matrix: frames
# written into a tap on the host (testing/vm/vm-nics) reach the guest's
# driver, and the agent counts every one, class by class. virtio_net with
# several queue pairs: native mode, both receive queues busy. virtio_net
# with the host's receive offloads forced on it: the driver refuses native
# mode, so auto takes skb and says why and what would give native, and
# --mode native fails with that reason, exit 5. e1000: skb mode, said at
# start; --mode native exit 5. Needs those cards (tests/run-kernels' nic
# group gives them to a guest); skips without them.

load ../../testing/netns

bats_require_minimum_version 1.5.0

# Raw sources: 40 hold every class; each sends FRAMES_PER_SOURCE frames.
RAW_FIRST=10.213.16.1
RAW_COUNT=40
FRAMES_PER_SOURCE=25

MAC_MQ=02:fb:f0:00:00:01
MAC_OFFLOADS=02:fb:f0:00:00:02
MAC_E1000=02:fb:f0:00:00:03

# nic_of MAC: the guest's interface with that MAC, in the root namespace.
nic_of()
{
	local dev

	for dev in /sys/class/net/*; do
		[ "$(cat "$dev/address")" = "$1" ] && { basename "$dev"; return 0; }
	done
	return 1
}

setup_file()
{
	export BATS_TEST_TIMEOUT=${BATS_TEST_TIMEOUT:-300}
	[ -n "${FBF_NIC_DIR:-}" ] && nic_of "$MAC_MQ" >/dev/null || return 0
	FBF_WORK=$(mktemp -d /tmp/fbf-nic.XXXXXX)
	FBF_NS_SRV=fbf-$$-nic
	export FBF_WORK FBF_NS_SRV
	local mac nic

	# The cards move into a namespace of the test's own, where the helpers run
	# the agent; deleting it gives them back.
	ip netns add "$FBF_NS_SRV"
	for mac in "$MAC_MQ" "$MAC_OFFLOADS" "$MAC_E1000"; do
		nic=$(nic_of "$mac")
		# virtio_net's queues' interrupts are named after its virtio device.
		basename "$(readlink -f "/sys/class/net/$nic/device")" >"$FBF_WORK/dev.$mac"
		ip link set dev "$nic" netns "$FBF_NS_SRV"
		# The frames are for no host: promiscuous, so that QEMU hands them over.
		fbf_in_srv ip link set dev "$nic" up promisc on
		echo "$nic" >"$FBF_WORK/nic.$mac"
	done
	# Every frame's class, from the reference model: FRAMES_PER_SOURCE per source.
	"$FBF_BUILD/testing/ref_classify" $(seq -f "10.213.16.%g" "$RAW_COUNT") |
		sort | uniq -c >"$FBF_WORK/classes"
}

teardown_file()
{
	[ -n "${FBF_NS_SRV:-}" ] && ip netns del "$FBF_NS_SRV"
	[ -n "${FBF_WORK:-}" ] && rm -rf "$FBF_WORK"
	return 0
}

setup()
{
	[ -n "${FBF_WORK:-}" ] ||
		skip "no cards from testing/vm/vm-nics: runs in tests/run-kernels' nic group"
	fbf_bats_setup
}

teardown() { fbf_bats_teardown; }

# use_card MAC: the card the helpers' FBF_VETH_SRV names.
use_card() { FBF_VETH_SRV=$(cat "$FBF_WORK/nic.$1"); }

# rx_packets: what the card's driver has received.
rx_packets()
{
	# /proc/net/dev is the reader's namespace's; a name and a large count may touch.
	fbf_in_srv sed -n "s/^ *$FBF_VETH_SRV://p" /proc/net/dev | awk '{ print $2 }'
}

# interrupts NAME: the interrupts of the line NAME, over every CPU.
interrupts()
{
	awk -v name="$1" '$NF == name { for (i = 2; i < NF; i++) if ($i ~ /^[0-9]+$/) n += $i }
		END { print n + 0 }' /proc/interrupts
}

# flood MAC: have the host write FRAMES_PER_SOURCE frames from each source
# into the card's tap, and wait until the driver has received them all.
flood()
{
	local rx0 sent dropped i

	rx0=$(rx_packets)
	# Whole when the host sees it.
	echo "$((FRAMES_PER_SOURCE * RAW_COUNT)) $RAW_FIRST $RAW_COUNT" >"$FBF_NIC_DIR/req.$1"
	mv "$FBF_NIC_DIR/req.$1" "$FBF_NIC_DIR/send.$1"
	for i in $(seq 600); do
		[ -f "$FBF_NIC_DIR/sent.$1" ] && break
		sleep 0.2
	done
	read -r sent dropped <"$FBF_NIC_DIR/sent.$1"
	rm -f "$FBF_NIC_DIR/sent.$1"
	echo "sent $sent into the tap, $dropped dropped there"
	[ "$sent" -eq $((FRAMES_PER_SOURCE * RAW_COUNT)) ]
	[ "$dropped" -eq 0 ]
	for i in $(seq 600); do
		[ $(($(rx_packets) - rx0)) -ge "$sent" ] && break
		sleep 0.2
	done
	echo "the driver received $(($(rx_packets) - rx0))"
	[ $(($(rx_packets) - rx0)) -eq "$sent" ]
}

# check_counts: the stopped agent's summary counts every frame, each class
# exactly, and every event it delivered is printed. (It balances its own
# books: fbf_stop_agent's exit status 0 says so.) A few processes only: each
# costs some 100 ms in a guest.
check_counts()
{
	local -A sum
	local k v n class

	while IFS='=' read -r k v; do
		sum[$k]=$v
	done < <(grep -E "${FBF_LOG}summary " "$ERR" | grep -Eo '\b[a-z_]+=[0-9]+')
	echo "summary: packets ${sum[packets]} delivered ${sum[delivered]}"
	[ "${sum[packets]}" -eq $((FRAMES_PER_SOURCE * RAW_COUNT)) ]
	[ "${sum[delivered]}" -eq "$(wc -l <"$OUT")" ]
	while read -r n class; do
		k=${class,,}
		echo "$class: ${sum[$k]}, expected $((n * FRAMES_PER_SOURCE))"
		[ "${sum[$k]}" -eq $((n * FRAMES_PER_SOURCE)) ]
	done <"$FBF_WORK/classes"
}

# note CARD: the card and the mode the agent's start line gave, for the kernel table.
note()
{
	echo "$1 $(grep -Eo '\((native|skb) mode' "$ERR" | head -n 1 | cut -c2-)" \
		>>"$FBF_NIC_DIR/modes"
}

# native_refused MAC PART...: --mode native on that card is one error line,
# each PART in it, exit 5, and nothing is left attached.
native_refused()
{
	local part

	use_card "$1"
	run -5 fbf_in_srv "$AGENT" --iface "$FBF_VETH_SRV" --mode native --duration 1
	echo "$output"
	[ "$(grep -vc 'mounted bpffs' <<<"$output")" -eq 1 ]
	[[ "$output" == *"error agent: "* ]]
	for part in "${@:2}"; do
		[[ "$output" == *"$part"* ]]
	done
	fbf_xdp_detached
}

@test "virtio_net, 2 of 4 queue pairs: native by default, both receive queues, counts exact" {
	local dev q0 q1

	use_card "$MAC_MQ"
	dev=$(cat "$FBF_WORK/dev.$MAC_MQ")
	q0=$(interrupts "$dev-input.0") q1=$(interrupts "$dev-input.1")
	fbf_agent_start "$OUT" "$ERR"
	grep -E "${FBF_LOG}attached .* \(native mode: the driver has it; " "$ERR"
	flood "$MAC_MQ"
	fbf_stop_agent INT
	check_counts
	echo "interrupts: input.0 $q0 -> $(interrupts "$dev-input.0"), input.1 $q1 ->" \
		"$(interrupts "$dev-input.1")"
	[ "$(interrupts "$dev-input.0")" -gt "$q0" ]
	[ "$(interrupts "$dev-input.1")" -gt "$q1" ]
	note "virtio_net, 2 queues:"
}

@test "virtio_net with the host's offloads forced: skb by default, why said, counts exact" {
	use_card "$MAC_OFFLOADS"
	fbf_agent_start "$OUT" "$ERR"
	grep -E "${FBF_LOG}attached .* \(skb mode: the driver refuses native as configured; " "$ERR"
	grep -E "${FBF_LOG}$FBF_VETH_SRV \(virtio_net\) refuses native XDP as configured: .*GRO_HW/CSUM.*; attaching in skb mode. For native mode: .*ctrl_guest_offloads=on" "$ERR"
	flood "$MAC_OFFLOADS"
	fbf_stop_agent INT
	check_counts
	note "virtio_net, host offloads:"
}

@test "virtio_net with the host's offloads forced: --mode native fails in one line, exit 5" {
	native_refused "$MAC_OFFLOADS" "(virtio_net) refuses native XDP as configured: Can't set" \
		"XDP while host is implementing GRO_HW/CSUM" "; use --mode skb or auto, or for" \
		"native mode: " "ctrl_guest_offloads=on"
}

@test "e1000: skb by default, said at start, counts exact" {
	use_card "$MAC_E1000"
	fbf_agent_start "$OUT" "$ERR"
	grep -E "${FBF_LOG}attached .* \(skb mode: the driver has no native XDP; " "$ERR"
	flood "$MAC_E1000"
	fbf_stop_agent INT
	check_counts
	note "e1000:"
}

@test "e1000: --mode native fails in one line, exit 5" {
	native_refused "$MAC_E1000" "(e1000) has no native XDP; use --mode skb or auto"
}
