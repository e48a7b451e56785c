// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The ring buffer is read in place through libbpf's ring_buffer: no syscall
 * per event, and while it is empty the agent sleeps in epoll_wait until the
 * program wakes it. Link events (ifwatch.h) and signals (wake_fd) wake it
 * too, so an idle agent with no deadline and no running counters due has no
 * timer at all. With --wakeup-batch the program wakes it only every N events
 * or when the ring is half full, so it also looks every DRAIN_SLEEP_MAX_NS
 * for the events in between.
 */
#include <errno.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <bpf/libbpf.h>

#include "fizzbuzzfib.h"
#include "drain.h"
#include "ifwatch.h"
#include "userspace_util.h"

/* What woke the agent, in epoll_event.data.u32. */
enum ring_wake {
	WAKE_RING,
	WAKE_LINK,
	WAKE_SIGNAL,
};

/* The reader's return value that stops ring_buffer__consume(); the reason is in ring_end. */
#define RING_STOPPED (-ECANCELED)
/* ring_end while drain_rest() runs: take everything, stop for nothing. */
#define DRAIN_RING_RESTING (-2)

static int ring_event(void *ctx, void *data, size_t size)
{
	struct drain *d = ctx;
	int end;

	(void)size; /* the program submits whole events only */
	drain_deliver(d, data);
	if (d->ring_end == DRAIN_RING_RESTING)
		return 0;
	if (d->count && d->delivered >= d->count) {
		d->ring_end = DRAIN_COUNT;
		return RING_STOPPED;
	}
	/* Under a flood ring_buffer__consume() never returns: the busy checks are here. */
	if (d->delivered & (DRAIN_BUSY_CHECK_EVENTS - 1))
		return 0;
	if (*d->stop)
		end = DRAIN_SIGNAL;
	else if (d->out.err)
		end = drain_output_end(d);
	else
		end = drain_timed_checks(d, fbf_monotonic_ns());
	if (end < 0)
		return 0;
	d->ring_end = end;
	return RING_STOPPED;
}

static int epoll_add(int epoll_fd, int fd, enum ring_wake what)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = what };

	return epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

int drain_ring_open(struct drain *d)
{
	int err;

	d->ring = ring_buffer__new(d->events_fd, ring_event, d, NULL);
	if (!d->ring)
		return -errno;
	d->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (d->epoll_fd < 0)
		return -errno;
	err = epoll_add(d->epoll_fd, ring_buffer__epoll_fd(d->ring), WAKE_RING);
	if (!err && d->wake_fd >= 0)
		err = epoll_add(d->epoll_fd, d->wake_fd, WAKE_SIGNAL);
	if (err)
		return err;
	/* With link events the interface is checked when something happens to a link, only. */
	if (d->watch && d->watch->nl_fd >= 0 &&
	    !epoll_add(d->epoll_fd, d->watch->nl_fd, WAKE_LINK))
		d->next_iface_check_ns = 0;
	return 0;
}

/* Until the next thing the clock calls for, in ms rounded up (early would spin); -1: none. */
static int ring_timeout_ms(const struct drain *d, __u64 now)
{
	__u64 wait_ns = ~0ULL;

	if (d->wakeup_batch)
		wait_ns = DRAIN_SLEEP_MAX_NS;
	/* drain_timed_checks() has just seen that none of these is due yet. */
	if (d->next_iface_check_ns && d->next_iface_check_ns - now < wait_ns)
		wait_ns = d->next_iface_check_ns - now;
	if (d->stats_interval_ns && d->next_stats_ns - now < wait_ns)
		wait_ns = d->next_stats_ns - now;
	if (d->deadline_ns && d->deadline_ns - now < wait_ns)
		wait_ns = d->deadline_ns - now;
	if (wait_ns == ~0ULL)
		return -1;
	return (wait_ns + 999999) / 1000000;
}

enum drain_end drain_ring_live(struct drain *d)
{
	struct epoll_event events[3];
	__u64 now, signals;
	int i, n, err, end;

	for (;;) {
		if (*d->stop)
			return DRAIN_SIGNAL;
		d->ring_end = -1;
		err = ring_buffer__consume(d->ring);
		if (d->ring_end >= 0)
			return d->ring_end;
		if (err < 0) {
			d->pop_err = err;
			return DRAIN_ERROR;
		}

		/* Caught up: show what we have, then wait. */
		end = drain_caught_up(d, &now);
		if (end >= 0)
			return end;
		n = epoll_wait(d->epoll_fd, events, 3, ring_timeout_ms(d, now));
		if (n < 0 && errno != EINTR) {
			d->pop_err = -errno;
			return DRAIN_ERROR;
		}
		for (i = 0; i < n; i++) {
			if (events[i].data.u32 == WAKE_SIGNAL) {
				/* Only to wake up: the handler set the flag the loop reads. */
				if (read(d->wake_fd, &signals, sizeof(signals)) < 0)
					continue;
			} else if (events[i].data.u32 == WAKE_LINK) {
				end = drain_iface_check(d);
				if (end >= 0)
					return end;
			}
		}
	}
}

int drain_ring_rest(struct drain *d)
{
	int err;

	/* drain_open() failed and said so: the summary tells what is left. */
	if (!d->ring)
		return 0;
	d->ring_end = DRAIN_RING_RESTING;
	err = ring_buffer__consume(d->ring);
	d->ring_end = -1;
	return err < 0 ? err : 0;
}

void drain_ring_close(struct drain *d)
{
	ring_buffer__free(d->ring);
	d->ring = NULL;
	if (d->epoll_fd >= 0)
		close(d->epoll_fd);
	d->epoll_fd = -1;
}
