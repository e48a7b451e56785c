/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Userspace only: taking the per-source counts of --aggregate from the
 * program's two source maps and the two halves of its table of hot sources,
 * an interval at a time. The swap that makes this exact is argued beside the
 * maps, in xdp/fizzbuzzfib.bpf.c.
 */
#ifndef FBF_SOURCE_COUNTS_H
#define FBF_SOURCE_COUNTS_H

#include <linux/types.h>

struct fbf_object;
struct fbf_source_slot;

/* One source's frames over an interval, summed over the CPUs. */
struct fbf_source_count {
	__u32 saddr;	/* host byte order; its class is fbf_classify(saddr) */
	__u64 packets;
};

struct source_reader {
	int outer_fd;			/* an array of maps, updated to wait for a grace period */
	int map_fd[2];			/* the two generations' source maps */
	int cache_fd;			/* the table of hot sources, a half per generation */
	int half_fd;			/* which generation the program counts into */
	int half;			/* ... as this reader last set it */
	__u32 capacity;			/* sources a map holds */
	__u32 room;			/* counts[] and keys[]: capacity plus every CPU's slots */
	int nr_cpus;			/* possible CPUs: a lookup's values per key */
	__u32 *keys;			/* read buffers: a map's keys, or a half's slot numbers */
	__u64 *values;			/* a map's values, nr_cpus a key */
	struct fbf_source_slot *slots;	/* a half's slots, nr_cpus a slot */
	struct fbf_source_slot *zeros;	/* as many empty slots, to empty a half with */
	struct fbf_source_count *counts; /* the last interval, of source_reader_take() */
};

/*
 * Get ready to read @o's source maps, loaded with room for @capacity sources
 * each, and make sure the program counts into the first map and half. 0 or -errno.
 */
int source_reader_open(struct source_reader *r, const struct fbf_object *o, __u32 capacity);

/*
 * Name the other generation, so that the program counts there from now on,
 * then read and empty the table half and the map of the one named before:
 * r->counts[0..n), one per source, sorted by address. Returns n, or -errno
 * (after a failed read, what was swapped out may keep some counts: the next
 * take but one reads them). Takes at least an RCU grace period.
 */
long source_reader_take(struct source_reader *r);

/* Safe on one that failed to open, or never did. */
void source_reader_close(struct source_reader *r);

#endif /* FBF_SOURCE_COUNTS_H */
