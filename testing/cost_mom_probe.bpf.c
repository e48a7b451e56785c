// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Katran's connection tables in small, for the cost tool's maps of maps
 * (bench/cost/cost_state.bats): each CPU keeps its flows in its own LRU hash,
 * found by the CPU's index in an array of maps whose slots the object leaves
 * to its loader, as Katran's balancer finds its lru_mapping's. A CPU without
 * its table takes Katran's fallback path: one LRU that every CPU shares, and a
 * count of the frames that took it. MAPS's line "cost_lru_mapping per-cpu"
 * gives each CPU its table: the path production takes, which the state shows
 * (the CPUs' tables gain the flows, the fallback count stays 0). Built twice:
 *
 *   (plain)             the program
 *   -DCOST_MOM_NO_INNER the array declares no inner map, as Katran's object does
 *                       (its loader gives the kernel a prototype): MAPS's line
 *                       "cost_lru_mapping per-cpu lru_hash 12 8 1024" defines it
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

/* Katran's MAX_SUPPORTED_CPUS is 128; these tests' hosts have fewer. */
#define COST_MOM_CPUS 64

/* A flow as a connection table keys it; Katran's adds the ports. */
struct cost_flow {
	__be32 saddr;
	__be32 daddr;
	__u32 protocol;
};

struct cost_lru {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	/* By size: clang gives the key's struct as a declaration alone, which libbpf refuses. */
	__uint(key_size, sizeof(struct cost_flow));
	__type(value, __u64);	/* the flow's frames */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, COST_MOM_CPUS);
	__type(key, __u32);
#ifdef COST_MOM_NO_INNER
	__type(value, __u32);
#else
	__array(values, struct cost_lru);
#endif
} cost_lru_mapping SEC(".maps");

/* Katran's fallback_cache: the table of a CPU whose own is missing. */
struct cost_lru cost_fallback_cache SEC(".maps");

/* Frames that took the fallback path: 0 where production's path was taken. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} cost_fallback_frames SEC(".maps");

/* This CPU's connection table, or the shared fallback, counted, where the slot is empty. */
static __always_inline void *connection_table(void)
{
	__u32 cpu = bpf_get_smp_processor_id(), zero = 0;
	void *lru = bpf_map_lookup_elem(&cost_lru_mapping, &cpu);
	__u64 *fallbacks;

	if (lru)
		return lru;
	fallbacks = bpf_map_lookup_elem(&cost_fallback_frames, &zero);
	if (fallbacks)
		__sync_fetch_and_add(fallbacks, 1);
	return &cost_fallback_cache;
}

SEC("xdp")
int xdp_cost_mom(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = data + sizeof(*eth);
	struct cost_flow flow = {};
	__u64 first = 1, *frames;
	void *table;

	if ((void *)(ip + 1) > data_end)
		return XDP_ABORTED;
	if (eth->h_proto != bpf_htons(ETH_P_IP))
		return XDP_PASS;
	flow.saddr = ip->saddr;
	flow.daddr = ip->daddr;
	flow.protocol = ip->protocol;
	table = connection_table();
	/* A known flow's count goes up; a new one is inserted, as a VIP's first packet is. */
	frames = bpf_map_lookup_elem(table, &flow);
	if (frames)
		__sync_fetch_and_add(frames, 1);
	else
		bpf_map_update_elem(table, &flow, &first, BPF_ANY);
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
