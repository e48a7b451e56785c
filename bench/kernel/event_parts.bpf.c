// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * One event's cost in the XDP program, part by part: each program reads the
 * frame's IPv4 source address and passes the frame, as the classifier does
 * for a frame that makes no event, and all but the first add one of the
 * things the classifier does to send an event. bench/kernel/event_parts.c
 * times them side by side on the same frame and subtracts the first.
 *
 * None of them checks what a helper returns: a queue or ring that was full
 * would make its run cheaper, so userspace sizes them to hold every run of a
 * test run and counts, after each, what the runs left there.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "fizzbuzzfib.h"

/* Written, never read: what is stored here the compiler cannot leave out. */
volatile __u32 sink_saddr;
volatile __u64 sink_ktime;

/*
 * The classifier's layout: one queue and one ring per CPU, in arrays of maps
 * the programs index by the CPU they run on, created and sized by userspace
 * before load (lib/event_maps.h); the ring's are shared by both ring programs.
 */
struct part_queue {
	__uint(type, BPF_MAP_TYPE_QUEUE);
	__uint(max_entries, FBF_DEFAULT_QUEUE_SIZE);
	__uint(value_size, sizeof(struct fbf_event));
};

struct part_ring {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, FBF_RING_DEFAULT_BYTES);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct part_queue);
} events_queue SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct part_ring);
} events_ring SEC(".maps");

/* This CPU's map of @outer: NULL only if userspace gave it none, which the run then shows. */
static __always_inline void *this_cpu_map(void *outer)
{
	__u32 cpu = bpf_get_smp_processor_id();

	return bpf_map_lookup_elem(outer, &cpu);
}

/* The classifier's is 4096 bytes; userspace may make it larger (see event_parts.c). */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} doorbell SEC(".maps");

/*
 * The baseline's work: the source address of an untagged IPv4 frame, in
 * host byte order: 1, or 0 for any other frame, which the programs drop so
 * that a frame that never reaches the address fails the run.
 */
static __always_inline int read_saddr(struct xdp_md *ctx, __u32 *saddr)
{
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = (void *)(long)ctx->data;
	struct iphdr *iph = (void *)(eth + 1);

	if ((void *)(iph + 1) > data_end || eth->h_proto != bpf_htons(ETH_P_IP))
		return 0;
	*saddr = bpf_ntohl(iph->saddr);
	sink_saddr = *saddr;
	return 1;
}

SEC("xdp")
int part_none(struct xdp_md *ctx)
{
	__u32 saddr;

	return read_saddr(ctx, &saddr) ? XDP_PASS : XDP_DROP;
}

SEC("xdp")
int part_clock(struct xdp_md *ctx)
{
	__u32 saddr;

	if (!read_saddr(ctx, &saddr))
		return XDP_DROP;
	sink_ktime = bpf_ktime_get_ns();
	return XDP_PASS;
}

/* The event as the queue transport pushes it, but for the clock. */
SEC("xdp")
int part_queue_push(struct xdp_md *ctx)
{
	struct fbf_event ev = { .class_id = FBF_FIZZ };

	void *queue = this_cpu_map(&events_queue);

	if (!read_saddr(ctx, &ev.saddr) || !queue)
		return XDP_DROP;
	bpf_map_push_elem(queue, &ev, 0);
	return XDP_PASS;
}

/* The event as the ring buffer transport writes it, but for the clock. */
static __always_inline int ring_event(struct xdp_md *ctx, __u64 flags)
{
	void *ring = this_cpu_map(&events_ring);
	struct fbf_event *ev;
	__u32 saddr;

	if (!read_saddr(ctx, &saddr) || !ring)
		return XDP_DROP;
	ev = bpf_ringbuf_reserve(ring, sizeof(*ev), 0);
	if (!ev)
		return XDP_PASS;
	ev->ktime_ns = 0;
	ev->saddr = saddr;
	ev->class_id = FBF_FIZZ;
	bpf_ringbuf_submit(ev, flags);
	return XDP_PASS;
}

SEC("xdp")
int part_ring_nowake(struct xdp_md *ctx)
{
	return ring_event(ctx, BPF_RB_NO_WAKEUP);
}

/* The same record copied in by one helper call: reserve, copy and submit in the kernel. */
SEC("xdp")
int part_ring_output(struct xdp_md *ctx)
{
	struct fbf_event ev = { .class_id = FBF_FIZZ };
	void *ring = this_cpu_map(&events_ring);

	if (!read_saddr(ctx, &ev.saddr) || !ring)
		return XDP_DROP;
	bpf_ringbuf_output(ring, &ev, sizeof(ev), BPF_RB_NO_WAKEUP);
	return XDP_PASS;
}

/* The same record, and an irq_work queued to wake the ring's waiters. */
SEC("xdp")
int part_ring_wake(struct xdp_md *ctx)
{
	return ring_event(ctx, BPF_RB_FORCE_WAKEUP);
}

/* What the classifier's wake_reader() does for a reader that sleeps, alone. */
SEC("xdp")
int part_doorbell(struct xdp_md *ctx)
{
	__u64 ring = 0;
	__u32 saddr;

	if (!read_saddr(ctx, &saddr))
		return XDP_DROP;
	bpf_ringbuf_output(&doorbell, &ring, sizeof(ring), BPF_RB_FORCE_WAKEUP);
	return XDP_PASS;
}

/* The kernel reads this: the SPDX line above, in its words. */
char LICENSE[] SEC("license") = "Dual BSD/GPL";
