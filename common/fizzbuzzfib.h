/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The FizzBuzzFibonacci classifier and the data it shares between the XDP
 * program and userspace. This header is included unchanged by both sides,
 * so it uses only <linux/types.h> and nothing that needs libc or BPF helpers.
 */
#ifndef FIZZBUZZFIB_H
#define FIZZBUZZFIB_H

#include <linux/types.h>

/*
 * The classes, once: value, name in the event output, key in accounts (the
 * summary, JSON, metrics labels). Values are stable: they travel to
 * userspace and into logs.
 */
#define FBF_CLASSES(X)				\
	X(FBF_NONE, 0, "none", "none")		\
	X(FBF_FIZZ, 1, "Fizz", "fizz")		\
	X(FBF_BUZZ, 2, "Buzz", "buzz")		\
	X(FBF_FIZZBUZZ, 3, "FizzBuzz", "fizzbuzz")	\
	X(FBF_FIBONACCI, 4, "Fibonacci", "fibonacci")

enum fbf_class {
#define FBF_CLASS_ENUM(id, value, name, key) id = value,
	FBF_CLASSES(FBF_CLASS_ENUM)
#undef FBF_CLASS_ENUM
	FBF_NR_CLASSES,
};

/* "Fizz", ...: what the agent prints for an event. */
static inline const char *fbf_class_name(__u32 class_id)
{
	switch (class_id) {
#define FBF_CLASS_NAME(id, value, name, key) case id: return name;
	FBF_CLASSES(FBF_CLASS_NAME)
#undef FBF_CLASS_NAME
	default:
		return "invalid";
	}
}

/* "fizz", ...: a class's key in the summary, JSON and metrics labels. */
static inline const char *fbf_class_key(__u32 class_id)
{
	switch (class_id) {
#define FBF_CLASS_KEY(id, value, name, key) case id: return key;
	FBF_CLASSES(FBF_CLASS_KEY)
#undef FBF_CLASS_KEY
	default:
		return "invalid";
	}
}

/*
 * A constant table must sit in .rodata for libbpf: clang would put a 32-byte
 * one in a mergeable .rodata.cst32 section, which libbpf 1.1 cannot load.
 * In the XDP program .rodata is a read-only map the verifier knows.
 */
#ifdef __bpf__
#define FBF_RODATA __attribute__((section(".rodata")))
#else
#define FBF_RODATA
#endif

/*
 * True if the last octet of @addr (host byte order) is a Fibonacci number:
 * {0, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233}. The set is a 256-bit
 * bitmap, one 64-bit word per quarter of the octet range, so the test is one
 * load, a shift and a mask: no loop for the verifier to bound, no branch to
 * mispredict, the same cost for every address.
 */
static inline __u32 fbf_is_fibonacci(__u32 addr)
{
	static const __u64 fib_bitmap[4] FBF_RODATA = {
		/* 0 1 2 3 5 8 13 21 34 55 */
		(1ULL << 0) | (1ULL << 1) | (1ULL << 2) | (1ULL << 3) | (1ULL << 5) |
			(1ULL << 8) | (1ULL << 13) | (1ULL << 21) | (1ULL << 34) |
			(1ULL << 55),
		1ULL << (89 - 64),
		1ULL << (144 - 128),
		1ULL << (233 - 192),
	};
	__u32 octet = addr & 0xff;

	return (fib_bitmap[octet >> 6] >> (octet & 63)) & 1;
}

/*
 * True if an odd d divides @addr, given @inverse, d's inverse mod 2^32, and
 * @limit, (2^32 - 1) / d: the multiples of d are the numbers that the
 * multiplication by the inverse maps onto [0, limit] (Hacker's Delight,
 * 10-17). One 32-bit multiply and a compare, where addr % d is a division:
 * clang does not rewrite it for the BPF target, and the JIT emits a div,
 * some 10 to 40 cycles of x86 each, two for every classified address. The
 * limit is a constant, not (2^32 - 1) / d here: gcc reads that form as an
 * overflow check and emits a widening multiply.
 */
static inline __u32 fbf_divisible(__u32 addr, __u32 inverse, __u32 limit)
{
	return (__u32)(addr * inverse) <= limit;
}

/*
 * Classify an IPv4 source address in host byte order. Fibonacci takes
 * precedence; the FizzBuzz rules apply to the whole address.
 */
static inline enum fbf_class fbf_classify(__u32 addr)
{
	if (fbf_is_fibonacci(addr))
		return FBF_FIBONACCI;
	/*
	 * Bit 0 for "divisible by 3", bit 1 for "by 5": FBF_FIZZ, FBF_BUZZ or
	 * FBF_FIZZBUZZ. 0xaaaaaaab * 3 and 0xcccccccd * 5 are 1 mod 2^32.
	 */
	return (enum fbf_class)(fbf_divisible(addr, 0xaaaaaaabU, 0x55555555U) |
				(fbf_divisible(addr, 0xcccccccdU, 0x33333333U) << 1));
}

/*
 * One event in the queue map or the ring buffer: what was seen, and for 1 in
 * FBF_STAMP_EVERY on each CPU and the first after the reader slept, when
 * (xdp/fizzbuzzfib.bpf.c, event_time()). 16 bytes, no padding.
 */
struct fbf_event {
	__u64 ktime_ns;	/* CLOCK_MONOTONIC at classification, or 0: not stamped */
	__u32 saddr;	/* IPv4 source address, host byte order */
	__u16 class_id;	/* enum fbf_class, never FBF_NONE */
	__u16 iface;	/* the interface's slot (iface_slot in the program); 0 with one */
};

/*
 * Interfaces one agent can serve at once: slots in the counters map and
 * event's iface. An interface that goes frees its slot for the next.
 */
#define FBF_IFACE_SLOTS_MAX 4096

/*
 * An entry of the shared program's table of slots by ifindex (iface_slots
 * in xdp/fizzbuzzfib.bpf.c): at ifindex & mask, for a table of
 * FBF_SLOT_TABLE_PER_SLOT entries per slot, a power of two. 8 bytes.
 */
struct fbf_iface_slot {
	__u32 ifindex;	/* 0: empty */
	__u32 slot;
};

#define FBF_SLOT_TABLE_PER_SLOT 4

/*
 * Per-CPU counters, one struct per CPU in a per-CPU array, one entry per
 * interface the agent serves (fbf_counters_read() sums them). They
 * account for every frame and every event:
 *   packets  = non_ipv4 + malformed + sum(by_class[*])
 *   produced = sum(by_class[FBF_FIZZ..FBF_FIBONACCI]) - not_sampled
 *              - aggregated - no_room
 *   produced = delivered (read by userspace) + queue_full + queue_busy
 *              + events still in the queue or ring
 *   aggregated = counts read by userspace from the source maps
 *              + counts still in them
 *
 * The counters of what became of a classified frame (not_sampled,
 * aggregated, no_room) come before by_class, and the program counts a
 * frame's class before them: the kernel copies a CPU's struct in address
 * order, perhaps while the program runs there, so a reader may see a class
 * counted and its fate not yet, which reads as an event on its way (as
 * between by_class and the send), and on x86 never the reverse, which would
 * read as fewer events produced than delivered.
 */
struct fbf_counters {
	__u64 packets;			/* every frame the program ran on */
	__u64 not_sampled;		/* with 1-in-N sampling: events not sent, by design */
	__u64 aggregated;		/* --aggregate: counted in the source map, no event */
	__u64 no_room;			/* --aggregate: the source map was full, no event */
	__u64 by_class[FBF_NR_CLASSES];	/* IPv4 frames by class; FBF_NONE: not pushed */
	__u64 non_ipv4;			/* not IPv4: IPv6, ARP, 3+ VLAN tags */
	__u64 malformed;		/* truncated headers, IHL < 5, IP version != 4 */
	__u64 queue_full;		/* queue (-E2BIG) or ring full: event lost */
	__u64 queue_busy;		/* push failed for another reason (-EBUSY), event lost */
	/*
	 * Not a counter: the program's own state, events to pass over before
	 * the next one is sent (xdp/fizzbuzzfib.bpf.c, sample_skip()).
	 * Userspace sums it with the rest and reads it never.
	 */
	__u64 sample_countdown;
	/* Not a counter either: events to send unstamped before the next stamped one. */
	__u64 stamp_countdown;
};

/* 1 event in this many on each CPU carries its time (and each first after the reader slept). */
#define FBF_STAMP_EVERY 64

/* Classified frames: every IPv4 frame but a none, each of which makes an event or a count. */
static inline __u64 fbf_classified(const struct fbf_counters *c)
{
	return c->by_class[FBF_FIZZ] + c->by_class[FBF_BUZZ] + c->by_class[FBF_FIZZBUZZ] +
	       c->by_class[FBF_FIBONACCI];
}

/* Events produced so far: classified frames less those not sampled or counted instead. */
static inline __u64 fbf_events_produced(const struct fbf_counters *c)
{
	__u64 classified = fbf_classified(c);
	__u64 no_event = c->not_sampled + c->aggregated + c->no_room;

	/* Never below zero on x86 (see above); a wrap elsewhere would read as 2^64. */
	return classified > no_event ? classified - no_event : 0;
}

/*
 * Sampling: 1 event in N sent, N set at load time; 1, the default, sends
 * every event. The program's N of 0 sends none and counts per source
 * instead (--aggregate): one setting for what becomes of a classified frame.
 */
#define FBF_SAMPLE_DEFAULT 1U
#define FBF_SAMPLE_MAX (1U << 31)
#define FBF_SAMPLE_AGGREGATE 0U

/*
 * Aggregation (--aggregate): the program counts classified frames per
 * source address in a per-CPU hash of this many sources, unless userspace
 * sets another size at load time, and sends no event. The key is the
 * address alone: its class is fbf_classify() of it, so userspace derives it
 * and the map holds no second copy. Each count is the frames of one
 * source on one CPU since userspace last took the map.
 */
#define FBF_AGGREGATE_DEFAULT_SOURCES 65536U

/*
 * In front of the hash, each CPU counts its hot sources in a direct-mapped
 * table of this many slots, in each of two halves (xdp/fizzbuzzfib.bpf.c,
 * count_source()); userspace reads a half's slots with the hash. A power of
 * two: a slot is a mask of the address.
 */
#define FBF_SOURCE_CACHE_SLOTS 4096U

/* One slot of that table, on one CPU. 16 bytes, no padding. */
struct fbf_source_slot {
	__u32 saddr;	/* host byte order; the slot is empty while packets is 0 */
	__u32 unused;
	__u64 packets;	/* frames from saddr on this CPU, not yet in the hash */
};

/* Events lost: to a full queue or ring, or to a contended queue. */
static inline __u64 fbf_events_lost(const struct fbf_counters *c)
{
	return c->queue_full + c->queue_busy;
}

/* Events produced and not yet read (@delivered of them were) or lost: still in the maps. */
static inline __u64 fbf_events_queued(const struct fbf_counters *c, __u64 delivered)
{
	__u64 produced = fbf_events_produced(c), accounted = delivered + fbf_events_lost(c);

	return produced > accounted ? produced - accounted : 0;
}

/* The queue holds this many events unless userspace sets another size at load time. */
#define FBF_DEFAULT_QUEUE_SIZE 4096

/*
 * A ring buffer record: the kernel's 8-byte header and the event, 8-byte
 * aligned. A ring is sized to hold the queue's number of events, rounded up
 * to a power-of-two number of pages as the kernel requires: by default 4096
 * events of 24 bytes in 32 pages of 4 KiB.
 */
#define FBF_RING_RECORD_BYTES (8 + ((sizeof(struct fbf_event) + 7) & ~7UL))
#define FBF_RING_DEFAULT_BYTES (128 * 1024)

/* Kernel name of the XDP program (at most 15 characters): how the agent knows its own. */
#define FBF_PROG_NAME "xdp_fizzbuzzfib"

#endif /* FIZZBUZZFIB_H */
