#!/usr/bin/env bats
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The cost tool on TC programs (bench/cost/packet/cost_type_tc.c): small ones of its
# own (testing/cost_types_probe.bpf.c) and Cloudflare's cls_redirect, which
# nobody here wrote (testing/third_party/cls_redirect, from Debian's
# linux-source); PROG= across types; a TC program that rewrites its frames,
# measured on its first pass; the live part through tcx or a clsact
# qdisc on the hook the section names, saying what the kernel lacks (the
# "on this kernel" test and the first of the clsact path run on every kernel of
# the matrix: tests/run-kernels' tc group), the clsact path on a kernel with tcx
# too (FBF_COST_TC_NO_TCX), leaving another's qdisc and filter be; and what a
# new user of the tool found: an XDP_TX program's frames, the table without
# a live part, shape names, the installed tool's own syntax and manual, a MAPS
# key past an array's end.
# Short rounds: the figures are checked for being there, never for how fast.

load ../../../testing/netns
load ../../bmf

setup()
{
	fbf_bench_setup
	[ "$(id -u)" -eq 0 ] || skip "needs root: the tool loads BPF programs and makes veth pairs"
	# Fewer where the caller says (tests/run-kernels under emulation, where timing means
	# nothing and every round costs seconds).
	export FBF_COST_OUT=$RESULTS FBF_COST_ROUNDS=${FBF_COST_ROUNDS:-3}
	export FBF_COST_REPEAT=${FBF_COST_REPEAT:-1000}
	export FBF_COST_LIVE_ROUNDS=0 FBF_COST_FLOOD_SECONDS=1
	TYPES=$FBF_BUILD/testing
}

teardown()
{
	if [ -n "${ATTACH_PID:-}" ] && kill -0 "$ATTACH_PID" 2>/dev/null; then
		kill -INT "$ATTACH_PID"
		wait "$ATTACH_PID" || true
	fi
	[ -z "${NS:-}" ] || ip netns del "$NS" 2>/dev/null || true
	[ -z "${PIN:-}" ] || rm -f "$PIN"
}

cost() { run bench/cost/cost.sh "$@"; echo "$output"; }

# clsact_net: a namespace NS with a veth pair, DEV one end, as a TC program is attached to.
clsact_net()
{
	NS=fbf-clsact-$$
	DEV=fbfq$$
	ip netns add "$NS"
	ip -n "$NS" link add "$DEV" type veth peer name "${DEV}p"
	ip -n "$NS" link set "$DEV" up
}

# clsact_attach: cost_run attaching the TC probe to DEV's ingress through a
# clsact qdisc (FBF_COST_TC_NO_TCX=1), in the background as ATTACH_PID, once
# it says it attached (its stderr: ATTACH_ERR).
clsact_attach()
{
	local i

	ATTACH_ERR=$BATS_TEST_TMPDIR/attach.err
	FBF_COST_TC_NO_TCX=1 nsenter --net="/run/netns/$NS" "$FBF_BUILD/bench/cost_run" attach \
		"$DEV" ingress "$TYPES/cost_tc_probe.bpf.o" >/dev/null 2>"$ATTACH_ERR" &
	ATTACH_PID=$!
	# Up to a minute: a kernel under emulation takes seconds to load and attach it.
	for i in $(seq 600); do
		grep -q attached "$ATTACH_ERR" && break
		kill -0 "$ATTACH_PID" 2>/dev/null || break
		sleep 0.1
	done
	cat "$ATTACH_ERR"
}

# clsact_stop: SIGINT to cost_run, as Ctrl-C; its status in status.
clsact_stop()
{
	kill -INT "$ATTACH_PID"
	status=0
	wait "$ATTACH_PID" || status=$?
}

# tc_filters: the names of the programs of DEV's ingress filters, one a line.
tc_filters() { tc -n "$NS" filter show dev "$DEV" ingress | grep -oE ' name [^ ]+' | cut -c7-; }

# action SHAPE: the action column of the table's test_run row for SHAPE.
action() { awk -v s="$1" '$1 == "test_run" && $2 == s { print $NF }' <<<"$output"; }

# kernel_since MAJOR.MINOR: whether the kernel here is that release or later.
kernel_since()
{
	local v

	v=$(uname -r | awk -F'[.-]' '{ printf "%d", $1 * 1000 + $2 }')
	[ "$v" -ge "$(awk -F. '{ printf "%d", $1 * 1000 + $2 }' <<<"$1")" ]
}

# all_went MODE: the table's live row for MODE says the program let every frame go on:
# attached as the kernel takes it, none stopped, each passed or dropped by the veth after
# (its peer's backlog full: a busy host's), the two making all of them.
all_went()
{
	local row went veth

	row=$(grep -E "^live $1 +frames/s .* $(tcx_or_clsact) on $1: passed [0-9]+%" <<<"$output")
	echo "row: $row"
	[[ "$row" != *stopped* ]]
	went=$(grep -Eo 'passed [0-9]+%' <<<"$row" | grep -Eo '[0-9]+')
	veth=$(grep -Eo 'dropped by the veth [0-9]+%' <<<"$row" | grep -Eo '[0-9]+' || echo 0)
	[ $((went + veth)) -ge 99 ]
}

# tcx_or_clsact: how the kernel here takes a TC program: tcx from 6.6, a clsact qdisc before.
tcx_or_clsact()
{
	if kernel_since 6.6; then echo "through tcx"; else echo "through a clsact qdisc"; fi
}

@test "a TC program: TC_ACT_* actions against bare TC_ACT_OK, the CPUs, live on ingress" {
	FBF_COST_LIVE_ROUNDS=1 run make -s cost OBJ="$TYPES/cost_tc_probe.bpf.o"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(action ipv4-tcp)" = TC_ACT_SHOT ]
	[ "$(action ipv4-udp)" = TC_ACT_OK ]
	[ "$(action ipv6)" = TC_ACT_UNSPEC ]
	[ "$(action arp)" = TC_ACT_UNSPEC ]
	[[ "$output" == *"bare TC_ACT_OK run in the same rounds"* ]]
	grep -E '^benchmark +measure +program +TC_ACT_OK +nothing +over TC_ACT_OK ' <<<"$output"
	grep -E '^verifier +verified-instructions +[1-9][0-9]* +2 ' <<<"$output"
	grep -E '^1 +[0-9.]+ +1.00x ' <<<"$output"
	# The kernel's test run of an skb refuses an IPv4 frame shorter than its header.
	[[ "$output" == *"Frame shape truncated not run: the kernel's test run of a TC program"* ]]
	all_went ingress
	grep -E '^live ingress +ns/packet +[0-9.]+ +[0-9.]+ ' <<<"$output"
	check_bmf "$RESULTS/cost.bmf.json" cost/prog cost/ipv4-tcp cost/ipv4-tcp/tc_ok cost/all \
		cost/cpus/1/tc_ok cost/live/prog-ingress cost/live/tc_ok-ingress cost/live/none
	check_bmf_measures "$RESULTS/cost.bmf.json" cost/ipv4-tcp:action cost/all:over-tc-ok \
		cost/live/prog-ingress:passed-percent cost/live/prog-ingress:latency
}

@test "on this kernel: test runs, and live on ingress through tcx or clsact, as it counts" {
	FBF_COST_LIVE_ROUNDS=1 cost measure "$TYPES/cost_tc_probe.bpf.o"
	[ "$status" -eq 0 ]
	[ "$(action ipv4-tcp)" = TC_ACT_SHOT ]
	[ "$(action ipv4-udp)" = TC_ACT_OK ]
	grep -E '^live ingress +ns/packet +[0-9.]+ +[0-9.]+ ' <<<"$output"
	if kernel_since 5.19; then
		all_went ingress
	else
		# What the kernel lacks, said in the row, and here for the reader of the matrix.
		grep -E "^live ingress +frames/s .* $(tcx_or_clsact) on ingress: this kernel counts no otherhost drops \(5\.19\+\): passed and stopped not told apart$" \
			<<<"$output"
		echo "# $(uname -r): no otherhost counter (5.19+): ingress's shares untold" >&3
	fi
	kernel_since 6.6 || echo "# $(uname -r): no tcx (6.6+): attached through a clsact qdisc" >&3
}

@test "SEC(\"tcx/egress\"), which libbpf 1.1 does not know: measured, live on egress" {
	FBF_COST_LIVE_ROUNDS=1 cost measure "$TYPES/cost_tc_probe_egress.bpf.o"
	[ "$status" -eq 0 ]
	[ "$(action ipv4-tcp)" = TC_ACT_SHOT ]
	all_went egress
	[[ "$output" != *"live ingress"* ]]
}

@test "clsact path: another's qdisc and filter stay, ours alone goes on SIGINT" {
	clsact_net
	tc -n "$NS" qdisc add dev "$DEV" clsact
	tc -n "$NS" filter add dev "$DEV" ingress bpf da obj "$FBF_BUILD/tc_ok.bpf.o" sec tc
	tc -n "$NS" filter show dev "$DEV" ingress
	[ "$(tc_filters)" = tc_ok ]
	clsact_attach
	[[ "$(cat "$ATTACH_ERR")" == *"through a clsact qdisc on ingress"* ]]
	tc -n "$NS" filter show dev "$DEV" ingress
	[ "$(tc_filters | sort | tr '\n' ' ')" = "tc_cost_probe tc_ok " ]
	clsact_stop
	[ "$status" -eq 0 ]
	tc -n "$NS" filter show dev "$DEV" ingress
	[ "$(tc_filters)" = tc_ok ]
	[[ "$(tc -n "$NS" qdisc show dev "$DEV")" == *"qdisc clsact"* ]]
}

@test "clsact path: a qdisc the tool made is gone after SIGINT" {
	clsact_net
	[[ "$(tc -n "$NS" qdisc show dev "$DEV")" != *clsact* ]]
	clsact_attach
	[[ "$(cat "$ATTACH_ERR")" == *"through a clsact qdisc on ingress"* ]]
	[ "$(tc_filters)" = tc_cost_probe ]
	clsact_stop
	[ "$status" -eq 0 ]
	[[ "$(tc -n "$NS" qdisc show dev "$DEV")" != *clsact* ]]
}

@test "a capture frame TC's test run refuses: counted as refused, the other frames measured" {
	local pcap=$BATS_TEST_TMPDIR/short.pcap

	# UDP, then an IPv4 frame shorter than its header (6.18 builds no skb of it), then UDP.
	python3 -c "
import struct
eth = bytes(6) + bytes.fromhex('020000000001') + b'\x08\x00'
ip = bytes.fromhex('4500001c00000000401100000a0000010a000002')
udp = ip + struct.pack('>HHHH', 1000, 2000, 8, 0)
frames = [eth + udp + bytes(18), eth + ip[:10], eth + udp + bytes(18)]
head = struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1)
open('$pcap', 'wb').write(head + b''.join(
    struct.pack('<IIII', 0, 0, len(f), len(f)) + f for f in frames))"
	cost measure "$TYPES/cost_tc_probe.bpf.o" "" "" "$pcap"
	[ "$status" -eq 0 ]
	grep "^Capture: 3 frames read, 2 run .*left out, never run: 1 refused by the kernel's test run, the first frame 2\.$" <<<"$output"
	grep -E '^Frames per action \(first round\): TC_ACT_OK 2\.$' <<<"$output"
}

@test "a TC program that rewrites its frames: a naive repeat times its own output, the tool its first pass" {
	local rewrite=$TYPES/cost_rewrite_tc.bpf.o lab=testing/captures/lab.pcap
	local frame=$BATS_TEST_TMPDIR/tcp.frame naive all ip

	command -v bpftool >/dev/null || skip "bpftool is missing: install the Debian packages"
	command -v tcpdump >/dev/null || skip "tcpdump is missing: install the Debian packages"
	# The lab's first TCP over IPv4 frame, as captured.
	python3 -c "
import struct
data, off = open('$lab', 'rb').read(), 24
while off < len(data):
    n = struct.unpack('<I', data[off + 8:off + 12])[0]
    f, off = data[off + 16:off + 16 + n], off + 16 + n
    if f[12:14] == b'\x08\x00' and f[23] == 6:
        open('$frame', 'wb').write(f)
        break"
	PIN=/sys/fs/bpf/fbf-cost-rewrite-tc-$$
	bpftool prog load "$rewrite" "$PIN"
	# The naive repeat: its first run relabels the frame and lets it go, every later
	# one is fed that output and shoots it, and the last run's answer is reported.
	naive=$(bpftool prog run pinned "$PIN" data_in "$frame" repeat 100000)
	rm -f "$PIN"
	echo "naive: $naive"
	grep -q 'Return value: 2,' <<<"$naive"
	cost measure "$rewrite" "" "" "$lab"
	[ "$status" -eq 0 ]
	grep -Eq '^test_run ipv4-tcp .* TC_ACT_OK, rewrites the frame$' <<<"$output"
	# The two figures, for the reader (a timing is no test's verdict; the actions are).
	echo "naive $(grep -Eo 'duration \(average\): [0-9]+' <<<"$naive" | grep -Eo '[0-9]+$') ns" \
	     "(TC_ACT_SHOT, its own output), tool $(awk '$1 == "test_run" && $2 == "ipv4-tcp" {
		print $4 }' <<<"$output") ns (TC_ACT_OK)" >&3
	grep -q 'The program rewrites the frame of ipv4-tcp, .*timed one call of one run' \
		<<<"$output"
	# Every frame's first pass: untagged IPv4 relabelled and let go, none shot.
	all=$(tcpdump -nr "$lab" 2>/dev/null | wc -l)
	ip=$(tcpdump -nr "$lab" ip 2>/dev/null | wc -l)
	grep -q "^Frames per action (first round): TC_ACT_OK $all\.$" <<<"$output"
	grep -q "^The program rewrites the frame: $ip frames changed" <<<"$output"
}

@test "Cloudflare's cls_redirect, from Debian's linux-source: a TC program nobody here wrote" {
	cost measure "$TYPES/cls_redirect.bpf.o"
	[ "$status" -eq 0 ]
	[[ "$output" == *"cls_redirect.bpf.o: cls_redirect, measured on"* ]]
	# Not GUE to its (unset) address: every frame goes on as it came.
	[ "$(action ipv4-tcp)" = TC_ACT_OK ]
	[ "$(action ipv6)" = TC_ACT_OK ]
	grep -E '^verifier +verified-instructions +[0-9]{4,} +2 ' <<<"$output"
	grep -E '^test_run all +ns/run ' <<<"$output"
}

@test "PROG= picks a program of either type; without it both are named, with their types" {
	cost measure "$TYPES/cost_tc_probe_mixed.bpf.o"
	[ "$status" -eq 5 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"has 2 XDP or TC programs: name one with PROG=NAME; its programs: "*"tc_cost_probe (sched_cls), xdp_cost_other (xdp)" ]]
	cost measure "$TYPES/cost_tc_probe_mixed.bpf.o" xdp_cost_other
	[ "$status" -eq 0 ]
	[ "$(action ipv4-tcp)" = XDP_PASS ]
	cost measure "$TYPES/cost_tc_probe_mixed.bpf.o" tc_cost_probe
	[ "$status" -eq 0 ]
	[ "$(action ipv4-tcp)" = TC_ACT_SHOT ]
}

@test "cost-compare on TC: A/A passes, one instruction more per frame fails on the exact measures" {
	cost compare "$TYPES/cost_tc_probe.bpf.o" "$TYPES/cost_tc_probe.bpf.o"
	[ "$status" -eq 0 ]
	[[ "${lines[-1]}" == "cost-compare: PASS: "* ]]
	cost compare "$TYPES/cost_tc_probe.bpf.o" "$TYPES/cost_tc_probe_planted.bpf.o"
	[ "$status" -eq 1 ]
	[[ "${lines[-1]}" == "cost-compare: REGRESSION: verified-instructions "* ]]
	check_bmf "$RESULTS/cost-compare.bmf.json" cost/prog cost/all
}

@test "cost-compare takes each object's program: a renamed program compares" {
	# A verdict either way (the timing is the host's): what matters is that both ran.
	cost compare "$TYPES/cost_tc_probe_mixed.bpf.o" "$FBF_BUILD/xdp_pass.bpf.o" "" "" \
		xdp_cost_other xdp_pass
	[ "$status" -le 1 ]
	[[ "$output" == *"base xdp_cost_other ($TYPES/cost_tc_probe_mixed.bpf.o) against candidate xdp_pass ($FBF_BUILD/xdp_pass.bpf.o)"* ]]
	[[ "${lines[-1]}" =~ ^cost-compare:\ (PASS|REGRESSION): ]]
	[[ "${lines[-1]}" != *"verified-instructions"* ]]
	run make -s cost-compare BASE="$TYPES/cost_tc_probe_mixed.bpf.o" \
		CANDIDATE="$FBF_BUILD/xdp_pass.bpf.o" BASE_PROG=xdp_cost_other CANDIDATE_PROG=xdp_pass
	echo "$output"
	[ "$status" -eq 0 ] || [ "$status" -eq 1 ]
	[[ "$output" == *"base xdp_cost_other ($TYPES/cost_tc_probe_mixed.bpf.o) against candidate xdp_pass ($FBF_BUILD/xdp_pass.bpf.o)"* ]]
	[[ "$output" =~ cost-compare:\ (PASS|REGRESSION): ]]
}

@test "bad input across types: each one line and exit 12" {
	cost compare "$TYPES/cost_tc_probe.bpf.o" "$FBF_BUILD/xdp_pass.bpf.o"
	[ "$status" -eq 12 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "cost: the base's program is tc, the candidate's xdp: compare programs"* ]]
	# XDP's modes for a TC program, and a TC hook for an XDP one, refused before any attach.
	run "$FBF_BUILD/bench/cost_run" attach lo native "$TYPES/cost_tc_probe.bpf.o"
	[ "$status" -eq 12 ]
	[ "$output" = "cost: tc_cost_probe is a TC program: it attaches in mode ingress|egress, not native" ]
	run "$FBF_BUILD/bench/cost_run" attach lo ingress "$FBF_BUILD/xdp_pass.bpf.o"
	[ "$status" -eq 12 ]
	[ "$output" = "cost: xdp_pass is an XDP program: it attaches in mode native|skb, not ingress" ]
}

@test "an XDP_TX program: its frames really go back, and the live part says so" {
	FBF_COST_LIVE_ROUNDS=1 cost measure "$TYPES/cost_xdp_tx_probe.bpf.o"
	[ "$status" -eq 0 ]
	[ "$(action ipv4-udp)" = XDP_TX ]
	grep -E '^live native +frames/s .* sent back 100%$' <<<"$output"
	[[ "$output" != *"passed 100%"* ]]
	check_bmf_measures "$RESULTS/cost.bmf.json" cost/live/prog-native:tx-percent \
		cost/live/prog-native:tx-failed-percent
}

@test "no live part: neither its sentence nor an empty nothing column; shapes named as they are" {
	local shapes

	cost measure "$FBF_BUILD/xdp_pass.bpf.o"
	[ "$status" -eq 0 ]
	[[ "$output" != *"live:"* ]]
	[[ "$output" != *"flood"* ]]
	grep -E '^benchmark +measure +program +XDP_PASS +over XDP_PASS +spread +action$' <<<"$output"
	# Not this project's classes: what the frames are (the shapes' names alone: the
	# object's path may well name the project).
	shapes=$(awk '$1 == "test_run" { print $2 }' <<<"$output")
	[ -n "$shapes" ]
	[[ "$shapes" != *"fizz"* ]]
	[[ "$shapes" != *"fibonacci"* ]]
	grep -E '^test_run ipv4-src-10\.0\.0\.254 ' <<<"$output"
	grep -E '^test_run vlan-ipv4-src-10\.0\.0\.254 ' <<<"$output"
}

@test "a MAPS key past an array's end: said so, not the raw E2BIG" {
	echo 'cost_config 05000000 01000000' >"$BATS_TEST_TMPDIR/maps"
	cost measure "$FBF_BUILD/testing/cost_probe_config.bpf.o" "" "$BATS_TEST_TMPDIR/maps"
	# Exit 20, as for a dump's key past the end.
	[ "$status" -eq 20 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"key 05000000 is past the end of map cost_config, which holds 1 entry "* ]]
	[[ "$output" != *"Argument list too long"* ]]
	# From a dump: its entries counted from 1, as the lines are.
	echo '[{"key":["0x00","0x00","0x00","0x00"],"value":["0x01","0x00","0x00","0x00"]},
		{"key":["0x05","0x00","0x00","0x00"],"value":["0x01","0x00","0x00","0x00"]}]' \
		>"$BATS_TEST_TMPDIR/cost_config.json"
	cost measure "$FBF_BUILD/testing/cost_probe_config.bpf.o" "" "$BATS_TEST_TMPDIR/cost_config.json"
	[ "$status" -eq 20 ]
	[[ "$output" == *"entry 2's key is past the end of array cost_config (1 entry)"* ]]
}

@test "installed fizzbuzzfib-cost: its own syntax, a manual page whose exits are the tool's" {
	local prefix=$BATS_TEST_TMPDIR/prefix

	make -s install PREFIX="$prefix" OUTPUT="$FBF_BUILD" >/dev/null
	run "$prefix/sbin/fizzbuzzfib-cost"
	echo "$output"
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "cost: no command: measure or compare" ]
	[[ "${lines[1]}" == "usage: fizzbuzzfib-cost measure OBJECT [PROG [MAPS [PCAP]]]"* ]]
	[[ "$output" != *"make"* ]]
	# No make variable (PROG=NAME): only the environment's, which it names as such.
	[ -z "$(grep -oE '(^|[[ ])[A-Z]+=' <<<"$output")" ]
	[[ "$output" == *"globals: FBF_COST_SET=NAME=VALUE,..."* ]]
	# --help, after the command or alone: the usage, exit 0.
	run "$prefix/sbin/fizzbuzzfib-cost" measure --help
	[ "$status" -eq 0 ]
	[[ "$output" == "usage: fizzbuzzfib-cost measure OBJECT [PROG [MAPS [PCAP]]]"* ]]
	run "$prefix/sbin/fizzbuzzfib-cost" measure "$TYPES/cost_tc_probe_mixed.bpf.o"
	echo "$output"
	[ "$status" -eq 5 ]
	[[ "$output" == *"name one with the PROG argument;"* ]]
	FBF_COST_OUT=$BATS_TEST_TMPDIR/installed run "$prefix/sbin/fizzbuzzfib-cost" measure \
		"$TYPES/cost_tc_probe.bpf.o"
	[ "$status" -eq 0 ]
	[ "$(action ipv4-tcp)" = TC_ACT_SHOT ]
	[ -f "$prefix/share/man/man8/fizzbuzzfib-cost.8" ]
	# Every status of the exit table, and no other, in the manual.
	diff <(awk '/COST_EXIT_[A-Z_]+ = [0-9]+/ { sub(",", "", $3); print $3 }' \
		bench/cost/cost_exits.h) \
		<(awk '/^\.SH EXIT STATUS/ { on = 1 } /^\.SH FILES/ { on = 0 }
			on && prev == ".TP" { gsub(/\.B /, ""); print } { prev = $0 }' \
			"$prefix/share/man/man8/fizzbuzzfib-cost.8")
	make -s uninstall PREFIX="$prefix" >/dev/null
	[ ! -e "$prefix/share/man/man8/fizzbuzzfib-cost.8" ]
	[ ! -e "$prefix/sbin/fizzbuzzfib-cost" ]
}
