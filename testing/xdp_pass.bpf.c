// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * A bare XDP_PASS program: the baseline the classifier's cost is measured
 * against, and a stand-in for someone else's program in coexistence tests.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("xdp")
int xdp_pass(struct xdp_md *ctx)
{
	return XDP_PASS;
}

/* The kernel reads this: the SPDX line above, in its words. */
char LICENSE[] SEC("license") = "Dual BSD/GPL";
