// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * While events come, the loop reads them without being woken: the program
 * submits each without a wake-up, and the loop, caught up, polls (drain.h).
 * Only after a quiet spell does it set the program's reader_asleep, look once
 * more, and sleep until the program rings the doorbell (xdp/fizzbuzzfib.bpf.c
 * says why no ring can be missed). So the program pays for no wake-up while
 * the agent reads, and an idle agent wakes only for its own timers.
 *
 * The last drain follows the detach, so every event produced is delivered or
 * counted lost. But a detach does not wait for runs of the program under way
 * on other CPUs (no RCU grace period; generic XDP runs in any CPU's softirq):
 * one may send an event just after the queue looked empty, and a ring's
 * reader stops at a record still being written. Hence drain_settle()'s
 * polls (drain.h); such a run ends within microseconds.
 */
#include <errno.h>
#include <poll.h>
#include <time.h>

#include "fizzbuzzfib.h"
#include "counters_read.h"
#include "loop/drain.h"
#include "userspace_util.h"

/* The last drain reads in batches of this many; a stop signal since it began ends it between. */
#define DRAIN_REST_BATCH 65536

/* stdout failed: a closed pipe ends the run like a signal (SIGPIPE is ignored for that). */
static enum drain_end drain_output_end(int err)
{
	return err == EPIPE ? DRAIN_OUTPUT_CLOSED : DRAIN_OUTPUT_ERROR;
}

/*
 * What the clock calls for, busy or idle: the deadline, running counters,
 * and link events in a flood. A reason to leave the loop, or -1.
 */
static int drain_timed_checks(struct drain *d, __u64 now)
{
	if (d->deadline_ns && now >= d->deadline_ns)
		return DRAIN_DEADLINE;
	if (*d->stats || (d->stats_interval_ns && now >= d->next_stats_ns)) {
		*d->stats = 0;
		d->next_stats_ns = now + d->stats_interval_ns;
		return DRAIN_STATS;
	}
	if (d->aggregate_interval_ns && now >= d->next_aggregate_ns) {
		/* From the due time, not from now: intervals do not drift by the loop's delays. */
		d->next_aggregate_ns += d->aggregate_interval_ns;
		if (d->next_aggregate_ns <= now)
			d->next_aggregate_ns = now + d->aggregate_interval_ns;
		return DRAIN_AGGREGATE;
	}
	/* Only a loop that goes round says it is alive: a stuck one is restarted. */
	if (d->watchdog_interval_ns && now >= d->next_watchdog_ns) {
		d->next_watchdog_ns = now + d->watchdog_interval_ns;
		return DRAIN_WATCHDOG;
	}
	if (d->links_due_ns && now >= d->links_due_ns) {
		d->links_due_ns = 0;
		return DRAIN_LINKS;
	}
	/* A flood never lets the loop wait: interfaces that come meanwhile are looked for. */
	if (d->links_fd >= 0 && now >= d->next_links_check_ns) {
		struct pollfd p = { .fd = d->links_fd, .events = POLLIN };

		d->next_links_check_ns = now + DRAIN_LINKS_CHECK_NS;
		if (poll(&p, 1, 0) > 0)
			return DRAIN_LINKS;
	}
	return -1;
}

/* How long until the next thing the clock calls for, none of which is due yet; -1: none. */
static long long drain_until_due(const struct drain *d, __u64 now)
{
	__u64 wait_ns = ~0ULL;

	if (d->stats_interval_ns && d->next_stats_ns - now < wait_ns)
		wait_ns = d->next_stats_ns - now;
	if (d->aggregate_interval_ns && d->next_aggregate_ns - now < wait_ns)
		wait_ns = d->next_aggregate_ns - now;
	if (d->deadline_ns && d->deadline_ns - now < wait_ns)
		wait_ns = d->deadline_ns - now;
	if (d->watchdog_interval_ns && d->next_watchdog_ns - now < wait_ns)
		wait_ns = d->next_watchdog_ns - now;
	if (d->links_due_ns && d->links_due_ns - now < wait_ns)
		wait_ns = d->links_due_ns - now;
	return wait_ns == ~0ULL ? -1 : (long long)wait_ns;
}

/* The time since the last look at the transport, or the last wait's end, is a gap. */
static void drain_gap_note(struct drain *d, __u64 now)
{
	if (d->looked_ns && now - d->looked_ns > d->gap_max_ns)
		__atomic_store_n(&d->gap_max_ns, now - d->looked_ns, __ATOMIC_RELAXED);
}

/* At most one busy batch, and no more than --count still wants: how many, or -errno. */
static long drain_read(struct drain *d)
{
	__u64 max = DRAIN_BUSY_CHECK_EVENTS;

	if (d->count && d->count - d->sink->delivered < max)
		max = d->count - d->sink->delivered;
	return transport_read(&d->t, max);
}

/*
 * Caught up, with nothing due before @now: wait for more, polling while
 * events have been coming, asleep after a quiet spell. A reason to leave
 * the loop, or -1.
 */
static int drain_wait(struct drain *d, __u64 now)
{
	long long timeout_ns = drain_until_due(d, now);
	long taken = 0;
	int woke = 0;

	if (d->poll_ns <= DRAIN_POLL_MAX_NS) {
		if (timeout_ns < 0 || timeout_ns > d->poll_ns)
			timeout_ns = d->poll_ns;
		d->poll_ns *= 2;
		woke = wakeups_wait(&d->w, timeout_ns);
	} else {
		*d->reader_asleep = 1;
		/*
		 * The reader's half of the barrier pair that wake_reader() in the
		 * program describes: the store above is visible to every CPU
		 * before the look below loads anything.
		 */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		taken = drain_read(d);
		if (!taken)
			woke = wakeups_wait(&d->w, timeout_ns);
		*d->reader_asleep = 0;
		if (taken || (woke & WAKEUP_DOORBELL))
			d->poll_ns = DRAIN_POLL_MIN_NS;
	}
	if (taken < 0 || woke < 0) {
		d->pop_err = taken < 0 ? taken : woke;
		return DRAIN_ERROR;
	}
	/* Waiting is no gap: the next one is counted from here. */
	d->looked_ns = fbf_monotonic_ns();
	return woke & WAKEUP_LINK ? DRAIN_LINKS : -1;
}

int drain_open(struct drain *d)
{
	int err;

	d->poll_ns = DRAIN_POLL_MIN_NS;
	d->next_watchdog_ns = fbf_monotonic_ns();
	err = transport_open(&d->t, d->transport, d->events_fd, d->spare_fd, d->sink);
	return err ?: wakeups_open(&d->w, d->doorbell_fd, d->wake_fd, d->links_fd);
}

enum drain_end drain_live(struct drain *d)
{
	int end, err;
	__u64 now;
	bool busy;
	long n;

	for (;;) {
		if (*d->stop)
			return DRAIN_SIGNAL;
		if (d->reopen && *d->reopen) {
			*d->reopen = 0;
			event_sink_reopen(d->sink);
		}
		drain_gap_note(d, fbf_monotonic_ns());
		n = drain_read(d);
		if (n < 0) {
			d->pop_err = n;
			return DRAIN_ERROR;
		}
		if (d->count && d->sink->delivered >= d->count)
			return DRAIN_COUNT;
		if (n) /* events came: poll soon if they stop */
			d->poll_ns = DRAIN_POLL_MIN_NS;
		/*
		 * Caught up: show what we have, do what the clock calls for, then
		 * wait. Not caught up: no flush and no wait, only what a flood must
		 * not hide.
		 */
		busy = n == DRAIN_BUSY_CHECK_EVENTS;
		if (!busy) {
			/* Every event read before is printed: the link thread may give slots. */
			__atomic_store_n(&d->caught_up, d->caught_up + 1, __ATOMIC_RELEASE);
			event_sink_flush(d->sink);
		}
		err = event_sink_end_err(d->sink);
		if (err)
			return drain_output_end(err);
		now = fbf_monotonic_ns();
		d->looked_ns = now;
		end = drain_timed_checks(d, now);
		if (end < 0 && !busy)
			end = drain_wait(d, now);
		if (end >= 0)
			return end;
	}
}

/* Take and print what is left, without waiting. 0 or -errno of a failed read. */
static int drain_rest(struct drain *d)
{
	long n = 0;

	/* drain_open() failed and said so: the summary tells what is left. */
	while (d->t.ops && !d->abandoned) {
		n = transport_read(&d->t, DRAIN_REST_BATCH);
		if (n < DRAIN_REST_BATCH)
			break;
		d->abandoned = *d->stops > d->stops_before_rest;
	}
	event_sink_flush(d->sink);
	return n < 0 ? n : 0;
}

int drain_settle(struct drain *d, int counters_fd, struct fbf_counters *c, int *read_err)
{
	struct timespec poll = { .tv_nsec = DRAIN_SETTLE_POLL_NS };
	int polls, err;

	d->stops_before_rest = *d->stops;
	for (polls = 0;; polls++) {
		*read_err = drain_rest(d);
		err = fbf_counters_read(counters_fd, c);
		if (err)
			return err;
		if (*read_err || polls == DRAIN_SETTLE_POLLS || d->abandoned ||
		    !fbf_events_queued(c, d->sink->delivered))
			return 0;
		nanosleep(&poll, NULL);
	}
}

void drain_close(struct drain *d)
{
	transport_close(&d->t);
	wakeups_close(&d->w);
}
