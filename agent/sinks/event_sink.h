/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Where every event a transport takes goes: counted, its age sampled for
 * the metrics, and written into each sink (sink.h): stdout, files, NATS.
 * Below the transports and the drain loop alike; the one thread that
 * drains calls it.
 */
#ifndef AGENT_EVENT_SINK_H
#define AGENT_EVENT_SINK_H

#include <signal.h>
#include <stdbool.h>
#include <linux/types.h>

#include "sinks/sink.h"

struct fbf_event;
struct event_ages;
struct iface_names;

/* --output may be given this many times: a sink each. */
#define EVENT_SINK_MAX 8

struct event_sink {
	struct event_ages *ages;	/* each sampled event's age goes here, if not NULL */
	__u64 delivered;		/* events taken so far; read by metrics scrapes */
	__u64 records;			/* records of its own (intervals) offered to each sink */
	struct sink sinks[EVENT_SINK_MAX];
	unsigned int nr;		/* sinks[] in use */
	char envelope[FORMAT_ENVELOPE_MAX]; /* for lines that leave the host */
	__u64 wall_offset_ns;		/* one timeline for every output: format_wall_offset() */
};

/* @k over the sinks of @s in use, in order. */
#define event_sink_for_each(k, s) \
	for (__typeof__(&(s)->sinks[0]) k = (s)->sinks; k < (s)->sinks + (s)->nr; k++)

/*
 * The envelope of every line that leaves the host: @host and @iface, both
 * already escaped for JSON strings; without @iface (NULL), the host alone,
 * for an agent over several interfaces whose events name their own.
 */
void event_sink_init(struct event_sink *s, const char *host_json, const char *iface_json);

/* Once the outputs are started, several interfaces: each event names its own from @names. */
void event_sink_name_ifaces(struct event_sink *s, const struct iface_names *names);

/* Room for one more sink, to be opened by its kind (output_kind.h), or NULL. */
struct sink *event_sink_add(struct event_sink *s);

/*
 * Start the sink event_sink_add() gave, once its kind opened it: named
 * @kind (and a number from the second of a kind on: "file2"), with JSON
 * lines if @json, in the envelope if @off_host. 0 or -errno.
 */
int event_sink_start(struct event_sink *s, struct sink *k, const char *kind, bool json,
		     bool off_host, size_t buffer_bytes);

/* Count, sample and write one event into every sink. */
void event_sink_deliver(struct event_sink *s, const struct fbf_event *ev);

/* Caught up: hand what each sink holds to its writer. */
void event_sink_flush(struct event_sink *s);

/*
 * One record of the agent's own (an interval) to every sink: @text as text
 * sinks show it, @json_fields, a JSON object's members after its "{" and
 * up to its closing "}\n", which each JSON sink opens with its envelope,
 * and @counts (@counts_len bytes) for sinks that take the counts whole.
 * One NULL: the record could not be made, and the sinks that take that
 * form count it lost.
 */
void event_sink_record(struct event_sink *s, const char *text, const char *json_fields,
		       const struct sink_counts *counts, size_t counts_len);

/* A failure that ends the run (stdout's): its errno, or 0. */
int event_sink_end_err(struct event_sink *s);

/* SIGHUP: every sink that writes a file reopens it. */
void event_sink_reopen(struct event_sink *s);

/* At exit: sink_stop() every sink. */
void event_sink_stop(struct event_sink *s, __u64 deadline_ns, volatile sig_atomic_t *stops,
		     sig_atomic_t stops_then);

/* Records each sink was given: what its delivered and lost add up to once stopped. */
static inline __u64 event_sink_offered(const struct event_sink *s)
{
	return s->delivered + s->records;
}

/* Safe on one never started. */
void event_sink_free(struct event_sink *s);

/* After event_sink_free(): an output's writer is still stuck in a write (a stalled reader). */
bool event_sink_stuck(const struct event_sink *s);

#endif /* AGENT_EVENT_SINK_H */
