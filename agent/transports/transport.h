/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Taking events out of the program's event maps, one per CPU: the one thing
 * the two transports do differently. transport_queue.c pops queue maps,
 * transport_ring.c reads ring buffers in place; both go round every CPU's
 * map and put what they take into an event_sink. Waiting, waking and
 * everything else is drain.c's, the same for both.
 */
#ifndef AGENT_TRANSPORT_H
#define AGENT_TRANSPORT_H

#include <linux/types.h>

#include "event_maps.h"
#include "fbf_transport.h"
#include "ring_reader.h"

struct event_sink;

struct transport {
	const struct transport_ops *ops;
	struct fbf_event_maps maps;	/* every CPU's map, then the spare */
	struct event_sink *sink;
	struct ring_reader *rings;	/* the ring buffers': one reader per map */
	unsigned int next;		/* the map the next read starts at */
};

struct transport_ops {
	/* Get ready to read t->maps. 0 or -errno. NULL, as close: nothing to do (a queue). */
	int (*open)(struct transport *t);
	/* Take at most @max events from t->maps.fds[@i] as it is now: how many, or -errno. */
	long (*read_map)(struct transport *t, unsigned int i, __u64 max);
	void (*close)(struct transport *t);
};

extern const struct transport_ops transport_queue_ops;
extern const struct transport_ops transport_ring_ops;

/*
 * Set up @t to read the event maps of @transport, every CPU's in the array
 * @events_fd and @spare_fd, into @sink. 0 or -errno.
 */
int transport_open(struct transport *t, enum fbf_transport transport, int events_fd,
		   int spare_fd, struct event_sink *sink);

/*
 * Take at most @max of the events there now, from every CPU's map in turn:
 * how many, or -errno. Fewer than @max: each map was found empty once.
 */
long transport_read(struct transport *t, __u64 max);

/* Safe on one never opened. */
void transport_close(struct transport *t);

#endif /* AGENT_TRANSPORT_H */
