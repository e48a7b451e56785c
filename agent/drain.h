/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Taking events from the program: the live loop, the final drain, for
 * either transport. drain_queue.c pops the queue map, drain_ring.c reads
 * the ring buffer; what they share (delivering an event, the checks the
 * clock calls for) is in drain.c.
 */
#ifndef AGENT_DRAIN_H
#define AGENT_DRAIN_H

#include <signal.h>
#include <stdbool.h>
#include <linux/types.h>

#include "fbf_object.h"
#include "output.h"

/* Queue: the idle back-off, first sleep and longest. Ring buffer with --wakeup-batch: the look. */
#define DRAIN_SLEEP_MIN_NS 50000ULL
#define DRAIN_SLEEP_MAX_NS 10000000ULL
/* How often the loops check the interface and the program on it, without link events. */
#define DRAIN_IFACE_CHECK_NS 1000000000ULL
/* A busy loop looks at the clock, signals and stdout once per this many events (a power of 2). */
#define DRAIN_BUSY_CHECK_EVENTS 1024

struct fbf_counters;
struct ifwatch;
struct event_ages;
struct ring_buffer;

struct drain {
	/* Set by the caller before drain_open(). */
	enum fbf_transport transport;
	int events_fd;
	__u32 wakeup_batch;		/* ring buffer: the program wakes the agent every N events */
	int wake_fd;			/* readable once a signal arrived; -1: none */
	struct ifwatch *watch;		/* the interface and the program on it */
	struct output out;
	__u64 count;			/* stop after this many events, 0: never */
	__u64 deadline_ns;		/* CLOCK_MONOTONIC, 0: none */
	__u64 stats_interval_ns;	/* running counters this often, 0: never */
	volatile sig_atomic_t *stop;	/* set by the signal handler */
	volatile sig_atomic_t *stats;	/* set by SIGUSR1: running counters now */
	__u64 next_stats_ns;		/* when the next running counters are due */
	struct event_ages *ages;	/* each event's age goes here, if not NULL */

	/* Results. */
	__u64 delivered;		/* events taken so far; read by metrics scrapes */
	int pop_err;			/* DRAIN_ERROR: the -errno of the read */

	/* The loops' own. */
	__u64 next_iface_check_ns;	/* CLOCK_MONOTONIC; 0: on link events only (ring) */
	struct ring_buffer *ring;	/* libbpf's reader of the ring buffer */
	int epoll_fd;			/* the ring, the link events and wake_fd */
	int ring_end;			/* why the ring's reader stopped early, -1: it did not */
};

enum drain_end {
	DRAIN_SIGNAL,		/* *stop was set */
	DRAIN_DEADLINE,		/* --duration elapsed */
	DRAIN_COUNT,		/* --count events taken */
	DRAIN_STATS,		/* running counters are due: print them and call again */
	DRAIN_OUTPUT_CLOSED,	/* the reader of stdout went away */
	DRAIN_OUTPUT_ERROR,	/* writing to stdout failed otherwise, see out.err */
	DRAIN_IFACE_GONE,	/* the interface no longer exists */
	DRAIN_IFACE_MOVED,	/* the interface went to another network namespace */
	DRAIN_PROG_REPLACED,	/* someone replaced or removed the program */
	DRAIN_ERROR,		/* reading an event failed unexpectedly, see pop_err */
};

/* Set up the transport's reader. 0 or -errno. */
int drain_open(struct drain *d);

/* Take and print events until one of the reasons to stop, or until running counters are due. */
enum drain_end drain_live(struct drain *d);

/* Take and print what is left, without waiting. Returns 0 or -errno of a failed read. */
int drain_rest(struct drain *d);

/* After the detach, how long to wait for runs of the program still under way. */
#define DRAIN_SETTLE_POLL_NS 1000000ULL
#define DRAIN_SETTLE_POLLS 100

/*
 * Once the program is detached: take what is left until the counters
 * account for every event produced, or DRAIN_SETTLE_POLLS ms have passed;
 * *c gets the counters last read. Returns 0, or -errno if the counters
 * cannot be read; a failed read of the events stops it early, with its
 * -errno in *read_err.
 */
int drain_settle(struct drain *d, int counters_fd, struct fbf_counters *c, int *read_err);

void drain_close(struct drain *d);

/* For the transports (drain_queue.c, drain_ring.c). */

/* Count, sample and print one event. */
void drain_deliver(struct drain *d, const struct fbf_event *ev);

/*
 * What the clock calls for, busy or idle: the deadline, running counters,
 * and the interface when a check is due. Returns a reason to leave the live
 * loop, or -1 to go on.
 */
int drain_timed_checks(struct drain *d, __u64 now);

/*
 * The reader has caught up: write out what was printed, then do what the
 * clock (read into *now) calls for. A reason to leave the live loop, or -1.
 */
int drain_caught_up(struct drain *d, __u64 *now);

/* The interface and the program on it, now: a reason to leave the live loop, or -1. */
int drain_iface_check(struct drain *d);

/* The end a failed write to stdout calls for. */
enum drain_end drain_output_end(const struct drain *d);

enum drain_end drain_queue_live(struct drain *d);
int drain_queue_rest(struct drain *d);

int drain_ring_open(struct drain *d);
enum drain_end drain_ring_live(struct drain *d);
int drain_ring_rest(struct drain *d);
void drain_ring_close(struct drain *d);

#endif /* AGENT_DRAIN_H */
