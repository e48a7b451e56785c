// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A ring buffer is read in place, no syscall per event, and given back to
 * the program once per read of it (ring_reader.h): one store to its
 * consumer position per batch, not per event. An empty ring costs one load
 * of its producer position.
 */
#include <errno.h>
#include <stdlib.h>

#include "sinks/event_sink.h"
#include "transports/transport.h"

static void ring_close(struct transport *t)
{
	for (unsigned int i = 0; t->rings && i < t->maps.nr; i++)
		ring_reader_close(&t->rings[i]);
	free(t->rings);
	t->rings = NULL;
}

static int ring_open(struct transport *t)
{
	int err = 0;

	t->rings = calloc(t->maps.nr, sizeof(*t->rings));
	if (!t->rings)
		return -ENOMEM;
	for (unsigned int i = 0; i < t->maps.nr && !err; i++)
		err = ring_reader_open(&t->rings[i], t->maps.fds[i]);
	if (err)
		ring_close(t);
	return err;
}

static long ring_read_map(struct transport *t, unsigned int i, __u64 max)
{
	struct ring_reader *r = &t->rings[i];
	const void *ev;
	long n = 0;
	__u32 len;

	/* The program submits whole events only. */
	while ((__u64)n < max && (ev = ring_reader_next(r, &len))) {
		event_sink_deliver(t->sink, ev);
		n++;
	}
	ring_reader_release(r);
	return n;
}

const struct transport_ops transport_ring_ops = {
	.open = ring_open,
	.read_map = ring_read_map,
	.close = ring_close,
};
