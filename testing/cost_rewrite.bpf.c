// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * An XDP program that rewrites its frames, for the cost tool's tests
 * (bench/cost/packet/cost_capture.bats), whose path differs between a frame and its
 * own output, as an encapsulator's does: an IPv4 frame costs a long loop (a
 * hash over its IP header, as a load balancer hashes a flow) and is then
 * relabelled, its EtherType made 0x88B5 (IEEE's local experimental one) and
 * the hash written into its source MAC, and sent back (XDP_TX); a frame so
 * relabelled is dropped at once. BPF_PROG_TEST_RUN's repetitions after the
 * first are fed the relabelled frame: a naive repeat times the drop.
 *
 * -DCOST_TC: the same path as a TC program (bench/cost/packet/cost_tc.bats): the
 * frame relabelled and let go on (TC_ACT_OK), a relabelled one shot.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#define ETH_P_RELABELLED 0x88B5
/* The hash's rounds: enough that the forward path costs ten times the drop or more. */
#define HASH_ROUNDS 1024
#define IP_HLEN 20
/* The bytes hashed: the first 16 of the header, by a mask the verifier can bound. */
#define IP_HLEN_POW2 16

#ifdef COST_TC
#define CTX struct __sk_buff
#define ACT_FORWARD TC_ACT_OK
#define ACT_DROP TC_ACT_SHOT
#define ACT_OTHER TC_ACT_OK
SEC("tc")
int cost_rewrite_tc(struct __sk_buff *ctx)
#else
#define ACT_FORWARD XDP_TX
#define ACT_DROP XDP_DROP
#define ACT_OTHER XDP_PASS
SEC("xdp")
int cost_rewrite(struct xdp_md *ctx)
#endif
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	__u8 *ip = data + sizeof(*eth);
	__u32 hash = 2166136261u;	/* FNV-1a's */

	if ((void *)(eth + 1) > end)
		return ACT_OTHER;
	if (eth->h_proto == bpf_htons(ETH_P_RELABELLED))
		return ACT_DROP;
	if (eth->h_proto != bpf_htons(ETH_P_IP) || (void *)(ip + IP_HLEN) > end)
		return ACT_OTHER;
	for (int i = 0; i < HASH_ROUNDS; i++)
		hash = (hash ^ ip[i & (IP_HLEN_POW2 - 1)]) * 16777619u;
	eth->h_proto = bpf_htons(ETH_P_RELABELLED);
	__builtin_memcpy(eth->h_source + 2, &hash, sizeof(hash));
	return ACT_FORWARD;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
