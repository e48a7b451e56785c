/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Taking events out of the program's event map: the one thing the two
 * transports do differently. transport_queue.c pops a queue map,
 * transport_ring.c reads a ring buffer in place; both put what they take
 * into an event_sink. Waiting, waking and everything else is drain.c's, the
 * same for both.
 */
#ifndef AGENT_TRANSPORT_H
#define AGENT_TRANSPORT_H

#include <linux/types.h>

#include "fbf_transport.h"
#include "ring_reader.h"

struct event_sink;

struct transport {
	const struct transport_ops *ops;
	int events_fd;
	struct event_sink *sink;
	struct ring_reader ring;	/* the ring buffer's only */
};

struct transport_ops {
	/* Get ready to read t->events_fd. 0 or -errno. */
	int (*open)(struct transport *t);
	/* Take at most @max of the events there now: how many, or -errno. */
	long (*read)(struct transport *t, __u64 max);
	void (*close)(struct transport *t);
};

extern const struct transport_ops transport_queue_ops;
extern const struct transport_ops transport_ring_ops;

/* Set up @t to read @events_fd of @transport into @sink. 0 or -errno. */
int transport_open(struct transport *t, enum fbf_transport transport, int events_fd,
		   struct event_sink *sink);

/* Take at most @max of the events there now: how many, or -errno. */
static inline long transport_read(struct transport *t, __u64 max)
{
	return t->ops->read(t, max);
}

/* Safe on one never opened. */
void transport_close(struct transport *t);

#endif /* AGENT_TRANSPORT_H */
