// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * An XDP program for the hot lines' compare (bench/cost/cost_lines.bats): a
 * hash over the frame's first 32 bytes, a loop whose lines hold most of its
 * time. bench/cost/cost.mk builds it as it is, and as a candidate whose every
 * line is shifted by a comment above, in a file of another name, and whose
 * one line "h ^= h >> 13;" is a division (h % 1000003): the compare must match
 * the lines by their text and find that one rising.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("xdp")
int xdp_cost_lines(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
	__u8 *p = data;
	__u32 h = 2166136261u;

	if (data + 32 > data_end)
		return XDP_PASS;
#pragma unroll
	for (int i = 0; i < 32; i++) {
		h ^= p[i];
		h *= 16777619;
	}
	h ^= h >> 13;
	h *= 0x5bd1e995;
	return h & 1 ? XDP_PASS : XDP_DROP;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
