#!/usr/bin/env bats
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The cost tool on chains nobody here wrote: the Linux kernel's BPF selftests'
# tail-call programs (testing/third_party/tailcalls), whose prog array the
# selftests' loader fills and CHAIN= fills here, and a root that tries its
# slots in turn with another object's program in a slot: Cloudflare's
# cls_redirect (testing/third_party/cls_redirect), and Katran's XDP root with
# its balancer (testing/third_party/katran) in the state bpftool dumped.
# Short rounds: the figures are checked for being there, never for how fast.

load ../../../testing/netns
load ../../bmf
load cost_chain_test

setup()
{
	chain_setup
	TAILCALLS=$FBF_BUILD/testing/tailcalls
	KATRAN=$FBF_BUILD/testing/katran
}

# katran_state: Katran's vendored dumps, the compressed ones unpacked, in $STATE.
katran_state()
{
	local xz

	STATE=$BATS_TEST_TMPDIR/state
	mkdir "$STATE"
	cp testing/third_party/katran/state/*.json "$STATE"
	for xz in testing/third_party/katran/state/*.json.xz; do
		xz -dc "$xz" >"$STATE/$(basename "$xz" .xz)"
	done
}

cost() { run bench/cost/cost.sh "$@"; echo "$output"; }

# hop_rows PROG...: each PROG's row in the chain's table, reached by all 12 shapes (the
# kernel's test run of an skb refuses the truncated 13th), and its BMF name.
hop_rows()
{
	local names=() prog

	for prog in "$@"; do
		grep -E "^hop $prog +ns/frame +-?[0-9.]+ +12 of 12 " <<<"$output"
		names+=("cost/hop/$prog")
	done
	grep -E '^chain check: the hops and their tail calls add up to ' <<<"$output"
	check_bmf "$RESULTS/cost.bmf.json" "${names[@]}" cost/tail-call cost/chain/hop-sum
}

@test "tailcall1: the selftests' root, its three slots filled by CHAIN=" {
	FBF_COST_CHAIN='jmp_table[0]=classifier_0 jmp_table[1]=classifier_1 '`
		`'jmp_table[2]=classifier_2' cost measure "$TAILCALLS/tailcall1.bpf.o" entry
	[ "$status" -eq 0 ]
	hop_rows entry classifier_0
	[ "$(hops ipv4-udp)" = "entry > classifier_0" ]
	grep -E '^arp +entry > classifier_0 +TC_ACT_OK$' <<<"$output"
}

@test "tailcall2: four hops, classifier_0 > 1 > 2; the looping pair in slots 3, 4 unreached" {
	FBF_COST_CHAIN='jmp_table[0]=classifier_0 jmp_table[1]=classifier_1 '`
		`'jmp_table[2]=classifier_2 jmp_table[3]=classifier_3 jmp_table[4]=classifier_4' \
		cost measure "$TAILCALLS/tailcall2.bpf.o" entry
	[ "$status" -eq 0 ]
	hop_rows entry classifier_0 classifier_1 classifier_2
	[ "$(hops ipv6)" = "entry > classifier_0 > classifier_1 > classifier_2" ]
	grep -E '^ipv4-tcp +entry > classifier_0 > classifier_1 > classifier_2 +TC_ACT_SHOT$' \
		<<<"$output"
	run grep -c 'cost/hop/classifier_[34]' "$RESULTS/cost.bmf.json"
	[ "$output" = 0 ]
}

@test "tailcall_bpf2bpf1: a tail call from a subprogram, after an empty slot" {
	FBF_COST_CHAIN='jmp_table[0]=classifier_0 jmp_table[1]=classifier_1' cost measure \
		"$TAILCALLS/tailcall_bpf2bpf1.bpf.o" entry
	[ "$status" -eq 0 ]
	hop_rows entry classifier_1
	grep -E '^ipv4-udp +entry > classifier_1 +TC_ACT_RECLASSIFY$' <<<"$output"
	# Slot 1 empty: entry's tail call there fails, and its subprogram's into slot 0 goes on.
	FBF_COST_CHAIN='jmp_table[0]=classifier_0' cost measure \
		"$TAILCALLS/tailcall_bpf2bpf1.bpf.o" entry
	[ "$status" -eq 0 ]
	hop_rows entry classifier_0
	grep -E '^ipv4-udp +entry > classifier_0 +TC_ACT_OK$' <<<"$output"
	[[ "$output" != *"fell through"* ]]
}

@test "tailcall3: a hop that tail-calls its own slot: the loop said, its status" {
	FBF_COST_CHAIN='jmp_table[0]=classifier_0' cost measure "$TAILCALLS/tailcall3.bpf.o" entry
	[ "$status" -eq 53 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"classifier_0 tail-calls jmp_table[0], back into classifier_0: "* ]]
}

@test "a root and another object's program in its last slot, through make" {
	run make -s cost OBJ="$TAILCALLS/tailcall1.bpf.o" PROG=entry \
		CHAIN="jmp_table[2]=$FBF_BUILD/testing/cls_redirect.bpf.o:cls_redirect"
	echo "$output"
	[ "$status" -eq 0 ]
	# Slots 0 and 1 empty: the root falls through both, as Katran's xdp_root does.
	hop_rows entry cls_redirect
	[ "$(hops ipv4-tcp)" = "entry > cls_redirect" ]
	grep -E '^vlan-ipv4-src-10\.0\.0\.254 +entry > cls_redirect +TC_ACT_OK$' <<<"$output"
	[[ "$output" != *"fell through"* ]]
	check_bmf_measures "$RESULTS/cost.bmf.json" cost/hop/cls_redirect:latency
}

# to_the_vip: in $output, Katran's balancer in its state: the TCP SYN to the VIP,
# 192.0.2.1:80, goes out to a real, the rest pass, and the ring was filled from its dump.
to_the_vip()
{
	grep -E '^ipv4-tcp +xdp_root > balancer_ingress +XDP_TX$' <<<"$output"
	grep -E '^ipv4-udp +xdp_root > balancer_ingress +XDP_PASS$' <<<"$output"
	grep -E '^arp +xdp_root > balancer_ingress +XDP_PASS$' <<<"$output"
	[ "$(grep -cE 'xdp_root > balancer_ingress +XDP_TX$' <<<"$output")" -eq 1 ]
	grep -F 'State: filled from MAPS: ch_rings (array) 65,537 entries in a batch update' \
		<<<"$output"
}

@test "Katran: xdp_root, the balancer in root_array[0], its state from bpftool's dumps" {
	katran_state
	# pair.bpf.o: the two linked, so that the balancer's maps are those MAPS= fills.
	run make -s cost OBJ="$KATRAN/pair.bpf.o" PROG=xdp_root \
		CHAIN='root_array[0]=balancer_ingress' MAPS="$STATE"
	echo "$output"
	[ "$status" -eq 0 ]
	grep -E '^hop xdp_root +ns/frame +-?[0-9.]+ +13 of 13 ' <<<"$output"
	grep -E '^hop balancer_ingress +ns/frame +-?[0-9.]+ +13 of 13 ' <<<"$output"
	grep -E '^chain check: the hops and their tail calls add up to ' <<<"$output"
	check_bmf "$RESULTS/cost.bmf.json" cost/hop/xdp_root cost/hop/balancer_ingress \
		cost/tail-call cost/chain/hop-sum
	to_the_vip
	grep -E '^State: .*reals \(array\) 4,096 entries.* vip_map \(hash\) 1 entry in a batch' \
		<<<"$output"
	# The flow's real remembered in the fallback LRU: lru_mapping's are left empty.
	grep -E '^State: .*Changed by the runs: .*fallback_cache \(lru_hash\) 0 -> 1 entry' \
		<<<"$output"
}

@test "Katran: two objects, the balancer's state by CHAIN_MAPS= as bpftool dumped it" {
	local balancer=$KATRAN/balancer.bpf.o

	katran_state
	run make -s cost OBJ="$KATRAN/xdp_root.bpf.o" PROG=xdp_root \
		CHAIN="root_array[0]=$balancer:balancer_ingress" CHAIN_MAPS="$balancer=$STATE"
	echo "$output"
	[ "$status" -eq 0 ]
	grep -E '^hop balancer_ingress +ns/frame +-?[0-9.]+ +13 of 13 ' <<<"$output"
	to_the_vip
	# An object no slot loads, and CHAIN_MAPS without CHAIN: one line each, exit 2.
	FBF_COST_CHAIN="root_array[0]=$balancer:balancer_ingress" \
		FBF_COST_CHAIN_MAPS="$KATRAN/pair.bpf.o=$STATE" cost measure \
		"$KATRAN/xdp_root.bpf.o" xdp_root
	[ "$status" -eq 2 ]
	[ "${lines[-1]}" = "cost: CHAIN_MAPS: no CHAIN slot loads a program of $KATRAN/pair.bpf.o:"`
		`" name it as MAP[INDEX]=$KATRAN/pair.bpf.o:PROG, as written there" ]
	FBF_COST_CHAIN_MAPS="$balancer=$STATE" cost measure "$KATRAN/xdp_root.bpf.o" xdp_root
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "cost: CHAIN_MAPS gives the state of a CHAIN slot's object, and no CHAIN"* ]]
}

@test "Katran: the balancer as another object's program runs with its own maps, empty" {
	run make -s cost OBJ="$KATRAN/xdp_root.bpf.o" PROG=xdp_root \
		CHAIN="root_array[0]=$KATRAN/balancer.bpf.o:balancer_ingress"
	echo "$output"
	[ "$status" -eq 0 ]
	grep -E '^hop balancer_ingress +ns/frame +-?[0-9.]+ +13 of 13 ' <<<"$output"
	# No VIP in its vip_map: every frame misses and passes.
	grep -E '^ipv4-tcp +xdp_root > balancer_ingress +XDP_PASS$' <<<"$output"
	[[ "$output" != *XDP_TX* ]]
	# MAPS= fills the entry's object, whose only map is root_array.
	katran_state
	FBF_COST_CHAIN="root_array[0]=$KATRAN/balancer.bpf.o:balancer_ingress" cost measure \
		"$KATRAN/xdp_root.bpf.o" xdp_root "$STATE"
	[ "$status" -eq 21 ]
	[[ "$output" == *"has no map named ch_rings"*"its maps: root_array)"* ]]
}
