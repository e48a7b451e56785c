// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A small XDP program for the cost tool's tests (bench/cost/packet/cost.bats): it
 * drops TCP over IPv4, passes the rest, and aborts what it cannot parse, so
 * the tool's table has three actions to tell apart. Built eight times:
 *
 *   (plain)          the program
 *   -DCOST_PLANTED   the same with one instruction more on every frame: the
 *                    regression cost-compare must flag
 *   -DCOST_TWO_PROGS a second XDP program beside it: PROG= must choose
 *   -DCOST_REFUSED   a read past the checked end of the frame: the verifier refuses it
 *   -DCOST_CONFIG    it aborts every frame until its cost_config map's entry is set:
 *                    a program the user must configure
 *   -DCOST_SHARED_COUNTER  every frame counted COST_COUNTS times with an atomic add into
 *                    one value that all CPUs share: as cheap as a per-CPU count on one
 *                    CPU, and a cache line the CPUs fight over on several (the curve
 *                    must flag it)
 *   -DCOST_PERCPU_COUNTER  every frame counted COST_COUNTS times into its CPU's own
 *                    value: flat on any number of CPUs (the curve must not flag it)
 *   -DCOST_MAPS_OF_MAPS  every frame counted through an array of maps of arrays whose
 *                    one slot the object sets, and sent to a queue in a hash of maps
 *                    if it holds one: maps of maps the tool must leave as they are
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#ifdef COST_CONFIG
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} cost_config SEC(".maps");
#endif

#if defined(COST_SHARED_COUNTER) || defined(COST_PERCPU_COUNTER)
struct {
#ifdef COST_SHARED_COUNTER
	__uint(type, BPF_MAP_TYPE_ARRAY);
#else
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
#endif
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} cost_frames SEC(".maps");

/*
 * Writes to the counter per frame. One collides too rarely where test_run's own
 * cost per run is large beside an add (26 ns a run on one AMD EPYC host, 5 on an
 * Intel one): the curve read flat there. With eight a run the cache line's
 * traffic, not test_run, decides on every host tried.
 */
#define COST_COUNTS 8
#endif

#ifdef COST_MAPS_OF_MAPS
struct cost_count {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} cost_count_0 SEC(".maps");

/* Its one slot set in the object: no CPU's, and no queue's or ring's. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct cost_count);
} cost_counts SEC(".maps") = {
	.values = { &cost_count_0 },
};

struct cost_queue {
	__uint(type, BPF_MAP_TYPE_QUEUE);
	__uint(max_entries, 16);
	__type(value, __u32);
};

/* Queues under keys of the program's own choosing: a hash has no slot per CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH_OF_MAPS);
	__uint(max_entries, 4);
	__type(key, __u32);
	__array(values, struct cost_queue);
} cost_queues SEC(".maps");
#endif

SEC("xdp")
int xdp_cost_probe(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = data + sizeof(*eth);
	int action = XDP_PASS;

#if defined(COST_SHARED_COUNTER) || defined(COST_PERCPU_COUNTER)
	__u32 key = 0;
	__u64 *frames = bpf_map_lookup_elem(&cost_frames, &key);

	/*
	 * A value every CPU adds to must be added to atomically; a CPU's own need not,
	 * but volatile, so that the compiler keeps each add as the shared one's are kept.
	 */
	if (frames)
#pragma unroll
		for (int i = 0; i < COST_COUNTS; i++)
#ifdef COST_SHARED_COUNTER
			__sync_fetch_and_add(frames, 1);
#else
			*(volatile __u64 *)frames += 1;
#endif
#endif
#ifdef COST_MAPS_OF_MAPS
	__u32 slot = 0;
	void *count_map = bpf_map_lookup_elem(&cost_counts, &slot);
	void *queue = bpf_map_lookup_elem(&cost_queues, &slot);
	__u64 *count = count_map ? bpf_map_lookup_elem(count_map, &slot) : NULL;

	/* Without the slot the object set, every frame is aborted: the tool says so. */
	if (!count)
		return XDP_ABORTED;
	__sync_fetch_and_add(count, 1);
	if (queue)
		bpf_map_push_elem(queue, &slot, 0);
#endif
#ifdef COST_CONFIG
	__u32 zero = 0, *enabled = bpf_map_lookup_elem(&cost_config, &zero);

	if (!enabled || !*enabled)
		return XDP_ABORTED;
#endif
#ifdef COST_REFUSED
	if ((void *)(eth + 1) > data_end)
		return XDP_ABORTED;
	/* The IPv4 header is read unchecked: the verifier must refuse this. */
	return ip->protocol == IPPROTO_TCP ? XDP_DROP : XDP_PASS;
#endif
	if ((void *)(ip + 1) > data_end)
		return XDP_ABORTED;
	if (eth->h_proto == bpf_htons(ETH_P_IP) && ip->protocol == IPPROTO_TCP)
		action = XDP_DROP;
#ifdef COST_PLANTED
	/* One instruction more on every frame that gets this far, and nothing else. */
	asm volatile("%[a] += 0" : [a] "+r"(action));
#endif
	return action;
}

#ifdef COST_TWO_PROGS
SEC("xdp")
int xdp_cost_probe_other(struct xdp_md *ctx)
{
	return XDP_PASS;
}
#endif

char LICENSE[] SEC("license") = "Dual BSD/GPL";
