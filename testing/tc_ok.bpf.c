// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * A bare TC program that passes every frame: the baseline a TC program's
 * cost is measured against, as xdp_pass.bpf.c is an XDP program's.
 */
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>

SEC("tc")
int tc_ok(struct __sk_buff *skb)
{
	return TC_ACT_OK;
}

/* The kernel reads this: the SPDX line above, in its words. */
char LICENSE[] SEC("license") = "Dual BSD/GPL";
