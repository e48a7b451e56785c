#!/usr/bin/env bats
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The cost tool on a capture (PCAP=): the lab's own traffic captured with
# tcpdump (testing/captures/), its frames run in order, counted by action
# as tcpdump counts them, the costliest named, the live part flooding it, a
# compare judging it; a program that rewrites its frames measured on its
# first pass where a naive repeat measures its own output; and one line and
# one exit status for each bad capture. Short rounds: the figures are checked
# for being there and for what the program did, never for how fast.

load ../../../testing/netns
load ../../bmf

CAPTURES=testing/captures

setup()
{
	fbf_bench_setup
	[ "$(id -u)" -eq 0 ] || skip "needs root: the tool loads XDP programs and makes veth pairs"
	command -v tcpdump >/dev/null || skip "tcpdump is missing: install the Debian packages (make deps)"
	export FBF_COST_OUT=$RESULTS FBF_COST_ROUNDS=3 FBF_COST_REPEAT=1000
	export FBF_COST_LIVE_ROUNDS=0 FBF_COST_FLOOD_SECONDS=1
	PROBE=$FBF_BUILD/testing/cost_probe
	LAB=$CAPTURES/lab.pcap
	PIN= PIN_MAPS=
}

teardown()
{
	[ -z "$PIN" ] || rm -f "$PIN"
	[ -z "$PIN_MAPS" ] || rm -rf "$PIN_MAPS"
}

cost() { run bench/cost/cost.sh "$@"; echo "$output"; }

# frames FILTER: how many of the lab capture's frames tcpdump matches with FILTER.
frames() { tcpdump -nr "$LAB" "$@" 2>/dev/null | wc -l; }

# per_action ACTION: the count the table's "Frames per action" line gives ACTION.
per_action()
{
	grep '^Frames per action' <<<"$output" | grep -o "$1 [0-9,]*" | awk '{ gsub(",", "", $2); print $2 }'
}

# pcap_py CODE...: python3 with the capture's records at hand: recs, a list of
# (header, frame) of the lab capture, and head, its file header.
pcap_py()
{
	python3 -c "
import struct, sys
data = open('$LAB', 'rb').read()
head, recs, off = data[:24], [], 24
while off < len(data):
    n = struct.unpack('<I', data[off + 8:off + 12])[0]
    recs.append((data[off:off + 16], data[off + 16:off + 16 + n]))
    off += 16 + n
$1"
}

@test "a capture's frames run in order: mean, p50 to max, frames per action as tcpdump counts them, the costliest" {
	local tcp all costliest index summary line src

	cost measure "$PROBE.bpf.o" "" "" "$LAB"
	[ "$status" -eq 0 ]
	for row in "capture mean" "capture p50" "capture p90" "capture p99" "capture max"; do
		grep -q "^$row *ns/frame" <<<"$output"
	done
	all=$(frames)
	tcp=$(frames 'ip and tcp')
	[ "$tcp" -gt 0 ]
	grep -q "^Capture: $all frames read, $all run in the capture's order" <<<"$output"
	# The probe drops TCP over untagged IPv4 and passes the rest (VLAN, IPv6, ARP, ICMP, UDP).
	[ "$(per_action XDP_DROP)" -eq "$tcp" ]
	[ "$(per_action XDP_PASS)" -eq $((all - tcp)) ]
	# Ten costliest frames, each with its index, ns, action and a summary tcpdump agrees with.
	costliest=$(awk '/^The 10 costliest/ { on = 1; next }
		on && /^[0-9]+ / { print; n++ } on && n && /^$/ { exit }' <<<"$output")
	[ "$(wc -l <<<"$costliest")" -eq 10 ]
	# Each row's frame, as tcpdump reads it at that index: its length, and its source
	# (tcpdump writes ADDR.PORT where the summary writes ADDR:PORT, [ADDR]:PORT for IPv6).
	while read -r index _ _ summary; do
		line=$(tcpdump -enr "$LAB" 2>/dev/null | sed -n "${index}p")
		echo "frame $index: $summary | $line"
		[[ "$line" == *", length $(grep -Eo 'len [0-9]+' <<<"$summary" | cut -d' ' -f2): "* ]]
		summary=$(sed -E 's/^vlan [0-9]+ //' <<<"$summary")
		case ${summary%% *} in
		TCP | UDP) src=$(awk '{ print $2 }' <<<"$summary" | sed -E 's/^\[?([^]]*)\]?:/\1./') ;;
		ICMP*) src=$(awk '{ print $4 }' <<<"$summary") ;;
		*) src= ;;
		esac
		[ -z "$src" ] || [[ "$line" == *" $src "* ]]
	done <<<"$costliest"
	check_bmf "$RESULTS/cost.bmf.json" cost/capture cost/capture/p99 cost/capture/max
}

@test "one IPv6 frame: its endpoints in brackets before their ports, one frame said as one" {
	local one=$BATS_TEST_TMPDIR/one.pcap

	# The lab's first IPv6 TCP frame alone.
	pcap_py "
f = next(r for r in recs if r[1][12:14] == b'\\x86\\xdd' and r[1][20] == 6)
open('$one', 'wb').write(head + f[0] + f[1])"
	cost measure "$PROBE.bpf.o" "" "" "$one"
	[ "$status" -eq 0 ]
	grep -q "^Capture: 1 frame read, 1 run in the capture's order" <<<"$output"
	grep -q "^The costliest frame, by its median over the rounds:$" <<<"$output"
	grep -Eq '^1 +[0-9]+ +XDP_PASS +TCP \[fd00:fbf::1\]:[0-9]+ > \[fd00:fbf::254\]:8080 len [0-9]+$' \
		<<<"$output"
}

@test "a pcapng capture runs as the same frames in pcap" {
	local ng=$BATS_TEST_TMPDIR/lab.pcapng

	# pcapng's blocks (a section, one Ethernet interface, an enhanced packet per frame),
	# written here: Debian's tcpdump writes pcap alone.
	pcap_py "
def block(kind, body):
    body += b'\0' * (-len(body) % 4)
    return struct.pack('<II', kind, len(body) + 12) + body + struct.pack('<I', len(body) + 12)
out = block(0x0A0D0D0A, struct.pack('<IHHq', 0x1A2B3C4D, 1, 0, -1))
out += block(1, struct.pack('<HHI', 1, 0, 262144))
for h, f in recs:
    sec, usec = struct.unpack('<II', h[:8])
    ts = sec * 1000000 + usec
    out += block(6, struct.pack('<IIIII', 0, ts >> 32, ts & 0xffffffff, len(f), len(f)) + f)
open('$ng', 'wb').write(out)"
	cost measure "$PROBE.bpf.o" "" "" "$ng"
	[ "$status" -eq 0 ]
	grep -q "^Capture: $(frames) frames read, $(frames) run" <<<"$output"
	[ "$(per_action XDP_DROP)" -eq "$(frames 'ip and tcp')" ]
}

@test "a program that rewrites its frames: a naive repeat times its own output, the tool its first pass" {
	local rewrite=$FBF_BUILD/testing/cost_rewrite.bpf.o frame=$BATS_TEST_TMPDIR/tcp.frame
	local naive naive_ns tool_ns

	command -v bpftool >/dev/null || skip "bpftool is missing: install the Debian packages"
	# The lab's first TCP over IPv4 frame, as captured.
	pcap_py "
f = next(f for _, f in recs if f[12:14] == b'\x08\x00' and f[23] == 6)
open('$frame', 'wb').write(f)"
	PIN=/sys/fs/bpf/fbf-cost-rewrite-$$
	bpftool prog load "$rewrite" "$PIN"
	# The naive repeat: its first run relabels the frame and sends it back, every
	# later one is fed that output and drops it, and the last run's answer is reported.
	naive=$(bpftool prog run pinned "$PIN" data_in "$frame" repeat 100000)
	echo "naive: $naive"
	grep -q 'Return value: 1,' <<<"$naive"
	naive_ns=$(grep -Eo 'duration \(average\): [0-9]+' <<<"$naive" | grep -Eo '[0-9]+$')
	cost measure "$rewrite" "" "" "$LAB"
	[ "$status" -eq 0 ]
	# The tool: the first pass's action, the path it takes, and how it was measured.
	grep -Eq '^test_run ipv4-tcp .* XDP_TX, rewrites the frame$' <<<"$output"
	grep -q '^The program rewrites the frame of ipv4-tcp, .*timed one call of one run' \
		<<<"$output"
	tool_ns=$(awk '$1 == "test_run" && $2 == "ipv4-tcp" { print $4 }' <<<"$output")
	# The forward path hashes 1024 rounds, the drop is a compare: the two figures, for
	# the reader (a timing is no test's verdict; the actions above are).
	echo "naive ${naive_ns} ns (XDP_DROP, its own output), tool ${tool_ns} ns (XDP_TX)" >&3
	# In the capture, every untagged IPv4 frame is sent back on its first pass, none dropped.
	[ "$(per_action XDP_TX)" -eq "$(frames ip)" ]
	[ -z "$(per_action XDP_DROP)" ]
	grep -q "^The program rewrites the frame: $(frames ip) frames changed" <<<"$output"
}

@test "the CPU curve: a rewritten shape on its first pass, with a capture its frames; said which" {
	local rewrite=$FBF_BUILD/testing/cost_rewrite.bpf.o one all shapes mean

	cost measure "$rewrite"
	[ "$status" -eq 0 ]
	grep -q "^CPUs: every shape, those the program rewrites (ipv4-tcp, .*) each on its first pass (calls of one run" \
		<<<"$output"
	# The figures, for the reader (a timing is no test's verdict): the curve's point on
	# one CPU beside the shapes' first-pass mean, where a naive repeat times the drop.
	one=$(awk '$1 == "1" && $3 == "1.00x" { print $2 }' <<<"$output")
	all=$(awk '$1 == "test_run" && $2 == "all" { print $4 }' <<<"$output")
	shapes=$(awk '$1 == "test_run" && $2 != "all"' <<<"$output" | wc -l)
	echo "curve on 1 CPU: $one ns a run; the shapes' first-pass mean: $(python3 -c "print(round($all / $shapes, 1))") ns" >&3
	cost measure "$rewrite" "" "" "$LAB"
	[ "$status" -eq 0 ]
	grep -q "^CPUs: the capture's $(frames) frames in order, each on its first pass" <<<"$output"
	one=$(awk '$1 == "1" && $3 == "1.00x" { print $2 }' <<<"$output")
	mean=$(awk '$1 == "capture" && $2 == "mean" { print $4 }' <<<"$output")
	echo "with the capture, curve on 1 CPU: $one ns a run; the capture's mean: $mean ns" >&3
	# cost_run cpus says what it ran, for the report to say it.
	run "$FBF_BUILD/bench/cost_run" cpus -r 1 -n 100 -c 1 -P "$LAB" "prog=$rewrite"
	[ "$status" -eq 0 ]
	grep -qx $'#curve\tcapture\t'"$(frames)" <<<"$output"
}

@test "an encapsulator nobody here wrote (Linux's selftest test_xdp): each frame's first pass" {
	local obj=$FBF_BUILD/testing/xdp_iptunnel.bpf.o maps=testing/third_party/xdp_iptunnel/iptunnel.maps
	local frame=$BATS_TEST_TMPDIR/syn.frame to_vip key value

	command -v bpftool >/dev/null || skip "bpftool is missing: install the Debian packages"
	cost measure "$obj" "" "$maps" "$LAB"
	[ "$status" -eq 0 ]
	# Every frame to the lab's server port is encapsulated and sent back on its first pass.
	to_vip=$(frames 'ip and tcp and dst host 10.213.0.254 and dst port 8080')
	[ "$to_vip" -gt 0 ]
	[ "$(per_action XDP_TX)" -eq "$to_vip" ]
	grep -q "^The program rewrites the frame: $to_vip frames changed" <<<"$output"
	# A naive repeat of one such frame, the map filled alike: its last run is fed the
	# encapsulated frame, which is in no tunnel, and passes it.
	pcap_py "
f = next(f for _, f in recs if f[12:14] == b'\x08\x00' and f[23] == 6 and f[36:38] == b'\x1f\x90')
open('$frame', 'wb').write(f)"
	PIN=/sys/fs/bpf/fbf-cost-iptunnel-$$ PIN_MAPS=/sys/fs/bpf/fbf-cost-iptunnel-maps-$$
	bpftool prog load "$obj" "$PIN" pinmaps "$PIN_MAPS"
	read -r _ key value < <(grep '^vip2tnl ' "$maps")
	# shellcheck disable=SC2046 # one word per byte
	bpftool map update pinned "$PIN_MAPS/vip2tnl" key hex $(sed 's/../& /g' <<<"$key") \
		value hex $(sed 's/../& /g' <<<"$value")
	bpftool prog run pinned "$PIN" data_in "$frame" repeat 1 | grep -q 'Return value: 3,'
	bpftool prog run pinned "$PIN" data_in "$frame" repeat 1000 | grep -q 'Return value: 2,'
}

@test "the live part floods the capture's frames" {
	FBF_COST_LIVE_ROUNDS=1 cost measure "$PROBE.bpf.o" "" "" "$LAB"
	[ "$status" -eq 0 ]
	grep -q "live: one CPU's flood of the capture's frames" <<<"$output"
	# The probe drops the capture's TCP over IPv4 and passes the rest, live as in test_run.
	dropped=$(awk '$1 == "live" && $2 == "native" && $3 == "frames/s" {
		for (i = 1; i <= NF; i++) if ($i == "dropped") print $(i + 1) }' <<<"$output")
	echo "dropped: $dropped"
	[ -n "$dropped" ]
	[ "${dropped%\%}" -gt 0 ]
}

@test "frames too long for the veth: counted and named, not flooded; a tagged 1518 is flooded" {
	local long=$BATS_TEST_TMPDIR/long.pcap out=$BATS_TEST_TMPDIR/flood.pcap

	# The lab's capture with, after its fifth frame, an untagged frame of 1515 bytes
	# (one past what a veth of 1500 bytes' MTU sends) and a VLAN-tagged one of 1518.
	pcap_py "
h, f = recs[4]
untagged = f[:12] + b'\x08\x00' + bytes(1515 - 14)
tagged = f[:12] + b'\x81\x00\x00\x05\x08\x00' + bytes(1518 - 18)
for i, big in ((5, untagged), (6, tagged)):
    recs.insert(i, (h[:8] + struct.pack('<II', len(big), len(big)), big))
open('$long', 'wb').write(head + b''.join(h + f for h, f in recs))"
	run "$FBF_BUILD/bench/cost_run" capture "$long" "$out"
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q $'^#unflooded\t1\t6\t1514\t1518$' <<<"$output"
	# The tagged frame is in the flood, the untagged one is not.
	[ "$(tcpdump -nr "$out" 2>/dev/null | wc -l)" -eq $(($(frames) + 1)) ]
	[ "$(tcpdump -nr "$out" 'vlan 5' 2>/dev/null | wc -l)" -eq 1 ]
	# The table names it; test_run ran both.
	FBF_COST_LIVE_ROUNDS=1 cost measure "$FBF_BUILD/testing/cost_tc_probe.bpf.o" "" "" "$long"
	[ "$status" -eq 0 ]
	[[ "$output" == *"Not in the flood: 1 frame of the capture longer than the veth sends (1514 bytes, 1518 with a VLAN tag), the first frame 6; test_run ran them."* ]]
	grep -q "^Capture: $(($(frames) + 2)) frames read, $(($(frames) + 2)) run" <<<"$output"
	# On TC ingress the stack counts no broadcast, multicast or non-IP frame passing:
	# not counted by the stack, apart from what the program stopped, and a note under the
	# table says how much of bare TC_ACT_OK's it counted.
	grep -E "^live ingress +frames/s .* on ingress: passed [0-9]+%(, stopped [0-9]+%)?, not counted by the stack [0-9]+%$" \
		<<<"$output"
	grep -E "^live ingress: bare TC_ACT_OK passes every frame, and the stack counted [0-9]+% of them passing: " \
		<<<"$output"
	# The note below the table, not in a cell: no row over 200 columns (330 with it).
	[ "$(awk '/^benchmark / { t = 1 } t && !NF { exit } t { print length }' <<<"$output" |
		sort -n | tail -n 1)" -le 200 ]
}

@test "TC egress on a capture: each frame sent said once, passed, stopped or dropped by the veth" {
	local went stopped veth expect

	# Before, the flood retried a frame the program shot for ever (ENOBUFS).
	FBF_COST_LIVE_ROUNDS=1 cost measure "$FBF_BUILD/testing/cost_tc_probe_egress.bpf.o" "" "" \
		"$LAB"
	[ "$status" -eq 0 ]
	# The probe shoots TCP over untagged IPv4 and lets the rest go: the flood loops the
	# capture whole, so the shares are the capture's, within a loop's remainder.
	expect=$(( (100 * ($(frames) - $(frames 'ip and tcp')) + $(frames) / 2) / $(frames) ))
	read -r went stopped veth < <(python3 -c "
import json
b = json.load(open('$RESULTS/cost.bmf.json'))['cost/live/prog-egress']
print(*(b[m + '-percent']['value'] for m in ('passed', 'stopped', 'veth-dropped')))")
	echo "passed $went, stopped $stopped, dropped by the veth $veth; expected passed $expect"
	python3 -c "assert abs($went + $stopped + $veth - 100) < 0.5"
	python3 -c "assert abs($went + $veth - $expect) < 2 and abs($stopped - (100 - $expect)) < 2"
	grep -E '^live egress +frames/s .* on egress: passed [0-9]+%, stopped [0-9]+%' <<<"$output"
}

@test "cost-compare with a capture: each side's frames per action, the frames decided anew" {
	local all tcp

	# The probe drops TCP over untagged IPv4; bare XDP_PASS passes everything.
	cost compare "$PROBE.bpf.o" "$FBF_BUILD/xdp_pass.bpf.o" "" "" "" "" "$LAB"
	[ "$status" -le 1 ]
	all=$(frames)
	tcp=$(frames 'ip and tcp')
	grep -Eq "^Capture: $all frames run, per action \(first round\): base (XDP_DROP $tcp, XDP_PASS $((all - tcp))|XDP_PASS $((all - tcp)), XDP_DROP $tcp); candidate XDP_PASS $all\.$" <<<"$output"
	grep -q "^$tcp frames of the capture decided differently, the first 10:$" <<<"$output"
	grep -Eq '^[0-9]+ +XDP_DROP +XDP_PASS +TCP [0-9.]+:[0-9]+ > ' <<<"$output"
	[[ "$output" == *"the candidate decides differently: "*"; $tcp of the capture's $all frames (above)"* ]]
	# Against itself: the same actions, said so.
	cost compare "$PROBE.bpf.o" "$PROBE.bpf.o" "" "" "" "" "$LAB"
	grep -q "^Every frame's action is the same in both\.$" <<<"$output"
}

@test "cost-compare with a capture judges its mean and p99 with the gate's statistics" {
	cost compare "$PROBE.bpf.o" "$PROBE.bpf.o" "" "" "" "" "$LAB"
	[ "$status" -eq 0 ] || [ "$status" -eq 1 ]
	grep -Eq '^cost/capture +ns/frame .*%.*%' <<<"$output"
	grep -Eq '^cost/capture/p99 +ns/frame .*%.*%' <<<"$output"
	# Both gated (a threshold), the other quantiles shown but not gated.
	if grep -Eq '^cost/capture(/p99)? +ns/frame .*not gated' <<<"$output"; then false; fi
	grep -Eq '^cost/capture/p50 +ns/frame .*not gated' <<<"$output"
	grep -q '^cost-compare: PASS\|^cost-compare: REGRESSION\|^cost-compare: .*confirming' <<<"$output"
}

@test "a file that is not a capture, a truncated one and an empty one: one line and a status each" {
	local bad=$BATS_TEST_TMPDIR

	cost measure "$PROBE.bpf.o" "" "" README.md
	[ "$status" -eq 13 ]
	[ "${#lines[@]}" -eq 1 ]
	grep -q 'not a capture tcpdump or Wireshark wrote' <<<"$output"
	head -c 3000 "$LAB" >"$bad/cut.pcap"
	cost measure "$PROBE.bpf.o" "" "" "$bad/cut.pcap"
	[ "$status" -eq 14 ]
	[ "${#lines[@]}" -eq 1 ]
	grep -q 'was cut short' <<<"$output"
	: >"$bad/empty.pcap"
	cost measure "$PROBE.bpf.o" "" "" "$bad/empty.pcap"
	[ "$status" -eq 15 ]
	[ "${#lines[@]}" -eq 1 ]
	head -c 24 "$LAB" >"$bad/header.pcap"
	cost compare "$PROBE.bpf.o" "$PROBE.bpf.o" "" "" "" "" "$bad/header.pcap"
	[ "$status" -eq 15 ]
	[ "${#lines[@]}" -eq 1 ]
	grep -q 'holds no frame' <<<"$output"
}

@test "a cooked capture (tcpdump -i any) is refused with how to capture; frames too long are counted" {
	local long=$BATS_TEST_TMPDIR/long.pcap

	cost measure "$PROBE.bpf.o" "" "" "$CAPTURES/lab-any.pcap"
	[ "$status" -eq 16 ]
	[ "${#lines[@]}" -eq 1 ]
	grep -q 'LINUX_SLL2 (Linux cooked: tcpdump -i any).*capture on one interface' <<<"$output"
	# The lab's capture with a 9000-byte frame (a GRO'd one, say) after its fifth.
	pcap_py "
h, f = recs[4]
big = f + bytes(9000 - len(f))
recs.insert(5, (h[:8] + struct.pack('<II', len(big), len(big)), big))
open('$long', 'wb').write(head + b''.join(h + f for h, f in recs))"
	cost measure "$PROBE.bpf.o" "" "" "$long"
	[ "$status" -eq 0 ]
	grep -q "^Capture: $(($(frames) + 1)) frames read, $(frames) run .*left out, never run: 1 longer than the 3000 bytes test_run takes, the first frame 6\." <<<"$output"
}
