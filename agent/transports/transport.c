// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "transports/transport.h"

int transport_open(struct transport *t, enum fbf_transport transport, int events_fd,
		   int spare_fd, struct event_sink *sink)
{
	const struct transport_ops *ops = transport == FBF_TRANSPORT_RINGBUF ?
					  &transport_ring_ops : &transport_queue_ops;
	int err;

	/* No ops until open, so that a failed open leaves nothing to read or close. */
	*t = (struct transport){ .sink = sink };
	err = fbf_event_maps_open(&t->maps, events_fd, spare_fd);
	if (!err && ops->open)
		err = ops->open(t);
	if (err)
		fbf_event_maps_close(&t->maps);
	else
		t->ops = ops;
	return err;
}

/*
 * From where the last read left off: the map after the last one read, full
 * or not, so that one busy CPU cannot keep the reader from the others.
 */
long transport_read(struct transport *t, __u64 max)
{
	unsigned int looked, nr = t->maps.nr;
	long n = 0, got;

	for (looked = 0; looked < nr && (__u64)n < max; looked++) {
		got = t->ops->read_map(t, t->next, max - n);
		if (got < 0)
			return got;
		n += got;
		t->next = t->next + 1 < nr ? t->next + 1 : 0;
	}
	return n;
}

void transport_close(struct transport *t)
{
	if (t->ops) {
		if (t->ops->close)
			t->ops->close(t);
		fbf_event_maps_close(&t->maps);
	}
	t->ops = NULL;
}
