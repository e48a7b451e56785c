#!/usr/bin/env bats
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The in-kernel benchmark, briefly: it writes a Bencher Metric Format file
# that bencher can read, for every frame shape, both transports and the
# queue sampled at 1 in 16.

load ../../testing/netns
load ../bmf

setup() { fbf_bench_setup; }

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
		parts/ring-nowakeup parts/ring-wakeup parts/doorbell parts-cold/none \
		parts-cold/queue-push parts-cold/ring-nowakeup
}
