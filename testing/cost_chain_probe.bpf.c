// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A chain of three programs through a prog array the object fills itself
 * (libbpf's declarative .values), for the cost tool's chain tests
 * (bench/cost/chain/cost_chain.bats). The entry passes what is not IPv4 itself and
 * tail-calls slot 1 with the rest; hop 2 drops TCP and tail-calls slot 2 with
 * the rest; hop 3 passes it. So the shapes take one, two or three hops, and
 * each hop has work of its own to measure. Built six times:
 *
 *   (plain)             the XDP chain
 *   -DCOST_CHAIN_TC     the same as TC programs, SEC("tc")
 *   -DCOST_CHAIN_EMPTY  slot 2 left empty: IPv4 frames but TCP fall through at hop 2
 *   -DCOST_CHAIN_LOOP   hop 3 tail-calls slot 1 again: a loop the kernel stops
 *   -DCOST_CHAIN_NONE   every slot empty, and the entry tail-calls every frame: all fall through
 *   -DCOST_CHAIN_PLANTED  hop 2 runs a loop of PLANTED_STEPS more: a regression that
 *                       cost-compare must name by its hop
 *
 * Beside the chain: chain_spare, a program of the chain's type no slot names
 * (for CHAIN=; it drops, so that a frame's action says CHAIN= put it in the path),
 * tc_chain_other / xdp_chain_other, one of the other type, and chain_counts, a map
 * that is not a prog array.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#ifdef COST_CHAIN_TC
#define CHAIN_SEC	"tc"
#define OTHER_SEC	"xdp"
#define chain_ctx	__sk_buff
#define other_ctx	xdp_md
#define CHAIN_PASS	TC_ACT_OK
#define CHAIN_DROP	TC_ACT_SHOT
#define OTHER_PASS	XDP_PASS
#define other_prog	xdp_chain_other
#else
#define CHAIN_SEC	"xdp"
#define OTHER_SEC	"tc"
#define chain_ctx	xdp_md
#define other_ctx	__sk_buff
#define CHAIN_PASS	XDP_PASS
#define CHAIN_DROP	XDP_DROP
#define OTHER_PASS	TC_ACT_OK
#define other_prog	tc_chain_other
#endif

/* Rounds of each hop's own work: enough to tell the hops apart from the tail call. */
#define HOP_WORK 16
/*
 * The planted regression's steps: a chain of dependent multiplies, some hundreds of ns
 * on any CPU against a hop's few, so that its test does not hang on the host's speed.
 */
#define PLANTED_STEPS 200

struct chain_ctx;

int chain_hop2(struct chain_ctx *ctx);
int chain_hop3(struct chain_ctx *ctx);

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 4);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
	__array(values, int (void *));
} jmp_table SEC(".maps") = {
	.values = {
#ifndef COST_CHAIN_NONE
		[1] = (void *)&chain_hop2,
#ifndef COST_CHAIN_EMPTY
		[2] = (void *)&chain_hop3,
#endif
#endif
	},
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} chain_counts SEC(".maps");

/* A hop's own work: a hash over the frame's first bytes, which the compiler cannot drop. */
static __always_inline __u32 hop_work(void *data, void *end, __u32 seed)
{
	__u32 h = seed;

	for (int i = 0; i < HOP_WORK; i++) {
		__u8 *p = data + i;

		if ((void *)(p + 1) > end)
			break;
		h = (h ^ *p) * 16777619;
	}
	return h;
}

#ifdef COST_CHAIN_PLANTED
/*
 * The planted loop: each step needs the one before, on a value the
 * frame decides, so the compiler can neither fold it nor drop it; kept a loop, not
 * unrolled, so the verifier walks it and its instructions rise too.
 */
static __always_inline __u32 planted(__u32 h)
{
#pragma clang loop unroll(disable)
	for (int i = 0; i < PLANTED_STEPS; i++)
		h = (h ^ i) * 16777619;
	return h;
}
#endif

static __always_inline struct iphdr *ipv4_of(void *data, void *end)
{
	struct ethhdr *eth = data;
	struct iphdr *ip = data + sizeof(*eth);

	if ((void *)(eth + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP) ||
	    (void *)(ip + 1) > end)
		return NULL;
	return ip;
}

SEC(CHAIN_SEC)
int chain_entry(struct chain_ctx *ctx)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;

	if (hop_work(data, end, 1) == 0)
		return CHAIN_PASS;
#ifndef COST_CHAIN_NONE
	if (!ipv4_of(data, end))
		return CHAIN_PASS;
#endif
	bpf_tail_call(ctx, &jmp_table, 1);
	/* Slot 1 empty: the frame falls through here. */
	return CHAIN_PASS;
}

SEC(CHAIN_SEC)
int chain_hop2(struct chain_ctx *ctx)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	struct iphdr *ip = ipv4_of(data, end);
	__u32 h = hop_work(data, end, 2);

#ifdef COST_CHAIN_PLANTED
	h = planted(h);
#endif
	if (h == 0 || !ip || ip->protocol == IPPROTO_TCP)
		return CHAIN_DROP;
	bpf_tail_call(ctx, &jmp_table, 2);
	return CHAIN_PASS;
}

SEC(CHAIN_SEC)
int chain_hop3(struct chain_ctx *ctx)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;

	if (hop_work(data, end, 3) == 0)
		return CHAIN_DROP;
#ifdef COST_CHAIN_LOOP
	bpf_tail_call(ctx, &jmp_table, 1);
#endif
	return CHAIN_PASS;
}

SEC(CHAIN_SEC)
int chain_spare(struct chain_ctx *ctx)
{
	return CHAIN_DROP;
}

SEC(OTHER_SEC)
int other_prog(struct other_ctx *ctx)
{
	return OTHER_PASS;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
