/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * How long events waited in the queue or ring before the agent read them: a
 * histogram the drain loop writes and metrics scrapes read
 * (fizzbuzzfib_event_age_seconds).
 */
#ifndef AGENT_EVENT_AGES_H
#define AGENT_EVENT_AGES_H

#include <linux/types.h>

/* Upper bounds of the event age histogram's buckets, in ns; +Inf follows. */
#define METRICS_AGE_BUCKETS 8
extern const __u64 metrics_age_bounds_ns[METRICS_AGE_BUCKETS];

/* Written by the drain loop only; read by scrapes. */
struct event_ages {
	__u64 le[METRICS_AGE_BUCKETS];	/* events no older than each bound, not cumulative */
	__u64 count;
	__u64 sum_ns;
};

/* Record one event's age: the drain loop's side, a few plain stores. It samples. */
void event_ages_observe(struct event_ages *a, __u64 age_ns);

#endif /* AGENT_EVENT_AGES_H */
