// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * XDP FizzBuzzFibonacci classifier: reads the IPv4 source address of every
 * frame, classifies it and sends an event for every class but none to
 * userspace (or for 1 in N of them: sample_every), or counts it per source
 * address instead (sample_every 0, --aggregate). It observes only: every
 * frame passes, unchanged.
 *
 * Built twice, one object per event transport: queue maps (the default),
 * and with FBF_TRANSPORT_RINGBUF BPF ring buffers, one per CPU either way.
 * The two differ in send_to_map() and the maps it fills, and nowhere else:
 * the program, its name, its counters, its event and its way of waking the
 * reader are the same.
 */
#include <linux/bpf.h>
#include <linux/errno.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include <xdp/xdp_helpers.h>

#include "fizzbuzzfib.h"

/* VLAN tags parsed before giving up on a frame as non-IPv4. */
#define FBF_MAX_VLAN_TAGS 2

/* One entry per interface the agent serves (iface_slot); one by default. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fbf_counters);
} counters SEC(".maps");

/*
 * Which of the agent's interfaces this copy of the program serves: its
 * entry in counters, and the mark on its events. An agent over several
 * interfaces loads one copy per interface, each with its own value and
 * the same maps (fbf_object_share()), so that no packet pays a lookup to
 * learn where it came from: read-only data, one load.
 */
const volatile __u32 iface_slot = 0;

/*
 * Pods' veths come and go faster than a copy can be loaded and verified for
 * each, so an agent over a pattern attaches one shared copy to all of them
 * (slot_by_ifindex), which finds its slot in iface_slots: a direct-mapped
 * table indexed by the frame's ifindex under slot_table_mask, each entry
 * tagged with the whole ifindex. An array lookup the JIT inlines and one
 * compare; an interface whose entry is taken by another gets a copy of its
 * own instead (agent/iface/attach.c). Off, the verifier drops the lookup.
 */
const volatile __u32 slot_by_ifindex = 0;
const volatile __u32 slot_table_mask = 0;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fbf_iface_slot);
} iface_slots SEC(".maps");

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

/*
 * The one place where the transports differ: the event maps and how an
 * event goes into one. send_event() returns 0, -E2BIG if the map is full,
 * or another -errno; either way, once it returns the event is visible to
 * the reader or will never be.
 *
 * One map per CPU, in events, an array of maps indexed by the CPU the
 * program runs on: a CPU pushes into its own queue or ring only, so no CPU
 * takes another's lock or writes another's cache lines, and the cost of an
 * event does not climb with the CPUs that send at once (one shared map took
 * 9x as long per event with 2 CPUs sending, 36x with 15). The inner maps
 * are created and put in place by userspace before load, one per possible
 * CPU, each of the size it chose (fbf_object_events_create()).
 *
 * events_spare, of the same type, is where a CPU with no map of its own
 * sends: none in the agent, which gives every possible CPU one (it sizes the
 * spare to the least the kernel allows, and reads it too); a loader that
 * knows nothing of the array (xdp-loader, bench/cost) gets one shared map,
 * the layout before this one, and the program still runs its whole path.
 */
#ifdef FBF_TRANSPORT_RINGBUF
/* Sized in bytes by userspace (fbf_object.h). */
struct fbf_events_map {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, FBF_RING_DEFAULT_BYTES);
} events_spare SEC(".maps");
#else
/* Sized in events by userspace (fbf_object.h). */
struct fbf_events_map {
	__uint(type, BPF_MAP_TYPE_QUEUE);
	__uint(max_entries, FBF_DEFAULT_QUEUE_SIZE);
	__type(value, struct fbf_event);
} events_spare SEC(".maps");
#endif

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);	/* one per possible CPU: userspace creates it */
	__type(key, __u32);
	__array(values, struct fbf_events_map);
} events SEC(".maps");

/*
 * This CPU's event map, or NULL: send_to_map() is then called on
 * events_spare, at a call of its own. Not one call with either map in its
 * argument: the verifier calls a queue's push straight when each call site
 * sees one map, and through the map's ops, an indirect call that costs more
 * than the push (13 ns of 32 here), when a site may see two.
 */
static __always_inline void *events_map(void)
{
	__u32 cpu = bpf_get_smp_processor_id();

	return bpf_map_lookup_elem(&events, &cpu);
}

#ifdef FBF_TRANSPORT_RINGBUF
/*
 * Written in place: no copy, no lock held while it is filled in. Never the
 * kernel's own wake-up, which fires whenever the reader has caught up, that
 * is for every event to a fast reader: wake_reader() decides instead.
 */
static __always_inline int send_to_map(void *map, __u32 saddr, __u32 class_id, __u64 ktime_ns,
				       __u32 iface)
{
	struct fbf_event *ev = bpf_ringbuf_reserve(map, sizeof(*ev), 0);

	if (!ev)
		return -E2BIG;
	ev->ktime_ns = ktime_ns;
	ev->saddr = saddr;
	ev->class_id = class_id;
	ev->iface = iface;
	bpf_ringbuf_submit(ev, BPF_RB_NO_WAKEUP);
	return 0;
}
#else
static __always_inline int send_to_map(void *map, __u32 saddr, __u32 class_id, __u64 ktime_ns,
				       __u32 iface)
{
	struct fbf_event ev = {
		.ktime_ns = ktime_ns,
		.saddr = saddr,
		.class_id = class_id,
		.iface = iface,
	};

	/*
	 * int, not long: before 6.4 the verifier calls the queue's push, which
	 * returns int, straight from the program, and R0's upper half is then
	 * zero: -E2BIG reads back as 0x00000000fffffff9 (seen on 5.10 and 6.1).
	 * Built with -mcpu=v3, the caller's test is one 32-bit compare, right on all.
	 */
	int err = bpf_map_push_elem(map, &ev, 0);

	return err;
}
#endif

static __always_inline int send_event(__u32 saddr, __u32 class_id, __u64 ktime_ns, __u32 iface)
{
	void *map = events_map();
	int err;

	if (map)
		return send_to_map(map, saddr, class_id, ktime_ns, iface);
	err = send_to_map(&events_spare, saddr, class_id, ktime_ns, iface);
	/* Keeps clang from merging the two calls into one that takes either map. */
	asm volatile("" ::: "memory");
	return err;
}

/*
 * Waking the reader, the same for both transports. The agent reads while
 * events come and sleeps only after a quiet spell; it says so here first, in
 * its mapping of this variable, and no event wakes a reader that does not
 * sleep. The agent sets it; the program clears it when it rings. A sleeping
 * reader is woken through the doorbell, a ring of its own: its records say
 * nothing, a forced wake-up of its epoll is what it is for.
 */
volatile __u32 reader_asleep;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} doorbell SEC(".maps");

/*
 * Why no wake-up is lost. The reader stores reader_asleep = 1, then looks
 * at the events once more before it sleeps, in every CPU's map (and the
 * spare), whatever it knows of which hold events; the program publishes an
 * event in its CPU's map, then loads reader_asleep. Either the reader's look
 * at that map sees the event, or the program's load sees 1 and rings: never
 * neither, because each side has a full barrier between its store and its
 * load. One map or many changes nothing here: the argument is about the one
 * map the event went to, and the reader's look covers each.
 *  - Ring buffer: bpf_ringbuf_submit() clears the record's busy bit with an
 *    xchg, a fully ordered atomic, after reserve published producer_pos and
 *    before send_event() returns; the reader's barrier is a seq_cst fence.
 *  - Queue: the push and the reader's look (a pop of that queue) both take
 *    the queue's lock. If the pop held it first, its unlock and the push's
 *    lock order the reader's store before the program's load, which sees 1;
 *    if the push did, the pop finds the event.
 *
 * One ring per sleep, not one per event until the reader runs: a forced
 * wake-up is an irq_work interrupt, thousands of times an event's own cost
 * (make bench-macro's event parts), and a burst after a quiet spell would
 * pay it on every event for as long as the reader takes to wake. So the
 * program that rings clears the flag first. That loses nothing: every clear
 * is followed by a ring, which wakes the reader, and the reader sets the
 * flag again only through the look above. The clear comes before the ring,
 * never after: a late clear would undo the reader's next "asleep". The ring's
 * irq_work claim is a fully ordered atomic after the store. The few CPUs
 * that load 1 before the clear reaches them ring too; a full doorbell
 * rings no more, its unread records keeping the reader's epoll ready.
 */
static __always_inline void wake_reader(void)
{
	__u64 ring = 0;

	reader_asleep = 0;
	bpf_ringbuf_output(&doorbell, &ring, sizeof(ring), BPF_RB_FORCE_WAKEUP);
}

/*
 * What becomes of a classified frame, set by the agent before load: 1 in N
 * sends an event (--sample N; 1, the default, every one), and 0 sends none
 * and counts the frame per source instead (--aggregate, count_source()).
 * Read-only data, so the verifier knows the value and drops the code of
 * the two other ways as dead; one variable for both, read once, so that
 * what stays of either at the default is one load and no branch.
 */
const volatile __u32 sample_every = FBF_SAMPLE_DEFAULT;

/*
 * Whether to pass over this event: true for N - 1 events in N on each CPU.
 * A per-CPU countdown, not bpf_get_prandom_u32(): no helper call, no atomic
 * (the counters are this CPU's own), and exactly 1 in N on each CPU, so
 * produced + not_sampled adds up to the classes and the tests can count.
 * The price is bias on periodic traffic: a pattern whose period on one CPU
 * shares a factor with N (one source in every 16 frames, with N = 16) is
 * seen always or never, where a random draw would see it 1 time in N. RSS
 * spreading flows over CPUs breaks up most such patterns; choose an N prime
 * to a known period. The first event on each CPU is sent, so a quiet CPU
 * still shows up.
 */
static __always_inline int sample_skip(struct fbf_counters *cnt, __u32 every)
{
	if (every <= 1)
		return 0;
	if (cnt->sample_countdown) {
		cnt->sample_countdown--;
		/* After by_class, in the compiled code too: see struct fbf_counters. */
		asm volatile("" ::: "memory");
		cnt->not_sampled++;
		return 1;
	}
	cnt->sample_countdown = every - 1;
	return 0;
}

/*
 * The event's time: bpf_ktime_get_ns() for 1 event in FBF_STAMP_EVERY on each
 * CPU, and for the first event the reader is asleep for; 0, "not stamped",
 * for the rest. Why: the clock read cost more than the event it stamped
 * (event_parts: +30 ns on a TSC in a VM, the push +27), and what the time is
 * for is the event's age, classification to the agent's read, which is a
 * distribution: 1 in 64 events give its percentiles, as 1 in 64 did when
 * the agent alone sampled them. The first event after a quiet spell, which
 * waits for the reader's wake-up and is the oldest the agent reads, is always
 * stamped. What it gives up: a time on every event; an unstamped event falls
 * between the stamped ones before and after it from the same CPU. A per-CPU
 * countdown as sample_skip()'s, not a draw: exact, and no helper call.
 */
static __always_inline __u64 event_time(struct fbf_counters *cnt)
{
	if (cnt->stamp_countdown && !reader_asleep) {
		cnt->stamp_countdown--;
		return 0;
	}
	cnt->stamp_countdown = FBF_STAMP_EVERY - 1;
	return bpf_ktime_get_ns();
}

/*
 * Two generations of per-source counts, of which the program counts into
 * the one source_half names: a per-CPU hash of sources (sources_a for half
 * 0, sources_b for 1), and in front of it each CPU's hot sources, a
 * direct-mapped table of FBF_SOURCE_CACHE_SLOTS slots (source_cache, whose
 * first or second half it is). The run loads source_half once and takes the
 * table's half and the hash from that one value, so a run never pairs one
 * generation's table with the other's hash.
 *
 * Why the table: a frame counted in the hash costs a hash of the key, a walk
 * of its bucket and a per-CPU value, three lines of a map of megabytes that a
 * flood from thousands of sources keeps out of the cache, and that was as
 * much as the rest of the program and an event together. A slot is one
 * 16-byte line of a table of 64 KiB a CPU, which stays in its L2: a frame
 * whose source holds its slot costs an index, a compare and an add, and
 * touches the hash never.
 *
 * Exact: every frame is counted once, in its source's slot or in the hash,
 * and a slot's count goes to the hash when another source takes the slot
 * (spill_source()). A source takes a slot only once it has an entry in that
 * generation's hash, so a full hash bounds the sources of an interval, and a
 * frame with room in neither is no_room. Userspace takes a generation's
 * counts by naming the other, then updating sources, an array of maps, whose
 * update returns only after an RCU grace period (maybe_wait_bpf_programs()
 * in kernel/bpf/syscall.c, since 4.20): every run of the program is inside
 * one, so once the update returns no run counts into the generation named
 * before, and every later run sees the new name. Userspace then reads and
 * empties that table half and hash at leisure, with nobody writing
 * (lib/source_counts.c): no count is read twice, and none is lost between a
 * read and a clear. The program never reads sources: it is there for that
 * wait. Sized by userspace before load (1 entry each when not aggregating).
 */
struct fbf_sources_map {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);	/* the source address, host byte order */
	__type(value, __u64);	/* frames from it on this CPU */
} sources_a SEC(".maps"), sources_b SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct fbf_sources_map);
} sources SEC(".maps") = {
	.values = { &sources_a },
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);	/* 2 * FBF_SOURCE_CACHE_SLOTS under --aggregate (fbf_object.c) */
	__type(key, __u32);
	__type(value, struct fbf_source_slot);
} source_cache SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);	/* 0 or 1: the generation counted into */
} source_half SEC(".maps");

/*
 * A source's slot: the low 12 bits, folded with the high 16 so that sources
 * that differ only above a /20 spread too. The sources of one /20 (any 4,096
 * consecutive addresses) never share a slot, which is where a flood or a
 * busy subnet's clients come from; sources that do collide take the slot in
 * turns, each turn spilling to the hash, and cost about what a hash count did.
 */
static __always_inline __u32 source_slot(__u32 saddr)
{
	return (saddr ^ (saddr >> 16)) & (FBF_SOURCE_CACHE_SLOTS - 1);
}

/*
 * An entry for @saddr in the hash @map, 0 here and elsewhere if it had none:
 * 0, or -E2BIG when the map is full. -EEXIST means another CPU made it.
 */
static __always_inline int source_entry(void *map, __u32 saddr)
{
	__u64 zero = 0;
	int err;

	if (bpf_map_lookup_elem(map, &saddr))
		return 0;
	err = bpf_map_update_elem(map, &saddr, &zero, BPF_NOEXIST);
	return err == -EEXIST ? 0 : err;
}

/*
 * Add a slot's @packets from @saddr to its entry in @map, which the source
 * got in this generation before it took the slot. Were it gone (a hash
 * emptied by hand), it is made again, and if the hash is full the frames
 * move from aggregated to no_room, in that order (see struct fbf_counters: a
 * reader sees them in neither for a moment, never in both).
 */
static __always_inline void spill_source(struct fbf_counters *cnt, void *map, __u32 saddr,
					 __u64 packets)
{
	__u64 *count;

	if (source_entry(map, saddr) || !(count = bpf_map_lookup_elem(map, &saddr))) {
		cnt->aggregated -= packets;
		asm volatile("" ::: "memory");
		cnt->no_room += packets;
		return;
	}
	*count += packets;
}

/*
 * Count a frame from @saddr: in its slot if it holds it, else take the slot,
 * once the source has an entry in the hash, spilling what the slot held. A
 * hash with no room for the source, or none installed, counts the frame as
 * no_room, still under its class.
 */
static __always_inline void count_source(struct fbf_counters *cnt, __u32 saddr)
{
	struct fbf_source_slot *slot;
	__u32 key = 0, *half, gen;
	void *map;

	half = bpf_map_lookup_elem(&source_half, &key);
	if (!half)
		goto no_room; /* cannot happen: a one-entry array always has key 0 */
	gen = *half & 1;
	key = gen * FBF_SOURCE_CACHE_SLOTS + source_slot(saddr);
	slot = bpf_map_lookup_elem(&source_cache, &key);
	if (slot && slot->packets && slot->saddr == saddr) {
		slot->packets++;
		cnt->aggregated++;
		return;
	}
	/* The same generation's hash: from the value loaded once, above. */
	map = gen ? (void *)&sources_b : (void *)&sources_a;
	if (!slot || source_entry(map, saddr))
		goto no_room;
	cnt->aggregated++;
	if (slot->packets)
		spill_source(cnt, map, slot->saddr, slot->packets);
	slot->saddr = saddr;
	slot->packets = 1;
	return;
no_room:
	cnt->no_room++;
}

/*
 * The frame's slot: where it is, in read-only data or in the table, so that
 * the counters' key is no copy on the stack. NULL in a shared copy for an
 * interface the table does not name, which cannot happen: the agent fills
 * the entry before it attaches and empties it once the program is off.
 */
static __always_inline const __u32 *frame_slot(const struct xdp_md *ctx)
{
	struct fbf_iface_slot *e;
	__u32 key;

	if (!slot_by_ifindex)
		return (const __u32 *)&iface_slot;
	key = ctx->ingress_ifindex & slot_table_mask;
	e = bpf_map_lookup_elem(&iface_slots, &key);
	if (!e || e->ifindex != ctx->ingress_ifindex)
		return NULL;
	return &e->slot;
}

SEC("xdp")
int xdp_fizzbuzzfib(struct xdp_md *ctx)
{
	const __u32 *slot = frame_slot(ctx);
	struct fbf_counters *cnt;
	__u32 saddr = 0;
	__u32 class_id, every;
	int err;

	if (!slot)
		return XDP_PASS;
	cnt = bpf_map_lookup_elem(&counters, slot);
	if (!cnt)
		return XDP_PASS; /* cannot happen: the agent sizes the array for every slot */
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

	class_id = fbf_classify(saddr);
	if (class_id >= FBF_NR_CLASSES)
		return XDP_PASS; /* cannot happen; bounds the index for the verifier */
	cnt->by_class[class_id]++;
	if (class_id == FBF_NONE)
		return XDP_PASS;
	every = sample_every;
	if (every == FBF_SAMPLE_AGGREGATE) {
		count_source(cnt, saddr);
		return XDP_PASS;
	}
	if (sample_skip(cnt, every))
		return XDP_PASS;

	err = send_event(saddr, class_id, event_time(cnt), *slot);
	if (err == -E2BIG)
		cnt->queue_full++;
	else if (err)
		cnt->queue_busy++;
	else if (reader_asleep)
		wake_reader();
	return XDP_PASS;
}

/* The kernel reads this: the SPDX line above, in its words. */
char LICENSE[] SEC("license") = "Dual BSD/GPL";
