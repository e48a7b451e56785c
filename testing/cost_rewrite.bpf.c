// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * An XDP program that rewrites its frames, for the cost tool's tests
 * (bench/cost/cost_capture.bats), whose path differs between a frame and its
 * own output, as an encapsulator's does: an IPv4 frame costs a long loop (a
 * hash over its IP header, as a load balancer hashes a flow) and is then
 * relabelled, its EtherType made 0x88B5 (IEEE's local experimental one) and
 * the hash written into its source MAC, and sent back (XDP_TX); a frame so
 * relabelled is dropped at once. BPF_PROG_TEST_RUN's repetitions after the
 * first are fed the relabelled frame: a naive repeat times the drop.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#define ETH_P_RELABELLED 0x88B5
/* The hash's rounds: enough that the forward path costs ten times the drop or more. */
#define HASH_ROUNDS 1024
#define IP_HLEN 20
/* The bytes hashed: the first 16 of the header, by a mask the verifier can bound. */
#define IP_HLEN_POW2 16

SEC("xdp")
int cost_rewrite(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	__u8 *ip = data + sizeof(*eth);
	__u32 hash = 2166136261u;	/* FNV-1a's */

	if ((void *)(eth + 1) > end)
		return XDP_PASS;
	if (eth->h_proto == bpf_htons(ETH_P_RELABELLED))
		return XDP_DROP;
	if (eth->h_proto != bpf_htons(ETH_P_IP) || (void *)(ip + IP_HLEN) > end)
		return XDP_PASS;
	for (int i = 0; i < HASH_ROUNDS; i++)
		hash = (hash ^ ip[i & (IP_HLEN_POW2 - 1)]) * 16777619u;
	eth->h_proto = bpf_htons(ETH_P_RELABELLED);
	__builtin_memcpy(eth->h_source + 2, &hash, sizeof(hash));
	return XDP_TX;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
