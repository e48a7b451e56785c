// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A queue map has no batch pop and no way to wait for data, so the agent
 * pops one event per syscall while there are any and sleeps with an
 * exponential back-off while there are none: a busy queue is drained at
 * syscall speed, an idle agent wakes at most a hundred times a second.
 * stdout is flushed each time the queue runs empty, and a failed write is
 * acted on every DRAIN_BUSY_CHECK_EVENTS events, so a closed pipe stops the
 * agent even under a flood that never empties the queue.
 */
#include <errno.h>
#include <time.h>
#include <bpf/bpf.h>

#include "fizzbuzzfib.h"
#include "drain.h"
#include "userspace_util.h"

/* 0: got one; -ENOENT: empty; -EBUSY: lock contended, try again; other: failure. */
static int event_pop(struct drain *d)
{
	/*
	 * Zeroed, though the kernel fills it: Valgrind 3.19 does not always see
	 * the bpf syscall's write into it, and two stores cost nothing beside it.
	 */
	struct fbf_event ev = {};

	if (bpf_map_lookup_and_delete_elem(d->events_fd, NULL, &ev))
		return -errno;
	drain_deliver(d, &ev);
	return 0;
}

enum drain_end drain_queue_live(struct drain *d)
{
	__u64 sleep_ns = DRAIN_SLEEP_MIN_NS, now;
	struct timespec ts;
	int err, end;

	for (;;) {
		if (*d->stop)
			return DRAIN_SIGNAL;

		err = event_pop(d);
		if (!err) {
			if (d->count && d->delivered >= d->count)
				return DRAIN_COUNT;
			sleep_ns = DRAIN_SLEEP_MIN_NS;
			/* A steady stream never reaches the idle path: check here too. */
			if (d->delivered & (DRAIN_BUSY_CHECK_EVENTS - 1))
				continue;
			if (d->out.err)
				return drain_output_end(d);
			end = drain_timed_checks(d, fbf_monotonic_ns());
			if (end >= 0)
				return end;
			continue;
		}
		if (err != -ENOENT && err != -EBUSY) {
			d->pop_err = err;
			return DRAIN_ERROR;
		}

		/* Empty: show what we have, then sleep. */
		end = drain_caught_up(d, &now);
		if (end >= 0)
			return end;
		if (d->stats_interval_ns && d->next_stats_ns - now < sleep_ns)
			sleep_ns = d->next_stats_ns - now;
		if (d->deadline_ns && d->deadline_ns - now < sleep_ns)
			sleep_ns = d->deadline_ns - now;
		ts.tv_sec = sleep_ns / 1000000000ULL;
		ts.tv_nsec = sleep_ns % 1000000000ULL;
		nanosleep(&ts, NULL); /* EINTR: a signal, seen at the top of the loop */
		sleep_ns = sleep_ns * 2 > DRAIN_SLEEP_MAX_NS ? DRAIN_SLEEP_MAX_NS : sleep_ns * 2;
	}
}

int drain_queue_rest(struct drain *d)
{
	int err;

	do
		err = event_pop(d);
	while (!err || err == -EBUSY);
	return err == -ENOENT ? 0 : err;
}
