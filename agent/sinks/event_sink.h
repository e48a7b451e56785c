/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Where every event a transport takes goes: counted, its age sampled for
 * the metrics, printed. Below the transports and the drain loop alike.
 */
#ifndef AGENT_EVENT_SINK_H
#define AGENT_EVENT_SINK_H

#include <linux/types.h>

#include "sinks/output.h"

struct fbf_event;
struct event_ages;

struct event_sink {
	struct output out;
	struct event_ages *ages;	/* each sampled event's age goes here, if not NULL */
	__u64 delivered;		/* events taken so far; read by metrics scrapes */
};

/* Count, sample and print one event. */
void event_sink_deliver(struct event_sink *s, const struct fbf_event *ev);

#endif /* AGENT_EVENT_SINK_H */
