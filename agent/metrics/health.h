/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What /healthz and /readyz answer, as probes ask: is the drain loop going
 * round, and is everything selected served. The drain's thread publishes
 * (health_beat()) each time its loop comes round, at least every
 * HEALTH_BEAT_NS while metrics are served; the metrics thread reads.
 */
#ifndef AGENT_HEALTH_H
#define AGENT_HEALTH_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "sinks/event_sink.h"

/* How often the loop comes round for the health endpoints, however quiet. */
#define HEALTH_BEAT_NS 1000000000ULL
/* A loop not round for this long is stalled: ten beats, room for a slow host. */
#define HEALTH_STALE_NS (10 * HEALTH_BEAT_NS)

/* Its lock set up with PTHREAD_MUTEX_INITIALIZER; ready once beaten. */
struct health {
	__u64 round_ns;		/* CLOCK_MONOTONIC of the loop's last round; atomic */
	unsigned int unattached; /* selected interfaces here without the program; atomic */
	bool none;		/* no interface selected yet (patterns that wait); atomic */
	pthread_mutex_t lock;
	char why[192];		/* under lock: what unattached means, one line */
};

/* The loop's wake-up interval: a beat, or the service manager's watchdog's if sooner. */
__u64 health_interval_ns(__u64 watchdog_ns);

/*
 * The drain's thread, each round: now, and @unattached interfaces, said in
 * @why; @none: no interface is selected yet, which is ready (the agent
 * waits for those to come, as asked), and said so.
 */
void health_beat(struct health *h, unsigned int unattached, bool none, const char *why);

/* For the metrics thread: the loop's last round, in seconds since the epoch. */
double health_round_time(const struct health *h);

/* /healthz: 200 or 503, and one line of why in @buf. */
unsigned int health_live(const struct health *h, char *buf, size_t size);

/* /readyz: 200 or 503, and one line of why in @buf; @sinks: the outputs. */
unsigned int health_ready(struct health *h, const struct event_sink *sinks, char *buf,
			  size_t size);

#endif /* AGENT_HEALTH_H */
