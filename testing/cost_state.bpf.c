// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * An XDP program configured as libbpf-style programs are, for the cost tool's
 * state tests (bench/cost/cost_state.bats): a const volatile global decides
 * which TCP port it drops (in host order, or in network order in another),
 * a hash map which IP protocols it blocks, an LPM trie which sources it
 * drops, and it counts the frames it sees into a .bss global and a per-CPU
 * array, so that each piece of state shows in the actions the table gives
 * and in what the runs changed. Built twice:
 *
 *   (plain)          its table of weights holds 16 entries
 *   -DCOST_STATE_BIG the same with 1,000,000: what loading a large dump costs
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/tcp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#ifdef COST_STATE_BIG
#define COST_TABLE_ENTRIES 1000000
#else
#define COST_TABLE_ENTRIES 16
#endif

/* The TCP destination port to drop, in host order; 0: none. */
const volatile __u16 cost_drop_port = 0;
/* The same in network order, as a program that compares it with the header keeps it. */
const volatile __be16 cost_drop_port_be = 0;
/* A signed setting: a negative value makes every IPv4 frame pass untouched. */
const volatile int cost_bias = 0;
/* Frames seen: the program's own write to .bss. */
__u64 cost_seen = 0;

/* IP protocols blocked: a frame of one is dropped. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u32);
	__type(value, __u32);
} cost_blocked SEC(".maps");

struct cost_prefix {
	__u32 prefixlen;
	__u32 addr;		/* network order */
};

/* IPv4 source prefixes dropped. */
struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, 64);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct cost_prefix);
	__type(value, __u32);
} cost_sources SEC(".maps");

/* Read on every IPv4 frame, at its protocol's index: a large table the program consults. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, COST_TABLE_ENTRIES);
	__type(key, __u32);
	__type(value, __u64);
} cost_table SEC(".maps");

/* Frames per action, per CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} cost_actions SEC(".maps");

static int counted(__u32 action)
{
	__u64 *n = bpf_map_lookup_elem(&cost_actions, &action);

	if (n)
		*n += 1;
	return action;
}

SEC("xdp")
int xdp_cost_state(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = data + sizeof(*eth);
	struct tcphdr *tcp = (void *)(ip + 1);
	struct cost_prefix source = { .prefixlen = 32 };
	__u32 proto, slot;
	__u64 *weight;

	__sync_fetch_and_add(&cost_seen, 1);
	if ((void *)(ip + 1) > data_end || eth->h_proto != bpf_htons(ETH_P_IP))
		return counted(XDP_PASS);
	if (cost_bias < 0)
		return counted(XDP_PASS);
	source.addr = ip->saddr;
	if (bpf_map_lookup_elem(&cost_sources, &source))
		return counted(XDP_DROP);
	proto = ip->protocol;
	if (bpf_map_lookup_elem(&cost_blocked, &proto))
		return counted(XDP_DROP);
	slot = proto % COST_TABLE_ENTRIES;
	weight = bpf_map_lookup_elem(&cost_table, &slot);
	if (weight && *weight)
		return counted(XDP_DROP);
	if (cost_drop_port && proto == IPPROTO_TCP && (void *)(tcp + 1) <= data_end &&
	    tcp->dest == bpf_htons(cost_drop_port))
		return counted(XDP_DROP);
	if (cost_drop_port_be && proto == IPPROTO_TCP && (void *)(tcp + 1) <= data_end &&
	    tcp->dest == cost_drop_port_be)
		return counted(XDP_DROP);
	return counted(XDP_PASS);
}

char _license[] SEC("license") = "Dual BSD/GPL";
