#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# make bench-macro: the XDP program in the kernel, per frame shape and one
# event's cost part by part through BPF_PROG_TEST_RUN, and under live HTTP
# traffic and raw floods on a veth pair, and the agent's drain rate and idle
# cost, a scrape beside idle connections and a stop with a backlog, on both
# event transports (queue map and ring buffer) side by side; the live part
# and the stress flood put sampled events and per-source counts
# (--aggregate) beside them, with the side-by-side table of designs;
# each design's cost as CPUs are added (curve_test_run.sh, curve_flood.sh)
# and the reader's while events trickle in (trickle.sh);
# the whole path a flood takes beside the flow meters a user would run
# instead; one agent over many interfaces, what each costs it.
# Tables on stdout; BMF files in $FBF_RESULTS. Needs root.
set -euo pipefail

build=${FBF_BUILD:?FBF_BUILD is set by make}
results=${FBF_RESULTS:-$build/results}
mkdir -p "$results"

if [ "$(id -u)" -ne 0 ]; then
	echo "bench-macro: needs root (loading BPF programs, veth pairs); run: sudo make bench-macro" >&2
	exit 1
fi

echo "== macro: in the kernel per frame shape and transport (test_run, interleaved with XDP_PASS) =="
"$build/bench/kernel_test_run" "$build/xdp_pass.bpf.o" "${FBF_KERNEL_ROUNDS:-10}" \
	"${FBF_KERNEL_REPEAT:-100000}" >"$results/kernel.tsv"
bench/report.py samples "$results/kernel.tsv" "$results/kernel.bmf.json"

echo
echo "== macro: one event's cost in the kernel, part by part (test_run, Fizz frame, interleaved) =="
echo "   (none: no event; clock; queue push; ring record without, with a forced wake-up; doorbell;"
echo "   warm, and cold: single runs after writing over more than the CPU's L2)"
"$build/bench/event_parts" "$build/event_parts.bpf.o" "${FBF_PARTS_ROUNDS:-10}" \
	"${FBF_KERNEL_REPEAT:-100000}" >"$results/parts.tsv"
bench/report.py samples "$results/parts.tsv" "$results/parts.bmf.json"

echo
echo "== macro: live HTTP traffic and raw floods from 1 and 2 CPUs through a veth pair, per design =="
echo "   (every event on the queue or the ring, 1 in 16 or 256 of them, or per-source counts read"
echo "   every second; bpf_stats run_time_ns / run_cnt; event age from the agent's --json; events"
echo "   or counts lost, the agent's CPU and memory, its totals against what XDP saw)"
bench/kernel/macro_live.sh "${FBF_LIVE_ROUNDS:-5}" "${FBF_LIVE_REQUESTS:-3000}" \
	"${FBF_FLOOD_SECONDS:-2}" >"$results/live.tsv"
bench/report.py samples "$results/live.tsv" "$results/live.bmf.json"
echo
bench/report.py designs "$results/live.bmf.json" -

echo
echo "== macro: each design as CPUs are added, with the agent draining on the last CPU: its program"
echo "   from N CPUs at once (test_run), and a raw flood from K CPUs into a veth beside nothing"
echo "   attached and bare XDP_PASS in each mode; events delivered and lost a second =="
bench/kernel/curve_test_run.sh "${FBF_CURVE_ROUNDS:-3}" "${FBF_KERNEL_REPEAT:-100000}" \
	>"$results/curve.tsv"
bench/kernel/curve_flood.sh "${FBF_CURVE_ROUNDS:-3}" "${FBF_CURVE_FLOOD_SECONDS:-2}" \
	>>"$results/curve.tsv"
bench/report.py samples "$results/curve.tsv" "$results/curve.bmf.json" | tail -n 1
echo
bench/report.py curve "$results/curve.bmf.json" "$results"

echo
echo "== macro: the reader while events trickle in from one CPU (HTTP, one request in flight):"
echo "   the agent's CPU and wake-ups a second, a queue per CPU beside a ring per CPU"
echo "   (FBF_BASE_AGENT: and another build's) =="
bench/kernel/trickle.sh "${FBF_TRICKLE_ROUNDS:-3}" "${FBF_TRICKLE_SECONDS:-4}" \
	>"$results/trickle.tsv"
bench/report.py samples "$results/trickle.tsv" "$results/trickle.bmf.json"

echo
echo "== macro: the whole path beside the peers: a raw flood from 4,096 sources into a veth, from"
echo "   1 and 2 CPUs, with nothing attached, bare XDP_PASS, the agent, softflowd and pmacctd =="
bench/kernel/peers.sh "${FBF_PEERS_ROUNDS:-2}" "${FBF_PEERS_SECONDS:-4}" >"$results/peers.tsv"
bench/report.py samples "$results/peers.tsv" "$results/peers.bmf.json"
echo
bench/report.py peers "$results/peers.bmf.json" -

echo
echo "== macro: a single event after a quiet second, to an agent asleep in epoll, per transport =="
echo "   (age from classification to the agent's read, p50 and p99)"
bench/kernel/wake_latency.sh "${FBF_WAKE_ROUNDS:-1}" "${FBF_WAKE_EVENTS:-10}" >"$results/wake.tsv"
bench/report.py samples "$results/wake.tsv" "$results/wake.bmf.json"

echo
echo "== macro: one agent over 1, 16 and 256 interfaces (--iface 'bi*'): attach at start and of"
echo "   interfaces that appear, idle CPU and wake-ups, memory and its BPF objects' kernel memory;"
echo "   ns per packet on one interface with the agent over it alone and over 16, interleaved =="
bench/kernel/ifaces.sh >"$results/ifaces.tsv"
bench/report.py samples "$results/ifaces.tsv" "$results/ifaces.bmf.json"

echo
echo "== macro: how fast the agent drains a full queue or ring, against bare loops; idle cost =="
bench/kernel/drain_rate.sh "${FBF_DRAIN_ROUNDS:-3}" "${FBF_DRAIN_EVENTS:-1000000}" >"$results/drain.tsv"
bench/report.py samples "$results/drain.tsv" "$results/drain.bmf.json"

echo
echo "== macro: the outputs side by side: a backlog read and written to stdout (a file), to"
echo "   --output file:PATH and to --output nats:// (JetStream on loopback), and with --quiet;"
echo "   events a second to the agent's exit, its CPU per million events, rotated order =="
bench/kernel/output_rates.sh "${FBF_OUTPUT_ROUNDS:-3}" "${FBF_OUTPUT_EVENTS:-500000}" \
	>"$results/outputs.tsv"
bench/report.py samples "$results/outputs.tsv" "$results/outputs.bmf.json"

echo
echo "== macro: one interval of 65,536 sources exported: to --output ipfix:// (nfcapd on loopback),"
echo "   beside the same interval to stdout and to NATS, and --quiet; SIGTERM to exit and CPU =="
bench/kernel/ipfix_export.sh "${FBF_IPFIX_ROUNDS:-3}" >"$results/ipfix.tsv"
bench/report.py samples "$results/ipfix.tsv" "$results/ipfix.bmf.json"

echo
echo "== macro: events or counts lost in make stress's flood (HTTP + raw frames), per transport"
echo "   and --aggregate 1, and the agent's CPU share =="
: >"$results/flood.tsv"
KILLS=0 FLOOD_SECONDS=${FBF_STRESS_SECONDS:-30} FBF_FLOOD_RESULTS=$results/flood.tsv \
	tests/stress/stress.sh | grep -E '^stress: (queue|ringbuf|aggregate) flood|lost|agent CPU'
bench/report.py samples "$results/flood.tsv" "$results/flood.bmf.json"

echo
echo "== macro: what --metrics costs the agent, scraped ten times a second, side by side =="
bench/kernel/metrics_rate.sh "${FBF_METRICS_ROUNDS:-5}" "${FBF_METRICS_EVENTS:-200000}" \
	>"$results/metrics.tsv"
bench/report.py samples "$results/metrics.tsv" "$results/metrics.bmf.json"

echo
echo "== macro: a scrape while a thousand idle connections are open (FBF_BASE_AGENT: beside another build) =="
bench/kernel/scrape_idle.sh "${FBF_SCRAPE_ROUNDS:-5}" >"$results/scrape.tsv"
bench/report.py samples "$results/scrape.tsv" "$results/scrape.bmf.json"

echo
echo "== macro: stopping with a backlog, per transport: drained to the end, and cut short by a second SIGTERM =="
bench/kernel/stop_drain.sh "${FBF_STOP_EVENTS:-2000000}" "${FBF_STOP_CUT:-0.1}" >"$results/stop.tsv"
bench/report.py samples "$results/stop.tsv" "$results/stop.bmf.json"
