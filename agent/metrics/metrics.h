/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Prometheus metrics: GET /metrics in the text exposition format, served by
 * libmicrohttpd on a thread of its own. A scrape reads the per-CPU counters
 * from the kernel and what the drain loop publishes with relaxed atomic
 * stores, so the drain loop never waits for a scraper, nor a scraper for it.
 */
#ifndef AGENT_METRICS_H
#define AGENT_METRICS_H

#include <stdio.h>
#include <linux/types.h>

#include "fizzbuzzfib.h"
#include "iface/ifset.h"
#include "loop/aggregate.h"
#include "sinks/event_sink.h"
#include "sinks/event_ages.h"
#include "metrics/health.h"
#include "metrics/listen_addr.h"

/* What a scrape reads. The pointers stay valid until metrics_stop(). */
struct metrics_source {
	const char *device;
	const char *transport;	/* "queue" or "ringbuf" */
	const char *mode;
	__u32 sample;		/* --sample */
	int counters_fd;
	int prog_fd;
	double start_time_seconds;	/* CLOCK_REALTIME when the agent started */
	double aggregate_interval_s;	/* --aggregate; 0: events */
	const struct aggregate_figures *aggregate; /* its intervals, or NULL */
	const struct event_sink *sinks;	/* the outputs, the events delivered and their ages */
	struct ifset *ifaces;		/* several interfaces: their shares; or NULL */
	struct health *health;		/* /healthz and /readyz, and their gauges */
	const __u64 *drain_gap_max_ns;	/* the drain loop's longest gap (drain.h), atomic */
};

/* Everything one scrape reports, read at the time of the scrape. */
struct metrics_snapshot {
	const struct metrics_source *src;	/* its device, transport, mode and options */
	const char *version;
	struct fbf_counters counters;
	__u64 delivered;
	struct event_ages ages;
	struct aggregate_figures aggregate;	/* its last interval; all 0 without it */
	struct metrics_sink {		/* each output's records: written whole, or lost */
		const char *name;	/* "stdout", "file", "nats", ... */
		__u64 delivered;
		__u64 lost;
		int write_err;		/* its last write's errno; 0: it wrote */
	} sinks[EVENT_SINK_MAX];
	unsigned int nr_sinks;
	struct ifset_share *shares;	/* several interfaces: each one's, the gone last */
	int nr_shares;
	unsigned int unattached;	/* interfaces selected here without the program */
	double round_time_seconds;	/* the drain loop's last round, since the epoch */
	__u64 run_time_ns;	/* BPF run-time statistics: both 0 while they are off */
	__u64 run_cnt;
	__u64 drain_gap_max_ns;	/* the drain loop's longest gap so far */
	struct process_figures {	/* the agent process, as exporters report it */
		double cpu_seconds;	/* user + system */
		__u64 resident_bytes;
		__u64 virtual_bytes;
		__u64 open_fds;
		__u64 max_fds;
		double start_time_seconds; /* since the epoch */
	} process;
};

/* This process's figures now, beside @start_time_seconds; 0 for what cannot be read. */
void process_figures_read(struct process_figures *p, double start_time_seconds);

/* The exposition of @s, Prometheus text format 0.0.4. */
void metrics_format(FILE *out, const struct metrics_snapshot *s);

struct metrics_server;

/*
 * Bind and listen on @text ("ADDR:PORT", accepted by parse_listen_addr()), before
 * the agent attaches anything. Returns the socket, or -1 after one line on
 * stderr saying why (a port in use, an address not on this host).
 */
int metrics_listen(const char *text);

/*
 * Serve @src on @listen_fd, which the server then owns. NULL after one line
 * on stderr, the socket perhaps left open for the agent's exit to close.
 */
struct metrics_server *metrics_serve(int listen_fd, const char *text,
				     const struct metrics_source *src);

void metrics_stop(struct metrics_server *srv);

#endif /* AGENT_METRICS_H */
