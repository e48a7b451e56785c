// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A path of two programs for the cost tool's path tests (bench/cost/packet/cost_path.bats):
 * an XDP program that drops the IPv4 frames of odd source addresses and passes the rest,
 * and a TC program that does some work on every frame it gets and passes it. The live
 * part's flood comes from 4096 consecutive sources in turn (bench/kernel/flood.bash), so
 * XDP drops half of it, and TC, after XDP on the same veth, runs on the other half alone:
 * the counts the tests check.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

/* TC's work a frame: enough rounds that its share of the path is well above nothing. */
#define PATH_TC_ROUNDS 64

SEC("xdp")
int cost_path_xdp(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = (void *)(eth + 1);

	if ((void *)(ip + 1) > data_end || eth->h_proto != bpf_htons(ETH_P_IP))
		return XDP_PASS;
	return bpf_ntohl(ip->saddr) & 1 ? XDP_DROP : XDP_PASS;
}

SEC("tc")
int cost_path_tc(struct __sk_buff *skb)
{
	__u32 h = skb->len;

	/* The mark keeps the loop: a result nobody reads would be optimised away. */
	for (int i = 0; i < PATH_TC_ROUNDS; i++)
		h = h * 31 + (skb->hash ^ i);
	skb->mark = h;
	return TC_ACT_OK;
}

/* The kernel reads this: the SPDX line above, in its words. */
char LICENSE[] SEC("license") = "Dual BSD/GPL";
