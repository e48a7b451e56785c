#!/usr/bin/env bats
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The cost tool on XDP objects nobody here wrote (Debian's xdp-tools ships
# them) and on a small program of its own (testing/cost_probe.bpf.c): each
# frame shape's action as the program decides it, what it did to a live
# flood, a compare that passes on one object against itself and fails on a
# planted instruction, and one line and one exit status for each bad input.
# Short rounds: the figures are checked for being there, never for how fast.

load ../../../testing/netns
load ../../bmf

XDP_TOOLS_BPF=/usr/lib/$(gcc -dumpmachine)/bpf

teardown()
{
	[ -z "${PIN:-}" ] || rm -f "$PIN"
}

setup()
{
	fbf_bench_setup
	[ "$(id -u)" -eq 0 ] || skip "needs root: the tool loads XDP programs and makes veth pairs"
	export FBF_COST_OUT=$RESULTS FBF_COST_ROUNDS=3 FBF_COST_REPEAT=1000
	export FBF_COST_LIVE_ROUNDS=0 FBF_COST_FLOOD_SECONDS=1
	PROBE=$FBF_BUILD/testing/cost_probe
}

require_xdp_tools()
{
	[ -f "$XDP_TOOLS_BPF/$1" ] || skip "$XDP_TOOLS_BPF/$1 is missing: install libxdp1 (make deps)"
}

cost() { run bench/cost/cost.sh "$@"; echo "$output"; }

# action SHAPE: the action column of the table's test_run row for SHAPE.
action() { awk -v s="$1" '$1 == "test_run" && $2 == s { print $NF }' <<<"$output"; }

# every_action WANT EXCEPT_SHAPE EXCEPT_WANT: every shape's action is WANT but EXCEPT_SHAPE's.
every_action()
{
	local shape n=0

	while read -r shape; do
		n=$((n + 1))
		if [ "$shape" = "$2" ]; then
			[ "$(action "$shape")" = "$3" ] || { echo "$shape: $(action "$shape")"; return 1; }
		else
			[ "$(action "$shape")" = "$1" ] || { echo "$shape: $(action "$shape")"; return 1; }
		fi
	done < <(awk '$1 == "test_run" && $2 != "all" { print $2 }' <<<"$output")
	[ "$n" -eq 13 ]
}

@test "xdp-filter's deny-by-default program drops every frame, aborts the truncated one, live too" {
	require_xdp_tools xdpfilt_dny_all.o
	# Its maps are empty, so nothing is allowed; a frame it cannot parse is an error.
	FBF_COST_LIVE_ROUNDS=1 run make -s cost OBJ="$XDP_TOOLS_BPF/xdpfilt_dny_all.o"
	echo "$output"
	[ "$status" -eq 0 ]
	every_action XDP_DROP truncated XDP_ABORTED
	grep -E '^verifier +verified-instructions +[1-9][0-9]* +2 ' <<<"$output"
	# The veth counted what it did to the flood, in native mode.
	grep -E '^live native +frames/s .* dropped 100%$' <<<"$output"
	grep -E '^live skb +ns/packet +[0-9.]+ +[0-9.]+ ' <<<"$output"
	check_bmf "$RESULTS/cost.bmf.json" cost/prog cost/ipv4-tcp cost/all cost/live/prog-native \
		cost/live/xdp_pass-skb cost/live/none
	check_bmf_measures "$RESULTS/cost.bmf.json" cost/ipv4-tcp:action \
		cost/live/prog-native:dropped-percent cost/live/prog-skb:latency
}

@test "xdpdump's program passes every frame shape" {
	require_xdp_tools xdpdump_xdp.o
	cost measure "$XDP_TOOLS_BPF/xdpdump_xdp.o"
	[ "$status" -eq 0 ]
	every_action XDP_PASS
	[[ "$output" == *"xdpdump_xdp.o: xdpdump, measured on"* ]]
}

@test "the probe: TCP dropped, the truncated frame aborted, the rest passed" {
	cost measure "$PROBE.bpf.o"
	[ "$status" -eq 0 ]
	[ "$(action ipv4-tcp)" = XDP_DROP ]
	[ "$(action truncated)" = XDP_ABORTED ]
	[ "$(action ipv4-udp)" = XDP_PASS ]
	[ "$(action qinq-ipv4)" = XDP_PASS ]
	[ "$(action ipv4-udp-jumbo)" = XDP_PASS ]
}

@test "a program whose configuration map is empty is told apart; MAPS fills it" {
	cost measure "$PROBE"_config.bpf.o
	[ "$status" -eq 9 ]
	[[ "$output" == *"aborted every frame shape"*"MAPS=FILE"* ]]
	[ "${#lines[@]}" -eq 1 ]
	printf '# cost_config[0] = 1: enabled\ncost_config 00000000 01000000\n' >"$BATS_TEST_TMPDIR/maps"
	cost measure "$PROBE"_config.bpf.o "" "$BATS_TEST_TMPDIR/maps"
	[ "$status" -eq 0 ]
	[ "$(action ipv4-tcp)" = XDP_DROP ]
	[ "$(action ipv4-udp)" = XDP_PASS ]
	# A map the object lacks: as for a dump (exit 21), the object's maps named.
	echo 'no_such_map 00000000 01000000' >"$BATS_TEST_TMPDIR/maps"
	cost measure "$PROBE"_config.bpf.o "" "$BATS_TEST_TMPDIR/maps"
	[ "$status" -eq 21 ]
	[[ "$output" == *"no map named no_such_map"*"its maps: cost_config"* ]]
	echo 'cost_config 0000 01000000' >"$BATS_TEST_TMPDIR/maps"
	cost measure "$PROBE"_config.bpf.o "" "$BATS_TEST_TMPDIR/maps"
	[ "$status" -eq 8 ]
	[[ "$output" == *"a key of 4 bytes and a value of 4"* ]]
}

@test "an A/A compare passes" {
	cost compare "$PROBE.bpf.o" "$PROBE.bpf.o"
	[ "$status" -eq 0 ]
	[[ "${lines[-1]}" == "cost-compare: PASS: "* ]]
	[ "$(nproc)" -lt 2 ] || [ -n "$(cpus_verdict 2)" ]
	grep -E '^cost/prog +translated-instructions +[0-9]+ +[0-9]+ +\+0\.00% .* unchanged$' \
		<<<"$output"
	check_bmf "$RESULTS/cost-compare.bmf.json" cost/prog cost/all
}

@test "one instruction more per frame fails the compare, on the exact measures" {
	# One instruction is far below what timing can tell on a shared host; the
	# verifier's and the JIT's figures count it exactly, on any host.
	cost compare "$PROBE.bpf.o" "$PROBE"_planted.bpf.o
	[ "$status" -eq 1 ]
	[[ "${lines[-1]}" == "cost-compare: REGRESSION: "*"translated-instructions"* ]]
	[[ "$output" != *"cost-compare: PASS"* ]]
}

require_cpus()
{
	[ "$(nproc)" -ge 2 ] || skip "one CPU: the curve needs two to run on at once"
}

# cost_cpus ARGS: cost.sh ARGS with runs long enough for several CPUs' loops to overlap
# (20,000 of a few ns: about 100 us, against the 10 us that the threads' start may differ).
cost_cpus() { FBF_COST_ROUNDS=5 FBF_COST_REPEAT=20000 cost "$@"; }

# cpus_verdict N: the verdict column of the compare table's row for N CPUs.
cpus_verdict() { awk -v b="cost/cpus/$1" '$1 == b { print $NF }' <<<"$output"; }

@test "the CPUs: a shared counter reads as climbing, a per-CPU one as flat" {
	require_cpus
	cost_cpus measure "$PROBE"_shared_counter.bpf.o
	[ "$status" -eq 0 ]
	[[ "${lines[*]}" =~ "CPUs: "[0-9.]+" times at $(nproc) CPUs: a shared map value, lock or ring"\
" in the path" ]]
	grep -E "^$(nproc) +[0-9.]+ +[0-9.]+x " <<<"$output"
	check_bmf_measures "$RESULTS/cost.bmf.json" cost/cpus/1:latency "cost/cpus/$(nproc):scaling" \
		"cost/cpus/$(nproc):climb" "cost/cpus/$(nproc):overlap-percent" \
		"cost/cpus/$(nproc)/xdp_pass:latency"
	cost_cpus measure "$PROBE"_percpu_counter.bpf.o
	[ "$status" -eq 0 ]
	[[ "${lines[*]}" =~ "CPUs: flat: "[0-9.]+" times at $(nproc) CPUs" ]]
}

@test "cost-compare flags a shared counter in place of a per-CPU one, on 2 CPUs at once" {
	require_cpus
	# The same count per frame, into each CPU's own value in the base and into one
	# value that all share in the candidate: no instruction more.
	cost_cpus compare "$PROBE"_percpu_counter.bpf.o "$PROBE"_shared_counter.bpf.o
	[ "$status" -eq 1 ]
	[ "$(cpus_verdict 2)" = regressed ]
	[[ "${lines[-1]}" == "cost-compare: REGRESSION: "*"on 2 CPUs at once"*"then +"*"in a second"* ]]
	[[ "${lines[-1]}" == *": a shared map value, lock or ring in the path" ]]
	[[ "$output" != *"REGRESSION: "*"instructions"* ]]
	check_bmf_measures "$RESULTS/cost-compare.bmf.json" cost/cpus/2:scaling \
		cost/cpus/2:scaling-change-percent
}

@test "cost-compare does not flag a per-CPU counter on the CPUs" {
	require_cpus
	# It adds instructions, which the exact measures flag; its scaling is the base's.
	cost_cpus compare "$PROBE.bpf.o" "$PROBE"_percpu_counter.bpf.o
	[ "$status" -eq 1 ]
	[ -n "$(cpus_verdict 2)" ]
	[ "$(cpus_verdict 2)" != regressed ]
	[ "$(cpus_verdict "$(nproc)")" != regressed ]
	[[ "${lines[-1]}" == "cost-compare: REGRESSION: verified-instructions "* ]]
	[[ "${lines[-1]}" != *CPUs* ]]
}

@test "two runs of the CPUs part at once both finish: their threads yield at the start line" {
	[ "$(nproc)" -ge 2 ] || skip "one CPU: nothing runs at once"
	local pids=() i st
	# Real-time threads that spun there without yielding locked two runs out for good;
	# SIGKILL ends such a pair, where SIGTERM reaches only their sleeping main threads.
	for i in 1 2; do
		timeout -s KILL 60 "$FBF_BUILD/bench/cost_run" cpus -r 2 -n 1000 \
			"prog=$PROBE.bpf.o" >"$BATS_TEST_TMPDIR/cpus$i.tsv" &
		pids+=($!)
	done
	for i in 1 2; do
		st=0
		wait "${pids[i - 1]}" || st=$?
		[ "$st" -eq 0 ]
		grep -q $'^prog\tcost/cpus/2\tlatency\t' "$BATS_TEST_TMPDIR/cpus$i.tsv"
	done
}

@test "the project's program is measured sending to each CPU's own queue or ring, not the spare" {
	local read size

	# The object's array of event maps is filled, one map per CPU, as the agent fills it.
	FBF_COST_ROUNDS=1 FBF_COST_LIVE_ROUNDS=1 cost measure "$FBF_BUILD/fizzbuzzfib.bpf.o" \
		xdp_fizzbuzzfib
	[ "$status" -eq 0 ]
	[[ "$output" =~ "events, an array_of_maps filled here with one queue per CPU ("[1-9][0-9]*"): "\
[1-9][0-9,]*" events read" ]]
	# Live, its queues are read as it runs. The flood is pinned to one CPU, whose queue alone
	# it fills: unread, that is all a run gets, whatever the host's CPUs or speed.
	size=$(awk '$2 == "FBF_DEFAULT_QUEUE_SIZE" { print $3 }' common/fizzbuzzfib.h)
	read=$(awk '$1 == "live" && $2 == "native" && $3 == "events/run" { print $5 }' <<<"$output")
	[ "${read//,/}" -gt "$size" ]
	[[ "$output" == *"events_spare, a queue: 0 events read"* ]]
	[[ "$output" == *"left as the object leaves them "*": sources (array_of_maps of percpu_hash)."* ]]
	run "$FBF_BUILD/bench/cost_run" cpus -k -r 1 -n 1000 -p xdp_fizzbuzzfib \
		"ring=$FBF_BUILD/fizzbuzzfib_ringbuf.bpf.o"
	[ "$status" -eq 0 ]
	grep -E $'^#map\tring\tevents\tarray_of_maps\tringbuf\t[1-9][0-9]*\t[1-9][0-9]*$' <<<"$output"
	grep -E $'^#map\tring\tevents_spare\tringbuf\t-\t0\t0$' <<<"$output"
}

@test "maps of maps not of queues or rings, or not an array, are left as the object leaves them" {
	local left="cost_counts (array_of_maps of array), cost_queues (hash_of_maps of queue)."

	# The probe aborts every frame if its array's one slot, set in the object, is gone.
	FBF_COST_ROUNDS=1 cost measure "$PROBE"_maps_of_maps.bpf.o
	[ "$status" -eq 0 ]
	[ "$(action ipv4-tcp)" = XDP_DROP ]
	[ "$(action ipv4-udp)" = XDP_PASS ]
	[[ "$output" == *"left as the object leaves them "*": $left"* ]]
	[[ "$output" != *"Event maps"* ]]
}

@test "the runner measures a program another process loaded, by its id" {
	local id

	mountpoint -q /sys/fs/bpf || skip "no bpffs at /sys/fs/bpf to pin a program in"
	PIN=/sys/fs/bpf/fbf-cost-bats-$BATS_ROOT_PID
	bpftool prog load "$FBF_BUILD/xdp_pass.bpf.o" "$PIN" type xdp
	id=$(bpftool prog show pinned "$PIN" | awk -F: 'NR == 1 { print $1 }')
	run "$FBF_BUILD/bench/cost_run" cpus -r 2 -n 1000 -c 1,"$(nproc)" "live=id:$id"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == $'#prog\tlive\txdp_pass' ]]
	[ "$(grep -c $'^live\tcost/cpus/1\tlatency\t' <<<"$output")" -eq 2 ]
	[ "$(grep -c $'^live\tcost/cpus/'"$(nproc)"$'\toverlap-percent\t' <<<"$output")" -eq 2 ]
	run "$FBF_BUILD/bench/cost_run" cpus -m /dev/null "live=id:$id"
	[ "$status" -eq 2 ]
	[[ "$output" == *"MAPS fills an object's own maps"* ]]
	run "$FBF_BUILD/bench/cost_run" cpus "live=id:4294967295"
	[ "$status" -eq 3 ]
	[[ "$output" == "cost: no BPF program has id 4294967295"* ]]
	run "$FBF_BUILD/bench/cost_run" cpus -c "$(($(nproc) + 1))" "live=id:$id"
	[ "$status" -eq 2 ]
	[[ "$output" == *"each count is from 1 to the $(nproc) CPUs"* ]]
}

@test "bad input: each one line and its own exit status" {
	require_xdp_tools xdpdump_bpf.o
	# Tracing programs, fentry and fexit on a function its loader names at run time
	# ("func" in the object): measured as such, the hook this kernel lacks named.
	cost measure "$XDP_TOOLS_BPF/xdpdump_bpf.o"
	[ "$status" -eq 30 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "cost: trace_on_entry (fentry/func): this kernel ($(uname -r)) has no function func in its BTF: "* ]]
	# No program of a type the tool measures: the types it does have, named, not advice
	# that loads them into the kernel.
	cost measure "$FBF_BUILD/testing/cost_trace_other_type.bpf.o"
	[ "$status" -eq 4 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"has no program of a type the tool measures: other_type (cgroup_skb, "* ]]
	[[ "$output" != *"loadall"* ]]
	cost measure "$PROBE"_two.bpf.o
	[ "$status" -eq 5 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"has 2 XDP or TC programs: name one with PROG=NAME; its programs: "* ]]
	[[ "$output" == *"xdp_cost_probe (xdp), xdp_cost_probe_other (xdp)" ]]
	cost measure "$PROBE"_two.bpf.o xdp_cost_probe_other
	[ "$status" -eq 0 ]
	every_action XDP_PASS
	cost measure "$PROBE"_two.bpf.o no_such_prog
	[ "$status" -eq 6 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"no XDP or TC program named no_such_prog; its programs: xdp_cost_probe "* ]]
	[[ "$output" != *"loadall"* ]]
	cost measure "$BATS_TEST_FILENAME"
	[ "$status" -eq 3 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "cost: $BATS_TEST_FILENAME is not a BPF object (libbpf: "* ]]
	cost measure /nonexistent.o
	[ "$status" -eq 3 ]
	[ "${#lines[@]}" -eq 1 ]
	# An object of the other byte order: built for this host's is the advice.
	local other=bpfeb own=bpfel
	[ "$(python3 -c 'import sys; print(sys.byteorder)')" = little ] || { other=bpfel own=bpfeb; }
	clang -O2 -g -target "$other" -I"/usr/include/$(gcc -dumpmachine)" \
		-c testing/cost_probe.bpf.c -o "$BATS_TEST_TMPDIR/other.bpf.o"
	cost measure "$BATS_TEST_TMPDIR/other.bpf.o"
	[ "$status" -eq 3 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"is a BPF object of the other byte order (libbpf: "*"): build it for this host's, with clang -target bpf here or -target $own" ]]
	cost measure
	[ "$status" -eq 2 ]
}

@test "FBF_COST_ROUNDS not 1 or more: one line, exit 2, before any load or file written" {
	local rounds

	for rounds in 0 -1 three; do
		rm -f "$RESULTS/cost.bmf.json"
		FBF_COST_ROUNDS=$rounds cost measure "$PROBE.bpf.o"
		[ "$status" -eq 2 ]
		[ "${#lines[@]}" -eq 1 ]
		[ "$output" = "cost: FBF_COST_ROUNDS=$rounds: give 1 or more rounds (none would time nothing)" ]
		[ ! -e "$RESULTS/cost.bmf.json" ]
	done
	# A tracing object's run and a compare are refused the same way.
	FBF_COST_ROUNDS=0 cost compare "$PROBE.bpf.o" "$PROBE.bpf.o"
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	FBF_COST_ROUNDS=0 cost measure "$FBF_BUILD/testing/cost_trace_shared.bpf.o"
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
}

@test "wrong arguments: one line naming what is wrong, then the usage, exit 2; --help, exit 0" {
	local first

	# usage_line WANT: the run exited 2, its first line WANT, the usage after it.
	usage_line()
	{
		echo "$output"
		[ "$status" -eq 2 ]
		[ "${lines[0]}" = "$1" ]
		[[ "${lines[1]}" == "usage: make cost OBJ=PATH "* ]]
	}
	cost compare "$PROBE.bpf.o"
	usage_line "cost: no CANDIDATE given"
	cost "$PROBE.bpf.o" measure
	usage_line "cost: $PROBE.bpf.o is no command: measure or compare comes first"
	cost
	usage_line "cost: no command: measure or compare"
	cost measure "$PROBE.bpf.o" "" "" "" extra
	usage_line "cost: measure takes at most 4 arguments, and got 5 (the last: extra)"
	cost compare "$PROBE.bpf.o" "$PROBE.bpf.o" "" "" "" "" "" extra
	usage_line "cost: compare takes at most 7 arguments, and got 8 (the last: extra)"
	cost measure "$PROBE.bpf.o" "" testing/captures/lab.pcap
	usage_line "cost: MAPS testing/captures/lab.pcap is a capture (pcap or pcapng): give it as PCAP"
	# make's usage names every variable make cost takes.
	[[ "$output" == *"[KERNELS=...] [LINES=1]"* ]]
	for first in --help measure; do
		run bench/cost/cost.sh "$first" --help
		[ "$status" -eq 0 ]
		[[ "${lines[0]}" == "usage: make cost OBJ=PATH "* ]]
	done
	# On stdout: 2>/dev/null leaves it whole.
	run bash -c 'bench/cost/cost.sh --help 2>/dev/null'
	[ "$status" -eq 0 ]
	[[ "$output" == "usage: "* ]]
}

@test "random bytes, a bare ELF header and a shared library: not a BPF object, exit 3" {
	local libc

	libc=/lib/$(gcc -dumpmachine)/libc.so.6

	head -c 4096 /dev/urandom >"$BATS_TEST_TMPDIR/random.o"
	printf '\x7fELF' >"$BATS_TEST_TMPDIR/header.o"
	for obj in "$BATS_TEST_TMPDIR/random.o" "$BATS_TEST_TMPDIR/header.o" "$libc"; do
		cost measure "$obj"
		[ "$status" -eq 3 ]
		[ "${#lines[@]}" -eq 1 ]
		[[ "$output" == "cost: $obj is not a BPF object (libbpf: "*"): give an object"* ]]
		[[ "$output" != *"Unknown error"* ]]
	done
	# make itself exits 2 for any failed recipe, and names the tool's status.
	run make -s cost OBJ="$BATS_TEST_TMPDIR/random.o"
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == "cost: $BATS_TEST_TMPDIR/random.o is not a BPF object"* ]]
	[[ "${lines[-1]}" == *"Error 3" ]]
}

@test "a kernel that is not fetched is one line and exit 11, before anything is measured" {
	FBF_COST_KERNELS=no-such-kernel cost measure "$PROBE.bpf.o"
	[ "$status" -eq 11 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "cost: kernel 'no-such-kernel' is not in "*"make kernels KERNELS=no-such-kernel"* ]]
}

@test "a program the verifier refuses: the last lines of its log, then one line" {
	cost measure "$PROBE"_refused.bpf.o
	[ "$status" -eq 7 ]
	[[ "$output" == *"invalid access to packet"* ]]
	[[ "${lines[-1]}" == "cost: the verifier refused xdp_cost_probe in "*"its log ends as above" ]]
	[ "${#lines[@]}" -le 7 ]
}

@test "make install: fizzbuzzfib-cost runs from where it was installed" {
	local prefix=$BATS_TEST_TMPDIR/prefix

	make -s install PREFIX="$prefix" OUTPUT="$FBF_BUILD" >/dev/null
	FBF_COST_OUT=$BATS_TEST_TMPDIR/installed run "$prefix/sbin/fizzbuzzfib-cost" measure \
		"$PROBE.bpf.o"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(action ipv4-tcp)" = XDP_DROP ]
	check_bmf "$BATS_TEST_TMPDIR/installed/cost.bmf.json" cost/prog cost/all
	# The page too: cost_report.py imports cost_html.py from where it was installed.
	[ "${lines[-1]}" = "HTML report: $BATS_TEST_TMPDIR/installed/cost.html" ]
	grep -q '<figure id="fig-shapes">' "$BATS_TEST_TMPDIR/installed/cost.html"
	# A tracing object's page: trace_report.py imports trace_html.py from there too.
	FBF_COST_OUT=$BATS_TEST_TMPDIR/installed FBF_COST_TRACE_PHASE_MS=30 FBF_COST_CPU_ROUNDS=0 \
		run "$prefix/sbin/fizzbuzzfib-cost" measure "$FBF_BUILD/testing/cost_trace_shared.bpf.o"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[-1]}" = "HTML report: $BATS_TEST_TMPDIR/installed/cost.html" ]
	grep -q '<figure id="fig-programs">' "$BATS_TEST_TMPDIR/installed/cost.html"
	make -s uninstall PREFIX="$prefix" >/dev/null
	[ ! -e "$prefix/sbin/fizzbuzzfib-cost" ]
	[ ! -e "$prefix/lib/fizzbuzzfib-cost" ]
}
