/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --aggregate: every interval, take the per-source counts from the kernel
 * and send the interval's totals per class and its top sources per class
 * where events would go: every sink, as one record each.
 */
#ifndef AGENT_AGGREGATE_H
#define AGENT_AGGREGATE_H

#include <linux/types.h>

#include "fizzbuzzfib.h"
#include "source_counts.h"

struct fbf_object;
struct event_sink;

/* Most top sources shown per class (--top). */
#define AGGREGATE_TOP_MAX 1000U
#define AGGREGATE_TOP_DEFAULT 5

/* The last interval, for metrics scrapes: written with relaxed atomic stores, read alike. */
struct aggregate_figures {
	__u64 intervals;		/* taken so far */
	__u64 read;			/* frames read, over all intervals */
	__u64 sources;			/* sources in the last interval */
	__u64 packets[FBF_NR_CLASSES];	/* frames of each class in the last interval */
};

struct aggregate {
	struct source_reader reader;
	__u32 top;				/* sources shown per class */
	struct fbf_source_count *best[FBF_NR_CLASSES]; /* this interval's top, best first */
	__u32 nr_best[FBF_NR_CLASSES];
	__u64 last_take_ns;			/* CLOCK_MONOTONIC */
	__u64 no_room_seen;			/* the counters' no_room at the last take */
	struct aggregate_figures figures;
};

/*
 * Get ready to take @o's counts, loaded with room for @max_sources, showing
 * @top sources per class. 0 or -errno.
 */
int aggregate_open(struct aggregate *ag, const struct fbf_object *o, __u32 max_sources,
		   __u32 top, __u64 now_ns);

/*
 * Take the interval's counts from the kernel and send them to @sink's sinks. 0, or
 * AGENT_EXIT_FAILURE after saying why.
 */
int aggregate_report(struct aggregate *ag, int counters_fd, struct event_sink *sink);

/* Safe on one that failed to open, or never did. */
void aggregate_close(struct aggregate *ag);

#endif /* AGENT_AGGREGATE_H */
