#!/usr/bin/env bats
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The cost tool's HTML report (bench/cost/cost_html.py), opened in a real
# browser, headless Chromium: an XDP program with its live part, a chain, a TC
# program with a capture, a compare with a capture and hot lines. Each page logs
# no console message, holds every figure its run measured (and one line for each
# it did not), and its numbers equal the BMF file's; a chain's page holds its
# hops, a compare's its verdict; a screenshot of each is kept in build/results/cost-html. A
# 100,000-frame capture's page, from rounds written here, stays under 5 MB. The docs'
# pictures of the report are this file's screenshots (make docs-pictures).
# Short rounds: the figures are checked for being there and matching, never
# for how fast.

load ../../testing/netns
load ../bmf
load cost_html

setup()
{
	fbf_bench_setup
	command -v chromium >/dev/null || skip "chromium is missing: make deps-test installs it"
	command -v gnuplot >/dev/null || skip "gnuplot is missing: make deps-test installs it"
	export FBF_COST_OUT=$RESULTS FBF_COST_ROUNDS=3 FBF_COST_REPEAT=1000
	export FBF_COST_LIVE_ROUNDS=0 FBF_COST_FLOOD_SECONDS=1
	SHOTS=$FBF_BUILD/results/cost-html
	mkdir -p "$SHOTS"
	TYPES=$FBF_BUILD/testing
}

need_root()
{
	[ "$(id -u)" -eq 0 ] || skip "needs root: the tool loads BPF programs"
}

cost() { run bench/cost/cost.sh "$@"; echo "$output"; }

# The docs' pictures (docs/benchmarks.md, docs/profiling.md), as their test below takes
# them: the report's top, and its hot lines alone, WIDTH,HEIGHT in pixels.
DOCS_SHOT=1000,2950
DOCS_LINES_SHOT=1000,460

# check_live BMF: the live figure draws each arm BMF holds, its frames per second on its bar
# as BMF has them, and names each outcome BMF counts (its shares: check_page's rows).
check_live()
{
	run python3 - "$DOM" "$1" <<-'EOF'
	import json, re, sys
	sys.path.insert(0, "bench/cost")
	from cost_report import LIVE_ACTIONS
	dom, bmf = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
	fig = re.search(r'<figure id="fig-live">(.*?)</svg>', dom, re.S)
	texts = set(re.findall(r">([^<>]+)</text>", fig[1])) if fig else set()
	live = {b: m for b, m in bmf.items() if b.startswith("cost/live/")}
	bad = [f"{b}: {m['throughput']['value']:,.0f} frames/s not on its bar"
	       for b, m in live.items() if f"{m['throughput']['value']:,.0f}" not in texts]
	bad += [f"{said} ({a}-percent) not in the key" for a, said in LIVE_ACTIONS
	        if any(f"{a}-percent" in m for m in live.values()) and said not in texts]
	print(f"{len(live)} arms' frames per second on their bars")
	print("\n".join(bad))
	sys.exit(1 if bad or not live else 0)
	EOF
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "an XDP program with its live part: each figure measured, the capture and lines each one line" {
	need_root
	FBF_COST_LIVE_ROUNDS=1 cost measure "$TYPES/cost_probe.bpf.o"
	[ "$status" -eq 0 ]
	[ "${lines[-1]}" = "HTML report: $RESULTS/cost.html" ]
	browse "$RESULTS/cost.html" xdp
	check_page measure "$RESULTS/cost.bmf.json" fig-verifier fig-shapes fig-cpus fig-live \
		fig-capture-absent fig-lines-absent fig-chain-absent
	check_live "$RESULTS/cost.bmf.json"
	grep -q 'id="fig-capture-absent">No capture: the run was given no PCAP.<' "$DOM"
}

@test "a chain: each hop's own ns and the tail call's, the path each shape took, the hops' curve" {
	need_root
	cost measure "$TYPES/cost_chain_probe.bpf.o" chain_entry
	[ "$status" -eq 0 ]
	browse "$RESULTS/cost.html" chain
	check_page measure "$RESULTS/cost.bmf.json" fig-verifier fig-shapes fig-chain fig-cpus \
		fig-chain-cpus
	for hop in chain_entry chain_hop2 chain_hop3; do
		grep -q "data-bench=\"cost/hop/$hop\" data-measure=\"latency\"" "$DOM"
		grep -q "data-bench=\"cost/cpus/1/hop/$hop\" data-measure=\"latency\"" "$DOM"
	done
	grep -q '<td>ipv4-udp</td><td>chain_entry &gt; chain_hop2 &gt; chain_hop3</td>' "$DOM"
}

@test "a TC program with a capture: the frames in order by action, their spread against bare" {
	need_root
	cost measure "$TYPES/cost_tc_probe.bpf.o" "" "" testing/captures/lab.pcap
	[ "$status" -eq 0 ]
	browse "$RESULTS/cost.html" tc-capture
	check_page measure "$RESULTS/cost.bmf.json" fig-verifier fig-shapes fig-capture \
		fig-capture-cdf fig-cpus fig-live-absent fig-lines-absent
	grep -q 'id="fig-live-absent">No live part (FBF_COST_LIVE_ROUNDS=0, or a compare).<' "$DOM"
	# Every frame of the lab's capture drawn (too few to thin), its costliest named.
	grep -Eq '[0-9]+ frames; every frame drawn\), the 5 costliest labelled' "$DOM"
	# The costliest frames' actions by their TC names: which ones, the host's speed decides.
	grep -Eq '<td>TC_ACT_[A-Z]+</td>' "$DOM"
}

@test "a compare with a capture and hot lines: both sides in each figure, each change and verdict" {
	need_root
	command -v perf >/dev/null || skip "perf is missing: install linux-perf (make deps)"
	FBF_COST_LINES=1 FBF_COST_LINES_ROUNDS=2 cost compare "$TYPES/cost_tc_probe.bpf.o" \
		"$TYPES/cost_tc_probe_planted.bpf.o" "" "" "" "" testing/captures/lab.pcap
	[ "$status" -eq 1 ]
	[ "${lines[-2]}" = "HTML report: $RESULTS/cost.html" ]
	[[ "${lines[-1]}" == "cost-compare: REGRESSION: verified-instructions "* ]]
	local verdict=${lines[-1]}
	browse "$RESULTS/cost.html" compare
	check_page compare "$RESULTS/cost-compare.bmf.json" fig-verifier fig-changes \
		fig-verdicts fig-shapes fig-capture fig-capture-cdf fig-cpus fig-lines
	# The verdict first on the page, as the run's last line says it ("->" escaped); the
	# table's verdicts as the text says them.
	grep -qF "<p id=\"verdict\"><b>${verdict%% ->*}" "$DOM"
	grep -q '<td>verified-instructions</td>.*<td>regressed</td>' "$DOM"
	# The source in the page, read from the file between the listing's lines: a
	# preprocessor line, which no program's line table holds, beside the hot ones.
	grep -q '<td>testing/cost_types_probe.bpf.c:[0-9]*</td><td>#ifdef COST_PLANTED</td>' "$DOM"
}

@test "the docs' pictures: a TC program with a capture, its live part and hot lines" {
	need_root
	command -v perf >/dev/null || skip "perf is missing: install linux-perf (make deps)"
	# Rounds long enough to read as a real run's, short enough for a test (make cost's
	# are 10 of 100,000), one flood each; the object as the docs name it.
	FBF_COST_ROUNDS=5 FBF_COST_REPEAT=10000 FBF_COST_FLOOD_SECONDS=2 FBF_COST_LIVE_ROUNDS=1 \
		FBF_COST_LINES=1 cost measure "${TYPES#"$PWD/"}/cost_tc_probe.bpf.o" "" "" \
		testing/captures/lab.pcap
	[ "$status" -eq 0 ]
	browse "$RESULTS/cost.html" cost-html "$DOCS_SHOT"
	check_page measure "$RESULTS/cost.bmf.json" fig-verifier fig-shapes fig-capture \
		fig-capture-cdf fig-cpus fig-live fig-lines fig-chain-absent
	check_live "$RESULTS/cost.bmf.json"
	# The hot lines alone: the page with every part before them left out.
	python3 -c 'import re, sys; print(re.sub(r"<body>.*?(?=<h2>Hot lines</h2>)", "<body>",
	            open(sys.argv[1]).read(), flags=re.S), end="")' "$RESULTS/cost.html" \
		>"$BATS_TEST_TMPDIR/lines.html"
	grep -q '<body><h2>Hot lines</h2>' "$BATS_TEST_TMPDIR/lines.html"
	browse "$BATS_TEST_TMPDIR/lines.html" cost-html-lines "$DOCS_LINES_SHOT"
}

@test "the docs' pictures are the ones make docs-pictures copies, at the test's sizes" {
	grep -qx 'COST_DOCS_PICTURES := docs/cost-html.png docs/cost-html-lines.png' \
		bench/cost/cost.mk
	local png size
	for png in cost-html:$DOCS_SHOT cost-html-lines:$DOCS_LINES_SHOT; do
		# A PNG's width and height: its header's two 32-bit words from byte 16.
		size=$(python3 -c 'import struct, sys; print("%d,%d" % struct.unpack(">II",
		       open(sys.argv[1], "rb").read()[16:24]))' "docs/${png%%:*}.png")
		echo "docs/${png%%:*}.png: $size, the test's ${png#*:}"
		[ "$size" = "${png#*:}" ]
	done
}

# frames N: SAMPLES, 3 rounds of bare XDP_PASS and a program over a capture of N
# frames, each frame's median, and one costly frame in a thousand.
frames()
{
	python3 - "$1" >"$SAMPLES" <<-'EOF'
	import sys
	n = int(sys.argv[1])
	print(f"#capture\t{n}\t{n}")
	for arm, cost in (("xdp_pass", 10), ("prog", 30)):
	    print(f"#prog\t{arm}\t{arm}")
	    for value, name in enumerate(("XDP_ABORTED", "XDP_DROP", "XDP_PASS")):
	        print(f"#action\t{arm}\t{value}\t{name}")
	    for m, v in (("verified-instructions", 19), ("translated-instructions", 16),
	                 ("jited-bytes", 80)):
	        print(f"{arm}\tcost/prog\t{m}\t{v}")
	    for i in range(n):
	        ns = cost + (i * 7919) % 13 + (400 if i % 1000 == 999 else 0)
	        print(f"#capture-frame\t{arm}\t{i}\t{ns}\t{1 + (i % 3 == 0)}")
	for r in range(3):
	    for arm, cost in (("xdp_pass", 10), ("prog", 30)):
	        print(f"{arm}\tcost/ipv4-tcp\taction\t2")
	        for bench in ("ipv4-tcp", "all"):
	            print(f"{arm}\tcost/{bench}\tlatency\t{cost + r}")
	        for q, v in (("", 36), ("/p50", 36), ("/p90", 41), ("/p99", 42), ("/max", 442)):
	            print(f"{arm}\tcost/capture{q}\tlatency\t{v - 30 + cost + r}")
	EOF
}

@test "a 100,000-frame capture's page stays under 5 MB: every frame above p99 kept" {
	SAMPLES=$BATS_TEST_TMPDIR/samples.tsv
	frames 100000
	run bench/cost/cost_report.py measure "$RESULTS" probe.o "$SAMPLES"
	[ "$status" -eq 0 ]
	[ "${lines[-1]}" = "HTML report: $RESULTS/cost.html" ]
	local size
	size=$(stat -c %s "$RESULTS/cost.html")
	echo "# 100,000 frames: $size bytes" >&3
	[ "$size" -lt 5000000 ]
	browse "$RESULTS/cost.html" capture-100000
	check_page measure "$RESULTS/cost.bmf.json" fig-shapes fig-capture fig-capture-cdf \
		fig-cpus-absent
	# The rule: each side's 100 costly frames (above p99), and its other 99,900 in
	# buckets of 50 (at most 2,000 buckets: 1,998), each bucket's cheapest and costliest.
	grep -q '100,000 frames; 8,192 points drawn: every frame above p99' "$DOM"
}

@test "the console check sees a page's message" {
	printf '<!DOCTYPE html><p>x</p><script>console.error("planted")</script>\n' \
		>"$BATS_TEST_TMPDIR/planted.html"
	run browse "$BATS_TEST_TMPDIR/planted.html" planted
	[ "$status" -ne 0 ]
	[[ "$output" == *'"planted"'* ]]
	rm -f "$SHOTS/planted.png"
}

@test "no gnuplot: one line, the run's table and BMF file as without the page, no earlier page" {
	SAMPLES=$BATS_TEST_TMPDIR/samples.tsv
	frames 10
	mkdir "$BATS_TEST_TMPDIR/bin"
	echo 'an earlier run' >"$RESULTS/cost.html"
	# The interpreter itself, not a wrapper (pyenv's shims are shell scripts).
	ln -s "$(python3 -c 'import sys; print(sys.executable)')" "$BATS_TEST_TMPDIR/bin/python3"
	run env PATH="$BATS_TEST_TMPDIR/bin" bench/cost/cost_report.py measure "$RESULTS" probe.o \
		"$SAMPLES"
	[ "$status" -eq 0 ]
	[ "${lines[-1]}" = "cost: gnuplot is missing, so no HTML report: install it with make deps-bench (Debian's gnuplot-nox)" ]
	[ -s "$RESULTS/cost.bmf.json" ]
	[ ! -e "$RESULTS/cost.html" ]
}
