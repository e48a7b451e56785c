#!/usr/bin/env bats
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The cost tool's report stage (bench/cost/cost_report.py) on rounds written
# here, not measured: what it marks and how it reads the CPUs, whatever the
# machine's speed. No root, no kernel.

load ../../testing/netns
load ../bmf

setup()
{
	cd "$FBF_ROOT"
	RESULTS=$BATS_TEST_TMPDIR/results
	SAMPLES=$BATS_TEST_TMPDIR/samples.tsv
}

# samples QUIET NOISY CPUS2 PASS2: 10 rounds of the probe and bare XDP_PASS. Shape
# ipv4-tcp's rounds are QUIET (a list of 10), ipv4-udp's NOISY; on 2 CPUs at once the
# program costs CPUS2 times its cost on one, XDP_PASS PASS2 times.
samples()
{
	python3 - "$@" >"$SAMPLES" <<-'EOF'
	import sys
	quiet, noisy = ([float(v) for v in a.split(",")] for a in sys.argv[1:3])
	cpus2, pass2 = float(sys.argv[3]), float(sys.argv[4])
	for arm in ("xdp_pass", "prog"):
	    print(f"#prog\t{arm}\t{arm}")
	    print(f"#type\t{arm}\txdp")
	    for value, name in enumerate(("XDP_ABORTED", "XDP_DROP", "XDP_PASS")):
	        print(f"#action\t{arm}\t{value}\t{name}")
	    for m, v in (("verified-instructions", 19), ("translated-instructions", 16),
	                 ("jited-bytes", 80)):
	        print(f"{arm}\tcost/prog\t{m}\t{v}")
	for r in range(10):
	    for arm in ("xdp_pass", "prog"):
	        tcp, udp = (quiet[r], noisy[r]) if arm == "prog" else (5, 5)
	        if r == 0:
	            for shape in ("ipv4-tcp", "ipv4-udp"):
	                print(f"{arm}\tcost/{shape}\taction\t2")
	        print(f"{arm}\tcost/ipv4-tcp\tlatency\t{tcp}")
	        print(f"{arm}\tcost/ipv4-udp\tlatency\t{udp}")
	        print(f"{arm}\tcost/all\tlatency\t{tcp + udp}")
	for r in range(10):
	    for arm, times in (("xdp_pass", pass2), ("prog", cpus2)):
	        one = 5.0 if arm == "xdp_pass" else 10.0
	        for n, ns in ((1, one), (2, one * times)):
	            print(f"{arm}\tcost/cpus/{n}\tlatency\t{ns}")
	            print(f"{arm}\tcost/cpus/{n}\tthroughput\t{n * 1e9 / ns}")
	            print(f"{arm}\tcost/cpus/{n}\toverlap-percent\t{100 if n == 1 else 95}")
	EOF
}

report() { run bench/cost/cost_report.py measure "$RESULTS" probe.o "$SAMPLES"; echo "$output"; }

# spread_cell SHAPE: the spread column of the table's test_run row for SHAPE, marks and all.
# (the over cell: "N ns slower", "N ns faster" or "same").
spread_cell() { awk -v s="$1" '$1 == "test_run" && $2 == s { $1 = $2 = $3 = $4 = $5 = ""
	$6 = $6 == "same" ? "" : ($7 = $8 = "")
	sub(/^ +/, ""); sub(/ +XDP_[A-Z]+$/, ""); print }' <<<"$output"; }

@test "a figure whose rounds spread past the bound is marked too noisy, in the table and BMF" {
	# ipv4-tcp: 90 to 110 about 100 (20%); ipv4-udp: 100 to 300 (200%), as a busy host gave.
	samples 90,95,98,99,100,100,101,102,105,110 100,100,100,100,100,100,100,100,300,300 \
		1 1
	report
	[ "$status" -eq 0 ]
	[ "$(spread_cell ipv4-tcp)" = "20%" ]
	[ "$(spread_cell ipv4-udp)" = "200% too noisy" ]
	[[ "$output" == *"cost: figures marked too noisy spread over 50% of their median"* ]]
	[[ "$output" == *"on a quieter host, or with more rounds (FBF_COST_ROUNDS"* ]]
	check_bmf "$RESULTS/cost.bmf.json" cost/ipv4-tcp cost/ipv4-udp
	check_bmf_measures "$RESULTS/cost.bmf.json" cost/ipv4-udp:latency-too-noisy
	run python3 -c 'import json, sys; b = json.load(open(sys.argv[1]))
print(b["cost/ipv4-udp"]["latency-too-noisy"]["value"], *b["cost/ipv4-tcp"])' \
		"$RESULTS/cost.bmf.json"
	[ "$output" = "200.0 action latency over-xdp-pass" ]
}

@test "quiet rounds: nothing marked, no advice" {
	samples 100,101,102,103,104,105,106,107,108,109 50,51,52,53,54,55,56,57,58,59 1 1
	report
	[ "$status" -eq 0 ]
	[[ "$output" != *"too noisy"* ]]
	run grep -c -- -too-noisy "$RESULTS/cost.bmf.json"
	[ "$output" = 0 ]
}

@test "the CPUs: 8 times at 2 CPUs reads as shared; 1.1, or bare XDP_PASS's own rise, as flat" {
	samples 100,101,102,103,104,105,106,107,108,109 50,51,52,53,54,55,56,57,58,59 8 1
	report
	[[ "${lines[-1]}" != *flat* ]]
	[[ "$output" == *"CPUs: 8.0 times at 2 CPUs: a shared map value, lock or ring in the path"* ]]
	grep -E '^2 +80 +8.00x +5 +1.00x +25.0 M +95% +0% *$' <<<"$output"
	check_bmf_measures "$RESULTS/cost.bmf.json" cost/cpus/2:latency cost/cpus/2:scaling \
		cost/cpus/2:climb cost/cpus/2:throughput cost/cpus/2:overlap-percent \
		cost/cpus/2/xdp_pass:scaling
	samples 100,101,102,103,104,105,106,107,108,109 50,51,52,53,54,55,56,57,58,59 1.1 1
	report
	[[ "$output" == *"CPUs: flat: 1.10 times at 2 CPUs, bare XDP_PASS 1.00"* ]]
	# Cores that slow each other down slow bare XDP_PASS alike: that is no contention.
	samples 100,101,102,103,104,105,106,107,108,109 50,51,52,53,54,55,56,57,58,59 1.8 1.6
	report
	[[ "$output" == *"CPUs: flat: 1.80 times at 2 CPUs, bare XDP_PASS 1.60"* ]]
}

@test "outside a git checkout, as the installed tool runs: measured.json names no commit" {
	samples 100,101,102,103,104,105,106,107,108,109 50,51,52,53,54,55,56,57,58,59 1 1
	cd "$BATS_TEST_TMPDIR"
	run git rev-parse HEAD
	[ "$status" -ne 0 ] || skip "$BATS_TEST_TMPDIR is inside a git checkout"
	run "$FBF_ROOT/bench/cost/cost_report.py" measure "$RESULTS" probe.o "$SAMPLES"
	[ "$status" -eq 0 ]
	cat "$RESULTS/measured.json"
	run python3 -c 'import json, sys; e = json.load(open(sys.argv[1]))["cost.bmf.json"]
print(sorted(e))' "$RESULTS/measured.json"
	[ "$output" = "['date', 'kernel', 'machine']" ]
	# Inside one, the commit is the checkout's.
	cd "$FBF_ROOT"
	report
	[ "$status" -eq 0 ]
	run python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["cost.bmf.json"]["commit"])' \
		"$RESULTS/measured.json"
	[[ "$output" == "$(git rev-parse --short=12 HEAD)"* ]]
}

# compare_samples STATIC TCP UDP [CAPTURE]: 10 rounds (ROUNDS) of base, base-again and candidate.
# The base's (and the A/A's) ipv4-tcp costs 1000 ns a run and ipv4-udp 10, the candidate's
# TCP and UDP (times in ns, one for all rounds), and its verified instructions STATIC (the
# base's: 19); with CAPTURE, a capture's mean and p99 of CAPTURE ns a frame on every arm.
compare_samples()
{
	ROUNDS=${ROUNDS:-10} python3 - "$@" >"$SAMPLES" <<-'EOF2'
	import os, sys
	static, tcp, udp = (float(v) for v in sys.argv[1:4])
	capture = sys.argv[4:]
	for arm in ("base", "base-again", "candidate"):
	    print(f"#prog\t{arm}\tprobe")
	    print(f"#type\t{arm}\txdp")
	    for m, v in (("verified-instructions", static if arm == "candidate" else 19),
	                 ("translated-instructions", 16), ("jited-bytes", 80)):
	        print(f"{arm}\tcost/prog\t{m}\t{v}")
	for r in range(int(os.environ["ROUNDS"])):
	    for arm in ("base", "base-again", "candidate"):
	        t, u = (tcp, udp) if arm == "candidate" else (1000, 10)
	        # A round's jitter, alike on every arm: the paired changes are exact.
	        t, u = t + r % 3, u + r % 3 * 0.01
	        print(f"{arm}\tcost/ipv4-tcp\tlatency\t{t}")
	        print(f"{arm}\tcost/ipv4-udp\tlatency\t{u}")
	        print(f"{arm}\tcost/all\tlatency\t{t + u}")
	        for bench in ("cost/capture", "cost/capture/p99") if capture else ():
	            print(f"{arm}\t{bench}\tlatency\t{float(capture[0]) + r % 3}")
	EOF2
}

# hop_samples HOP2: a chain's two hops into the samples (cost_chain_report.py's rows), 5 ns a
# frame each and the same static figures on every arm, but the candidate's chain_hop2: HOP2 ns.
hop_samples()
{
	python3 - "$1" >>"$SAMPLES" <<-'EOF2'
	import sys
	for arm in ("base", "base-again", "candidate"):
	    for hop in ("chain_entry", "chain_hop2"):
	        print(f"{arm}\tcost/hop/{hop}\tverified-instructions\t40")
	for r in range(10):
	    for arm in ("base", "base-again", "candidate"):
	        print(f"{arm}\tcost/hop/chain_entry\tlatency\t{5 + r % 3}")
	        hop2 = float(sys.argv[1]) if arm == "candidate" else 5
	        print(f"{arm}\tcost/hop/chain_hop2\tlatency\t{hop2 + r % 3}")
	EOF2
}

compare() { run bench/cost/cost_report.py compare "$RESULTS" "$SAMPLES" "$@"; echo "$output"; }

@test "compare: the REGRESSION line names the timing that failed beside the exact rise" {
	compare_samples 25 3000 10
	compare
	[ "$status" -eq 1 ]
	[[ "${lines[-1]}" == "cost-compare: REGRESSION: verified-instructions 19 -> 25; all shapes +"*"% ns/run (regressed: 95% interval ["*"], threshold 5.0%; one run, not confirmed)" ]]
}

@test "compare: a shape alone is not gated: its move reads as one, not as a verdict" {
	# UDP 40% dearer, the sum of all shapes 0.4%: below the threshold, a pass.
	compare_samples 19 1000 14
	compare
	[ "$status" -eq 0 ]
	grep -E '^cost/ipv4-udp +ns/run .* not gated +rose \(not judged\)$' <<<"$output"
	grep -E '^cost/all +ns/run .* 5\.0% +changed, below threshold$' <<<"$output"
	[[ "$output" != *regressed* ]]
	[[ "${lines[-1]}" == "cost-compare: PASS: same static figures or fewer, all shapes +0.4% ns/run (changed, below threshold: 95% interval [+0.4, +0.4], threshold 5.0%)" ]]
	# Too few rounds for the statistics: said so, the sentence whole.
	ROUNDS=2 compare_samples 19 1000 14
	compare
	[ "$status" -eq 0 ]
	[[ "${lines[-1]}" == "cost-compare: PASS: same static figures or fewer, timings not judged: 2 rounds, and the gate's statistics need 3 or more (FBF_COST_ROUNDS)" ]]
}

@test "compare: a hop's time alone risen is confirmed by a second run, and the hop named" {
	compare_samples 19 1000 10
	hop_samples 250
	compare
	[ "$status" -eq 3 ]
	[[ "${lines[-1]}" == "cost-compare: hop chain_hop2 +"*"% ns/frame (+"*" ns): confirming with a second run" ]]
	grep -E '^cost/hop/chain_entry +ns/frame .* within noise$' <<<"$output"
	compare "$SAMPLES"
	[ "$status" -eq 1 ]
	[[ "${lines[-1]}" == "cost-compare: REGRESSION: hop chain_hop2 +"*"% ns/frame (+"*" ns), then +"*"% in a second run (threshold 5.0%)" ]]
	# A few ns more on a hop of 5: past 5%, under the 10 ns a hop's change must pass too.
	compare_samples 19 1000 10
	hop_samples 12
	compare
	[ "$status" -eq 0 ]
	grep -E '^cost/hop/chain_hop2 +ns/frame .* changed, below threshold$' <<<"$output"
}

@test "a run without LINES=1 leaves no earlier run's hot lines listing" {
	samples 100,101,102,103,104,105,106,107,108,109 50,51,52,53,54,55,56,57,58,59 1 1
	mkdir -p "$RESULTS"
	echo "an earlier run's" >"$RESULTS/cost-lines.txt"
	echo "an earlier run's" >"$RESULTS/cost-lines-base.txt"
	report
	[ "$status" -eq 0 ]
	[ ! -e "$RESULTS/cost-lines.txt" ]
	[ -e "$RESULTS/cost-lines-base.txt" ]
	compare_samples 19 1000 10
	compare
	[ "$status" -eq 0 ]
	[ ! -e "$RESULTS/cost-lines-base.txt" ]
}

@test "compare: the header names what is gated, a capture's mean and p99 among it, per frame" {
	compare_samples 19 1000 10
	compare
	[[ "$output" == *"Gated: the sum over all shapes, and that on 2 CPUs"* ]]
	compare_samples 19 1000 10 70
	compare
	[ "$status" -eq 0 ]
	[[ "$output" == *"Gated: the sum over all shapes, the capture's mean and p99 per frame, and that on 2 CPUs"* ]]
	grep -E '^cost/capture/p99 +ns/frame .* 5\.0% +within noise$' <<<"$output"
}

@test "over XDP_PASS says slower or faster on every row; the all row and the column say what they are" {
	local live=$BATS_TEST_TMPDIR/live.tsv

	samples 100,101,102,103,104,105,106,107,108,109 50,51,52,53,54,55,56,57,58,59 1 1
	# A flood where the program passes 1.2 M frames/s and bare XDP_PASS 1.0 M, at 30 and
	# 20 ns a packet: more frames/s is better, more ns worse.
	printf '#counted\tthe veth counters\n' >"$live"
	for r in 1 2 3; do
		printf 'cost/live/%s\t%s\t%s\n' prog-native throughput 1200000 \
			xdp_pass-native throughput 1000000 none throughput 2000000 \
			prog-native latency 30 xdp_pass-native latency 20 >>"$live"
	done
	run bench/cost/cost_report.py measure "$RESULTS" probe.o "$SAMPLES" "$live"
	echo "$output"
	[ "$status" -eq 0 ]
	grep -E '^test_run ipv4-tcp +ns/run +104\.5 +5 +99\.5 ns slower ' <<<"$output"
	grep -E '^live native +frames/s +1200000 +1000000 +2000000 +20% faster ' <<<"$output"
	grep -E '^live native +ns/packet +30 +20 +10\.0 ns slower ' <<<"$output"
	[[ "$output" == *"over XDP_PASS: how much slower or faster the program is than bare XDP_PASS, the median of each round's difference"* ]]
	[[ "$output" == *"test_run all: the median of each round's sum over the shapes, so not the sum of the medians above it."* ]]
}
