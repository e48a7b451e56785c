// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * XDP FizzBuzzFibonacci classifier: reads the IPv4 source address of every
 * frame, classifies it and sends an event for every class but none to
 * userspace. It observes only: every frame passes, unchanged.
 *
 * Built twice, one object per event transport: a queue map (the default),
 * and with FBF_TRANSPORT_RINGBUF a BPF ring buffer. The program, its name,
 * its counters and its event are the same in both.
 */
#include <linux/bpf.h>
#include <linux/errno.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include <xdp/xdp_helpers.h>

#include "fizzbuzzfib.h"
#ifdef FBF_CANARY_V3
#include "fizzbuzzfib_v3.h"	/* the planted regression, never shipped */
#endif

/* VLAN tags parsed before giving up on a frame as non-IPv4. */
#define FBF_MAX_VLAN_TAGS 2

#ifdef FBF_TRANSPORT_RINGBUF
/* Sized in bytes by userspace, which creates it before load (fbf_object.h). */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, FBF_RING_DEFAULT_BYTES);
} events SEC(".maps");

/*
 * Set by userspace before load. 0: the kernel wakes the consumer whenever
 * it has caught up with the ring, at most once per event. N: no wake-up but
 * on every Nth event of a CPU or when the ring is half full, and the
 * consumer polls for the rest.
 */
const volatile __u32 wakeup_batch = 0;
#else
/* Sized in events by userspace, which creates it before load (fbf_object.h). */
struct {
	__uint(type, BPF_MAP_TYPE_QUEUE);
	__uint(max_entries, FBF_DEFAULT_QUEUE_SIZE);
	__type(value, struct fbf_event);
} events SEC(".maps");
#endif

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fbf_counters);
} counters SEC(".maps");

/*
 * Run first in libxdp's dispatcher, so that a program after us that drops
 * frames cannot hide them from the classifier; go on to the next program on
 * XDP_PASS, which is all this program ever returns.
 */
struct {
	__uint(priority, 10);
	__uint(XDP_PASS, 1);
} XDP_RUN_CONFIG(xdp_fizzbuzzfib);

/*
 * 802.1Q and 802.1ad tag layout: struct vlan_hdr is not in the UAPI headers,
 * and libxdp-dev's xdp/parsing_helpers.h, which has it, includes glibc
 * headers that do not build for -target bpf on Debian 12 (gnu/stubs-32.h).
 */
struct fbf_vlan_hdr {
	__be16 tci;
	__be16 encapsulated_proto;
};

static __always_inline int proto_is_vlan(__be16 proto)
{
	return proto == bpf_htons(ETH_P_8021Q) || proto == bpf_htons(ETH_P_8021AD);
}

enum parse_result {
	PARSE_IPV4,
	PARSE_NON_IPV4,
	PARSE_MALFORMED,
};

/*
 * Walk Ethernet, up to two VLAN tags and the IPv4 header. On PARSE_IPV4,
 * *saddr holds the source address in host byte order.
 */
static __always_inline enum parse_result parse_ipv4_saddr(struct xdp_md *ctx, __u32 *saddr)
{
	void *data_end = (void *)(long)ctx->data_end;
	void *data = (void *)(long)ctx->data;
	struct ethhdr *eth = data;
	struct iphdr *iph;
	void *cursor;
	__be16 proto;
	int i;

	if ((void *)(eth + 1) > data_end)
		return PARSE_MALFORMED;
	proto = eth->h_proto;
	cursor = eth + 1;

#pragma unroll
	for (i = 0; i < FBF_MAX_VLAN_TAGS; i++) {
		struct fbf_vlan_hdr *vlan = cursor;

		if (!proto_is_vlan(proto))
			break;
		if ((void *)(vlan + 1) > data_end)
			return PARSE_MALFORMED;
		proto = vlan->encapsulated_proto;
		cursor = vlan + 1;
	}

	if (proto != bpf_htons(ETH_P_IP))
		return PARSE_NON_IPV4;

	iph = cursor;
	if ((void *)(iph + 1) > data_end)
		return PARSE_MALFORMED;
	if (iph->version != 4 || iph->ihl < 5)
		return PARSE_MALFORMED;
	/* Options are not read, but a header cut short is still malformed. */
	if (cursor + iph->ihl * 4 > data_end)
		return PARSE_MALFORMED;

	*saddr = bpf_ntohl(iph->saddr);
	return PARSE_IPV4;
}

#ifdef FBF_TRANSPORT_RINGBUF
/* The flags for bpf_ringbuf_submit(): whether this event wakes the consumer. */
static __always_inline __u64 ring_wakeup(const struct fbf_counters *cnt)
{
	__u64 sent;

	if (!wakeup_batch)
		return 0;
	/* This CPU's events so far, this one included. */
	sent = fbf_events_produced(cnt);
	if (sent % wakeup_batch == 0 ||
	    bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) * 2 >=
	    bpf_ringbuf_query(&events, BPF_RB_RING_SIZE))
		return BPF_RB_FORCE_WAKEUP;
	return BPF_RB_NO_WAKEUP;
}

/* The event is written in place: no copy, and no lock held while it is filled in. */
static __always_inline void ring_send(struct fbf_counters *cnt, __u32 saddr, __u32 class_id)
{
	struct fbf_event *ev = bpf_ringbuf_reserve(&events, sizeof(*ev), 0);

	if (!ev) {
		cnt->queue_full++;	/* the ring is full: the event is lost */
		return;
	}
	ev->ktime_ns = bpf_ktime_get_ns();
	ev->saddr = saddr;
	ev->class_id = class_id;
	bpf_ringbuf_submit(ev, ring_wakeup(cnt));
}
#endif

SEC("xdp")
int xdp_fizzbuzzfib(struct xdp_md *ctx)
{
	struct fbf_counters *cnt;
	struct fbf_event event;
	__u32 key = 0;
	__u32 saddr = 0;
#ifndef FBF_TRANSPORT_RINGBUF
	/*
	 * int, not long: before 6.4 the verifier calls the queue's push, which
	 * returns int, straight from the program, and R0's upper half is then
	 * zero: -E2BIG reads back as 0x00000000fffffff9 (seen on 5.10 and 6.1).
	 * Built with -mcpu=v3, the test is one 32-bit compare, right on all.
	 */
	int err;
#endif

	cnt = bpf_map_lookup_elem(&counters, &key);
	if (!cnt)
		return XDP_PASS; /* cannot happen: a one-entry array always has key 0 */
	cnt->packets++;

	switch (parse_ipv4_saddr(ctx, &saddr)) {
	case PARSE_NON_IPV4:
		cnt->non_ipv4++;
		return XDP_PASS;
	case PARSE_MALFORMED:
		cnt->malformed++;
		return XDP_PASS;
	case PARSE_IPV4:
		break;
	}

	event.class_id = fbf_classify(saddr);
	if (event.class_id >= FBF_NR_CLASSES)
		return XDP_PASS; /* cannot happen; bounds the index for the verifier */
	cnt->by_class[event.class_id]++;
	if (event.class_id == FBF_NONE)
		return XDP_PASS;

#ifdef FBF_TRANSPORT_RINGBUF
	ring_send(cnt, saddr, event.class_id);
	return XDP_PASS;
#else
	event.saddr = saddr;
	event.ktime_ns = bpf_ktime_get_ns();
	err = bpf_map_push_elem(&events, &event, 0);
	if (err == -E2BIG)
		cnt->queue_full++;
	else if (err)
		cnt->queue_busy++;
	return XDP_PASS;
#endif
}

/* The kernel reads this: the SPDX line above, in its words. */
char LICENSE[] SEC("license") = "Dual BSD/GPL";
