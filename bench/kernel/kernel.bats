#!/usr/bin/env bats
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The in-kernel benchmarks, briefly: they write Bencher Metric Format files
# that bencher can read, for every frame shape, both transports and the
# queue sampled at 1 in 16; and the live one for every design (events,
# sampled events, per-source counts) with every column of the table of
# designs; and the peers beside the agent, each meter counting; and one
# agent over many interfaces, each attached; and each design as CPUs are
# added, delivering. Only names and exact counts are checked, never a speed.

load ../../testing/netns
load ../bmf

# A benchmark run's choices left in the environment would change the arms and counts checked.
setup()
{
	unset FBF_CURVE_DESIGNS FBF_CURVE_CPUS FBF_BASE_AGENT
	fbf_bench_setup
}

@test "the in-kernel benchmark writes BMF for every frame shape and the static figures" {
	[ "$(id -u)" -eq 0 ] || skip "needs root: loads the XDP program"
	"$FBF_BUILD/bench/kernel_test_run" "$FBF_BUILD/xdp_pass.bpf.o" 2 10000 >"$RESULTS/k.tsv"
	bench/report.py samples "$RESULTS/k.tsv" "$RESULTS/kernel.bmf.json"
	check_bmf "$RESULTS/kernel.bmf.json" kernel/xdp_fizzbuzzfib kernel/all/overhead \
		kernel/xdp_fizzbuzzfib-ringbuf kernel/all/overhead-ringbuf \
		kernel/xdp_fizzbuzzfib-sample16 kernel/ipv4-fizz/overhead-sample16 \
		kernel/ipv4-none/overhead kernel/ipv4-fizz/overhead kernel/ipv4-buzz/overhead \
		kernel/ipv4-fizzbuzz/overhead kernel/ipv4-fibonacci/overhead \
		kernel/vlan-ipv4-fizz/overhead kernel/ipv6/overhead
}

@test "the event-parts benchmark writes BMF for every part of an event's cost" {
	[ "$(id -u)" -eq 0 ] || skip "needs root: loads XDP programs"
	"$FBF_BUILD/bench/event_parts" "$FBF_BUILD/event_parts.bpf.o" 2 1000 >"$RESULTS/p.tsv"
	bench/report.py samples "$RESULTS/p.tsv" "$RESULTS/parts.bmf.json"
	check_bmf "$RESULTS/parts.bmf.json" parts/none parts/clock parts/queue-push \
		parts/ring-nowakeup parts/ring-output parts/ring-wakeup parts/doorbell parts-cold/none \
		parts-cold/queue-push parts-cold/ring-nowakeup
}

@test "the live benchmark writes BMF for every design, with loss, CPU, memory and accuracy" {
	[ "$(id -u)" -eq 0 ] || skip "needs root: network namespaces, veth pairs, XDP"
	local arm cpus m measures=() benches=()

	# One short round: the names and the exact figures, not the timings.
	bench/kernel/macro_live.sh 1 30 0.3 >"$RESULTS/live.tsv"
	bench/report.py samples "$RESULTS/live.tsv" "$RESULTS/live.bmf.json"
	for arm in xdp_fizzbuzzfib xdp_fizzbuzzfib-ringbuf xdp_fizzbuzzfib-sample16 \
		xdp_fizzbuzzfib-sample256 xdp_fizzbuzzfib-ringbuf-sample16 \
		xdp_fizzbuzzfib-ringbuf-sample256 xdp_fizzbuzzfib-aggregate; do
		benches+=("macro/live/$arm" "macro/live/overhead${arm#xdp_fizzbuzzfib}")
		for cpus in 1 2; do
			benches+=("macro/flood/$arm/$cpus-cpu")
			measures+=("macro/flood/overhead${arm#xdp_fizzbuzzfib}/$cpus-cpu:ratio")
			measures+=("macro/flood/overhead${arm#xdp_fizzbuzzfib}/$cpus-cpu:latency")
			for m in latency sent lost lost-percent agent-cpu-percent agent-rss-kb \
				map-kb xdp-seen-percent accounted-percent; do
				measures+=("macro/flood/$arm/$cpus-cpu:$m")
			done
		done
	done
	check_bmf "$RESULTS/live.bmf.json" macro/live/xdp_pass macro/flood/xdp_pass/1-cpu \
		macro/flood/xdp_pass/2-cpu "${benches[@]}"
	check_bmf_measures "$RESULTS/live.bmf.json" "${measures[@]}" \
		macro/flood/xdp_pass/1-cpu:xdp-seen-percent macro/live/overhead-aggregate:ratio

	# Every design accounts for each frame XDP classified, exactly: the
	# summary balances, and the intervals printed add up to what was read.
	python3 - "$RESULTS/live.bmf.json" <<-'EOF'
	import json, sys
	bmf = json.load(open(sys.argv[1]))
	bad = {b: m["accounted-percent"]["value"] for b, m in bmf.items()
	       if "accounted-percent" in m and m["accounted-percent"]["value"] != 100}
	assert not bad, bad
	EOF

	run bench/report.py designs "$RESULTS/live.bmf.json" -
	[ "$status" -eq 0 ]
	[[ "$output" == *"aggregate, 1 s"*"2-cpu"* ]]
	[[ "$output" == *"ring, 1/256"* ]]
}

@test "the outputs benchmark writes BMF for every output, each having written every event" {
	[ "$(id -u)" -eq 0 ] || skip "needs root: network namespaces, veth pairs, XDP"
	command -v nats-server >/dev/null || skip "needs nats-server (make deps installs it)"
	local arm

	bench/kernel/output_rates.sh 1 20000 >"$RESULTS/o.tsv"
	bench/report.py samples "$RESULTS/o.tsv" "$RESULTS/outputs.bmf.json"
	check_bmf "$RESULTS/outputs.bmf.json" agent/output/quiet agent/output/stdout \
		agent/output/file agent/output/nats
	# Not a speed: that each output wrote all of the backlog, none lost.
	for arm in stdout file nats; do
		grep -qP "^agent/output/$arm\tdelivered\t20000\$" "$RESULTS/o.tsv"
	done
	grep -qP '^agent/output/nats\tvs-stdout-percent\t' "$RESULTS/o.tsv"
}

@test "the IPFIX export benchmark writes BMF for every arm, nfcapd having every source" {
	[ "$(id -u)" -eq 0 ] || skip "needs root: network namespaces, veth pairs, XDP"
	command -v nfcapd >/dev/null || skip "needs nfcapd and nfdump (make deps installs nfdump)"
	command -v nats-server >/dev/null || skip "needs nats-server (make deps installs it)"
	local arm

	bench/kernel/ipfix_export.sh 1 >"$RESULTS/x.tsv"
	bench/report.py samples "$RESULTS/x.tsv" "$RESULTS/ipfix.bmf.json"
	check_bmf "$RESULTS/ipfix.bmf.json" agent/export-65536/quiet agent/export-65536/stdout \
		agent/export-65536/ipfix agent/export-65536/nats
	check_bmf_measures "$RESULTS/ipfix.bmf.json" agent/export-65536/ipfix:stop-ms \
		agent/export-65536/ipfix:cpu-ms agent/export-65536/ipfix:writer-cpu-ms
	# Not a speed: that each output sent the interval, and the collector has every source.
	for arm in stdout ipfix nats; do
		grep -qP "^agent/export-65536/$arm\tdelivered\t1\$" "$RESULTS/x.tsv"
	done
	grep -qP '^agent/export-65536/ipfix\tcollector-sources\t65536$' "$RESULTS/x.tsv"
}

@test "the peers benchmark writes BMF for every arm and flood, each meter's count sane" {
	[ "$(id -u)" -eq 0 ] || skip "needs root: network namespaces, veth pairs, XDP, packet capture"
	command -v softflowd >/dev/null || skip "needs softflowd (make deps installs it)"
	command -v pmacctd >/dev/null || skip "needs pmacctd (make deps installs pmacct)"
	local arm cpus benches=() measures=()

	# One short round: the names and the counts, not the rates.
	bench/kernel/peers.sh 1 0.5 >"$RESULTS/peers.tsv"
	bench/report.py samples "$RESULTS/peers.tsv" "$RESULTS/peers.bmf.json"
	for cpus in 1 2; do
		for arm in none xdp_pass-native xdp_pass-skb agent-aggregate agent-aggregate-skb \
			agent-sample256 softflowd pmacctd; do
			benches+=("macro/peers/$arm/$cpus-cpu")
			measures+=("macro/peers/$arm/$cpus-cpu:throughput"
				   "macro/peers/$arm/$cpus-cpu:rx-cpu-ms-per-mpkt")
		done
		for arm in agent-aggregate agent-aggregate-skb agent-sample256 softflowd pmacctd; do
			measures+=("macro/peers/$arm/$cpus-cpu:counted-percent"
				   "macro/peers/$arm/$cpus-cpu:meter-cpu-ms-per-mpkt"
				   "macro/peers/$arm/$cpus-cpu:pss-kb")
		done
		measures+=("macro/peers/agent-aggregate/$cpus-cpu:map-kb"
			   "macro/peers/softflowd/$cpus-cpu:capture-dropped"
			   "macro/peers/pmacctd/$cpus-cpu:capture-dropped")
	done
	check_bmf "$RESULTS/peers.bmf.json" "${benches[@]}"
	check_bmf_measures "$RESULTS/peers.bmf.json" "${measures[@]}"

	# Every flood sent frames; the agent counts every one its program saw
	# (the veth may drop some before XDP runs), exactly;
	# the flow meters count some and never more than were sent (and the few
	# IPv6 frames of the namespaces' own); nothing attached counts nothing.
	python3 - "$RESULTS/peers.bmf.json" <<-'PY'
	import json, sys
	bmf = json.load(open(sys.argv[1]))
	for bench, m in bmf.items():
	    arm = bench.split("/")[2]
	    assert m["sent"]["value"] > 0 and m["throughput"]["value"] > 0, bench
	    counted = m.get("counted-percent", {}).get("value")
	    if arm.startswith("agent-aggregate"):
	        assert 0 < counted == m["xdp-seen-percent"]["value"] <= 100, (bench, m)
	    elif arm in ("softflowd", "pmacctd"):
	        assert 0 < counted <= 100.1, (bench, counted)
	    elif arm.startswith("agent-sample"):
	        assert counted > 0, (bench, counted)
	    else:
	        assert counted is None, (bench, counted)
	PY

	run bench/report.py peers "$RESULTS/peers.bmf.json" -
	[ "$status" -eq 0 ]
	[[ "$output" == *"agent --aggregate 1 --mode skb"*"2-cpu"* ]]
	[[ "$output" == *"pmacctd"*"2-cpu"* ]]
}

@test "the ifaces benchmark writes BMF for every count and arm, each interface attached" {
	[ "$(id -u)" -eq 0 ] || skip "needs root: network namespaces, veth pairs, XDP"
	local n benches=() measures=()

	# Small: the names and the counts, not the timings.
	FBF_IFACES_COUNTS="1 4" FBF_IFACES_ROUNDS=1 FBF_IFACES_IDLE_SECONDS=1 FBF_IFACES_APPEAR=3 \
		FBF_IFACES_SIDE=4 FBF_IFACES_FLOOD_SECONDS=0.3 bench/kernel/ifaces.sh >"$RESULTS/i.tsv"
	bench/report.py samples "$RESULTS/i.tsv" "$RESULTS/ifaces.bmf.json"
	for n in 1 4; do
		benches+=("ifaces/start/n=$n" "ifaces/idle/n=$n" "ifaces/memory/n=$n"
			  "ifaces/appear/n=$n" "ifaces/flood/ifaces=$n")
		measures+=("ifaces/start/n=$n:attach-ms-per-iface" "ifaces/idle/n=$n:cpu-percent"
			   "ifaces/idle/n=$n:voluntary-switches-per-s" "ifaces/idle/n=$n:link-events"
			   "ifaces/memory/n=$n:hwm-kib" "ifaces/appear/n=$n:attach-ms-max")
	done
	check_bmf "$RESULTS/ifaces.bmf.json" "${benches[@]}" ifaces/memory/per-iface ifaces/flood/ratio
	check_bmf_measures "$RESULTS/ifaces.bmf.json" "${measures[@]}" \
		ifaces/memory/per-iface:rss-kib ifaces/memory/per-iface:bpf-kib \
		ifaces/flood/ifaces=4:throughput ifaces/flood/ratio:ratio

	# Every interface attached, the one program veths share; figures of the right sign.
	python3 - "$RESULTS/ifaces.bmf.json" <<-'PY'
	import json, sys
	bmf = json.load(open(sys.argv[1]))
	v = lambda b, m: bmf[b][m]["value"]
	for n in (1, 4):
	    assert v(f"ifaces/start/n={n}", "attached") == n, n
	    assert v(f"ifaces/start/n={n}", "attach-ms") > 0, n
	    assert v(f"ifaces/appear/n={n}", "attached") == 3, n
	    assert v(f"ifaces/appear/n={n}", "attach-ms-p50") > 0, n
	    assert v(f"ifaces/idle/n={n}", "wakeups-per-s") >= 0, n
	    assert v(f"ifaces/memory/n={n}", "progs") == 1, n
	    assert v(f"ifaces/memory/n={n}", "rss-kib") > 0, n
	    assert v(f"ifaces/memory/n={n}", "bpf-map-kib") > 0, n
	    f = f"ifaces/flood/ifaces={n}"
	    assert v(f, "latency") > 0 and v(f, "packets") > 0 and v(f, "throughput") > 0, n
	assert v("ifaces/memory/per-iface", "progs") == 0
	assert v("ifaces/flood/ratio", "ratio") > 0
	PY
}

@test "the CPU curve writes BMF for every arm at every CPU count, delivered and lost beside" {
	[ "$(id -u)" -eq 0 ] || skip "needs root: network namespaces, veth pairs, XDP"
	[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs: one for the agent, one for the producers"
	local arm n k benches=() measures=()

	# One short round: the names and the accounting, not the rates.
	bench/kernel/curve_test_run.sh 1 10000 >"$RESULTS/c.tsv"
	bench/kernel/curve_flood.sh 1 0.3 >>"$RESULTS/c.tsv"
	bench/report.py samples "$RESULTS/c.tsv" "$RESULTS/curve.bmf.json"
	# Every CPU but the agent's, and at least 2 for test_run; every CPU but the agent's to flood.
	n=$(($(nproc) - 1))
	for n in $(bash -c ". bench/kernel/curve.bash; curve_counts $((n < 2 ? 2 : n))"); do
		for arm in xdp_pass queue ring aggregate sample64; do
			benches+=("curve/test_run/$arm/$n-cpu")
			measures+=("curve/test_run/$arm/$n-cpu:latency"
				   "curve/test_run/$arm/$n-cpu:throughput"
				   "curve/test_run/$arm/$n-cpu:overlap-percent")
		done
		for arm in queue ring aggregate sample64; do
			measures+=("curve/test_run/$arm/$n-cpu:delivered-per-s"
				   "curve/test_run/$arm/$n-cpu:lost-per-s"
				   "curve/test_run/$arm/$n-cpu:lost-percent")
		done
	done
	for k in $(bash -c ". bench/kernel/curve.bash; curve_counts $(($(nproc) - 1))"); do
		for arm in none xdp_pass-skb xdp_pass-native queue ring aggregate sample64; do
			benches+=("curve/flood/$arm/$k-cpu")
			measures+=("curve/flood/$arm/$k-cpu:throughput" "curve/flood/$arm/$k-cpu:sent")
		done
		for arm in queue ring aggregate sample64; do
			# On a veth the agent's default is skb mode, compared with XDP_PASS in it.
			measures+=("curve/flood/$arm/$k-cpu:of-xdp-pass-skb-percent"
				   "curve/flood/$arm/$k-cpu:xdp-seen-percent"
				   "curve/flood/$arm/$k-cpu:delivered-per-s"
				   "curve/flood/$arm/$k-cpu:lost-per-s"
				   "curve/flood/$arm/$k-cpu:lost-percent")
		done
	done
	check_bmf "$RESULTS/curve.bmf.json" "${benches[@]}"
	check_bmf_measures "$RESULTS/curve.bmf.json" "${measures[@]}"

	# Every design delivered events (or counts) while its program ran, and
	# lost a share of them between none and all.
	python3 - "$RESULTS/curve.bmf.json" <<-'PY'
	import json, sys
	bmf = json.load(open(sys.argv[1]))
	for bench, m in bmf.items():
	    if "delivered-per-s" in m:
	        assert m["delivered-per-s"]["value"] > 0, bench
	        assert 0 <= m["lost-percent"]["value"] < 100, (bench, m["lost-percent"])
	    assert 0 < m.get("overlap-percent", {"value": 1})["value"] <= 100, bench
	PY

	run bench/report.py curve "$RESULTS/curve.bmf.json" "$RESULTS"
	[ "$status" -eq 0 ]
	[[ "$output" == *"--sample 64"*"bare XDP_PASS, native"* ]]
	[ -s "$RESULTS/curve-test_run.svg" ]
	[ -s "$RESULTS/curve-flood.svg" ]
}

@test "the bundle runs the curve under its own loader and libraries, on the designs asked for" {
	[ "$(id -u)" -eq 0 ] || skip "needs root: network namespaces, veth pairs, XDP"
	[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs: one for the agent, one for the producers"
	local b=$RESULTS/bundle lib

	bench/kernel/bundle.sh "$b" "base/agent=$FBF_BUILD/agent"
	# The program's libraries are the bundle's, not the host's.
	for lib in libbpf.so.1 libxdp.so.1; do
		run bash -c "LD_DEBUG=libs '$b/base/agent' --version 2>&1 | grep -o 'calling init: .*$lib'"
		[ "$status" -eq 0 ]
		[ "$(realpath "${output#calling init: }")" = "$(realpath "$b/lib/$lib")" ]
	done
	run bash -c ". '$b/env.bash' && command -v ip xdp-loader"
	[ "$output" = "$b/bin/ip"$'\n'"$b/bin/xdp-loader" ]
	# Each wrapper starts its program, whatever its depth in the bundle.
	run "$b/agent" --version
	[ "$status" -eq 0 ]
	run "$b/bin/xdp-loader" help
	[[ "$output" == *"Usage: xdp-loader"* ]]

	# The older agent of the bundle, one design, one CPU count: those rows and no others.
	bash -c ". '$b/env.bash' && FBF_AGENT=\$FBF_BUILD/base/agent FBF_CURVE_DESIGNS=ring \
		FBF_CURVE_CPUS=1 bench/kernel/curve_test_run.sh 1 10000" >"$RESULTS/b.tsv"
	run bash -c "grep -v '^#' '$RESULTS/b.tsv' | cut -f1"
	[ "$(sort -u <<<"$output" | tr '\n' ' ')" = \
		"curve/test_run/ring/1-cpu curve/test_run/xdp_pass/1-cpu " ]
	run awk -F '\t' '$2 == "delivered-per-s" { print ($3 > 0) }' "$RESULTS/b.tsv"
	[ "$output" = 1 ]

	# Its figures name the host that measured them, wherever the report is made.
	[ "$(head -n 1 "$RESULTS/b.tsv")" = "# measured-on"$'\t'"$(cd bench &&
		python3 -c 'import measured_on; print(measured_on.machine())')"$'\t'"$(uname -r)" ]
	sed '1s/.*/# measured-on\tA far host, 64 CPUs\t9.9.9/' "$RESULTS/b.tsv" >"$RESULTS/far.tsv"
	bench/report.py samples "$RESULTS/far.tsv" "$RESULTS/far.bmf.json"
	run bench/report.py curve "$RESULTS/far.bmf.json" "$RESULTS/far"
	[ "$status" -eq 0 ]
	[[ "$output" == *"medians;"$'\n'"A far host, 64 CPUs, kernel 9.9.9. x 1 CPU"* ]]

	run env FBF_CURVE_DESIGNS="ring fast" bench/kernel/curve_flood.sh 1 1
	[ "$status" -eq 2 ]
	[[ "$output" == "curve: FBF_CURVE_DESIGNS: no design 'fast' "* ]]
	run env FBF_CURVE_CPUS="1 $(nproc)" bench/kernel/curve_flood.sh 1 1
	[ "$status" -eq 2 ]
	[ "$output" = "curve: FBF_CURVE_CPUS: '$(nproc)' is not a CPU count from 1 to $(($(nproc) - 1))" ]
	# It empties its directory first: never one that holds anything but a bundle.
	run bench/kernel/bundle.sh "$RESULTS"
	[ "$status" -eq 2 ]
	[ "$output" = "bundle: $RESULTS is not empty and not a bundle; name a new directory" ]
	[ -s "$RESULTS/b.tsv" ]
}

@test "the trickle writes BMF for each arm, the agent's CPU, wake-ups and events beside" {
	[ "$(id -u)" -eq 0 ] || skip "needs root: network namespaces, veth pairs, XDP"
	[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs: one for the agent, one for the traffic"
	local arm

	FBF_BASE_AGENT=$FBF_BUILD/agent bench/kernel/trickle.sh 1 0.5 >"$RESULTS/t.tsv"
	bench/report.py samples "$RESULTS/t.tsv" "$RESULTS/trickle.bmf.json"
	check_bmf "$RESULTS/trickle.bmf.json" trickle/queue trickle/ring trickle/base-queue \
		trickle/base-ring
	for arm in queue ring base-queue base-ring; do
		check_bmf_measures "$RESULTS/trickle.bmf.json" "trickle/$arm:agent-cpu-percent" \
			"trickle/$arm:wakeups-per-s" "trickle/$arm:events-per-s"
	done
	# Every arm read events while the traffic ran, and took some CPU for it.
	python3 - "$RESULTS/trickle.bmf.json" <<-'PY'
	import json, sys
	for bench, m in json.load(open(sys.argv[1])).items():
	    assert m["events-per-s"]["value"] > 0, bench
	    assert m["agent-cpu-percent"]["value"] > 0, (bench, m["agent-cpu-percent"])
	PY
	run bench/kernel/trickle.sh two
	[ "$status" -eq 2 ]
	[ "$output" = "trickle: ROUNDS 'two' is not a count of rounds" ]
}
