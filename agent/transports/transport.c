// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Choosing the transport's reader: see transport.h. */
#include "transports/transport.h"

int transport_open(struct transport *t, enum fbf_transport transport, int events_fd,
		   struct event_sink *sink)
{
	const struct transport_ops *ops = transport == FBF_TRANSPORT_RINGBUF ?
					  &transport_ring_ops : &transport_queue_ops;
	int err;

	t->events_fd = events_fd;
	t->sink = sink;
	err = ops->open(t);
	/* Set once open, so that a failed open leaves nothing to read or close. */
	t->ops = err ? NULL : ops;
	return err;
}

void transport_close(struct transport *t)
{
	if (t->ops)
		t->ops->close(t);
	t->ops = NULL;
}
