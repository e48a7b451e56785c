// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What both transports do with an event, the checks the clock calls for,
 * and the drain after the detach: see drain.h.
 *
 * The last drain follows the detach, so every event produced is either
 * delivered or counted as lost. But a detach does not wait for runs of the
 * program already under way on other CPUs (there is no RCU grace period in
 * it, and generic XDP runs in any CPU's softirq): one may count an event
 * and send it just after the queue looked empty, and a ring's reader stops
 * at a record still being written. So while the counters show more events
 * produced than delivered or lost, the agent waits a millisecond and reads
 * again; such a run ends within microseconds.
 */
#include <errno.h>
#include <time.h>

#include "fizzbuzzfib.h"
#include "counters_read.h"
#include "drain.h"
#include "ifwatch.h"
#include "metrics.h"
#include "userspace_util.h"

/* The event age histogram observes one event in this many (a power of 2). */
#define AGE_SAMPLE_EVERY 16

void drain_deliver(struct drain *d, const struct fbf_event *ev)
{
	/* One writer: a relaxed store is what a scrape on another thread needs. */
	__atomic_store_n(&d->delivered, d->delivered + 1, __ATOMIC_RELAXED);
	/* One event in AGE_SAMPLE_EVERY: a clock read per event cost 5-9% of the drain rate. */
	if (d->ages && !(d->delivered & (AGE_SAMPLE_EVERY - 1)))
		event_ages_observe(d->ages, fbf_monotonic_ns() - ev->ktime_ns);
	output_event(&d->out, ev);
}

/* A closed pipe ends the run like a signal (SIGPIPE is ignored for that). */
enum drain_end drain_output_end(const struct drain *d)
{
	return d->out.err == EPIPE ? DRAIN_OUTPUT_CLOSED : DRAIN_OUTPUT_ERROR;
}

int drain_iface_check(struct drain *d)
{
	switch (ifwatch_check(d->watch)) {
	case IFWATCH_OK:
		return -1;
	case IFWATCH_GONE:
		return DRAIN_IFACE_GONE;
	case IFWATCH_MOVED:
		return DRAIN_IFACE_MOVED;
	case IFWATCH_REPLACED:
	default:
		return DRAIN_PROG_REPLACED;
	}
}

int drain_timed_checks(struct drain *d, __u64 now)
{
	int end;

	if (d->deadline_ns && now >= d->deadline_ns)
		return DRAIN_DEADLINE;
	if (*d->stats || (d->stats_interval_ns && now >= d->next_stats_ns)) {
		*d->stats = 0;
		if (d->stats_interval_ns)
			d->next_stats_ns = now + d->stats_interval_ns;
		return DRAIN_STATS;
	}
	if (d->watch && d->next_iface_check_ns && now >= d->next_iface_check_ns) {
		end = drain_iface_check(d);
		if (end >= 0)
			return end;
		d->next_iface_check_ns = now + DRAIN_IFACE_CHECK_NS;
	}
	return -1;
}

int drain_caught_up(struct drain *d, __u64 *now)
{
	output_flush(&d->out);
	if (d->out.err)
		return drain_output_end(d);
	*now = fbf_monotonic_ns();
	return drain_timed_checks(d, *now);
}

int drain_open(struct drain *d)
{
	d->epoll_fd = -1;
	d->ring_end = -1;
	/* The first check at once; the ring buffer's loop may make it event-driven. */
	d->next_iface_check_ns = 1;
	return d->transport == FBF_TRANSPORT_RINGBUF ? drain_ring_open(d) : 0;
}

enum drain_end drain_live(struct drain *d)
{
	return d->transport == FBF_TRANSPORT_RINGBUF ? drain_ring_live(d) : drain_queue_live(d);
}

int drain_rest(struct drain *d)
{
	int err;

	err = d->transport == FBF_TRANSPORT_RINGBUF ? drain_ring_rest(d) : drain_queue_rest(d);
	output_flush(&d->out);
	return err;
}

int drain_settle(struct drain *d, int counters_fd, struct fbf_counters *c, int *read_err)
{
	struct timespec poll = { .tv_nsec = DRAIN_SETTLE_POLL_NS };
	int polls, err;

	*read_err = 0;
	for (polls = 0;; polls++) {
		*read_err = drain_rest(d);
		err = fbf_counters_read(counters_fd, c);
		if (err)
			return err;
		if (*read_err || polls == DRAIN_SETTLE_POLLS ||
		    fbf_events_produced(c) <= d->delivered + fbf_events_lost(c))
			return 0;
		nanosleep(&poll, NULL);
	}
}

void drain_close(struct drain *d)
{
	if (d->transport == FBF_TRANSPORT_RINGBUF)
		drain_ring_close(d);
}
