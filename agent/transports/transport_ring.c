// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A ring buffer is read in place, no syscall per event, and given back to
 * the program once per read (ring_reader.h).
 */
#include "sinks/event_sink.h"
#include "transports/transport.h"

static int ring_open(struct transport *t)
{
	return ring_reader_open(&t->ring, t->events_fd);
}

static long ring_read(struct transport *t, __u64 max)
{
	const void *ev;
	long n = 0;
	__u32 len;

	/* The program submits whole events only. */
	while ((__u64)n < max && (ev = ring_reader_next(&t->ring, &len))) {
		event_sink_deliver(t->sink, ev);
		n++;
	}
	ring_reader_release(&t->ring);
	return n;
}

static void ring_close(struct transport *t)
{
	ring_reader_close(&t->ring);
}

const struct transport_ops transport_ring_ops = {
	.open = ring_open,
	.read = ring_read,
	.close = ring_close,
};
