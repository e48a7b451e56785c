// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* What is done with each event taken: see event_sink.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fizzbuzzfib.h"
#include "sinks/event_ages.h"
#include "sinks/event_sink.h"
#include "userspace_util.h"

void event_sink_init(struct event_sink *s, const char *host_json, const char *iface_json)
{
	memset(s, 0, sizeof(*s));
	/* Once: the same event has the same time in every output. */
	s->wall_offset_ns = format_wall_offset();
	if (iface_json)
		snprintf(s->envelope, sizeof(s->envelope), "{\"host\":\"%s\",\"iface\":\"%s\"",
			 host_json, iface_json);
	else
		snprintf(s->envelope, sizeof(s->envelope), "{\"host\":\"%s\"", host_json);
}

void event_sink_name_ifaces(struct event_sink *s, const struct iface_names *names)
{
	unsigned int i;

	for (i = 0; i < s->nr; i++)
		s->sinks[i].fmt.ifaces = names;
}

struct sink *event_sink_add(struct event_sink *s)
{
	return s->nr == EVENT_SINK_MAX ? NULL : &s->sinks[s->nr];
}

int event_sink_start(struct event_sink *s, struct sink *k, const char *kind, bool json,
		     bool off_host, size_t buffer_bytes)
{
	unsigned int same = 1;

	event_sink_for_each(o, s)
		same += !strncmp(o->name, kind, strlen(kind));
	if (same == 1)
		snprintf(k->name, sizeof(k->name), "%s", kind);
	else
		snprintf(k->name, sizeof(k->name), "%s%u", kind, same);
	format_init(&k->fmt, json, off_host ? s->envelope : NULL, s->wall_offset_ns);
	/* Counted in, started or not, so that event_sink_free() frees what it started. */
	s->nr++;
	return sink_start(k, buffer_bytes);
}

void event_sink_deliver(struct event_sink *s, const struct fbf_event *ev)
{
	__u64 seq = s->delivered + 1;
	char *p;

	/* One writer: a relaxed store is what a scrape on another thread needs. */
	__atomic_store_n(&s->delivered, seq, __ATOMIC_RELAXED);
	/*
	 * The stamped events only (FBF_STAMP_EVERY): 1 in 64 at most under load,
	 * and a clock read for every event cost 5-9% of the drain rate.
	 */
	if (s->ages && ev->ktime_ns)
		event_ages_observe(s->ages, fbf_monotonic_ns() - ev->ktime_ns);
	event_sink_for_each(k, s) {
		p = sink_reserve(k, FORMAT_EVENT_MAX + k->fmt.envelope_len + 32);
		if (p)
			sink_commit_event(k, format_event(&k->fmt, ev, seq, p), seq);
#ifdef FBF_CANARY_AGENT
		/* The agent canary (make CANARY=agent): one write per event. Never shipped. */
		sink_flush(k);
#endif
	}
}

void event_sink_flush(struct event_sink *s)
{
	event_sink_for_each(k, s)
		sink_flush(k);
}

void event_sink_record(struct event_sink *s, const char *text, const char *json_fields,
		       const struct sink_counts *counts, size_t counts_len)
{
	size_t text_len = text ? strlen(text) : 0, json_len = json_fields ? strlen(json_fields) : 0;
	char *buf = NULL;
	size_t n;

	if (text && json_fields)
		buf = malloc((text_len > json_len ? text_len : json_len) + FORMAT_ENVELOPE_MAX + 2);

	s->records++;
	event_sink_for_each(k, s) {
		if (k->takes_counts) {
			sink_record(k, (const char *)counts, counts_len);
			continue;
		}
		if (!buf) {
			/* Nothing to copy it into: each sink counts it lost. */
			sink_record(k, NULL, 0);
			continue;
		}
		if (k->fmt.json) {
			n = format_open_object(&k->fmt, buf);
			memcpy(buf + n, json_fields, json_len);
			n += json_len;
		} else {
			memcpy(buf, text, text_len);
			n = text_len;
		}
		sink_record(k, buf, n);
	}
	free(buf);
}

int event_sink_end_err(struct event_sink *s)
{
	int err = 0;

	event_sink_for_each(k, s)
		if (!err)
			err = sink_end_err(k);
	return err;
}

void event_sink_reopen(struct event_sink *s)
{
	event_sink_for_each(k, s)
		sink_request_reopen(k);
}

void event_sink_stop(struct event_sink *s, __u64 deadline_ns, volatile sig_atomic_t *stops,
		     sig_atomic_t stops_then)
{
	/* Every sink's writer at once: they wait on their own outputs, not on each other. */
	event_sink_flush(s);
	event_sink_for_each(k, s)
		sink_stop(k, deadline_ns, stops, stops_then);
}

void event_sink_free(struct event_sink *s)
{
	event_sink_for_each(k, s)
		sink_free(k);
}

bool event_sink_stuck(const struct event_sink *s)
{
	event_sink_for_each(k, s)
		if (k->thread_started)
			return true;
	return false;
}
