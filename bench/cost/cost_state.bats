#!/usr/bin/env bats
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The cost tool in the state users have: maps filled from `bpftool map dump -j`
# files that bpftool makes here, from maps loaded and filled here (with BTF
# and without), xdp-filter's filled by xdp-filter itself; global variables set
# by name; what the runs changed; a million entries in one batch; and one line
# and one exit status for each bad state. Short rounds: the figures are
# checked for being there, never for how fast.

load ../../testing/netns
load ../bmf

XDP_TOOLS_BPF=/usr/lib/$(gcc -dumpmachine)/bpf

setup()
{
	fbf_bench_setup
	[ "$(id -u)" -eq 0 ] || skip "needs root: the tool loads XDP programs"
	command -v bpftool >/dev/null || skip "bpftool is missing (make deps)"
	export FBF_COST_OUT=$RESULTS FBF_COST_ROUNDS=2 FBF_COST_REPEAT=1000
	export FBF_COST_LIVE_ROUNDS=0
	OBJ=$FBF_BUILD/testing/cost_state.bpf.o
	DUMPS=$BATS_TEST_TMPDIR/dumps
	PIN=/sys/fs/bpf/fbf-cost-state-$$
	NS=fbf-cost-state-$$
	mkdir -p "$DUMPS"
}

teardown()
{
	rm -rf "${PIN:?}"
	ip netns del "$NS" 2>/dev/null || true
}

cost() { run bench/cost/cost.sh "$@"; echo "$output"; }

# action SHAPE: the action column of the table's test_run row for SHAPE.
action() { awk -v s="$1" '$1 == "test_run" && $2 == s { print $NF }' <<<"$output"; }

# state: the table's line on the state measured.
state() { grep '^State: ' <<<"$output"; }

# possible_cpus: the CPUs a per-CPU map has a value or a map for, as libbpf counts them.
possible_cpus() { awk -F'[-,]' '{ print $NF + 1 }' /sys/devices/system/cpu/possible; }

# load_pinned OBJECT: the object loaded by bpftool, its maps pinned under $PIN/maps.
load_pinned()
{
	mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf
	bpftool prog loadall "$1" "$PIN" pinmaps "$PIN/maps"
}

@test "a bpftool dump of a map loaded with BTF fills it: its entry decides the frame" {
	load_pinned "$OBJ"
	# IP protocol 17 blocked: UDP is dropped.
	bpftool map update pinned "$PIN/maps/cost_blocked" key 17 0 0 0 value 1 0 0 0
	bpftool map dump -j pinned "$PIN/maps/cost_blocked" >"$DUMPS/cost_blocked.json"
	grep -q '"formatted"' "$DUMPS/cost_blocked.json"
	cost measure "$OBJ" "" "$DUMPS/cost_blocked.json"
	[ "$status" -eq 0 ]
	[ "$(action ipv4-udp)" = XDP_DROP ]
	[ "$(action ipv4-udp-jumbo)" = XDP_DROP ]
	[ "$(action ipv4-tcp)" = XDP_PASS ]
	state | grep -F 'filled from MAPS: cost_blocked (hash) 1 entry in a batch update'
	# The program counts every frame into .bss and per action into a per-CPU array.
	state | grep -F 'Changed by the runs: cost_actions (percpu_array) 0 -> 2 non-zero entries'
	state | grep -F 'Unchanged: cost_blocked (1 entry), cost_sources (0 entries), cost_table (0 non-zero'
}

@test "a dump of a map without BTF, a directory of dumps, and SET's globals, together" {
	mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf
	mkdir -p "$PIN"
	bpftool map create "$PIN/table" type array key 4 value 8 entries 16 name cost_table
	# Protocol 1 (ICMP) weighed: no frame shape is ICMP, so it shows as filled alone.
	bpftool map update pinned "$PIN/table" key 1 0 0 0 value 1 0 0 0 0 0 0 0
	bpftool map create "$PIN/blocked" type hash key 4 value 4 entries 8 name cost_blocked
	bpftool map update pinned "$PIN/blocked" key 17 0 0 0 value 1 0 0 0
	bpftool map dump -j pinned "$PIN/table" >"$DUMPS/cost_table.json"
	bpftool map dump -j pinned "$PIN/blocked" >"$DUMPS/cost_blocked.json"
	run grep -c formatted "$DUMPS/cost_table.json"
	[ "$output" -eq 0 ]
	FBF_COST_SET=cost_drop_port=80,cost_bias=7 cost measure "$OBJ" "" "$DUMPS"
	[ "$status" -eq 0 ]
	[ "$(action ipv4-tcp)" = XDP_DROP ]
	[ "$(action ipv4-udp)" = XDP_DROP ]
	[ "$(action ipv6)" = XDP_PASS ]
	state | grep -F 'cost_blocked (hash) 1 entry in a batch update'
	state | grep -F 'cost_table (array) 16 entries in a batch update'
	state | grep -F 'Globals set before the load (SET): cost_drop_port=80,cost_bias=7.'
	# A __be16 global is given as a number and stored in network order, as the header has it.
	FBF_COST_SET=cost_drop_port_be=80 cost measure "$OBJ"
	[ "$status" -eq 0 ]
	[ "$(action ipv4-tcp)" = XDP_DROP ]
	[ "$(action ipv4-udp)" = XDP_PASS ]
	# A negative signed global: every IPv4 frame passes before any map is read.
	FBF_COST_SET=cost_bias=-1 cost measure "$OBJ" "" "$DUMPS"
	[ "$status" -eq 0 ]
	[ "$(action ipv4-tcp)" = XDP_PASS ]
	[ "$(action ipv4-udp)" = XDP_PASS ]
}

@test "MAPS's hex lines fill as before, and the table says how" {
	# One key written twice: one entry, however many lines.
	printf '# protocol 17 blocked\ncost_blocked 11000000 01000000\n' >"$DUMPS/lines"
	printf 'cost_blocked 11000000 01000000\n' >>"$DUMPS/lines"
	cost measure "$OBJ" "" "$DUMPS/lines"
	[ "$status" -eq 0 ]
	[ "$(action ipv4-udp)" = XDP_DROP ]
	[ "$(action ipv4-tcp)" = XDP_PASS ]
	state | grep -F "filled from MAPS: cost_blocked (hash) 1 entry from 2 lines of MAPS, one update each"
}

@test "cost-compare fills both objects' maps and globals, and says so for each" {
	load_pinned "$OBJ"
	bpftool map update pinned "$PIN/maps/cost_blocked" key 17 0 0 0 value 1 0 0 0
	bpftool map dump -j pinned "$PIN/maps/cost_blocked" >"$DUMPS/cost_blocked.json"
	FBF_COST_SET=cost_drop_port=80 cost compare "$OBJ" "$OBJ" "" "$DUMPS"
	[ "$status" -eq 0 ]
	[[ "${lines[-1]}" == "cost-compare: PASS: "* ]]
	for arm in base candidate; do
		grep -F "State of the $arm: filled from MAPS: cost_blocked (hash) 1 entry in a batch" \
			<<<"$output"
		grep -F "Globals set before the load (SET): cost_drop_port=80." <<<"$output"
	done
}

@test "cost-compare: each side's own MAPS and SET where they differ; a side's missing map named" {
	local probe=$FBF_BUILD/testing/cost_probe.bpf.o

	printf 'cost_blocked 11000000 01000000\n' >"$DUMPS/lines"
	# The candidate (the probe) has neither the map nor the global: shared, they fail,
	# and the line names the candidate's object.
	cost compare "$OBJ" "$probe" "" "$DUMPS/lines"
	[ "$status" -eq 21 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"lines:1: the object $probe has no map named cost_blocked"* ]]
	FBF_COST_BASE_MAPS=$DUMPS/lines FBF_COST_BASE_SET=cost_drop_port=80 \
		cost compare "$OBJ" "$probe"
	[ "$status" -le 1 ]
	[[ "$output" == "base xdp_cost_state ($OBJ) against candidate xdp_cost_probe ($probe), "* ]]
	grep -F "State of the base: filled from MAPS: cost_blocked (hash) 1 entry from 1 line" \
		<<<"$output"
	grep -F "Globals set before the load (SET): cost_drop_port=80." <<<"$output"
	[[ "$output" != *"State of the candidate: filled"* ]]
	# UDP blocked in the base alone.
	[[ "$output" == *"the candidate decides differently: "*"ipv4-udp XDP_DROP -> XDP_PASS"* ]]
	# Through make, as BASE_MAPS= and BASE_SET=.
	run make -s cost-compare BASE="$OBJ" CANDIDATE="$probe" BASE_MAPS="$DUMPS/lines" \
		BASE_SET=cost_drop_port=80
	[[ "$output" == *"State of the base: filled from MAPS: cost_blocked"* ]]
}

@test "Katran's connection tables, an LRU hash per CPU: per-cpu takes production's path" {
	local probe=$FBF_BUILD/testing/cost_mom_probe.bpf.o
	local left="cost_lru_mapping (array_of_maps of lru_hash)."
	local filled="cost_lru_mapping (array_of_maps) filled with one lru_hash per CPU"

	# Each slot empty, as the object leaves it: every flow goes to the shared fallback, counted.
	cost measure "$probe"
	[ "$status" -eq 0 ]
	[[ "$output" == *"Maps of maps left as the object leaves them ("*"per-cpu"*"): $left"* ]]
	state | grep -E "Changed by the runs: .*cost_fallback_frames \(array\) 0 -> 1 non-zero"
	state | grep -E "cost_fallback_cache \(lru_hash\) 0 -> [1-9][0-9]* entr"
	echo "cost_lru_mapping per-cpu" >"$DUMPS/lines"
	cost measure "$probe" "" "$DUMPS/lines"
	[ "$status" -eq 0 ]
	# The path production takes: each flow in its CPU's table, the fallback never taken.
	state | grep -F "$filled ($(possible_cpus)), each as its inner map is declared"
	state | grep -E "Changed by the runs: cost_lru_mapping's lru_hash maps 0 -> [1-9]"
	state | grep -F "Unchanged: cost_fallback_cache (0 entries), cost_fallback_frames (0 non"
	[[ "$output" != *"left as the object leaves them"*cost_lru_mapping* ]]
	# A compare's side's own: BASE_MAPS= fills the base's alone.
	run make -s cost-compare BASE="$probe" CANDIDATE="$probe" BASE_MAPS="$DUMPS/lines"
	echo "$output"
	[[ "$output" == *"State of the base: filled from MAPS: $filled"* ]]
	[[ "$output" == *"Maps of maps of the candidate left as the object leaves them"* ]]
}

@test "Katran's own array of maps, no inner map declared: per-cpu's line defines it" {
	local probe=$FBF_BUILD/testing/cost_mom_probe_no_inner.bpf.o

	# The inner map's definition as bpftool map show prints one: a 12-byte flow, 8-byte count.
	echo "cost_lru_mapping per-cpu lru_hash 12 8 1024" >"$DUMPS/lines"
	cost measure "$probe" "" "$DUMPS/lines"
	[ "$status" -eq 0 ]
	state | grep -F "cost_lru_mapping (array_of_maps) filled with one lru_hash per CPU"
	state | grep -E "Changed by the runs: cost_lru_mapping's lru_hash maps 0 -> [1-9]"
	state | grep -F "cost_fallback_frames (0 non"
	# A type bpftool does not name: one line.
	echo "cost_lru_mapping per-cpu lru_hsh 12 8 1024" >"$DUMPS/lines"
	cost measure "$probe" "" "$DUMPS/lines"
	[ "$status" -eq 8 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"lines:1: not MAP per-cpu TYPE KEY_SIZE VALUE_SIZE MAX_ENTRIES ("* ]]
}

@test "per-cpu's refusals: no map of maps, no inner map, too few slots: a line and a status each" {
	local cpus why

	# A hash of protocols is no map of maps.
	echo "cost_blocked per-cpu" >"$DUMPS/lines"
	cost measure "$OBJ" "" "$DUMPS/lines"
	[ "$status" -eq 41 ]
	[ "${#lines[@]}" -eq 1 ]
	why="per-cpu fills an array or hash of maps, one map per CPU, and cost_blocked is of type"
	[[ "$output" == *"lines:1: $why hash: give its entries as MAP KEY VALUE lines" ]]
	# Katran's own declaration, whose loader gives the inner map: the kernel makes none without.
	cost measure "$FBF_BUILD/testing/cost_mom_probe_no_inner.bpf.o"
	[ "$status" -eq 42 ]
	[ "${#lines[@]}" -eq 1 ]
	why="cost_lru_mapping (array_of_maps) declares no inner map"
	[[ "$output" == *": $why, "*"a line cost_lru_mapping per-cpu TYPE KEY_SIZE"* ]]
	# An array of one map, on a host of two CPUs or more.
	cpus=$(possible_cpus)
	[ "$cpus" -gt 1 ] || skip "one possible CPU: every array of maps holds a map for each"
	echo "cost_counts per-cpu" >"$DUMPS/lines"
	cost measure "$FBF_BUILD/testing/cost_probe_maps_of_maps.bpf.o" "" "$DUMPS/lines"
	[ "$status" -eq 43 ]
	[ "${#lines[@]}" -eq 1 ]
	why="cost_counts holds at most 1, and this host has $cpus possible CPUs"
	[[ "$output" == *"lines:1: $why: one map each does not fit; declare max_entries of"* ]]
}

@test "SET on a TC program nobody here wrote: Cloudflare's cls_redirect, its address and port" {
	local obj=$FBF_BUILD/testing/cls_redirect.bpf.o

	[ -f "$obj" ] || skip "$obj is missing: make test-build"
	# Both are __be32 and __be16: numbers, stored in network order.
	FBF_COST_SET=ENCAPSULATION_IP=0x0a000001,ENCAPSULATION_PORT=2483 cost measure "$obj"
	[ "$status" -eq 0 ]
	state | grep -F 'Globals set before the load (SET): ENCAPSULATION_IP=0x0a000001,ENCAPSULATION_PORT=2483.'
	state | grep -E 'Changed by the runs: metrics_map \(percpu_array\) 0 -> [1-9]'
	FBF_COST_SET=ENCAPSULATION_PORT=70000 cost measure "$obj"
	[ "$status" -eq 23 ]
	[ "${#lines[@]}" -eq 1 ]
	FBF_COST_SET=ENCAPSULATION_ADDR=1 cost measure "$obj"
	[ "$status" -eq 22 ]
	[[ "$output" == *"(it has: ENCAPSULATION_IP, ENCAPSULATION_PORT)" ]]
}

@test "an LPM trie's dump fills it: its prefix decides the frame" {
	load_pinned "$OBJ"
	# 10.0.0.0/24, which holds the TCP and UDP shapes' source 10.0.0.254.
	bpftool map update pinned "$PIN/maps/cost_sources" key 24 0 0 0 10 0 0 0 value 1 0 0 0
	bpftool map dump -j pinned "$PIN/maps/cost_sources" >"$DUMPS/cost_sources.json"
	cost measure "$OBJ" "" "$DUMPS/cost_sources.json"
	[ "$status" -eq 0 ]
	[ "$(action ipv4-tcp)" = XDP_DROP ]
	[ "$(action ipv4-udp)" = XDP_DROP ]
	# Batched where the kernel has it for tries, else one update an entry: the table says which.
	state | grep -E 'cost_sources \(lpm_trie\) 1 entry in (a batch update|one update an entry \(no batch update\)), '
	# Counted after the runs too, a key at a time where lookups come in no batches.
	state | grep -F 'Unchanged: cost_sources (1 entry), cost_blocked (0 entries)'
}

# prog_map PROG NAME: the id of the map named NAME among those of the loaded program
# PROG (bpftool's "id ID" or "pinned PATH"). Never by name alone: another map of the
# name may be loaded (iproute2 pins xdp-filter's maps when its object is attached with ip).
prog_map()
{
	local id

	# shellcheck disable=SC2086 # $1: bpftool's two words
	for id in $(bpftool -j prog show $1 | python3 -c \
		'import json, sys; print(*json.load(sys.stdin).get("map_ids", []))'); do
		if bpftool -j map show id "$id" | python3 -c \
			'import json, sys; sys.exit(json.load(sys.stdin)["name"] != sys.argv[1])' "$2"
		then
			echo "$id"
			return 0
		fi
	done
	echo "no map $2 in program $1" >&2
	return 1
}

@test "xdp-filter measured with the port xdp-filter allowed, from the dump of its own map" {
	[ -f "$XDP_TOOLS_BPF/xdpfilt_dny_all.o" ] || skip "xdp-tools is missing (make deps)"
	command -v xdp-filter >/dev/null || skip "xdp-filter is missing: install xdp-tools"
	ip netns add "$NS"
	ip -n "$NS" link add fbfcs0 type veth peer name fbfcs1
	ip -n "$NS" link set fbfcs0 up
	# xdp-filter keeps its state under bpffs, which a namespace's /sys has not mounted.
	# Another map named filter_ports beside xdp-filter's, as a host may have: the dump
	# is of the program's own. Its program, as xdp-filter pins it (libxdp may attach a
	# dispatcher in front of it).
	ip netns exec "$NS" bash -ec "$(declare -f prog_map)
		mount -t bpf bpf /sys/fs/bpf
		bpftool map create /sys/fs/bpf/other type percpu_array key 4 value 8 \
			entries 4 name filter_ports
		xdp-filter load -p deny -m skb fbfcs0
		xdp-filter port 80
		prog=\$(echo /sys/fs/bpf/xdp-filter/programs/fbfcs0/*)
		map=\$(prog_map \"pinned \$prog\" filter_ports)
		bpftool map dump -j id \$map >'$DUMPS/filter_ports.json'
		xdp-filter unload fbfcs0"
	cost measure "$XDP_TOOLS_BPF/xdpfilt_dny_all.o" "" "$DUMPS"
	[ "$status" -eq 0 ]
	# Port 80 allowed: the SYN to it passes; the rest is still denied.
	[ "$(action ipv4-tcp)" = XDP_PASS ]
	[ "$(action ipv4-udp)" = XDP_DROP ]
	[ "$(action ipv6)" = XDP_DROP ]
	state | grep -F 'filter_ports (percpu_array) 65,536 entries in a batch update'
	# It counts each action per CPU, and each port's matches in the port's own entry.
	state | grep -E 'Changed by the runs: .*xdp_stats_map \(percpu_array\) 0 -> [1-9]'
	state | grep -E 'Changed by the runs: .*filter_ports \(percpu_array\) 1 -> 1 non-zero entry'
}

@test "a dump of 1,000,000 array entries loads in one batch update" {
	load_pinned "$FBF_BUILD/testing/cost_state_big.bpf.o"
	bpftool map update pinned "$PIN/maps/cost_table" key 6 0 0 0 value 1 0 0 0 0 0 0 0
	bpftool map dump -j pinned "$PIN/maps/cost_table" >"$DUMPS/cost_table.json"
	rm -rf "${PIN:?}"
	run "$FBF_BUILD/bench/cost_run" run -r 0 -m "$DUMPS" "prog=$FBF_BUILD/testing/cost_state_big.bpf.o"
	echo "$output"
	[ "$status" -eq 0 ]
	filled=$(grep $'^#filled\tprog\tcost_table\tarray\t1000000\tbatch\t' <<<"$output")
	# SECONDS, the seventh field: INNER follows it (cost_state.h).
	echo "# 1,000,000 entries read and written in $(cut -f7 <<<"$filled") s" >&3
}

@test "each bad state: one line and its own exit status" {
	load_pinned "$OBJ"
	bpftool map dump -j pinned "$PIN/maps/cost_actions" >"$DUMPS/cost_actions.json"
	# A dump of another map: 8-byte values into cost_blocked's 4.
	cp "$DUMPS/cost_actions.json" "$DUMPS/cost_blocked.json"
	cost measure "$OBJ" "" "$DUMPS/cost_blocked.json"
	[ "$status" -eq 20 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"cost_blocked.json: entry 1 has a value per CPU, and map cost_blocked is not per-CPU"* ]]
	# A CPU's entry without its value: refused, never filled with the last CPU's bytes.
	sed -E 's/, *"value": *\[[^]]*\]//' "$DUMPS/cost_actions.json" >"$DUMPS/cost_actions_cut.json"
	run cmp -s "$DUMPS/cost_actions.json" "$DUMPS/cost_actions_cut.json"
	[ "$status" -eq 1 ]
	mkdir "$DUMPS/cut" && mv "$DUMPS/cost_actions_cut.json" "$DUMPS/cut/cost_actions.json"
	cost measure "$OBJ" "" "$DUMPS/cut/cost_actions.json"
	[ "$status" -eq 8 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"a CPU's value without its \"cpu\", its \"value\" or its end"* ]]
	bpftool map create "$PIN/wide" type hash key 8 value 4 entries 8 name wide
	bpftool map update pinned "$PIN/wide" key 1 0 0 0 0 0 0 0 value 1 0 0 0
	bpftool map dump -j pinned "$PIN/wide" >"$DUMPS/cost_blocked.json"
	cost measure "$OBJ" "" "$DUMPS/cost_blocked.json"
	[ "$status" -eq 20 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"entry 1 has a key of 8 bytes, and map cost_blocked takes 4"* ]]
	# A dump for a map the object lacks.
	mv "$DUMPS/cost_blocked.json" "$DUMPS/conntrack.json"
	cost measure "$OBJ" "" "$DUMPS/conntrack.json"
	[ "$status" -eq 21 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"the object $OBJ has no map named conntrack"*"cost_blocked"* ]]
	# A line for a map the object lacks: as a dump named after one, its maps named.
	echo "conntrack 01000000 01000000" >"$DUMPS/lines"
	cost measure "$OBJ" "" "$DUMPS/lines"
	[ "$status" -eq 21 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"lines:1: the object $OBJ has no map named conntrack (a line fills the map it names first; its maps: cost_sources, cost_blocked"* ]]
	# A dump of several maps: bpftool's dump by a name that more than one map has.
	bpftool map create "$PIN/twin_a" type array key 4 value 4 entries 1 name cost_twin
	bpftool map create "$PIN/twin_b" type array key 4 value 4 entries 1 name cost_twin
	bpftool map dump -j name cost_twin >"$DUMPS/cost_blocked.json"
	cost measure "$OBJ" "" "$DUMPS/cost_blocked.json"
	[ "$status" -eq 40 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"cost_blocked.json: a dump of several maps (bpftool map dump -j name NAME"* ]]
	# Not bpftool's JSON.
	echo '[{"key":["0x01"' >"$DUMPS/cost_table.json"
	cost measure "$OBJ" "" "$DUMPS/cost_table.json"
	[ "$status" -eq 8 ]
	[ "${#lines[@]}" -eq 1 ]
	# A global the object lacks, and one a value does not fit.
	FBF_COST_SET=cost_mode=1 cost measure "$OBJ"
	[ "$status" -eq 22 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"has no global variable cost_mode (it has: "*"cost_drop_port"* ]]
	FBF_COST_SET=cost_drop_port=70000 cost measure "$OBJ"
	[ "$status" -eq 23 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"cost_drop_port=70000 does not fit cost_drop_port, a variable of 2 bytes"* ]]
}
