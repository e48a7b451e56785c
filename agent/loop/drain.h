/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Taking events from the program: the live loop and the final drain, the
 * same for both transports (transport.h reads, wakeups.h sleeps).
 */
#ifndef AGENT_DRAIN_H
#define AGENT_DRAIN_H

#include <signal.h>
#include <stdbool.h>
#include <linux/types.h>

#include "sinks/event_sink.h"
#include "fbf_transport.h"
#include "transports/transport.h"
#include "loop/wakeups.h"

/*
 * Caught up, the loop polls, first after DRAIN_POLL_MIN_NS and each time
 * twice as long; once the next poll would pass DRAIN_POLL_MAX_NS (a quiet
 * spell of about 1.6 ms) it sleeps until the program rings.
 */
#define DRAIN_POLL_MIN_NS 50000LL
#define DRAIN_POLL_MAX_NS 800000LL
/* A busy loop looks for link events (links_fd) this often. */
#define DRAIN_LINKS_CHECK_NS 10000000ULL
/* A busy loop looks at the clock, signals and stdout once per this many events. */
#define DRAIN_BUSY_CHECK_EVENTS 1024

struct fbf_counters;

struct drain {
	/* Set by the caller before drain_open(). */
	enum fbf_transport transport;
	int events_fd;			/* the array of every CPU's event map */
	int spare_fd;			/* ... and the spare (fbf_object.h) */
	int doorbell_fd;		/* the program rings it while reader_asleep is set */
	volatile __u32 *reader_asleep;	/* the program's flag: the reader sleeps */
	int wake_fd;			/* readable once a signal arrived; -1: none */
	int links_fd;			/* interfaces' link events to follow (ifset.h); -1: none */
	__u64 links_due_ns;		/* ... due then even if links_fd is quiet; 0: never */
	struct event_sink *sink;		/* where the events go: the sinks, ages */
	__u64 count;			/* stop after this many events, 0: never */
	__u64 deadline_ns;		/* CLOCK_MONOTONIC, 0: none */
	__u64 stats_interval_ns;	/* running counters this often, 0: never */
	__u64 aggregate_interval_ns;	/* --aggregate: take the counts this often, 0: never */
	volatile sig_atomic_t *stop;	/* set by the signal handler */
	volatile sig_atomic_t *stops;	/* stop signals so far: one more ends the last drain */
	volatile sig_atomic_t *stats;	/* set by SIGUSR1: running counters now */
	volatile sig_atomic_t *reopen;	/* set by SIGHUP with a file output: reopen files */
	__u64 next_stats_ns;		/* when the next running counters are due */
	__u64 next_aggregate_ns;	/* when the next interval's counts are due */
	__u64 watchdog_interval_ns;	/* tell the service manager this often, 0: never */

	/* Results. */
	int pop_err;			/* DRAIN_ERROR: the -errno of the read or the wait */
	bool abandoned;			/* a stop signal cut the last drain short */
	/*
	 * Times the loop found the transport empty: every event sent before a
	 * moment was taken once this has grown past its value at that moment.
	 * Atomic: the link thread reads it (iface/ifset_thread.c).
	 */
	__u64 caught_up;
	/*
	 * The longest the loop went without looking at the transport, waits
	 * for events aside (what it did between: timers, link work), in ns;
	 * an atomic, for the metrics.
	 */
	__u64 gap_max_ns;

	/* The loop's own. */
	struct transport t;
	struct wakeups w;
	long long poll_ns;		/* the next poll's wait; past DRAIN_POLL_MAX_NS: sleep */
	sig_atomic_t stops_before_rest;	/* *stops when the last drain began */
	__u64 next_watchdog_ns;		/* CLOCK_MONOTONIC */
	__u64 next_links_check_ns;	/* CLOCK_MONOTONIC: when a busy loop looks at links_fd */
	__u64 looked_ns;		/* CLOCK_MONOTONIC: the last look, or the end of a wait */
};

enum drain_end {
	DRAIN_SIGNAL,		/* *stop was set */
	DRAIN_DEADLINE,		/* --duration elapsed */
	DRAIN_COUNT,		/* --count events taken */
	DRAIN_STATS,		/* running counters are due: print them and call again */
	DRAIN_AGGREGATE,	/* an interval's counts are due: take them and call again */
	DRAIN_WATCHDOG,		/* the service manager's watchdog is due: tell it, call again */
	DRAIN_OUTPUT_CLOSED,	/* the reader of stdout went away */
	DRAIN_OUTPUT_ERROR,	/* writing to stdout failed otherwise: event_sink_end_err() */
	DRAIN_LINKS,		/* link events, or links_due_ns: follow them and call again */
	DRAIN_ERROR,		/* reading an event failed unexpectedly, see pop_err */
};

/* Set up the transport's reader and the wake-ups. 0 or -errno. */
int drain_open(struct drain *d);

/*
 * Take and print events until one of the reasons to stop, or until running
 * counters, an interval's counts or the watchdog are due.
 */
enum drain_end drain_live(struct drain *d);

/* After the detach, how long to wait for runs of the program still under way. */
#define DRAIN_SETTLE_POLL_NS 1000000ULL
#define DRAIN_SETTLE_POLLS 100

/*
 * Once the program is detached: take what is left until the counters
 * account for every event produced, or DRAIN_SETTLE_POLLS ms have passed,
 * or a stop signal comes (d->abandoned: what is left stays unread, and the
 * counters say how much); *c gets the counters last read. 0, or -errno if
 * the counters cannot be read; a failed read of the events stops it early,
 * with its -errno in *read_err.
 */
int drain_settle(struct drain *d, int counters_fd, struct fbf_counters *c, int *read_err);

/* Safe on one that failed to open, or never did. */
void drain_close(struct drain *d);

#endif /* AGENT_DRAIN_H */
