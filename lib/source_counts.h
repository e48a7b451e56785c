/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Userspace only: taking the per-source counts of --aggregate from the
 * program's two source maps, an interval at a time. The swap that makes
 * this exact is argued beside the maps, in xdp/fizzbuzzfib.bpf.c.
 */
#ifndef FBF_SOURCE_COUNTS_H
#define FBF_SOURCE_COUNTS_H

#include <linux/types.h>

struct fbf_object;

/* One source's frames over an interval, summed over the CPUs. */
struct fbf_source_count {
	__u32 saddr;	/* host byte order; its class is fbf_classify(saddr) */
	__u64 packets;
};

struct source_reader {
	int outer_fd;			/* the array of maps: sources[0] is counted into */
	int map_fd[2];			/* the two source maps */
	int counting;			/* which of them is in sources[0] */
	__u32 capacity;			/* sources a map holds */
	int nr_cpus;			/* possible CPUs: a lookup's values per key */
	__u32 *keys;			/* read buffers, of capacity entries */
	__u64 *values;			/* ... times nr_cpus */
	struct fbf_source_count *counts; /* the last interval, of source_reader_take() */
};

/*
 * Get ready to read @o's source maps, loaded with room for @capacity sources
 * each, and make sure the program counts into the first. 0 or -errno.
 */
int source_reader_open(struct source_reader *r, const struct fbf_object *o, __u32 capacity);

/*
 * Swap the other map in, so that the program counts there from now on, then
 * read and empty the one swapped out: r->counts[0..n). Returns n, or -errno
 * (after a failed read, the map swapped out may keep some counts: the
 * next take but one reads them). Takes at least an RCU grace period.
 */
long source_reader_take(struct source_reader *r);

/* Safe on one that failed to open, or never did. */
void source_reader_close(struct source_reader *r);

#endif /* FBF_SOURCE_COUNTS_H */
