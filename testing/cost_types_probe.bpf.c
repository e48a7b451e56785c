// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Small programs of each type the cost tool measures, for its type tests
 * (bench/cost/packet/cost_tc.bats). The TC one shoots TCP over IPv4 and what it
 * cannot parse, answers TC_ACT_UNSPEC for what is not IPv4 and passes the
 * rest, so the table has three TC actions to tell apart. Built five times:
 *
 *   (plain)             the TC program, SEC("tc")
 *   -DCOST_PLANTED      the same with one instruction more on every frame
 *   -DCOST_TCX_EGRESS   the same in SEC("tcx/egress"), a section libbpf 1.1 does not know
 *   -DCOST_MIXED        an XDP program beside the TC one: PROG= picks either type
 *   -DCOST_XDP_TX       an XDP program that sends every frame back (XDP_TX)
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#ifdef COST_XDP_TX
SEC("xdp")
int xdp_cost_tx(struct xdp_md *ctx)
{
	return XDP_TX;
}
#else
#ifdef COST_TCX_EGRESS
SEC("tcx/egress")
#else
SEC("tc")
#endif
int tc_cost_probe(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data, *end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = data + sizeof(*eth);
#ifdef COST_PLANTED
	volatile __u32 planted = 0;

	planted++;
#endif
	if ((void *)(eth + 1) > end)
		return TC_ACT_SHOT;
	if (eth->h_proto != bpf_htons(ETH_P_IP))
		return TC_ACT_UNSPEC;
	if ((void *)(ip + 1) > end)
		return TC_ACT_SHOT;
	return ip->protocol == IPPROTO_TCP ? TC_ACT_SHOT : TC_ACT_OK;
}
#endif

#ifdef COST_MIXED
SEC("xdp")
int xdp_cost_other(struct xdp_md *ctx)
{
	return XDP_PASS;
}
#endif

char LICENSE[] SEC("license") = "Dual BSD/GPL";
