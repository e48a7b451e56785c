/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Emptying the event queue: the live loop, the final drain, and event output. */
#ifndef AGENT_DRAIN_H
#define AGENT_DRAIN_H

#include <signal.h>
#include <stdbool.h>
#include <linux/types.h>

/* Idle back-off: the first sleep after the queue runs empty, and the longest. */
#define DRAIN_SLEEP_MIN_NS 50000ULL
#define DRAIN_SLEEP_MAX_NS 10000000ULL

struct ifwatch;
struct event_ages;

struct drain {
	int events_fd;
	struct ifwatch *watch;		/* the interface and the program on it, once a second */
	bool json;
	bool quiet;
	__u64 count;			/* stop after this many events, 0: never */
	__u64 deadline_ns;		/* CLOCK_MONOTONIC, 0: none */
	__u64 stats_interval_ns;	/* running counters this often, 0: never */
	volatile sig_atomic_t *stop;	/* set by the signal handler */
	volatile sig_atomic_t *stats;	/* set by SIGUSR1: running counters now */
	__u64 next_stats_ns;		/* when the next running counters are due */
	__u64 wall_offset_ns;		/* CLOCK_REALTIME - CLOCK_MONOTONIC, taken once */
	long long wall_cached_secs;	/* the second wall_cached shows */
	char wall_cached[24];		/* "YYYY-MM-DDTHH:MM:SS" of that second */
	struct event_ages *ages;	/* each event's age goes here, if not NULL */
	__u64 delivered;		/* events popped so far; read by metrics scrapes */
	int pop_err;			/* DRAIN_ERROR: the -errno of the pop */
	int out_err;			/* errno of the first failed write to stdout */
};

enum drain_end {
	DRAIN_SIGNAL,		/* *stop was set */
	DRAIN_DEADLINE,		/* --duration elapsed */
	DRAIN_COUNT,		/* --count events popped */
	DRAIN_STATS,		/* running counters are due: print them and call again */
	DRAIN_OUTPUT_CLOSED,	/* the reader of stdout went away */
	DRAIN_OUTPUT_ERROR,	/* writing to stdout failed otherwise, see out_err */
	DRAIN_IFACE_GONE,	/* the interface no longer exists */
	DRAIN_IFACE_MOVED,	/* the interface went to another network namespace */
	DRAIN_PROG_REPLACED,	/* someone replaced or removed the program */
	DRAIN_ERROR,		/* a pop failed unexpectedly, see pop_err */
};

__u64 monotonic_ns(void);

/* CLOCK_REALTIME minus CLOCK_MONOTONIC, now: add it to an event's ktime_ns for UTC. */
__u64 wall_offset_ns(void);

/* Pop and print until one of the reasons to stop, or until running counters are due. */
enum drain_end drain_live(struct drain *d);

/* Pop and print what is left, without waiting. Returns 0 or -errno of a failed pop. */
int drain_rest(struct drain *d);

#endif /* AGENT_DRAIN_H */
